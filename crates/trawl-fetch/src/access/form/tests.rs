use super::*;
use trawl_extract::form::read_forms;

fn url(s: &str) -> Url {
    Url::parse(s).unwrap()
}

fn spec(extra: &str) -> CredentialSpec {
    toml::from_str(&format!(
        "kind = \"form\"\ndomain = \"a.org\"\npassword_env = \"P\"\nlogin_url = \"http://a.org/login\"\n{extra}"
    ))
    .unwrap()
}

const PAGE: &str = r#"<form id="f" action="/session" method="post">
  <input type="hidden" name="csrf" value="t0k">
  <input name="user" value="">
  <input type="password" name="pass">
  <input type="checkbox" name="remember" value="1">
  <input type="submit" name="go" value="Sign in">
</form>"#;

fn form() -> trawl_extract::form::Form {
    read_forms(PAGE.as_bytes(), None, &url("http://a.org/login"), None)
        .login_form(false)
        .unwrap()
        .clone()
}

#[test]
fn the_page_then_fields_then_the_password() {
    let s = Submission::from_form(
        &form(),
        &spec("fields = { user = \"me\", extra = \"x\" }\n"),
        "s&cret",
    );
    assert_eq!(s.action.as_str(), "http://a.org/session");
    assert_eq!(s.password_field, "pass");
    let (body, ctype) = s.body();
    assert_eq!(ctype, "application/x-www-form-urlencoded");
    assert_eq!(
        String::from_utf8(body).unwrap(),
        "csrf=t0k&user=me&pass=s%26cret&go=Sign+in&extra=x"
    );
    assert_eq!(s.missing, ["extra"]);
    assert_eq!(s.not_sent, ["remember (checkbox, not checked)"]);
    let pass = s.entries.iter().find(|e| e.name == "pass").unwrap();
    assert_eq!(pass.shown(), MASK);
    // password_field names another field.
    let s = Submission::from_form(&form(), &spec("password_field = \"pw2\"\n"), "p");
    assert!(s.entries.iter().any(|e| e.name == "pw2" && e.value == "p"));
    assert!(
        s.entries
            .iter()
            .any(|e| e.name == "pass" && e.value.is_empty())
    );
    // A page without a form: the configured fields and the password, to login_url.
    let s = Submission::without_form(
        &url("http://a.org/login"),
        &spec("fields = { u = \"me\" }\n"),
        "p",
    );
    assert_eq!(String::from_utf8(s.body().0).unwrap(), "u=me&password=p");
}

#[test]
fn multipart_and_text_plain() {
    let mut s = Submission::from_form(&form(), &spec(""), "p");
    s.enctype = Enctype::Multipart;
    let (body, ctype) = s.body();
    let boundary = ctype
        .strip_prefix("multipart/form-data; boundary=")
        .unwrap();
    let text = String::from_utf8(body).unwrap();
    assert!(text.starts_with(&format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\nt0k\r\n"
    )));
    assert!(text.ends_with(&format!("--{boundary}--\r\n")));
    s.enctype = Enctype::TextPlain;
    assert!(
        String::from_utf8(s.body().0)
            .unwrap()
            .starts_with("csrf=t0k\r\nuser=\r\n")
    );
}

#[test]
fn cookies_set_or_changed() {
    let before = vec![("sid".to_string(), "1".to_string())];
    let set = [
        "sid=1; Path=/",
        "session=new; HttpOnly",
        "gone=; Max-Age=0",
        "old=x; Expires=Thu, 01 Jan 1970 00:00:00 GMT",
        "csrftoken=rotated",
    ];
    assert_eq!(
        cookies_changed(&before, set.into_iter()),
        ["session", "csrftoken"]
    );
}

fn answer<'a>(u: &'a Url, status: u16, body: &'a [u8], shows_form: bool) -> Answer<'a> {
    Answer {
        url: u,
        status,
        location: None,
        body,
        content_type: None,
        shows_form,
    }
}

