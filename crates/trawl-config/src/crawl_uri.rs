//! `CrawlUri`: one URI in flight, a record that each pipeline stage reads and adds to.

use std::sync::Arc;

use trawl_url::class::UrlKind;
use url::Url;

use crate::{Annotation, Hop};

/// What kind of work a URI stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UriKind {
    /// An ordinary document.
    Page,
    /// The robots.txt of `origin` (`scheme://host:port`), fetched as a prerequisite of its other URIs; after a
    /// redirect the URL may be elsewhere, so the origin it speaks for is kept.
    Robots {
        /// The origin whose rules this fetch decides.
        origin: String,
        /// Redirects followed so far.
        redirects: u8,
    },
}

/// What the URL class matching a URI says about it, found once when the URI is named (kept with it in the
/// frontier).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassFacts {
    /// The class's name, written in the URI's metadata record (`urlClass`).
    pub name: String,
    /// What the URL is.
    pub kind: UrlKind,
    /// The URL to fetch instead (the class's `api` converter), if any.
    pub api_url: Option<Url>,
    /// The next gallery page the class predicts, if any.
    pub next_page: Option<Url>,
    /// Whether the class asks for the page to be rendered in the browser (its `render`).
    pub render: bool,
    /// What the class failed to derive (`api`, `next_page`): the URL is fetched as it is, and its crawl.log
    /// line says `classFailed:WHAT`. Empty when everything worked.
    pub failed: Vec<String>,
}

/// The bit of the encoded class byte that says `render` (the low bits hold 1 + the kind).
const RENDER_BIT: u8 = 0x40;

/// What is remembered of a watchable URL between visits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Watch {
    /// The payload digest of the last visit.
    pub digest: String,
    /// When that digest was first seen (seconds since the Unix epoch).
    pub since: u64,
}

/// One URI in flight: its identity, how it was found, how many times it was tried, and (while it is processed)
/// the notes its stages made.
#[derive(Debug, Clone)]
pub struct CrawlUri {
    /// The URL fetched (the raw URL, fragment removed).
    pub url: Url,
    /// The already-seen key (canonical URL under the crawl's canonicalization rules).
    pub uniq_key: String,
    /// One letter per hop from the seed; empty for a seed.
    pub hop_path: String,
    /// The URI whose document linked here; `None` for a seed.
    pub via: Option<Url>,
    /// Whether this URI is a seed.
    pub is_seed: bool,
    /// Page or prerequisite.
    pub kind: UriKind,
    /// Fetch attempts made so far.
    pub tries: u32,
    /// The canonical URL when it differs from `url`: a URL class's canonical form (`ClassMatch::canonical`).
    pub canonical: Option<Url>,
    /// For an API URL fetched in place of a URL class's page: that page's URL.
    pub api_for: Option<Url>,
    /// How many times this URL was fetched before (watchable URLs are revisited).
    pub revisit: u32,
    /// The seed this URI was discovered from (Heritrix's source tag), for the sources report.
    pub source: Arc<str>,
    /// Its place in its queue (lower first), from its settings when scheduled.
    pub precedence: u8,
    /// The precedence it gives its queue (lower first), from its settings when scheduled.
    pub queue_precedence: u8,
    /// The budget its sheets give its queue, when they change `frontier.max_uris_per_host` (only read when
    /// it is scheduled; not stored).
    pub queue_budget: Option<u64>,
    /// The matching URL class's facts, found when it was named; `None` when no class matches.
    pub class: Option<Box<ClassFacts>>,
    /// For a watchable URL visited before: what its last visit found.
    pub watch: Option<Watch>,
    /// Whether it has waited for its origin's robots.txt already: if the verdict fetched meanwhile has
    /// lapsed when it comes back (a failed fetch, retried later), it is not waited for twice. Kept on disk
    /// with the item, but only a verdict of the running process counts: after a restart it waits again.
    pub awaited_robots: bool,
    /// The date a sitemap gave for it (`<lastmod>`, seconds since the epoch, UTC), for the `sitemap_lastmod`
    /// decide rule and crawl.log.
    pub lastmod: Option<i64>,
    /// Found only in a rendered page (a browser's DOM, not the HTML): its crawl.log line says `browser`.
    pub browser: bool,
    /// Named where sitemaps are named (a robots.txt `Sitemap:` line, the `/sitemap.xml` probe, a sitemap
    /// index's `<loc>`), or a redirect's target from such a URI: its body is read as a sitemap when it is one.
    /// A page a `<urlset>` lists is reached by an `S` hop too, but is not one.
    pub sitemap: bool,
    /// What the stages noted while processing it, for crawl.log (not stored).
    pub annotations: Vec<Annotation>,
}

