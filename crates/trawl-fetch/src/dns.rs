//! Name resolution with a TTL-aware cache (hickory's), IP literals short-circuited.

use std::{
    collections::HashMap,
    net::{IpAddr, SocketAddr},
    sync::{Arc, Mutex, PoisonError},
    time::Instant,
};

use chrono::{DateTime, Utc};
use hickory_resolver::{
    ResolveError, TokioResolver,
    config::{NameServerConfig, ResolverConfig, ResolverOpts},
    lookup::Lookup,
    name_server::TokioConnectionProvider,
    proto::{ProtoErrorKind, rr::RData, xfer::Protocol},
};
use url::{Host, Url};

/// Names the resolver caches (each for its TTL): enough for the hosts a broad crawl has in rotation.
const CACHE_NAMES: usize = 65_536;

/// A lookup's answer, archived as a `dns:` record (once per host per TTL), as Heritrix archives them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DnsAnswer {
    /// The host looked up.
    pub host: String,
    /// When.
    pub at: DateTime<Utc>,
    /// `(name, ttl, address)` of each A / AAAA record.
    pub records: Vec<(String, u32, IpAddr)>,
}

impl DnsAnswer {
    /// The record block: the lookup's time, then the answers in zone-file form (Heritrix's `text/dns`).
    pub fn zone_text(&self) -> String {
        let mut out = format!("{}\n", self.at.format("%Y%m%d%H%M%S"));
        for (name, ttl, ip) in &self.records {
            let kind = if ip.is_ipv4() { "A" } else { "AAAA" };
            out.push_str(&format!("{name}\t{ttl}\tIN\t{kind}\t{ip}\n"));
        }
        out
    }
}

/// Resolves host names to addresses.
#[derive(Debug, Clone)]
pub(crate) struct Dns {
    resolver: TokioResolver,
    /// Until when each host's last archived answer holds (its TTL).
    archived: Arc<Mutex<HashMap<String, Instant>>>,
    /// Answers not yet archived, by host: each is archived with a fetch of its own host, so its crawl.log
    /// line names that fetch as the one that asked.
    fresh: Arc<Mutex<HashMap<String, DnsAnswer>>>,
}

impl Dns {
    /// The name servers `servers` (`[fetch] dns_servers`), or else the system's resolver configuration (and
    /// hosts file), or an empty one when the system has none.
    pub(crate) fn new(servers: &[SocketAddr]) -> Dns {
        let mut builder = if !servers.is_empty() {
            let mut config = ResolverConfig::new();
            for s in servers {
                config.add_name_server(NameServerConfig::new(*s, Protocol::Udp));
            }
            TokioResolver::builder_with_config(config, TokioConnectionProvider::default())
        } else {
            match TokioResolver::builder_tokio() {
                Ok(builder) => builder,
                Err(_) => {
                    let mut builder = TokioResolver::builder_with_config(
                        ResolverConfig::new(),
                        TokioConnectionProvider::default(),
                    );
                    *builder.options_mut() = ResolverOpts::default();
                    builder
                }
            }
        };
        // hickory keeps 32 names by default: a broad crawl asked the name server again for nearly every new
        // connection (bench/broad at 10,000 hosts: 51,309 queries for 9,683 hosts).
        builder.options_mut().cache_size = CACHE_NAMES;
        // With trawl's own name servers, a query whose reply was lost is asked again after 2 s, not 5
        // (hickory's default; twice that for a second loss): one dropped UDP datagram held a host back 10 s
        // in bench/broad. The system's configuration keeps its own (resolv.conf `options timeout:`).
        if !servers.is_empty() {
            builder.options_mut().timeout = std::time::Duration::from_secs(2);
            builder.options_mut().attempts = 2;
        }
        let resolver = builder.build();
        Dns {
            resolver,
            archived: Arc::default(),
            fresh: Arc::default(),
        }
    }