#[test]
fn judged_by_default_signs() {
    let s = Submission::from_form(&form(), &spec("fields = { user = \"me\" }\n"), "p");
    let sp = spec("");
    let u = url("http://a.org/session");
    let home = url("http://a.org/home");
    let no = |_: &str| false;
    let ok = judge(
        &sp,
        &s,
        &[
            answer(&u, 302, b"", false),
            answer(&home, 200, b"hi", false),
        ],
        &["session".to_string()],
        no,
    );
    assert!(ok.ok(), "{ok:?}");
    assert!(
        ok.sign.contains("`session`") && ok.sign.contains("/home"),
        "{}",
        ok.sign
    );
    let again = judge(&sp, &s, &[answer(&u, 200, b"", true)], &[], no);
    assert_eq!(again.verdict, Verdict::Failed);
    assert!(
        again.sign.contains("shows the login form again"),
        "{}",
        again.sign
    );
    assert!(
        again.advice.iter().any(|a| a.contains("`pass`")),
        "{:?}",
        again.advice
    );
    // With a cookie set, the cookie is offered as the sign (a re-login pop-up on every page, xt44b F13).
    let popup = judge(
        &sp,
        &s,
        &[answer(&u, 302, b"", false), answer(&home, 200, b"", true)],
        &["sess".to_string()],
        no,
    );
    assert_eq!(popup.verdict, Verdict::Failed);
    assert!(
        popup
            .advice
            .iter()
            .any(|a| a.contains("success = { cookie = \"sess\" }")),
        "{:?}",
        popup.advice
    );
    let csrf = judge(&sp, &s, &[answer(&u, 403, b"", false)], &[], no);
    assert_eq!(csrf.sign, "the answer was 403");
    assert!(csrf.advice[0].contains("CSRF"), "{:?}", csrf.advice);
    // A 403 that shows the form again is a wrong password first (xt10a F10).
    let denied = judge(&sp, &s, &[answer(&u, 403, b"", true)], &[], no);
    assert_eq!(
        denied.sign,
        "the answer (403) shows the login form again (a password input)"
    );
    assert!(
        denied.advice[0].contains("check the user name"),
        "{:?}",
        denied.advice
    );
    // A rate limit is said as one, not as a wrong password (xt10a F5).
    let limited = judge(&sp, &s, &[answer(&u, 429, b"", false)], &[], no);
    assert_eq!(limited.sign, "the answer was 429 (the site limits logins)");
    assert!(
        !limited
            .advice
            .iter()
            .any(|a| a.contains("check the user name")),
        "{:?}",
        limited.advice
    );
    // With a `success` sign too: the limit is the sign, not the success that could not show (xt13a F8).
    let with_sign = spec("success = { cookie = \"sess\" }\n");
    let limited = judge(&with_sign, &s, &[answer(&u, 429, b"", false)], &[], no);
    assert_eq!(limited.sign, "the answer was 429 (the site limits logins)");
    let nothing = judge(&sp, &s, &[answer(&u, 200, b"", false)], &[], no);
    assert_eq!(nothing.sign, "the login set no cookie");
    // A field the form lacks is named, with the form's own fields.
    let s2 = Submission::from_form(&form(), &spec("fields = { username = \"me\" }\n"), "p");
    let wrong = judge(&sp, &s2, &[answer(&u, 200, b"", true)], &[], no);
    assert!(
        wrong.advice[0].contains("no field `username`") && wrong.advice[0].contains("`user`"),
        "{:?}",
        wrong.advice
    );
}

