//! Generators shared by the crate's property tests.

/// A regex for URL-ish strings: odd hosts (`www`, IPs, dots), ports, userinfo, dot segments, escapes, session
/// ids, tracking parameters, mixed case and fragments.
pub(crate) const URL: &str = concat!(
    r"(https?|HTTP|ftp)://((u|a:b)@)?",
    r"((www[0-9]?\.)*[a-zA-Z0-9-]{1,6}(\.[a-zA-Z]{1,4}){0,2}\.?|[0-9]{1,3}(\.[0-9]{1,3}){3}|\.{1,3}|(www[0-9]?\.){1,2}|\[::1\])",
    r"(:[0-9]{1,5})?",
    r"(/([a-zA-Z0-9._~!$&'()*+,;=:@-]|%[0-9a-fA-F]{2}|%|\.\.|\.|/|\\|\?){0,6}){0,4}",
    r"(\?([a-zA-Z0-9=&%;/?_.-]|%[0-9a-fA-F]{2}|jsessionid=[0-9a-f]{32}|utm_source=x|&&){0,8})?",
    r"(#[a-z0-9]{0,4})?"
);
