//! Address ranges as an operator writes them (`fetch.allow_addresses`, the `ip_address_set` rule): a range
//! with its length (`10.1.0.0/16`, `fd00::/8`) or a single address (`10.1.2.3`, `::1`), which is its own
//! range. ipnet's own parser takes only the first form, and its error names neither.

use ipnet::IpNet;
use serde::{Deserialize, Deserializer, de::Error as _};

/// One range or address.
pub(crate) fn parse(text: &str) -> Option<IpNet> {
    let text = text.trim();
    text.parse::<IpNet>()
        .ok()
        .or_else(|| text.parse::<std::net::IpAddr>().ok().map(IpNet::from))
}

/// A list of ranges or addresses; the error names the one that is neither and the forms to write.
pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<IpNet>, D::Error> {
    Vec::<String>::deserialize(d)?
        .iter()
        .map(|text| parse(text).ok_or_else(|| D::Error::custom(not_an_address(text))))
        .collect()
}

/// What is said of `text`, neither an address nor a range.
pub(crate) fn not_an_address(text: &str) -> String {
    format!(
        "{text:?} is not an address or range: write an address (\"10.1.2.3\", \"::1\") or a range with its \
         length (\"10.1.0.0/16\", \"fd00::/8\")"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_is_its_own_range() {
        assert_eq!(parse("10.1.2.3"), Some("10.1.2.3/32".parse().unwrap()));
        assert_eq!(parse("::1"), Some("::1/128".parse().unwrap()));
        assert_eq!(parse(" 10.1.0.0/16 "), Some("10.1.0.0/16".parse().unwrap()));
        assert_eq!(parse("10.1.0.0/33"), None);
        assert_eq!(parse("foo"), None);
    }
}