#[test]
fn explicit_signs_still_win() {
    let s = Submission::from_form(&form(), &spec(""), "p");
    let u = url("http://a.org/session");
    let sp = spec("success = { text = \"Sign out\" }\n");
    // The form shown again does not matter: the text decides.
    assert!(
        judge(
            &sp,
            &s,
            &[answer(&u, 200, b"<a>Sign out</a>", true)],
            &[],
            |_| false
        )
        .ok()
    );
    assert!(
        !judge(
            &sp,
            &s,
            &[answer(&u, 200, b"Welcome", false)],
            &["x".into()],
            |_| false
        )
        .ok()
    );
    let sp = spec("success = { cookie = \"sid\" }\n");
    assert!(judge(&sp, &s, &[answer(&u, 200, b"", false)], &[], |n| n == "sid").ok());
    let sp = spec("success = { redirect_to = \"http://a.org/home\" }\n");
    let mut a = answer(&u, 302, b"", false);
    a.location = Some("/home?welcome");
    assert!(judge(&sp, &s, &[a.clone()], &[], |_| false).ok());
    a.location = Some("/login?failed");
    assert!(!judge(&sp, &s, &[a], &[], |_| false).ok());
    // The signs as such.
    let login = url("http://a.org/login");
    let redirect = LoginSuccess::RedirectTo("http://a.org/home".into());
    assert!(login_worked(
        &redirect,
        &login,
        302,
        Some("/home?x"),
        b"",
        None,
        |_| false
    ));
    // A path, as the site's `Location` gives it, is read from the login page (xt10a F7).
    let path = LoginSuccess::RedirectTo("/home".into());
    assert!(login_worked(
        &path,
        &login,
        302,
        Some("http://a.org/home?x"),
        b"",
        None,
        |_| false
    ));
    assert!(!login_worked(
        &path,
        &login,
        302,
        Some("/login"),
        b"",
        None,
        |_| false
    ));
    let gone = LoggedOut::RedirectTo("/login".into());
    assert!(sign_shows(
        &gone,
        &url("http://a.org/m/1"),
        302,
        Some("/login?next=/m/1"),
        b"",
        None
    ));
    let out = LoggedOut::Text("Sign in".into());
    assert!(sign_shows(&out, &login, 200, None, b"<b>Sign in</b>", None));
    assert!(!sign_shows(&out, &login, 200, None, b"hello", None));
    // As a reader sees the page: its encoding, character references, a no-break space (xt18a F1).
    let accented = LoginSuccess::Text("Connect\u{e9}".into());
    let latin = Some("text/html; charset=windows-1252");
    assert!(login_worked(
        &accented,
        &login,
        200,
        None,
        b"<p>Connect\xe9</p>",
        latin,
        |_| false
    ));
    assert!(login_worked(
        &accented,
        &login,
        200,
        None,
        b"Connect&eacute; !",
        None,
        |_| false
    ));
    assert!(!login_worked(
        &accented,
        &login,
        200,
        None,
        b"Connecte",
        None,
        |_| false
    ));
    let out = LoggedOut::Text("Sign out".into());
    assert!(sign_shows(
        &out,
        &login,
        200,
        None,
        b"<a>Sign&nbsp;out</a>",
        None
    ));
    assert!(sign_shows(
        &out,
        &login,
        200,
        None,
        b"<a>Sign\n   out</a>",
        None
    ));
    assert!(!sign_shows(
        &out,
        &login,
        200,
        None,
        b"<a>Signout</a>",
        None
    ));
}

/// A front controller's pages share the login page's path: MediaWiki's redirects within the wiki are no lost
/// session, its login page's is (xt10a F3); DokuWiki's other pages are not its login page (F2).
#[test]
fn a_login_page_with_a_query_is_told_from_its_siblings() {
    let sp = spec("");
    let login = url("http://a.org/index.php?title=Special:UserLogin");
    let sig = FormSignature::of_url(&login);
    let page = url("http://a.org/index.php/Special:Search/Archivist");
    let mut h = http::HeaderMap::new();
    h.insert(
        LOCATION,
        "/index.php?title=Special:Search&search=Archivist"
            .parse()
            .unwrap(),
    );
    assert!(!shows_logged_out(&sp, &login, &sig, &page, 301, &h, b""));
    h.insert(
        LOCATION,
        "/index.php?title=Special:UserLogin&returnto=Special:Search"
            .parse()
            .unwrap(),
    );
    assert!(shows_logged_out(&sp, &login, &sig, &page, 302, &h, b""));
    let doku = url("http://a.org/doku.php?id=start&do=login");
    assert!(same_page(
        &url("http://a.org/doku.php?do=login&id=start&sectok="),
        &doku
    ));
    assert!(!same_page(
        &url("http://a.org/doku.php?id=private:page8"),
        &doku
    ));
    assert!(same_page(
        &url("http://a.org/login?next=/x"),
        &url("http://a.org/login")
    ));
    // A sign-in page's own address, with any query: a login_url copied with its `next` is the same page
    // whatever page another redirect names (xt44b F1).
    assert!(same_page(
        &url("http://a.org/accounts/login/?next=/members/secret/"),
        &url("http://a.org/accounts/login/?next=/members/")
    ));
}

