//! Bounds on what one site keeps in a cookie jar, as browsers bound it: at most [`MAX_PER_SITE`] cookies and
//! [`MAX_SITE_BYTES`] of names and values per registrable domain, the least recently set evicted first.
//! Without them a server setting new cookies on every page makes every later request carry a `Cookie`
//! header of megabytes (each cookie alone stays under 4096 bytes).

use std::collections::HashMap;

use cookie_store::{Cookie, StoreAction};

/// Most cookies a jar keeps for one registrable domain (Chromium keeps 180; RFC 6265 §6.1 asks for 50).
pub(super) const MAX_PER_SITE: usize = 180;
/// Most bytes of names and values a jar keeps for one registrable domain: servers refuse request heads
/// much larger (8-16 KiB is usual), so a site's own pages never need more.
pub(super) const MAX_SITE_BYTES: usize = 32 << 10;

/// A cookie's identity in a jar: domain, path, name (what `CookieStore::remove` takes).
pub(super) type CookieId = (String, String, String);

/// When each cookie of each jar was last set, and its size, grouped by jar and site.
#[derive(Debug, Default)]
pub(super) struct Ledger {
    clock: u64,
    sites: HashMap<(String, String), HashMap<CookieId, Entry>>,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    set: u64,
    bytes: usize,
}

impl Ledger {
    /// When `cookie` of jar `key` was last set (0: not known, as for a cookies file's).
    pub(super) fn set_at(&self, key: &str, cookie: &Cookie<'_>) -> u64 {
        let Some((site, id)) = identify(cookie) else {
            return 0;
        };
        self.sites
            .get(&(key.to_string(), site))
            .and_then(|c| c.get(&id))
            .map_or(0, |e| e.set)
    }

    /// Notes that `cookie` went into jar `key` as `action` says, and returns the cookies to remove from that
    /// jar (oldest first) so its site stays within [`MAX_PER_SITE`] and [`MAX_SITE_BYTES`].
    pub(super) fn stored(
        &mut self,
        key: &str,
        cookie: &Cookie<'_>,
        action: &StoreAction,
    ) -> Vec<CookieId> {
        let Some((site, id)) = identify(cookie) else {
            return Vec::new();
        };
        let cookies = self.sites.entry((key.to_string(), site)).or_default();
        if matches!(action, StoreAction::ExpiredExisting) {
            cookies.remove(&id);
            return Vec::new();
        }
        self.clock += 1;
        let bytes = cookie.name().len() + cookie.value().len();
        cookies.insert(
            id,
            Entry {
                set: self.clock,
                bytes,
            },
        );
        let mut total: usize = cookies.values().map(|e| e.bytes).sum();
        if cookies.len() <= MAX_PER_SITE && total <= MAX_SITE_BYTES {
            return Vec::new();
        }
        let mut by_age: Vec<(CookieId, Entry)> =
            cookies.iter().map(|(id, e)| (id.clone(), *e)).collect();
        by_age.sort_by_key(|(_, e)| e.set);
        let mut evicted = Vec::new();
        for (id, entry) in by_age {
            if cookies.len() <= MAX_PER_SITE && total <= MAX_SITE_BYTES {
                break;
            }
            cookies.remove(&id);
            total -= entry.bytes;
            evicted.push(id);
        }
        evicted
    }
}

/// A cookie's site (the registrable domain of its domain, or the domain itself: an address, a single label)
/// and identity; `None` for a cookie without a domain.
fn identify(cookie: &Cookie<'_>) -> Option<(String, CookieId)> {
    let domain = cookie.domain.as_cow()?;
    let address = domain
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse::<std::net::IpAddr>()
        .is_ok();
    let site = match psl::domain_str(&domain) {
        Some(site) if !address => site.to_string(),
        _ => domain.to_string(),
    };
    let id = (
        domain.to_string(),
        String::from(&cookie.path),
        cookie.name().to_string(),
    );
    Some((site, id))
}