impl CrawlUri {
    /// A seed URI.
    pub fn seed(url: Url, uniq_key: String) -> CrawlUri {
        CrawlUri {
            uniq_key,
            hop_path: String::new(),
            via: None,
            is_seed: true,
            kind: UriKind::Page,
            tries: 0,
            canonical: None,
            api_for: None,
            revisit: 0,
            source: Arc::from(url.as_str()),
            precedence: 1,
            queue_precedence: 3,
            queue_budget: None,
            class: None,
            watch: None,
            awaited_robots: false,
            lastmod: None,
            browser: false,
            sitemap: false,
            annotations: Vec::new(),
            url,
        }
    }

    /// A URI found in `self`'s document, reached by `hop`.
    pub fn child(&self, url: Url, uniq_key: String, hop: Hop) -> CrawlUri {
        let mut hop_path = self.hop_path.clone();
        hop_path.push(hop.letter());
        CrawlUri {
            url,
            uniq_key,
            hop_path,
            via: Some(self.url.clone()),
            is_seed: false,
            kind: UriKind::Page,
            tries: 0,
            canonical: None,
            api_for: None,
            revisit: 0,
            source: self.source.clone(),
            precedence: self.precedence,
            queue_precedence: self.queue_precedence,
            queue_budget: None,
            class: None,
            watch: None,
            awaited_robots: false,
            lastmod: None,
            browser: false,
            sitemap: false,
            annotations: Vec::new(),
        }
    }

    /// The robots.txt prerequisite of `self`'s origin.
    pub fn robots_prerequisite(&self) -> CrawlUri {
        let mut url = self.url.clone();
        url.set_path("/robots.txt");
        url.set_query(None);
        // Named by the candidate chain, like every child.
        let mut child = self.child(url, String::new(), Hop::Prerequisite);
        child.kind = UriKind::Robots {
            origin: origin(&self.url),
            redirects: 0,
        };
        child
    }

    /// Sets its precedences and its queue's budget from its settings (the crawl's, with its sheets applied)
    /// where they differ from the crawl's own (`base`).
    pub fn rank(&mut self, settings: &crate::CrawlConfig, base: &crate::CrawlConfig) {
        self.precedence = settings.frontier.uri_precedence_of(self.hop_count());
        self.queue_precedence = settings.frontier.queue_precedence;
        let budget = settings.frontier.max_uris_per_host;
        self.queue_budget = (budget != base.frontier.max_uris_per_host).then_some(if budget == 0 {
            u64::MAX
        } else {
            budget
        });
    }

    /// Hops from the seed.
    pub fn hop_count(&self) -> usize {
        self.hop_path.len()
    }

    /// The last hop, if not a seed.
    pub fn last_hop(&self) -> Option<char> {
        self.hop_path.chars().last()
    }

    /// Whether it is a prerequisite of other URIs (robots.txt: reached by a `P` hop, or by redirects from one).
    pub fn is_prerequisite(&self) -> bool {
        matches!(self.kind, UriKind::Robots { .. }) || self.last_hop() == Some('P')
    }

    /// Notes `annotation` for its crawl.log line, once: the line's annotations are a set (a rendered page's
    /// links cut by the same cap as its HTML's noted `outlinksTrunc` twice, xt9b F9).
    pub fn annotate(&mut self, annotation: Annotation) {
        if !self.annotations.contains(&annotation) {
            self.annotations.push(annotation);
        }
    }
}