#[test]
fn a_lost_session_shows_without_configuration() {
    let sp = spec("");
    let login = url("http://a.org/login");
    let sig = FormSignature::of(&form());
    let page = url("http://a.org/members/1");
    let mut h = http::HeaderMap::new();
    h.insert(LOCATION, "/login?next=/members/1".parse().unwrap());
    assert!(shows_logged_out(&sp, &login, &sig, &page, 302, &h, b""));
    h.insert(LOCATION, "/members/2".parse().unwrap());
    assert!(!shows_logged_out(&sp, &login, &sig, &page, 302, &h, b""));
    // Another sign-in page of the site, to send the visitor back here: Django's admin (xt10a F4), WordPress.
    let admin = url("http://a.org/admin/auth/user/1/change/");
    for back in [
        "/admin/login/?next=/admin/auth/user/1/change/",
        "http://a.org/wp-login.php?redirect_to=http%3A%2F%2Fa.org%2Fadmin%2Fauth%2Fuser%2F1%2Fchange%2F&reauth=1",
    ] {
        h.insert(LOCATION, back.parse().unwrap());
        assert!(
            shows_logged_out(&sp, &login, &sig, &admin, 302, &h, b""),
            "{back}"
        );
    }
    // Not when it sends elsewhere, is on another host, or is no sign-in page.
    for elsewhere in [
        "/admin/login/?next=/admin/",
        "http://b.org/admin/login/?next=/admin/auth/user/1/change/",
        "/admin/catalog/?next=/admin/auth/user/1/change/",
    ] {
        h.insert(LOCATION, elsewhere.parse().unwrap());
        assert!(
            !shows_logged_out(&sp, &login, &sig, &admin, 302, &h, b""),
            "{elsewhere}"
        );
    }
    let mut h = http::HeaderMap::new();
    h.insert(CONTENT_TYPE, "text/html".parse().unwrap());
    assert!(shows_logged_out(
        &sp,
        &login,
        &sig,
        &page,
        200,
        &h,
        PAGE.as_bytes()
    ));
    assert!(!shows_logged_out(
        &sp,
        &login,
        &sig,
        &page,
        200,
        &h,
        b"<p>Members only</p>"
    ));
    // A change-password form is not the login form.
    let change =
        br#"<form action="/account/password" method="post"><input type="password" name="old">
        <input type="password" name="new"></form>"#;
    assert!(!shows_logged_out(&sp, &login, &sig, &page, 200, &h, change));
    // Not HTML: not read.
    h.insert(CONTENT_TYPE, "image/png".parse().unwrap());
    assert!(!shows_logged_out(
        &sp,
        &login,
        &sig,
        &page,
        200,
        &h,
        PAGE.as_bytes()
    ));
    // An explicit sign wins.
    let sp = spec("logged_out = { text = \"Please log in\" }\n");
    h.insert(CONTENT_TYPE, "text/html".parse().unwrap());
    assert!(!shows_logged_out(
        &sp,
        &login,
        &sig,
        &page,
        200,
        &h,
        PAGE.as_bytes()
    ));
    assert!(shows_logged_out(
        &sp,
        &login,
        &sig,
        &page,
        200,
        &h,
        b"Please log in"
    ));
}

