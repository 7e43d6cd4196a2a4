//! What a process joining a shared crawl that exists is told: the crawl's stored settings win over the
//! ones it was given, and a crawl an operator stopped stays stopped until it is unpaused.

use trawl_config::{CrawlConfig, CrawlUri};
use trawl_frontier::SharedFrontier;

use super::remote::RemoteSpec;

/// How many differing keys a warning names before it counts the rest.
const KEYS_NAMED: usize = 8;

/// The warning for a process that joins the crawl of `spec` with `given` settings while the crawl's stored
/// ones are `stored`: the keys that differ (seeds aside: those given are added), and how to change the
/// crawl's. `None` when they agree.
pub(super) fn settings_not_applied(
    given: &CrawlConfig,
    stored: &str,
    spec: &RemoteSpec,
) -> Option<String> {
    let stored = CrawlConfig::parse(stored, std::path::Path::new("crawl.toml")).ok()?;
    let given_text = given.to_toml();
    // Only what the given settings set (their values other than the defaults): a key the file left at its
    // default is not "yours" (xt44a F4: the defaults pushed out the keys the operator wrote).
    let defaults = CrawlConfig::parse("", std::path::Path::new("crawl.toml")).ok()?;
    let set = differing_keys(&given_text, &defaults.to_toml());
    let keys: Vec<String> = differing_keys(&given_text, &stored.to_toml())
        .into_iter()
        .filter(|k| set.contains(k))
        .collect();
    if keys.is_empty() {
        return None;
    }
    let mut named = keys
        .iter()
        .take(KEYS_NAMED)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if keys.len() > KEYS_NAMED {
        named.push_str(&format!(" and {} more", keys.len() - KEYS_NAMED));
    }
    Some(format!(
        "the crawl {:?} exists with settings of its own, which win: these of yours were not applied: {named} \
         (the seeds given are added); change the crawl's with `trawl ctl --frontier {} {} set KEY=VALUE`",
        spec.job,
        spec.shown_url(),
        spec.job
    ))
}

/// The dotted keys whose values differ between two crawl.toml texts, `seeds.urls` aside.
fn differing_keys(a: &str, b: &str) -> Vec<String> {
    let (Ok(a), Ok(b)) = (a.parse::<toml::Table>(), b.parse::<toml::Table>()) else {
        return Vec::new();
    };
    let (mut a_flat, mut b_flat) = (Vec::new(), Vec::new());
    flatten("", &toml::Value::Table(a), &mut a_flat);
    flatten("", &toml::Value::Table(b), &mut b_flat);
    let b_map: std::collections::BTreeMap<_, _> = b_flat.into_iter().collect();
    let mut keys: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    for (key, value) in &a_flat {
        if b_map.get(key) != Some(value) {
            keys.insert(key.clone());
        }
    }
    let a_keys: std::collections::BTreeSet<&String> = a_flat.iter().map(|(k, _)| k).collect();
    keys.extend(b_map.keys().filter(|k| !a_keys.contains(k)).cloned());
    keys.remove("seeds.urls");
    keys.into_iter().collect()
}

/// `value`'s leaves under their dotted keys (arrays are leaves).
fn flatten(prefix: &str, value: &toml::Value, out: &mut Vec<(String, toml::Value)>) {
    match value {
        toml::Value::Table(t) => {
            for (k, v) in t {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, v, out);
            }
        }
        leaf => out.push((prefix.to_string(), leaf.clone())),
    }
}

/// Warns when the crawl joined has ended (URIs done, none queued, leased or due later): its seen set knows
/// every URL it met, so seeds given again are known already and this worker ends at once (xt16b F11: a new
/// run under an old crawl's name ended with nothing done, as if it had succeeded).
pub(super) fn say_if_finished(frontier: &mut SharedFrontier<CrawlUri>, spec: &RemoteSpec) {
    let Ok(c) = frontier.counts() else {
        return;
    };
    if c.done > 0 && c.queued == 0 && c.in_flight == 0 && c.later == 0 {
        eprintln!(
            "trawl: warning: the crawl {:?} at {} has finished ({} URIs done, nothing queued): URLs it met are \
             not fetched again, so this worker may end at once; for a new crawl give the job directory another \
             name, or remove the old crawl's keys (`redis-cli --scan --pattern 'trawl:{{{}}}:*'` and DEL)",
            spec.job,
            spec.shown_url(),
            c.done,
            spec.job
        );
    }
}

