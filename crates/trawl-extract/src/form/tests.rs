use super::*;

fn url(s: &str) -> Url {
    Url::parse(s).unwrap()
}

/// WordPress 6's wp-login.php, trimmed: hidden fields, an unchecked box, a named submit button.
const WP_LOGIN: &str = r#"<!DOCTYPE html><html><head><script src="/wp-includes/js/x.js"></script></head>
<body class="login"><div id="login">
<form name="loginform" id="loginform" action="http://blog.example.org/wp-login.php" method="post">
  <p><label for="user_login">Username or Email Address</label>
  <input type="text" name="log" id="user_login" class="input" value="" size="20" autocapitalize="off" required="required" /></p>
  <div class="user-pass-wrap"><label for="user_pass">Password</label>
  <div class="wp-pwd"><input type="password" name="pwd" id="user_pass" class="input password-input" value="" size="20" />
  <button type="button" class="button button-secondary wp-hide-pw hide-if-no-js" data-toggle="0"><span class="dashicons dashicons-visibility"></span></button></div></div>
  <p class="forgetmenot"><input name="rememberme" type="checkbox" id="rememberme" value="forever"  /> <label for="rememberme">Remember Me</label></p>
  <p class="submit">
    <input type="submit" name="wp-submit" id="wp-submit" class="button button-primary button-large" value="Log In" />
    <input type="hidden" name="redirect_to" value="http://blog.example.org/wp-admin/" />
    <input type="hidden" name="testcookie" value="1" />
  </p>
</form>
<form name="lostpasswordform" action="?action=lostpassword" method="post"><input type="text" name="user_login"></form>
</div></body></html>"#;

#[test]
fn a_wordpress_login_form() {
    let forms = read_forms(
        WP_LOGIN.as_bytes(),
        Some("text/html; charset=UTF-8"),
        &url("http://blog.example.org/wp-login.php"),
        None,
    );
    assert_eq!(forms.forms.len(), 2);
    assert_eq!(forms.scripts, 1);
    assert_eq!(forms.captcha, None);
    let f = forms.login_form(false).unwrap();
    assert_eq!(f.id.as_deref(), Some("loginform"));
    assert_eq!(f.method, "post");
    assert_eq!(f.enctype, Enctype::UrlEncoded);
    assert_eq!(f.action.as_str(), "http://blog.example.org/wp-login.php");
    assert_eq!(f.password_inputs().collect::<Vec<_>>(), ["pwd"]);
    let entries: Vec<(String, String)> = f.entries().into_iter().map(|(n, v, _)| (n, v)).collect();
    let want = [
        ("log", ""),
        ("pwd", ""),
        ("wp-submit", "Log In"),
        ("redirect_to", "http://blog.example.org/wp-admin/"),
        ("testcookie", "1"),
    ];
    assert_eq!(
        entries,
        want.map(|(n, v)| (n.to_string(), v.to_string())).to_vec()
    );
    // The second form resolves its relative action against the page.
    assert_eq!(
        forms.forms[1].action.as_str(),
        "http://blog.example.org/wp-login.php?action=lostpassword"
    );
}

#[test]
fn a_selector_picks_the_form() {
    let page = url("http://a.org/login");
    let forms = read_forms(WP_LOGIN.as_bytes(), None, &page, Some("#loginform"));
    assert_eq!(
        forms.login_form(true).unwrap().id.as_deref(),
        Some("loginform")
    );
    let forms = read_forms(
        WP_LOGIN.as_bytes(),
        None,
        &page,
        Some("form[name=lostpasswordform]"),
    );
    assert_eq!(
        forms.login_form(true).unwrap().action.as_str(),
        "http://a.org/login?action=lostpassword"
    );
    // An element around the form: the first form inside it.
    let forms = read_forms(WP_LOGIN.as_bytes(), None, &page, Some("div#login"));
    assert_eq!(
        forms.login_form(true).unwrap().id.as_deref(),
        Some("loginform")
    );
    let forms = read_forms(WP_LOGIN.as_bytes(), None, &page, Some("#nothing"));
    assert!(forms.login_form(true).is_none());
    assert!(check_selector("#loginform").is_ok());
    assert!(check_selector("form[").is_err());
}

