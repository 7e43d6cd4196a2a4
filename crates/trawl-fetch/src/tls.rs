//! TLS for archival crawls: every certificate is accepted, and whether it would have passed is recorded.

use std::sync::Arc;

use rustls::{
    DigitallySignedStruct, SignatureScheme,
    client::{
        WebPkiServerVerifier,
        danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier},
    },
    crypto::{CryptoProvider, verify_tls12_signature, verify_tls13_signature},
    pki_types::{CertificateDer, ServerName, UnixTime},
};

/// Builds the client config: ring provider, webpki roots, and the accept-all verifier.
pub(crate) fn client_config() -> (Arc<rustls::ClientConfig>, Arc<WebPkiServerVerifier>) {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let roots = Arc::new(rustls::RootCertStore::from_iter(
        webpki_roots::TLS_SERVER_ROOTS.iter().cloned(),
    ));
    let strict = WebPkiServerVerifier::builder_with_provider(roots, provider.clone())
        .build()
        .expect("the bundled roots are valid");
    let config = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .expect("ring supports the default versions")
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(AcceptAnyCert { provider }))
        .with_no_client_auth();
    (Arc::new(config), strict)
}

/// Checks a handshake's certificates against the web PKI after the fact; `Some(reason)` when they fail.
pub(crate) fn judge(
    strict: &WebPkiServerVerifier,
    certs: &[CertificateDer<'_>],
    name: &ServerName<'_>,
) -> Option<String> {
    let Some((end, rest)) = certs.split_first() else {
        return Some("no certificate".into());
    };
    strict
        .verify_server_cert(end, rest, name, &[], UnixTime::now())
        .err()
        .map(|e| e.to_string())
}

/// Accepts any certificate chain but still checks handshake signatures, so the peer holds the key it shows.
#[derive(Debug)]
struct AcceptAnyCert {
    provider: Arc<CryptoProvider>,
}

impl ServerCertVerifier for AcceptAnyCert {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}
