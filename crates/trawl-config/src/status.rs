//! The statuses crawl.log gives URIs that got no HTTP response: negative, Heritrix's numbers, all in this one
//! place (docs/crawl-log.md lists them).

/// The host name did not resolve (Heritrix: "prerequisite domain-lookup failed").
pub const DNS_FAILED: i32 = -6;
/// No connection could be made.
pub const CONNECT_FAILED: i32 = -2;
/// The connection broke before a response arrived.
pub const CONNECTION_BROKEN: i32 = -3;
/// Nothing arrived within the timeout.
pub const TIMEOUT: i32 = -4;
/// Processing the URI failed on a bug in trawl (a panic; Heritrix: "unexpected runtime exception"). It is
/// not tried again.
pub const RUNTIME_EXCEPTION: i32 = -5;
/// The URI cannot be sent as a request (Heritrix: "unsupported or illegal").
pub const UNFETCHABLE: i32 = -7;
/// robots.txt could not be fetched (5xx, 429 or no answer after retries, or a redirect to a refused address), so
/// the host is off limits.
pub const ROBOTS_PREREQUISITE_FAILED: i32 = -61;
/// The URI's prerequisite (robots.txt) could not be scheduled: the scope rejected it.
pub const PREREQUISITE_UNSCHEDULABLE: i32 = -63;
/// The URI is too many link hops from its seed.
pub const TOO_MANY_HOPS: i32 = -4001;
/// A scope rule rejected the URI (the rule is in the annotation).
pub const OUT_OF_SCOPE: i32 = -5000;
/// The address policy refused the host's address.
pub const ADDRESS_REFUSED: i32 = -5001;
/// The URI's queue has spent its budget (`frontier.max_uris_per_host`).
pub const OVER_QUOTA: i32 = -5003;
/// robots.txt forbids the URI.
pub const ROBOTS_DISALLOWED: i32 = -9998;
