//! The `+`/`-` pattern lists of path and extension filters, and what they filter.

/// One `+` (include) or `-` (exclude) pattern, with `*` wildcards.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Signed {
    pub(crate) include: bool,
    pub(crate) pattern: String,
}

/// Splits `-/images/*+/images/public/*` into signed patterns. A new pattern starts at a `+` or `-` at the
/// start, or after `*`, `/`, a space or a comma; a pattern without a sign excludes. Two exceptions keep a sign
/// literal: a sign right after a pattern that is only `/` (`-/+plus/`, `-/-/issues`: splitting there would
/// leave `-/`, which filters out every URL), and a sign after `\` (`-/group/\-/issues`; `\\` is a `\`).
pub(crate) fn split_signed(value: &str) -> Vec<Signed> {
    let mut out: Vec<Signed> = Vec::new();
    let mut current: Option<Signed> = None;
    let mut prev: Option<char> = None;
    let mut chars = value.chars();
    let push = |current: &mut Option<Signed>, c: char| {
        current
            .get_or_insert_with(|| Signed {
                include: false,
                pattern: String::new(),
            })
            .pattern
            .push(c);
    };
    while let Some(c) = chars.next() {
        let boundary = prev.is_none_or(|p| matches!(p, '*' | '/' | ' ' | ',' | '\t'));
        let lone_slash = current.as_ref().is_some_and(|s| s.pattern == "/");
        if c == '\\' {
            if let Some(next) = chars.next() {
                push(&mut current, next);
                // An escaped character never starts a pattern.
                prev = Some('\\');
                continue;
            }
            push(&mut current, c);
        } else if (c == '+' || c == '-') && boundary && !lone_slash {
            out.extend(current.take());
            current = Some(Signed {
                include: c == '+',
                pattern: String::new(),
            });
        } else if c == ',' || c.is_whitespace() {
            out.extend(current.take());
        } else {
            push(&mut current, c);
        }
        prev = Some(c);
    }
    out.extend(current);
    out.retain(|s| !s.pattern.is_empty());
    out
}

/// Whether `text` matches `pattern` (`*` = any run of characters), anchored at both ends when `whole`, else
/// anywhere in `text`.
pub(crate) fn wildcard(pattern: &str, text: &str, whole: bool) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if whole {
        let (first, last) = (parts[0], parts[parts.len() - 1]);
        if parts.len() == 1 {
            return text == first;
        }
        if !text.starts_with(first)
            || text.len() < first.len() + last.len()
            || !text.ends_with(last)
        {
            return false;
        }
        let mut rest = &text[first.len()..text.len() - last.len()];
        for part in &parts[1..parts.len() - 1] {
            match rest.find(part) {
                Some(i) => rest = &rest[i + part.len()..],
                None => return false,
            }
        }
        true
    } else {
        let mut rest = text;
        for part in parts.iter().filter(|p| !p.is_empty()) {
            match rest.find(part) {
                Some(i) => rest = &rest[i + part.len()..],
                None => return false,
            }
        }
        true
    }
}

/// Whether the signed patterns filter out a value that `matches` tests: leading `+` patterns allow only what
/// they match (exclusive inclusion); then, in order, a matching `-` filters out and a matching `+` lets back
/// in.
pub(crate) fn filtered(patterns: &[Signed], matches: impl Fn(&str) -> bool) -> bool {
    let leading = patterns.iter().take_while(|p| p.include).count();
    let mut out = leading > 0 && !patterns[..leading].iter().any(|p| matches(&p.pattern));
    for p in &patterns[leading..] {
        if matches(&p.pattern) {
            out = !p.include;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_signs() {
        let s = |v: &str| {
            split_signed(v)
                .into_iter()
                .map(|s| format!("{}{}", if s.include { '+' } else { '-' }, s.pattern))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            s("-/images/*+/images/public/*"),
            ["-/images/*", "+/images/public/*"]
        );
        assert_eq!(s("-jpg,-png"), ["-jpg", "-png"]);
        assert_eq!(s("-jpg -png"), ["-jpg", "-png"]);
        assert_eq!(s("-jp*+jpeg"), ["-jp*", "+jpeg"]);
        assert_eq!(s("/images/private/"), ["-/images/private/"]);
        assert_eq!(s("-/my-images/"), ["-/my-images/"]);
        // xt5 F7: a sign right after a lone `/` is literal; `\` makes any sign literal.
        assert_eq!(s("-/+plus/"), ["-/+plus/"]);
        assert_eq!(s("-/-/issues"), ["-/-/issues"]);
        assert_eq!(s("/+plus/"), ["-/+plus/"]);
        assert_eq!(
            s("-/images/+/images/public/"),
            ["-/images/", "+/images/public/"]
        );
        assert_eq!(s(r"-/group/\-/issues"), ["-/group/-/issues"]);
        assert_eq!(s(r"+/a\+b/"), ["+/a+b/"]);
        assert_eq!(s(r"-/a\\b"), [r"-/a\b"]);
    }

    #[test]
    fn wildcards() {
        assert!(wildcard("/images/*", "http://a/images/x.jpg", false));
        assert!(!wildcard("/images/*", "http://a/img/x.jpg", false));
        assert!(wildcard("jp*", "jpeg", true));
        assert!(!wildcard("jp*", "png", true));
        assert!(!wildcard("jpg", "jpgx", true));
        assert!(wildcard("*", "", true));
    }
}