#[test]
fn default_values_as_a_browser_sends_them() {
    let html = r#"<base href="/app/"><form action="session?x=1#top" method="POST" enctype="multipart/form-data">
      <input name="csrf" type="hidden" value="a&amp;b">
      <input name="user" value="preset">
      <input name="keep" type="checkbox" checked>
      <input name="news" type="checkbox" value="yes">
      <input name="mode" type="radio" value="a"><input name="mode" type="radio" value="b" checked>
      <select name="lang"><option value="en">English<option value="fr" selected>French</select>
      <select name="zone"><option disabled>pick</option><option> Europe  / Paris </option></select>
      <select name="tags" multiple><option selected>a</option><option>b</option><option selected value="c">C</option></select>
      <textarea name="note">
line &lt;1&gt;</textarea>
      <input name="off" value="x" disabled>
      <fieldset disabled><input name="fs" value="x"></fieldset>
      <input type="password" name="pass">
      <button type="button" name="toggle">show</button>
      <input type="image" name="go" src="go.png">
      <button name="second" value="no">no</button>
    </form>
    <input form="f2" name="outside" value="o"><form id="f2" method="post"></form>"#;
    let forms = read_forms(html.as_bytes(), None, &url("http://a.org/login"), None);
    let f = &forms.forms[0];
    assert_eq!(f.action.as_str(), "http://a.org/app/session?x=1");
    assert_eq!((f.method.as_str(), f.enctype), ("post", Enctype::Multipart));
    let entries: Vec<String> = f
        .entries()
        .into_iter()
        .map(|(n, v, _)| format!("{n}={v}"))
        .collect();
    assert_eq!(
        entries,
        [
            "csrf=a&b",
            "user=preset",
            "keep=on",
            "mode=b",
            "lang=fr",
            "zone=Europe / Paris",
            "tags=a",
            "tags=c",
            "note=line <1>",
            "pass=",
            "go.x=0",
            "go.y=0",
        ]
    );
    // A control outside its form, named by the form's id.
    let f2 = &forms.forms[1];
    assert_eq!(f2.action.as_str(), "http://a.org/login");
    assert_eq!(f2.entries()[0].0, "outside");
}

#[test]
fn what_needs_a_browser_shows() {
    // A login put together by JavaScript: a password input and no form.
    let spa =
        r#"<div id="app"><input type="password" id="p"></div><script src="/app.js"></script>"#;
    let forms = read_forms(spa.as_bytes(), None, &url("http://a.org/login"), None);
    assert!(forms.login_form(false).is_none());
    assert_eq!((forms.loose_password_inputs, forms.scripts), (1, 1));
    // A CAPTCHA widget in the form.
    let captcha = r#"<script src="https://www.google.com/recaptcha/api.js"></script>
      <form method="post"><input name="u"><input type="password" name="p">
      <div class="g-recaptcha" data-sitekey="k"></div></form>"#;
    let forms = read_forms(captcha.as_bytes(), None, &url("http://a.org/login"), None);
    let f = forms.login_form(false).unwrap();
    assert!(
        f.captcha.as_deref().unwrap().contains("g-recaptcha"),
        "{f:?}"
    );
    assert!(forms.captcha.as_deref().unwrap().contains("reCAPTCHA"));
    // A sign-up form (two password inputs) is not taken for the login form.
    let two = r#"<form id="signup"><input type="password" name="a"><input type="password" name="b"></form>
      <form id="login" method="post"><input type="password" name="p"></form>"#;
    let forms = read_forms(two.as_bytes(), None, &url("http://a.org/"), None);
    assert_eq!(
        forms.login_form(false).unwrap().id.as_deref(),
        Some("login")
    );
}