/// A cookie a response clears (`Max-Age=0`, an `Expires` past) is told apart from one it sets (xt10a F10:
/// DokuWiki's cleared `DW…` cookies were listed as set).
#[test]
fn cleared_cookies_are_told_from_set_ones() {
    let mut h = http::HeaderMap::new();
    for v in [
        "DokuWiki=abc; path=/",
        "DWcb=deleted; expires=Thu, 01 Jan 1970 00:00:01 GMT; Max-Age=0",
        "old=x; Expires=Thu, 01 Jan 1970 00:00:01 GMT",
    ] {
        h.append(http::header::SET_COOKIE, v.parse().unwrap());
    }
    assert_eq!(
        cookie_changes(&h),
        (
            vec!["DokuWiki".to_string()],
            vec!["DWcb".to_string(), "old".to_string()]
        )
    );
}

/// A sign-in page's address is its last segment, not any path with the word (review 65b R6).
#[test]
fn sign_in_addresses_are_last_segments() {
    for yes in [
        "/accounts/login",
        "/accounts/login/",
        "/signin",
        "/Login.php",
        "/a/sign-in.aspx",
    ] {
        assert!(sign_in_address(yes), "{yes}");
    }
    for no in ["/account/login-history", "/members/", "/loginhelp/faq", "/"] {
        assert!(!sign_in_address(no), "{no}");
    }
}

/// With a text `logged_out` sign, a redirect to the login page still shows the session lost (xt17c F2: the
/// login page it leads to is never a sign, so nothing saw the session end), and a 401 or 403 showing the login
/// form does too without one (xt17a F3).
#[test]
fn a_redirect_to_the_login_page_shows_it_whatever_the_sign() {
    let login = url("http://a.org/login");
    let sig = FormSignature::of(&form());
    let page = url("http://a.org/members/4");
    let mut h = http::HeaderMap::new();
    h.insert(LOCATION, "/login?next=/members/4".parse().unwrap());
    for sp in [
        spec("logged_out = { text = \"Sign in\" }"),
        spec("logged_out = { redirect_to = \"http://a.org/elsewhere\" }"),
        spec(""),
    ] {
        assert!(shows_logged_out(&sp, &login, &sig, &page, 302, &h, b""));
    }
    let text = spec("logged_out = { text = \"Sign in\" }");
    assert!(!shows_logged_out(
        &text,
        &login,
        &sig,
        &page,
        200,
        &http::HeaderMap::new(),
        b"<p>Member page</p>"
    ));
    for status in [401, 403] {
        assert!(shows_logged_out(
            &spec(""),
            &login,
            &sig,
            &page,
            status,
            &http::HeaderMap::new(),
            PAGE.as_bytes()
        ));
    }
}

/// Names and values go in the form's encoding, a character it cannot write as an HTML character reference,
/// in every encoding type (xt17a F5).
#[test]
fn fields_are_sent_in_the_forms_encoding() {
    let page = b"<meta charset=windows-1252><form method=post action=/s><input name=user>\
        <input type=password name=pass></form>";
    let form = read_forms(page, None, &url("http://a.org/login"), None).forms[0].clone();
    assert_eq!(form.charset, encoding_rs::WINDOWS_1252);
    let mut s = Submission::from_form(
        &form,
        &spec("fields = { user = \"J\u{00fc}rgen\" }\n"),
        "p\u{00e4}ss\u{20ac}\u{0436}",
    );
    assert_eq!(s.charset, encoding_rs::WINDOWS_1252);
    let (body, _) = s.body();
    assert_eq!(
        String::from_utf8(body).unwrap(),
        "user=J%FCrgen&pass=p%E4ss%80%26%231078%3B"
    );
    s.enctype = Enctype::TextPlain;
    assert_eq!(s.body().0, b"user=J\xFCrgen\r\npass=p\xE4ss\x80&#1078;\r\n");
    s.enctype = Enctype::Multipart;
    let body = s.body().0;
    assert!(body.windows(6).any(|w| w == b"J\xFCrgen"));
    assert!(body.windows(12).any(|w| w == b"p\xE4ss\x80&#1078;"));
    // A page in UTF-8, and a login without a form, post UTF-8.
    let form = read_forms(
        b"<meta charset=utf-8><form method=post><input type=password name=pass></form>",
        None,
        &url("http://a.org/login"),
        None,
    )
    .forms[0]
        .clone();
    let s = Submission::from_form(&form, &spec(""), "p\u{00e4}");
    assert_eq!(String::from_utf8(s.body().0).unwrap(), "pass=p%C3%A4");
    let s = Submission::without_form(&url("http://a.org/login"), &spec(""), "p\u{00e4}");
    assert_eq!(String::from_utf8(s.body().0).unwrap(), "password=p%C3%A4");
}

