//! Name resolution with a TTL-aware cache (hickory's), IP literals short-circuited.

use std::net::IpAddr;

use hickory_resolver::{
    TokioResolver,
    config::{ResolverConfig, ResolverOpts},
    name_server::TokioConnectionProvider,
};
use url::{Host, Url};

/// Resolves host names to addresses.
#[derive(Debug, Clone)]
pub(crate) struct Dns {
    resolver: TokioResolver,
}

impl Dns {
    /// The system's resolver configuration (and hosts file), or an empty one when the system has none.
    pub(crate) fn new() -> Dns {
        let resolver = match TokioResolver::builder_tokio() {
            Ok(builder) => builder.build(),
            Err(_) => {
                let mut builder = TokioResolver::builder_with_config(
                    ResolverConfig::new(),
                    TokioConnectionProvider::default(),
                );
                *builder.options_mut() = ResolverOpts::default();
                builder.build()
            }
        };
        Dns { resolver }
    }

    /// The address to connect to for `url`'s host.
    pub(crate) async fn resolve(&self, url: &Url) -> Result<IpAddr, DnsError> {
        match url.host() {
            Some(Host::Ipv4(ip)) => Ok(IpAddr::V4(ip)),
            Some(Host::Ipv6(ip)) => Ok(IpAddr::V6(ip)),
            Some(Host::Domain(name)) => {
                if name.eq_ignore_ascii_case("localhost") {
                    return Ok(IpAddr::from([127, 0, 0, 1]));
                }
                let lookup = self
                    .resolver
                    .lookup_ip(name)
                    .await
                    .map_err(|e| DnsError::Lookup(e.to_string()))?;
                lookup
                    .iter()
                    .next()
                    .ok_or_else(|| DnsError::NoAddress(name.to_owned()))
            }
            None => Err(DnsError::NoHost),
        }
    }
}

/// Why a host has no address to connect to.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum DnsError {
    /// The resolver's own message (no such name, server failure, timeout).
    #[error("{0}")]
    Lookup(String),
    /// The name resolved to no address.
    #[error("no address for {0}")]
    NoAddress(String),
    /// The URL names no host.
    #[error("URL has no host")]
    NoHost,
}