/// A sign-up form with one password input before the login form is never the login form (xt44b F10): its
/// `new-password` mark, or the fields the credential names, tell them apart.
#[test]
fn a_sign_up_form_is_not_the_login_form() {
    let marked = r#"<form id="join" method="post" action="/register"><input name="email" type="email">
      <input type="password" name="password" autocomplete="new-password"><button>Create account</button></form>
      <form id="in" method="post" action="/do"><input name="user">
      <input type="password" name="password"><button>Sign in</button></form>"#;
    let unmarked = r#"<form id="join" method="post" action="/register"><input name="email">
      <input type="password" name="pw"><button>Register</button></form>
      <form id="in" method="post" action="/do"><input name="user">
      <input type="password" name="pw"><button>Sign in</button></form>"#;
    let current = r#"<form id="join"><input name="user"><input type="password" name="pw"></form>
      <form id="in"><input name="user"><input type="password" name="pw" autocomplete="current-password"></form>"#;
    let pick = |page: &str, fields: &[&str]| {
        read_forms(page.as_bytes(), None, &url("http://a.org/"), None)
            .login_form_with(false, None, fields)
            .and_then(|f| f.id.clone())
    };
    assert_eq!(pick(marked, &[]), Some("in".into()));
    assert_eq!(pick(marked, &["user"]), Some("in".into()));
    assert_eq!(pick(unmarked, &["user"]), Some("in".into()));
    assert_eq!(pick(current, &["user"]), Some("in".into()));
    // Both alike but for their words: the one that does not say sign-up.
    let worded = r#"<form method="post" action="/register"><input name="email" type="email"><input name="user">
      <input type="password" name="pw"><button name="register" value="Register">Register</button></form>
      <form id="in" method="post" action="/do"><input name="user"><input type="password" name="pw">
      <button name="login" value="Log in">Log in</button></form>"#;
    assert_eq!(pick(worded, &["user"]), Some("in".into()));
    // Only a sign-up form: none is the login form.
    let only = r#"<form id="join"><input name="email"><input type="password" name="p" autocomplete="new-password"></form>"#;
    assert_eq!(pick(only, &[]), None);
    // A sign-up form said so only by its heading, before a form whose button's text says "Sign in": the
    // button tells (xt46c N2: the first was posted to).
    let headed = r#"<h2>Create your account</h2><form id="new" method="post" action="/new"><input name="user">
      <input type="password" name="password"><input type="submit" value="Go"></form>
      <h2>Already a member?</h2><form id="in" method="post" action="/do"><input name="user">
      <input type="password" name="password"><button><span>Sign</span> in</button></form>"#;
    assert_eq!(pick(headed, &["user"]), Some("in".into()));
    assert_eq!(pick(headed, &[]), Some("in".into()));
    let forms = read_forms(headed.as_bytes(), None, &url("http://a.org/"), None);
    let label = forms.forms[1].controls.last().map(|c| c.label.as_str());
    assert_eq!(label, Some("Sign in"));
}

#[test]
fn a_named_password_field_picks_the_form() {
    // The secret input is a text input named `pin`: the form having it is the login form.
    let page = r#"<form id="search"><input type="password" name="q"></form>
      <form id="pin" method="post"><input name="user"><input type="text" name="pin"></form>"#;
    let forms = read_forms(page.as_bytes(), None, &url("http://a.org/"), None);
    let pick = |field| {
        forms
            .login_form_with(false, Some(field), &[])
            .map(|f| f.id.clone())
    };
    assert_eq!(pick("pin"), Some(Some("pin".into())));
    assert_eq!(pick("q"), Some(Some("search".into())));
    assert_eq!(pick("nonexistent"), None);
    assert_eq!(forms.forms[1].control_names(), ["user", "pin"]);
    // With a selector, the selected form must have it.
    let forms = read_forms(
        page.as_bytes(),
        None,
        &url("http://a.org/"),
        Some("#search"),
    );
    assert!(forms.login_form_with(true, Some("pin"), &[]).is_none());
    assert!(forms.login_form_with(true, Some("q"), &[]).is_some());
}

#[test]
fn another_charset_and_broken_markup() {
    // windows-1252 bytes: the value comes out as text.
    let mut page =
        b"<meta charset=windows-1252><form method=post><input type=hidden name=n value=\"caf"
            .to_vec();
    page.push(0xE9);
    page.extend_from_slice(b"\"><input type=password name=p>");
    let forms = read_forms(&page, None, &url("http://a.org/"), None);
    let f = forms.login_form(false).unwrap();
    assert_eq!(f.entries()[0].1, "café");
    // Garbage reads as no form, never a panic.
    let forms = read_forms(
        b"<form <<< \x00\xff <input",
        None,
        &url("http://a.org/"),
        None,
    );
    assert!(forms.login_form(false).is_none());
}

/// The first submit button's `formaction`, `formmethod` and `formenctype` are the submission's, resolved
/// against the base URL as `action` is; a disabled first button is not the submitter, and a later button's
/// are never used (xt17a F6: the login went to the form's `action`).
#[test]
fn the_submitters_formaction_and_formmethod_win() {
    let page = r#"<base href="http://a.org/app/"><form id=lf method=get action="/login/do">
        <input name=user><input type=password name=pw>
        <button type=submit disabled formaction="/disabled">x</button>
        <button type=submit name=act value=login formaction="real" formmethod=POST
            formenctype="multipart/form-data">Log in</button>
        <input type=submit formaction="/second" formmethod=get>
    </form>
    <form id=plain method=post action="/p"><input type=password name=pw><input type=submit></form>
    <form id=empty method=post action="/p"><input type=password name=pw>
        <input type=image name=go formaction=""></form>"#;
    let forms = read_forms(page.as_bytes(), None, &url("http://a.org/login"), None);
    let f = &forms.forms[0];
    assert_eq!(f.action.as_str(), "http://a.org/login/do");
    assert_eq!(f.submit_action().as_str(), "http://a.org/app/real");
    assert_eq!(f.submit_method(), "post");
    assert_eq!(f.submit_enctype(), Enctype::Multipart);
    assert_eq!(
        f.entries()
            .iter()
            .map(|(n, v, _)| format!("{n}={v}"))
            .collect::<Vec<_>>(),
        ["user=", "pw=", "act=login"]
    );
    let plain = &forms.forms[1];
    assert_eq!(plain.submit_action(), &plain.action);
    assert_eq!(plain.submit_method(), "post");
    assert_eq!(plain.submit_enctype(), Enctype::UrlEncoded);
    // An empty `formaction` is the document's URL, as an empty `action` is.
    assert_eq!(
        forms.forms[2].submit_action().as_str(),
        "http://a.org/login"
    );
}