    /// The answer for `host` looked up since the last call, to be archived.
    pub(crate) fn take_answer(&self, host: &str) -> Option<DnsAnswer> {
        self.fresh
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(host)
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
                let lookup = self.addresses(name).await?;
                self.note_answer(name, &lookup);
                lookup
                    .record_iter()
                    .find_map(|r| match r.data() {
                        RData::A(a) => Some(IpAddr::V4(a.0)),
                        RData::AAAA(a) => Some(IpAddr::V6(a.0)),
                        _ => None,
                    })
                    .ok_or_else(|| DnsError::NoAddress(name.to_owned()))
            }
            None => Err(DnsError::NoHost),
        }
    }
}

impl Dns {
    /// The A records of `name`, else its AAAA records: hickory's `lookup_ip` (`Ipv4thenIpv6`), asked one
    /// query at a time so that a query that could not get its socket is said as trawl's shortage whichever
    /// it was. `lookup_ip` reports the last failure only: an A query short of a socket hid behind the AAAA
    /// query's "no records", or behind its answer, an IPv6 address a machine without IPv6 routes cannot
    /// reach (review R6).
    async fn addresses(&self, name: &str) -> Result<Lookup, DnsError> {
        let v4 = match self.resolver.ipv4_lookup(name).await {
            Ok(v4) => return Ok(v4.as_lookup().clone()),
            Err(e) => e,
        };
        if let Some(words) = shortage(&v4) {
            return Err(DnsError::Shortage(words));
        }
        match self.resolver.ipv6_lookup(name).await {
            Ok(v6) => Ok(v6.as_lookup().clone()),
            Err(v6) => Err(match shortage(&v6) {
                Some(words) => DnsError::Shortage(words),
                // The A query's own failure (a timeout, SERVFAIL) says more than the AAAA query's "no
                // records"; "no records" for both is the AAAA query's.
                None if !no_records(&v4) => DnsError::Lookup(v4.to_string()),
                None => DnsError::Lookup(v6.to_string()),
            }),
        }
    }

    /// Keeps the answer for the archive unless this host's last archived one still holds.
    fn note_answer(&self, host: &str, lookup: &Lookup) {
        let now = Instant::now();
        {
            let mut archived = self.archived.lock().unwrap_or_else(PoisonError::into_inner);
            if archived.get(host).is_some_and(|until| *until > now) {
                return;
            }
            archived.insert(host.to_owned(), lookup.valid_until());
        }
        let records = lookup
            .records()
            .iter()
            .filter_map(|r| {
                let ip = match r.data() {
                    RData::A(a) => IpAddr::V4(a.0),
                    RData::AAAA(a) => IpAddr::V6(a.0),
                    _ => return None,
                };
                Some((r.name().to_string(), r.ttl(), ip))
            })
            .collect();
        self.fresh
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(
                host.to_owned(),
                DnsAnswer {
                    host: host.to_owned(),
                    at: Utc::now(),
                    records,
                },
            );
    }
}

/// The machine's own shortage behind a failed lookup, in words, if that is what it was: the query's socket
/// could not be made (too many open files, no buffer space, out of memory).
fn shortage(e: &ResolveError) -> Option<String> {
    match e.proto()?.kind() {
        ProtoErrorKind::Io(io) if super::descriptors::is_shortage(io) => {
            Some(super::descriptors::shortage_words(io))
        }
        _ => None,
    }
}

/// Whether a failed lookup was answered "no such records" (NXDOMAIN, or none of the type).
fn no_records(e: &ResolveError) -> bool {
    e.proto()
        .is_some_and(|p| matches!(p.kind(), ProtoErrorKind::NoRecordsFound { .. }))
}

/// Why a host has no address to connect to.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum DnsError {
    /// The resolver's own message (no such name, server failure, timeout).
    #[error("{0}")]
    Lookup(String),
    /// The query's socket could not be made for want of the machine's resources (the words say which):
    /// trawl's shortage, not the host's failure.
    #[error("{0}")]
    Shortage(String),
    /// The name resolved to no address.
    #[error("no address for {0}")]
    NoAddress(String),
    /// The URL names no host.
    #[error("URL has no host")]
    NoHost,
}
