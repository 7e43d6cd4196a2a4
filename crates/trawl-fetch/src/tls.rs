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

/// How many TLS sessions are kept for resumption, one per server name: rustls keeps 256 by default, fewer
/// than the hosts a broad crawl has in rotation, so a reconnect would make a full handshake again (a
/// certificate chain sent and its signatures checked). A session is a few hundred bytes.
const RESUMABLE_SESSIONS: usize = 8192;

/// Builds the client config: ring provider, webpki roots, the accept-all verifier, and a session cache sized
/// for a broad crawl.
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
    let mut config = config;
    config.resumption = rustls::client::Resumption::in_memory_sessions(RESUMABLE_SESSIONS);
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
        .map(|e| in_words(&e))
}

/// What a failed handshake likely means, for the operator, after the error's own words ("" when nothing
/// more can be said).
pub(crate) fn likely_cause(error: &std::io::Error) -> &'static str {
    use rustls::{AlertDescription as A, Error as E};
    if error.kind() == std::io::ErrorKind::UnexpectedEof {
        return " (the server closed the connection during the handshake)";
    }
    match error.get_ref().and_then(|e| e.downcast_ref::<E>()) {
        Some(E::AlertReceived(A::ProtocolVersion) | E::PeerIncompatible(_)) => {
            " (the server speaks no TLS version trawl offers: TLS 1.2 and 1.3; an old server speaking only \
             TLS 1.0 or 1.1 cannot be fetched over https)"
        }
        Some(E::AlertReceived(A::HandshakeFailure)) => {
            " (the server and trawl have no TLS version or cipher suite in common)"
        }
        Some(E::InvalidMessage(_)) => {
            " (what the server sent is not TLS: the port may speak plain HTTP; try the http:// URL)"
        }
        _ => "",
    }
}

/// A certificate's problem as an operator reads it (xt17a F12: rustls' `Other(OtherError(CaUsedAsEndEntity))`).
fn in_words(e: &rustls::Error) -> String {
    use rustls::CertificateError as C;
    let rustls::Error::InvalidCertificate(problem) = e else {
        return e.to_string();
    };
    let words = match problem {
        C::UnknownIssuer => "issued by an authority this machine does not trust (unknown issuer)",
        C::Expired | C::ExpiredContext { .. } => "expired",
        C::NotValidYet | C::NotValidYetContext { .. } => "not valid yet",
        C::NotValidForName | C::NotValidForNameContext { .. } => {
            return format!("not valid for this host name ({e})");
        }
        C::Revoked => "revoked",
        C::BadSignature => "its signature does not verify",
        C::BadEncoding => "cannot be read (bad encoding)",
        C::Other(other) if format!("{other:?}").contains("CaUsedAsEndEntity") => {
            "an authority's certificate: the server shows a certificate marked as a CA as its own (a CA used as an \
             end entity, as a self-signed certificate made with CA:TRUE is)"
        }
        _ => return e.to_string(),
    };
    words.to_owned()
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

#[cfg(test)]
mod tests {
    use rustls::{ClientConnection, ServerConnection, client::Resumption};

    use super::*;

    /// A certificate's problem is said in words, not as rustls' debug text (xt17a F12).
    #[test]
    fn certificate_problems_in_words() {
        use rustls::{CertificateError, Error, OtherError};
        #[derive(Debug)]
        struct CaUsedAsEndEntity;
        impl std::fmt::Display for CaUsedAsEndEntity {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("CaUsedAsEndEntity")
            }
        }
        impl std::error::Error for CaUsedAsEndEntity {}
        let said = |c| in_words(&Error::InvalidCertificate(c));
        assert!(said(CertificateError::UnknownIssuer).contains("does not trust"));
        assert_eq!(said(CertificateError::Expired), "expired");
        let own = said(CertificateError::Other(OtherError(Arc::new(
            CaUsedAsEndEntity,
        ))));
        assert!(
            own.starts_with("an authority's certificate") && !own.contains("OtherError"),
            "{own}"
        );
        assert_eq!(
            in_words(&Error::General("x".into())),
            Error::General("x".into()).to_string()
        );
    }

    fn server_config() -> Arc<rustls::ServerConfig> {
        let cert = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
        let key =
            rustls::pki_types::PrivateKeyDer::try_from(cert.signing_key.serialize_der()).unwrap();
        let config = rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![cert.cert.der().clone()], key)
        .unwrap();
        let mut config = config;
        // Room on the server's side for every session the tests make.
        config.session_storage = rustls::server::ServerSessionMemoryCache::new(4096);
        Arc::new(config)
    }

    /// One handshake in memory, the server's session tickets read by the client; how it went.
    fn handshake(
        client: &Arc<rustls::ClientConfig>,
        server: &Arc<rustls::ServerConfig>,
        name: &str,
    ) -> rustls::HandshakeKind {
        let name = ServerName::try_from(name.to_owned()).unwrap();
        let mut c = ClientConnection::new(client.clone(), name).unwrap();
        let mut s = ServerConnection::new(server.clone()).unwrap();
        let mut wire = Vec::new();
        for _ in 0..10 {
            while c.wants_write() {
                c.write_tls(&mut wire).unwrap();
            }
            s.read_tls(&mut &wire[..]).unwrap();
            wire.clear();
            s.process_new_packets().unwrap();
            while s.wants_write() {
                s.write_tls(&mut wire).unwrap();
            }
            c.read_tls(&mut &wire[..]).unwrap();
            wire.clear();
            c.process_new_packets().unwrap();
        }
        assert!(!c.is_handshaking());
        c.handshake_kind().unwrap()
    }

    #[test]
    fn a_reconnect_resumes_its_session() {
        let (client, _) = client_config();
        let server = server_config();
        assert_eq!(
            handshake(&client, &server, "localhost"),
            rustls::HandshakeKind::Full
        );
        assert_eq!(
            handshake(&client, &server, "localhost"),
            rustls::HandshakeKind::Resumed
        );
        // Another name has no session of its own.
        assert_eq!(
            handshake(&client, &server, "other.test"),
            rustls::HandshakeKind::Full
        );
    }

    #[test]
    fn sessions_are_kept_for_many_hosts() {
        // rustls's default (256) would have forgotten the first of these names.
        let (client, _) = client_config();
        let server = server_config();
        let names: Vec<String> = (0..300).map(|i| format!("h{i}.test")).collect();
        for name in &names {
            handshake(&client, &server, name);
        }
        assert_eq!(
            handshake(&client, &server, &names[0]),
            rustls::HandshakeKind::Resumed
        );
        let mut small = (*client).clone();
        small.resumption = Resumption::in_memory_sessions(256);
        let small = Arc::new(small);
        for name in &names {
            handshake(&small, &server, name);
        }
        assert_eq!(
            handshake(&small, &server, &names[0]),
            rustls::HandshakeKind::Full
        );
    }
}