/// `scheme://host:port`: the unit robots.txt rules, keep-alive connections and login state apply to. Built
/// piece by piece: it is made several times per fetch, and `format!` was most of its cost.
pub fn origin(url: &Url) -> String {
    use std::fmt::Write as _;
    let (scheme, host) = (url.scheme(), url.host_str().unwrap_or_default());
    let mut key = String::with_capacity(scheme.len() + host.len() + 9);
    key.push_str(scheme);
    key.push_str("://");
    key.push_str(host);
    key.push(':');
    let _ = write!(key, "{}", url.port_or_known_default().unwrap_or(0));
    key
}

/// The on-disk form of a queued URI (the frontier keeps queues on disk): its fields in a fixed order, strings
/// as a length (u32, little-endian) and bytes. Fields added later go at the end and may be missing, so a store
/// written by an earlier version still reads.
impl CrawlUri {
    /// Appends the URI's on-disk form to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        put(out, self.url.as_str());
        put(out, &self.uniq_key);
        put(out, &self.hop_path);
        put(out, self.via.as_ref().map_or("", Url::as_str));
        put(out, self.canonical.as_ref().map_or("", Url::as_str));
        put(out, self.api_for.as_ref().map_or("", Url::as_str));
        let (kind, origin, redirects) = match &self.kind {
            UriKind::Page => (0u8, "", 0u8),
            UriKind::Robots { origin, redirects } => (1, origin.as_str(), *redirects),
        };
        put(out, origin);
        out.push(kind);
        out.push(redirects);
        out.push(u8::from(self.is_seed));
        out.extend_from_slice(&self.tries.to_le_bytes());
        out.extend_from_slice(&self.revisit.to_le_bytes());
        put(out, &self.source);
        out.push(self.precedence);
        out.push(self.queue_precedence);
        // Added after the first release.
        match &self.class {
            None => out.push(0),
            Some(c) => {
                out.push((1 + kind_byte(c.kind)) | if c.render { RENDER_BIT } else { 0 });
                put(out, c.api_url.as_ref().map_or("", Url::as_str));
                put(out, c.next_page.as_ref().map_or("", Url::as_str));
            }
        }
        match &self.watch {
            None => out.push(0),
            Some(w) => {
                out.push(1);
                out.extend_from_slice(&w.since.to_le_bytes());
                put(out, &w.digest);
            }
        }
        out.push(u8::from(self.awaited_robots));
        match self.lastmod {
            None => out.push(0),
            Some(t) => {
                out.push(1);
                out.extend_from_slice(&t.to_le_bytes());
            }
        }
        out.push(u8::from(self.browser));
        out.push(u8::from(self.sitemap));
        // Added later still: what the class failed to derive, space-separated.
        put(
            out,
            &self
                .class
                .as_ref()
                .map(|c| c.failed.join(" "))
                .unwrap_or_default(),
        );
        // Added later still, for a URI a class matched only: the class's name (4 bytes a URI spared where no
        // class matches). A field added after it is read after it when the class byte says there is one.
        if let Some(c) = &self.class {
            put(out, &c.name);
        }
    }

    /// A URI read back from its on-disk form; `None` for bytes that are not one.
    pub fn decode(bytes: &[u8]) -> Option<Self> {
        let mut r = Reader { bytes };
        let url = Url::parse(r.str()?).ok()?;
        let uniq_key = r.str()?.to_string();
        let hop_path = r.str()?.to_string();
        let sitemap_hop = hop_path.ends_with('S');
        let url_opt = |s: &str| (!s.is_empty()).then(|| Url::parse(s).ok()).flatten();
        let via = url_opt(r.str()?);
        let canonical = url_opt(r.str()?);
        let api_for = url_opt(r.str()?);
        let origin = r.str()?.to_string();
        let kind = r.byte()?;
        let redirects = r.byte()?;
        let is_seed = r.byte()? == 1;
        let tries = r.u32()?;
        let revisit = r.u32()?;
        let source = Arc::from(r.str()?);
        let precedence = r.byte()?;
        let queue_precedence = r.byte()?;
        let class = match r.byte() {
            None | Some(0) => None,
            Some(k) => Some(Box::new(ClassFacts {
                kind: kind_from_byte((k & !RENDER_BIT).checked_sub(1)?)?,
                api_url: url_opt(r.str()?),
                next_page: url_opt(r.str()?),
                render: k & RENDER_BIT != 0,
                failed: Vec::new(),
                name: String::new(),
            })),
        };
        let watch = match r.byte() {
            None | Some(0) => None,
            Some(_) => Some(Watch {
                since: r.u64()?,
                digest: r.str()?.to_string(),
            }),
        };
        Some(CrawlUri {
            url,
            uniq_key,
            hop_path,
            via,
            canonical,
            api_for,
            kind: match kind {
                0 => UriKind::Page,
                _ => UriKind::Robots { origin, redirects },
            },
            is_seed,
            tries,
            revisit,
            source,
            precedence,
            queue_precedence,
            queue_budget: None,
            class,
            watch,
            awaited_robots: r.byte() == Some(1),
            lastmod: match r.byte() {
                Some(1) => Some(r.u64()? as i64),
                _ => None,
            },
            browser: r.byte() == Some(1),
            // A store from before this was kept: every URI an `S` hop reached was read as a sitemap then.
            sitemap: match r.byte() {
                Some(b) => b == 1,
                None => sitemap_hop,
            },
            annotations: Vec::new(),
        })
        .map(|mut uri| {
            if uri.browser {
                uri.annotations.push(Annotation::Browser(None));
            }
            if let Some(class) = &mut uri.class
                && let Some(failed) = r.str()
            {
                class.failed = failed.split_whitespace().map(str::to_owned).collect();
                // A store from before the name was kept: the name stays empty and goes unwritten.
                class.name = r.str().unwrap_or_default().to_owned();
            }
            uri
        })
    }
}