/// Says so when the crawl joined was stopped by an operator (the worker ends at once) or paused (it waits),
/// and that `unpause` lets the workers go on.
pub(super) fn say_if_stopped(frontier: &mut SharedFrontier<CrawlUri>, spec: &RemoteSpec) {
    match frontier.state().as_deref() {
        Ok("stop") => eprintln!(
            "trawl: the crawl {:?} is stopped in Redis (an operator's `stop`): this worker ends at once; \
             `trawl ctl --frontier {} {} unpause` lets every worker go on (then start this one again)",
            spec.job,
            spec.shown_url(),
            spec.job
        ),
        // A paused crawl is joined, and waits (xt44a F10: nothing said why the worker did not fetch).
        Ok("pause") => eprintln!(
            "trawl: the crawl {:?} is paused in Redis (an operator's `pause`): this worker waits with the \
             others; `trawl ctl --frontier {} {} unpause` lets every worker go on",
            spec.job,
            spec.shown_url(),
            spec.job
        ),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only the keys the joining file sets are named, not the defaults it left (xt44a F4).
    #[test]
    fn only_the_keys_given_are_named() {
        let path = std::path::Path::new("crawl.toml");
        let given = CrawlConfig::parse("[frontier]\nmin_delay_ms = 50\n", path).unwrap();
        let stored =
            "[frontier]\nmin_delay_ms = 300\nmax_delay_ms = 9000\n[fetch]\ntimeout_ms = 9999\n";
        let spec = RemoteSpec {
            url: "redis://127.0.0.1:6379/0".into(),
            job: "j".into(),
            worker: "w".into(),
        };
        let said = settings_not_applied(&given, stored, &spec).unwrap();
        assert!(
            said.contains("not applied: frontier.min_delay_ms (the seeds"),
            "{said}"
        );
        let same = CrawlConfig::parse("[fetch]\ntimeout_ms = 9999\n", path).unwrap();
        assert_eq!(settings_not_applied(&same, stored, &spec), None);
    }

    #[test]
    fn the_keys_that_differ_are_named_seeds_aside() {
        let a = "[frontier]\nmin_delay_ms = 2000\nlease_ms = 3000\n[seeds]\nurls = [\"http://a/\"]\n[fetch]\nuser_agent = \"x\"\n";
        let b = "[frontier]\nmin_delay_ms = 150\nlease_ms = 3000\n[seeds]\nurls = [\"http://b/\"]\n[warc]\nwacz = true\n";
        assert_eq!(
            differing_keys(a, b),
            ["fetch.user_agent", "frontier.min_delay_ms", "warc.wacz"]
        );
        assert!(differing_keys(a, a).is_empty());
    }

    #[test]
    fn equal_settings_give_no_warning_and_others_name_their_keys() {
        let spec = RemoteSpec {
            url: "redis://127.0.0.1:1/0".into(),
            job: "j".into(),
            worker: "w".into(),
        };
        let mut given = CrawlConfig::default();
        given.seeds.urls.push("http://127.0.0.1:9/".into());
        let stored = CrawlConfig::default().to_toml();
        assert_eq!(settings_not_applied(&given, &stored, &spec), None);
        given.frontier.min_delay_ms += 1000;
        let warning = settings_not_applied(&given, &stored, &spec).unwrap();
        assert!(warning.contains("frontier.min_delay_ms"), "{warning}");
        assert!(
            warning.contains("trawl ctl --frontier redis://127.0.0.1:1/0 j set"),
            "{warning}"
        );
    }
}
