//! The address policy: which resolved addresses the crawler may connect to.
//!
//! Checked at connect time on the address actually dialled, so every spelling of an address (decimal, hex,
//! octal, IPv4-mapped IPv6) and every DNS answer is covered. Private, loopback, link-local (cloud metadata
//! lives there), CGNAT, multicast, unspecified and reserved ranges are refused unless the host is a seed's or
//! the range is allowed by the operator: a crawler must not be steerable into the network it runs in.

use std::{
    collections::HashSet,
    net::{IpAddr, Ipv4Addr, Ipv6Addr},
    sync::{Arc, PoisonError, RwLock},
};

use ipnet::IpNet;
use trawl_config::annotation::Refusal;

/// The class of a non-public address, or `None` for a public one.
pub fn classify(ip: IpAddr) -> Option<Refusal> {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

fn classify_v4(ip: Ipv4Addr) -> Option<Refusal> {
    let [a, b, c, _] = ip.octets();
    Some(match (a, b, c) {
        (0, _, _) => Refusal::Unspecified,
        (127, _, _) => Refusal::Loopback,
        (10, _, _) | (172, 16..=31, _) | (192, 168, _) => Refusal::Private,
        (169, 254, _) => Refusal::LinkLocal,
        (100, 64..=127, _) => Refusal::SharedCgnat,
        (224..=239, _, _) => Refusal::Multicast,
        (240..=255, _, _)
        | (192, 0, 0 | 2)
        | (198, 18 | 19, _)
        | (198, 51, 100)
        | (203, 0, 113) => Refusal::Reserved,
        _ => return None,
    })
}

fn classify_v6(ip: Ipv6Addr) -> Option<Refusal> {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return classify_v4(v4);
    }
    let seg = ip.segments();
    // NAT64 (64:ff9b::/96) reaches the embedded IPv4 address.
    if seg[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        let [a, b] = seg[6].to_be_bytes();
        let [c, d] = seg[7].to_be_bytes();
        return classify_v4(Ipv4Addr::new(a, b, c, d));
    }
    if ip.is_unspecified() {
        Some(Refusal::Unspecified)
    } else if ip.is_loopback() {
        Some(Refusal::Loopback)
    } else if seg[0] & 0xfe00 == 0xfc00 {
        Some(Refusal::Private)
    } else if seg[0] & 0xffc0 == 0xfe80 {
        Some(Refusal::LinkLocal)
    } else if seg[0] & 0xff00 == 0xff00 {
        Some(Refusal::Multicast)
    } else if (seg[0], seg[1]) == (0x2001, 0xdb8)
        || seg[..4] == [0x100, 0, 0, 0]
        || seg[..6] == [0; 6]
    {
        // documentation, discard-only, and IPv4-compatible (deprecated) addresses
        Some(Refusal::Reserved)
    } else {
        None
    }
}

/// Which addresses may be connected to. Clones share their seed hosts, so a seed an operator adds to a running
/// crawl ([`AddressPolicy::add_seed_host`]) is allowed wherever the policy was handed.
#[derive(Debug, Clone, Default)]
pub struct AddressPolicy {
    allow: Vec<IpNet>,
    seed_hosts: Arc<RwLock<HashSet<String>>>,
}

impl AddressPolicy {
    /// Refuses non-public addresses except for `seed_hosts` (host names or IP literals as in the seed URLs)
    /// and the `allow` ranges.
    pub fn new(allow: Vec<IpNet>, seed_hosts: impl IntoIterator<Item = String>) -> AddressPolicy {
        AddressPolicy {
            allow,
            seed_hosts: Arc::new(RwLock::new(
                seed_hosts
                    .into_iter()
                    .map(|h| h.to_ascii_lowercase())
                    .collect(),
            )),
        }
    }

    /// Allows the host of a seed added while the crawl runs, as the first seeds' hosts are.
    pub fn add_seed_host(&self, host: &str) {
        self.seed_hosts
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(host.to_ascii_lowercase());
    }