/// With the `frontier` feature (the engine's), a `CrawlUri` is what the frontier stores.
#[cfg(feature = "frontier")]
impl trawl_frontier::Item for CrawlUri {
    fn uniq_key(&self) -> &str {
        &self.uniq_key
    }

    fn encode(&self, out: &mut Vec<u8>) {
        CrawlUri::encode(self, out)
    }

    fn decode(bytes: &[u8]) -> Option<Self> {
        CrawlUri::decode(bytes)
    }

    fn precedence(&self) -> u8 {
        self.precedence
    }

    fn queue_precedence(&self) -> u8 {
        self.queue_precedence
    }

    fn queue_budget(&self) -> Option<u64> {
        self.queue_budget
    }
}

/// Appends a string as its length and bytes.
fn put(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

/// Reads what [`put`] and the fixed-size fields wrote; every read is `None` past the end.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.bytes.split_at_checked(n)?;
        self.bytes = rest;
        Some(head)
    }

    fn byte(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn str(&mut self) -> Option<&'a str> {
        let len = self.u32()? as usize;
        std::str::from_utf8(self.take(len)?).ok()
    }
}

fn kind_byte(kind: UrlKind) -> u8 {
    match kind {
        UrlKind::File => 0,
        UrlKind::Post => 1,
        UrlKind::Gallery => 2,
        UrlKind::Watchable => 3,
    }
}