/// A radio group with two buttons marked checked sends the last one, and an empty hidden `_charset_` sends
/// the encoding, as a browser does (xt17a F13).
#[test]
fn one_radio_per_group_and_the_charset_field() {
    let page = r#"<meta charset=utf-8><form method=post><input type=hidden name=_charset_><input type=hidden name=_CHARSET_ value=x>
        <input type=radio name=r value=a checked><input type=radio name=r value=b checked>
        <input type=radio name=s value=c checked><input type=password name=pw></form>"#;
    let forms = read_forms(page.as_bytes(), None, &url("http://a.org/"), None);
    let sent: Vec<String> = forms.forms[0]
        .entries()
        .iter()
        .map(|(n, v, _)| format!("{n}={v}"))
        .collect();
    assert_eq!(
        sent,
        ["_charset_=UTF-8", "_CHARSET_=UTF-8", "r=b", "s=c", "pw="]
    );
}

/// A form is submitted in the first encoding its `accept-charset` names, else in its page's (a UTF-16 page's
/// as UTF-8), and `_charset_` says which (xt17a F5: a windows-1252 page's form was posted as UTF-8).
#[test]
fn a_form_is_submitted_in_its_pages_encoding() {
    let charset = |page: &[u8], ctype: Option<&str>| {
        let forms = read_forms(page, ctype, &url("http://a.org/"), None);
        let f = &forms.forms[0];
        let sent = f
            .entries()
            .into_iter()
            .find(|(n, _, _)| n == "_charset_")
            .map(|(_, v, _)| v);
        assert_eq!(sent.as_deref(), Some(f.charset.name()));
        f.charset.name()
    };
    let form = |attrs: &str| {
        format!("<form method=post {attrs}><input type=hidden name=_charset_></form>")
    };
    let latin = format!("<meta charset=windows-1252>{}", form(""));
    assert_eq!(charset(latin.as_bytes(), None), "windows-1252");
    // The header's charset outranks the page's `<meta>`; ISO-8859-1 is windows-1252 to a browser.
    assert_eq!(
        charset(latin.as_bytes(), Some("text/html; charset=iso-8859-1")),
        "windows-1252"
    );
    assert_eq!(
        charset(form("").as_bytes(), Some("text/html; charset=Shift_JIS")),
        "Shift_JIS"
    );
    // `accept-charset`: its first label that names an encoding; none, UTF-8.
    let page = format!(
        "<meta charset=windows-1252>{}",
        form("accept-charset=\"nonsense  ISO-8859-2 utf-8\"")
    );
    assert_eq!(charset(page.as_bytes(), None), "ISO-8859-2");
    // Commas separate labels too, as in Chromium.
    let page = format!(
        "<meta charset=windows-1252>{}",
        form("accept-charset=\"utf-8, iso-8859-1\"")
    );
    assert_eq!(charset(page.as_bytes(), None), "UTF-8");
    let page = format!(
        "<meta charset=windows-1252>{}",
        form("accept-charset=\"nonsense\"")
    );
    assert_eq!(charset(page.as_bytes(), None), "UTF-8");
    // An XHTML page's XML declaration names its encoding; a text/html page's does not (xt18a F6).
    let xhtml = format!(
        "<?xml version=\"1.0\" encoding=\"windows-1252\"?>{}",
        form("")
    );
    assert_eq!(
        charset(xhtml.as_bytes(), Some("application/xhtml+xml")),
        "windows-1252"
    );
    let html = format!(
        "<?xml version=\"1.0\" encoding=\"Shift_JIS\"?><meta charset=utf-8>{}",
        form("")
    );
    assert_eq!(charset(html.as_bytes(), Some("text/html")), "UTF-8");
    // A UTF-16 page (its byte order mark) submits in UTF-8.
    let mut utf16 = vec![0xFF, 0xFE];
    for unit in form("").encode_utf16() {
        utf16.extend_from_slice(&unit.to_le_bytes());
    }
    assert_eq!(
        charset(&utf16, Some("text/html; charset=windows-1252")),
        "UTF-8"
    );
}