    /// Whether `host` (as in the URL) resolved to `ip` may be connected to.
    pub fn check(&self, host: &str, ip: IpAddr) -> Result<(), Refusal> {
        let Some(refusal) = classify(ip) else {
            return Ok(());
        };
        let seed = self
            .seed_hosts
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(&host.to_ascii_lowercase());
        if seed || self.allow.iter().any(|net| net.contains(&ip)) {
            return Ok(());
        }
        Err(refusal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        let rows: &[(&str, Option<Refusal>)] = &[
            ("8.8.8.8", None),
            ("93.184.216.34", None),
            ("127.0.0.1", Some(Refusal::Loopback)),
            ("10.1.2.3", Some(Refusal::Private)),
            ("172.20.0.1", Some(Refusal::Private)),
            ("172.32.0.1", None),
            ("192.168.1.1", Some(Refusal::Private)),
            ("169.254.169.254", Some(Refusal::LinkLocal)),
            ("100.64.0.1", Some(Refusal::SharedCgnat)),
            ("224.0.0.1", Some(Refusal::Multicast)),
            ("0.0.0.0", Some(Refusal::Unspecified)),
            ("255.255.255.255", Some(Refusal::Reserved)),
            ("192.0.2.7", Some(Refusal::Reserved)),
            ("::1", Some(Refusal::Loopback)),
            ("::", Some(Refusal::Unspecified)),
            ("::ffff:169.254.169.254", Some(Refusal::LinkLocal)),
            ("::ffff:8.8.8.8", None),
            ("64:ff9b::10.0.0.1", Some(Refusal::Private)),
            ("fd00::1", Some(Refusal::Private)),
            ("fe80::1", Some(Refusal::LinkLocal)),
            ("ff02::1", Some(Refusal::Multicast)),
            ("2001:db8::1", Some(Refusal::Reserved)),
            ("2606:4700::1111", None),
        ];
        for (ip, want) in rows {
            assert_eq!(classify(ip.parse().unwrap()), *want, "{ip}");
        }
    }

    #[test]
    fn every_spelling_reaches_the_same_check() {
        // The URL parser normalises decimal, hex and octal IPv4 hosts; the policy sees the address.
        let policy = AddressPolicy::default();
        for spelling in [
            "http://2852039166/",
            "http://0xA9FEA9FE/",
            "http://0251.0376.0251.0376/",
            "http://[::ffff:a9fe:a9fe]/",
        ] {
            let url = url::Url::parse(spelling).unwrap();
            let ip: IpAddr = match url.host().unwrap() {
                url::Host::Ipv4(v4) => v4.into(),
                url::Host::Ipv6(v6) => v6.into(),
                url::Host::Domain(d) => panic!("{spelling} parsed as domain {d}"),
            };
            assert_eq!(
                policy.check(url.host_str().unwrap(), ip),
                Err(Refusal::LinkLocal),
                "{spelling}"
            );
        }
        let octal = url::Url::parse("http://012.0.0.1/").unwrap();
        assert_eq!(octal.host_str(), Some("10.0.0.1"));
    }

    #[test]
    fn seeds_and_allowed_ranges_pass() {
        let policy = AddressPolicy::new(
            vec!["10.1.0.0/16".parse().unwrap()],
            ["127.0.0.1".to_string()],
        );
        assert_eq!(
            policy.check("127.0.0.1", "127.0.0.1".parse().unwrap()),
            Ok(())
        );
        assert_eq!(
            policy.check("127.0.0.2", "127.0.0.2".parse().unwrap()),
            Err(Refusal::Loopback)
        );
        // A seed added to the running crawl: allowed through every clone of the policy.
        let handed = policy.clone();
        policy.add_seed_host("127.0.0.2");
        assert_eq!(
            handed.check("127.0.0.2", "127.0.0.2".parse().unwrap()),
            Ok(())
        );
        policy.add_seed_host("127.0.0.3");
        assert_eq!(
            handed.check("127.0.0.2", "127.0.0.2".parse().unwrap()),
            Ok(())
        );
        assert_eq!(
            policy.check("intranet", "10.1.4.4".parse().unwrap()),
            Ok(())
        );
        assert_eq!(
            policy.check("intranet", "10.2.4.4".parse().unwrap()),
            Err(Refusal::Private)
        );
        assert_eq!(
            policy.check("example.com", "93.184.216.34".parse().unwrap()),
            Ok(())
        );
    }
}
