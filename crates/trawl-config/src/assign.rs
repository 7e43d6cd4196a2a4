//! Queue assignment: which politeness queue a URI waits in.

use std::{
    collections::HashMap,
    net::{IpAddr, ToSocketAddrs},
    sync::{Mutex, PoisonError},
};

use serde::{Deserialize, Serialize};
use trawl_url::{Url, surt};
use xxhash_rust::xxh3::xxh3_64;

/// How URIs are grouped into politeness queues.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum QueueAssignment {
    /// One queue per host and port (the SURT authority, `org,example,www,:8080`). Default.
    #[default]
    Host,
    /// One queue per registered domain (public suffix list): `a.example.co.uk` and `b.example.co.uk` share.
    Domain,
    /// One queue per IP address: several hosts on one server share a queue.
    Ip,
}

/// Computes queue keys; remembers host addresses for the `ip` policy.
#[derive(Debug)]
pub struct QueueAssigner {
    policy: QueueAssignment,
    parallel: u32,
    addresses: Mutex<HashMap<String, Option<IpAddr>>>,
}

impl QueueAssigner {
    /// Keys by `policy`; with `parallel_queues` above 1, each such queue is split in that many by URL hash,
    /// so one big host is fetched over several connections while each stays polite.
    pub fn new(policy: QueueAssignment, parallel_queues: u32) -> QueueAssigner {
        QueueAssigner {
            policy,
            parallel: parallel_queues.max(1),
            addresses: Mutex::new(HashMap::new()),
        }
    }

    /// The queue key of `url`.
    pub fn key(&self, url: &Url) -> String {
        let base = match self.policy {
            QueueAssignment::Host => surt::authority(url),
            QueueAssignment::Domain => registered_domain(url),
            QueueAssignment::Ip => self.ip_key(url),
        };
        if self.parallel > 1 {
            format!(
                "{base}#{}",
                xxh3_64(url.as_str().as_bytes()) % u64::from(self.parallel)
            )
        } else {
            base
        }
    }

    fn ip_key(&self, url: &Url) -> String {
        let host = url.host_str().unwrap_or_default().to_string();
        let known = self
            .addresses
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&host)
            .copied();
        let ip = match known {
            Some(ip) => ip,
            None => {
                // The system resolver, once per host; the fetcher resolves again (with its TTL cache) at
                // connect time, where the address policy is enforced.
                let port = url.port_or_known_default().unwrap_or(80);
                let ip = match url.host() {
                    Some(url::Host::Ipv4(v4)) => Some(IpAddr::V4(v4)),
                    Some(url::Host::Ipv6(v6)) => Some(IpAddr::V6(v6)),
                    _ => (host.as_str(), port)
                        .to_socket_addrs()
                        .ok()
                        .and_then(|mut a| a.next())
                        .map(|a| a.ip()),
                };
                self.addresses
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .insert(host.clone(), ip);
                ip
            }
        };
        // Unresolvable hosts keep a queue of their own (their fetch will fail with a DNS status).
        ip.map_or_else(|| surt::authority(url), |ip| ip.to_string())
    }
}

/// `co,example,` for `www.example.co`; the SURT authority when there is no registered domain (IP addresses,
/// single-label hosts).
fn registered_domain(url: &Url) -> String {
    let host = url.host_str().unwrap_or_default();
    match psl::domain_str(host) {
        Some(domain) if url.domain().is_some() => {
            let mut key: String = domain.rsplit('.').flat_map(|l| [l, ","]).collect();
            if key.is_empty() {
                key = surt::authority(url);
            }
            key
        }
        _ => surt::authority(url),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn policies() {
        let host = QueueAssigner::new(QueueAssignment::Host, 1);
        assert_eq!(
            host.key(&u("http://www.example.co.uk:8080/x")),
            "uk,co,example,www,:8080"
        );
        let domain = QueueAssigner::new(QueueAssignment::Domain, 1);
        assert_eq!(domain.key(&u("http://a.example.co.uk/x")), "uk,co,example,");
        assert_eq!(
            domain.key(&u("https://b.example.co.uk/y")),
            "uk,co,example,"
        );
        assert_eq!(domain.key(&u("http://127.0.0.1:4000/")), "127.0.0.1:4000");
        let ip = QueueAssigner::new(QueueAssignment::Ip, 1);
        assert_eq!(ip.key(&u("http://127.0.0.1:4000/")), "127.0.0.1");
        assert_eq!(
            ip.key(&u("http://localhost:4001/")),
            ip.key(&u("http://localhost:4002/"))
        );
    }

    #[test]
    fn parallel_queues_split_a_host_stably() {
        let p = QueueAssigner::new(QueueAssignment::Host, 4);
        let keys: std::collections::HashSet<String> = (0..64)
            .map(|i| p.key(&u(&format!("http://a.org/{i}"))))
            .collect();
        assert_eq!(keys.len(), 4);
        assert!(keys.iter().all(|k| k.starts_with("org,a,#")));
        assert_eq!(p.key(&u("http://a.org/7")), p.key(&u("http://a.org/7")));
    }
}