/// A password in a URL is found as written, percent-encoded or form-encoded, in UTF-8 or in its form's
/// encoding, and masked in each spelling, partly encoded too; a password shorter than four characters is not
/// looked for (xt18a F2; review 67 R1, R2).
#[test]
fn a_password_in_a_url_is_found_and_masked() {
    let secret = Secret::new("S3cr3t PW!", None);
    for url in [
        "http://a.org/welcome?user=me&password=S3cr3t+PW!",
        "http://a.org/welcome?p=S3cr3t%20PW%21",
        "http://a.org/welcome?p=S3cr3t PW!",
        "Location: http://a.org/welcome?p=S3cr3t%20PW!&x=1\n",
    ] {
        assert!(secret.is_in(url), "{url}");
        let shown = secret.masked_in(url);
        assert!(!secret.is_in(&shown) && shown.contains(MASK), "{shown}");
    }
    assert!(!secret.is_in("http://a.org/welcome?p=other"));
    assert!(!Secret::new("abc", None).is_in("http://a.org/abc"));
    // Posted in windows-1252, echoed so.
    let latin = Secret::new("p\u{e4}sswort", Some(encoding_rs::WINDOWS_1252));
    for url in [
        "/welcome?password=p%E4sswort",
        "/welcome?password=p%C3%A4sswort",
    ] {
        assert!(latin.is_in(url), "{url}");
        assert!(!latin.is_in(&latin.masked_in(url)), "{url}");
    }
    // Partly encoded, with a delimiter in it: the word goes.
    let slash = Secret::new("my pass/word", None);
    let shown = slash.masked_in("answer: Location: /welcome?pw=my%20pass/word done");
    assert!(!slash.is_in(&shown) && shown.contains(MASK), "{shown}");
}

/// Each line break of a name or value goes as CRLF, as a browser sends it (xt18a F7).
#[test]
fn line_breaks_are_sent_as_crlf() {
    let mut s = Submission::from_form(&form(), &spec(""), "p");
    s.entries.truncate(1);
    s.entries[0].value = "a\nb\rc\r\nd".into();
    assert_eq!(
        String::from_utf8(s.body().0).unwrap(),
        "csrf=a%0D%0Ab%0D%0Ac%0D%0Ad"
    );
}

/// The password goes into the input a password manager fills, `autocomplete="current-password"`, not a
/// one-time code's input before it (xt18a F8); `password_field` still decides first.
#[test]
fn the_password_goes_where_a_password_manager_puts_it() {
    let page = br#"<form method=post><input type=password name=otp autocomplete="one-time-code">
        <input type=password name=pw autocomplete="username current-password"></form>"#;
    let form = read_forms(page, None, &url("http://a.org/login"), None).forms[0].clone();
    let s = Submission::from_form(&form, &spec(""), "p1");
    assert_eq!(s.password_field, "pw");
    assert_eq!(String::from_utf8(s.body().0).unwrap(), "otp=&pw=p1");
    let s = Submission::from_form(&form, &spec("password_field = \"otp\"\n"), "p1");
    assert_eq!(String::from_utf8(s.body().0).unwrap(), "otp=p1&pw=");
}