fn kind_from_byte(b: u8) -> Option<UrlKind> {
    Some(match b {
        0 => UrlKind::File,
        1 => UrlKind::Post,
        2 => UrlKind::Gallery,
        3 => UrlKind::Watchable,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_are_scheme_host_and_port() {
        let origin = |u: &str| origin(&Url::parse(u).unwrap());
        assert_eq!(origin("http://a.org/x"), "http://a.org:80");
        assert_eq!(origin("https://a.org/x"), "https://a.org:443");
        assert_eq!(origin("https://a.org:8443/x?q#f"), "https://a.org:8443");
        assert_eq!(origin("http://u:p@127.0.0.1:0/"), "http://127.0.0.1:0");
        assert_eq!(origin("http://[::1]:65535/"), "http://[::1]:65535");
        assert_eq!(origin("file:///tmp/x"), "file://:0");
    }

    #[test]
    fn an_annotation_is_noted_once() {
        let mut uri = CrawlUri::seed(Url::parse("http://a.org/").unwrap(), "http://a.org/".into());
        uri.annotate(Annotation::OutlinksTruncated);
        uri.annotate(Annotation::OutlinksTruncated);
        assert_eq!(uri.annotations, [Annotation::OutlinksTruncated]);
    }

    #[test]
    fn round_trips_through_bytes() {
        let seed = CrawlUri::seed(Url::parse("http://a.org/").unwrap(), "http://a.org/".into());
        let mut child = seed.child(
            Url::parse("http://a.org/x?y").unwrap(),
            "k".into(),
            Hop::Embed,
        );
        child.canonical = Some(Url::parse("http://a.org/x").unwrap());
        child.tries = 2;
        child.revisit = 3;
        let robots = child.robots_prerequisite();
        let mut watched = child.clone();
        watched.class = Some(Box::new(ClassFacts {
            name: "a gallery".into(),
            kind: UrlKind::Gallery,
            api_url: None,
            next_page: Some(Url::parse("http://a.org/x?page=2").unwrap()),
            render: true,
            failed: vec!["api".into(), "next_page".into()],
        }));
        watched.watch = Some(Watch {
            digest: "sha1:ABC".into(),
            since: 1_790_000_000,
        });
        watched.lastmod = Some(1_764_028_800);
        for uri in [&seed, &child, &robots, &watched] {
            let mut bytes = Vec::new();
            uri.encode(&mut bytes);
            let back = CrawlUri::decode(&bytes).unwrap();
            assert_eq!(format!("{back:?}"), format!("{uri:?}"));
        }
        assert!(CrawlUri::decode(b"\x05\x00\x00\x00abc").is_none());
        // A store from before the class's name was kept: the class reads, its name empty.
        let mut nameless = Vec::new();
        watched.encode(&mut nameless);
        nameless.truncate(nameless.len() - 4 - "a gallery".len());
        let back = CrawlUri::decode(&nameless).unwrap();
        let class = back.class.unwrap();
        assert_eq!(
            (class.name.as_str(), class.kind, class.failed.len()),
            ("", UrlKind::Gallery, 2)
        );
        // A record from before class facts and watch state were kept still reads.
        let mut old = Vec::new();
        let seed = CrawlUri::seed(Url::parse("http://a.org/").unwrap(), "k".into());
        seed.encode(&mut old);
        old.truncate(old.len() - 5);
        assert_eq!(
            format!("{:?}", CrawlUri::decode(&old).unwrap()),
            format!("{seed:?}")
        );
    }

    /// Whether a URI is read as a sitemap is kept with it; a store from before that was kept reads every URI
    /// an `S` hop reached as one, as that version did.
    #[test]
    fn the_sitemap_mark_is_kept() {
        let robots =
            CrawlUri::seed(Url::parse("http://a.org/").unwrap(), "k".into()).robots_prerequisite();
        for sitemap in [true, false] {
            let mut uri = robots.child(
                Url::parse("http://a.org/sitemap.xml").unwrap(),
                "s".into(),
                Hop::Sitemap,
            );
            uri.sitemap = sitemap;
            let mut bytes = Vec::new();
            uri.encode(&mut bytes);
            assert_eq!(CrawlUri::decode(&bytes).unwrap().sitemap, sitemap);
            // An older store: without the sitemap byte and the (empty) class failures written after it.
            bytes.truncate(bytes.len() - 5);
            assert!(
                CrawlUri::decode(&bytes).unwrap().sitemap,
                "an older store's S hop"
            );
        }
    }
}
