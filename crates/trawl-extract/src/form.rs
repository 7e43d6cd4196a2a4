//! The forms of an HTML page, read as a browser would submit them: each form's action (resolved against the
//! page's `<base href>`), method and encoding, and its controls in tree order with the values the page gives
//! them (hidden inputs, default values, checked boxes, selected options, textarea text, submit buttons).
//! What a form login needs, sans-IO: bytes and a URL go in, [`Forms`] come out.
//!
//! Read with lol_html (a streaming parser with CSS selectors), not the link scanner: a form needs end tags
//! (which inputs belong to which form) and text (`<option>` and `<textarea>`), and `form = "#loginform"`
//! in a credential is a CSS selector. A page is read once per login, so its cost does not matter.

use std::{cell::RefCell, rc::Rc};

use lol_html::{HtmlRewriter, Settings, doc_text, element, end_tag};
use url::Url;

use crate::{charset, entities::decode_attr, parse_with_encoding, trim_ascii_ws};

/// How a form encodes its fields (`enctype`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enctype {
    /// `application/x-www-form-urlencoded` (the default).
    UrlEncoded,
    /// `multipart/form-data`.
    Multipart,
    /// `text/plain`.
    TextPlain,
}

impl Enctype {
    /// The media type, as `Content-Type` names it (without a multipart boundary).
    pub fn as_str(self) -> &'static str {
        match self {
            Enctype::UrlEncoded => "application/x-www-form-urlencoded",
            Enctype::Multipart => "multipart/form-data",
            Enctype::TextPlain => "text/plain",
        }
    }
}

/// What kind of control a form field is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ControlKind {
    /// `<input type=hidden>`.
    Hidden,
    /// A text-like `<input>` (text, email, number, search, tel, url, date…, and unknown types).
    Text,
    /// `<input type=password>`.
    Password,
    /// `<input type=checkbox>`.
    Checkbox,
    /// `<input type=radio>`.
    Radio,
    /// A submit button: `<input type=submit>`, `<input type=image>`, `<button>` of type submit.
    Submit,
    /// A selected `<option>` of a `<select>` (one control per selected option).
    Select,
    /// `<textarea>`.
    Textarea,
    /// `<input type=file>` (sent empty).
    File,
}

impl ControlKind {
    /// A word for reports: `hidden`, `text`, `password`, `checkbox`, `radio`, `submit`, `select`,
    /// `textarea`, `file`.
    pub fn as_str(self) -> &'static str {
        match self {
            ControlKind::Hidden => "hidden",
            ControlKind::Text => "text",
            ControlKind::Password => "password",
            ControlKind::Checkbox => "checkbox",
            ControlKind::Radio => "radio",
            ControlKind::Submit => "submit",
            ControlKind::Select => "select",
            ControlKind::Textarea => "textarea",
            ControlKind::File => "file",
        }
    }
}

/// One control of a form, as the page has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Control {
    /// Its `name` (empty: never submitted).
    pub name: String,
    /// Its value as the page gives it (a checkbox without `value`: `on`).
    pub value: String,
    /// What it is.
    pub kind: ControlKind,
    /// A checkbox or radio button: whether it is checked.
    pub checked: bool,
    /// Disabled (itself or by a disabled `<fieldset>`): never submitted.
    pub disabled: bool,
    /// An image button: sent as `name.x` and `name.y`.
    pub image: bool,
    /// A submit button's own `formaction`, `formmethod` and `formenctype`: the submission's when it is the
    /// submitter (HTML's form submission algorithm).
    pub overrides: Option<Box<Overrides>>,
    /// A `<button>`'s text (`Sign in`), which a visitor reads as what the form does; empty otherwise.
    pub label: String,
}

/// What a submit button sets of its form's submission.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Overrides {
    /// `formaction`, resolved as the form's `action` is.
    pub action: Option<Url>,
    /// `formmethod`: `get`, `post` or `dialog`.
    pub method: Option<String>,
    /// `formenctype`.
    pub enctype: Option<Enctype>,
    /// `formaction` as written, until the page's base URL is known.
    raw_action: Option<String>,
}

/// One `<form>` of a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Form {
    /// Its `id`.
    pub id: Option<String>,
    /// Where it is submitted: its `action` resolved against the page's base URL, or the page's own URL.
    pub action: Url,
    /// `get`, `post` or `dialog` (lower case; default `get`).
    pub method: String,
    /// How its fields are encoded.
    pub enctype: Enctype,
    /// Its controls, in tree order.
    pub controls: Vec<Control>,
    /// Whether the selector [`read_forms`] was given matched it (or the element it is the first form in).
    pub selected: bool,
    /// What shows a CAPTCHA inside it (a reCAPTCHA, hCaptcha or Turnstile widget, a `captcha` field).
    pub captcha: Option<String>,
    /// The encoding a browser submits it in: the first encoding its `accept-charset` names, else the page's
    /// own (a UTF-16 one as UTF-8); what [`Form::entries`] says a `_charset_` field is.
    pub charset: &'static encoding_rs::Encoding,
    /// The name of its password input marked `autocomplete="current-password"`, the one a browser's password
    /// manager fills (beside a one-time code's or a new password's).
    pub current_password: Option<String>,
    /// Whether a password input of it is marked `autocomplete="new-password"`: a sign-up or change-password
    /// form, one password input or two.
    pub new_password: bool,
}

impl Form {
    /// The names of its password inputs (an unnamed one as the empty string).
    pub fn password_inputs(&self) -> impl Iterator<Item = &str> {
        self.controls
            .iter()
            .filter(|c| c.kind == ControlKind::Password)
            .map(|c| c.name.as_str())
    }

    /// Whether it has a password input.
    pub fn has_password(&self) -> bool {
        self.password_inputs().next().is_some()
    }

    /// Whether it reads as a sign-up form by its words: its action's path, its id, or a submit button's name
    /// or value says register, sign up, join or create (an account).
    pub fn reads_as_sign_up(&self) -> bool {
        self.says(&[
            "register", "signup", "sign-up", "sign_up", "sign up", "join", "create",
        ])
    }

    /// Whether it reads as a login form by its words, as [`Form::reads_as_sign_up`] reads them: log in, sign
    /// in, log on (xt46c N2: a form whose button said "Sign in" lost to a sign-up form before it).
    pub fn reads_as_sign_in(&self) -> bool {
        self.says(&[
            "login", "log in", "log-in", "log_in", "signin", "sign in", "sign-in", "sign_in",
            "logon", "log on",
        ])
    }

    /// Whether its action's path, its id, or a submit button's name, value or label holds one of `words`
    /// (lower case).
    fn says(&self, words: &[&str]) -> bool {
        let says = |text: &str| {
            let text = text.to_lowercase();
            words.iter().any(|w| text.contains(w))
        };
        says(self.submit_action().path())
            || self.id.as_deref().is_some_and(says)
            || self
                .controls
                .iter()
                .filter(|c| c.kind == ControlKind::Submit)
                .any(|c| says(&c.name) || says(&c.value) || says(&c.label))
    }

    /// Whether it has a control named `name` (of any type).
    pub fn has_control(&self, name: &str) -> bool {
        self.controls.iter().any(|c| c.name == name)
    }

    /// The names of its named controls, in order, each once.
    pub fn control_names(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for c in &self.controls {
            if !c.name.is_empty() && !out.contains(&c.name.as_str()) {
                out.push(&c.name);
            }
        }
        out
    }

    /// The entries a browser submits when the form is sent with its first submit button, as the page
    /// has them: `(name, value, kind)` in tree order. Disabled and unnamed controls, unchecked boxes and
    /// buttons other than the first submit button are left out.
    pub fn entries(&self) -> Vec<(String, String, ControlKind)> {
        let mut out = Vec::new();
        let mut submitted = false;
        // Of a radio group's buttons marked checked, the parser leaves the last one checked (xt17a F13: all
        // were sent).
        let checked_radio = |name: &str| {
            self.controls
                .iter()
                .rposition(|c| c.kind == ControlKind::Radio && c.checked && c.name == name)
        };
        for (at, c) in self.controls.iter().enumerate() {
            if c.disabled {
                continue;
            }
            match c.kind {
                ControlKind::Radio if c.checked && checked_radio(&c.name) != Some(at) => continue,
                // A hidden `_charset_` (in any case, whatever its value) is sent as the submission's
                // encoding's name.
                ControlKind::Hidden if c.name.eq_ignore_ascii_case("_charset_") => {
                    out.push((c.name.clone(), self.charset.name().into(), c.kind));
                    continue;
                }
                ControlKind::Submit => {
                    // The first submit button is the submitter (named or not); the others are not sent.
                    if submitted {
                        continue;
                    }
                    submitted = true;
                    if c.name.is_empty() {
                        continue;
                    }
                    if c.image {
                        out.push((format!("{}.x", c.name), "0".into(), c.kind));
                        out.push((format!("{}.y", c.name), "0".into(), c.kind));
                        continue;
                    }
                }
                ControlKind::Checkbox | ControlKind::Radio if !c.checked => continue,
                _ => {}
            }
            if !c.name.is_empty() {
                out.push((c.name.clone(), c.value.clone(), c.kind));
            }
        }
        out
    }

    /// The overrides of the submitter, its first enabled submit button, if it has any.
    fn overrides(&self) -> Option<&Overrides> {
        self.controls
            .iter()
            .find(|c| c.kind == ControlKind::Submit && !c.disabled)
            .and_then(|c| c.overrides.as_deref())
    }

    /// Where a browser sends the form with its first submit button: that button's `formaction`, else the
    /// form's `action` (xt17a F6: the login went to the form's `action`).
    pub fn submit_action(&self) -> &Url {
        self.overrides()
            .and_then(|o| o.action.as_ref())
            .unwrap_or(&self.action)
    }

    /// The method a browser sends it with: the submitter's `formmethod`, else the form's.
    pub fn submit_method(&self) -> &str {
        self.overrides()
            .and_then(|o| o.method.as_deref())
            .unwrap_or(&self.method)
    }

    /// How a browser encodes it: the submitter's `formenctype`, else the form's.
    pub fn submit_enctype(&self) -> Enctype {
        self.overrides()
            .and_then(|o| o.enctype)
            .unwrap_or(self.enctype)
    }
}

/// A `method` or `formmethod` value HTML knows, lower case.
fn method_of(value: Option<String>) -> Option<String> {
    value
        .map(|m| m.trim().to_ascii_lowercase())
        .filter(|m| matches!(m.as_str(), "get" | "post" | "dialog"))
}

/// An `enctype` or `formenctype` value: HTML's two others, else URL-encoded (an invalid value's default).
fn enctype_of(value: Option<String>) -> Option<Enctype> {
    value.map(|e| match e.trim().to_ascii_lowercase().as_str() {
        "multipart/form-data" => Enctype::Multipart,
        "text/plain" => Enctype::TextPlain,
        _ => Enctype::UrlEncoded,
    })
}

/// A submit button's `formaction`, `formmethod` and `formenctype`, if it has any.
fn overrides_of(el: &lol_html::html_content::Element) -> Option<Box<Overrides>> {
    let o = Overrides {
        action: None,
        method: method_of(attr(el, "formmethod")),
        enctype: enctype_of(attr(el, "formenctype")),
        raw_action: attr(el, "formaction"),
    };
    (o != Overrides::default()).then(|| Box::new(o))
}

/// The forms of a page, and what tells of a login that needs a browser.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Forms {
    /// The forms, in document order.
    pub forms: Vec<Form>,
    /// How many `<script>` elements the page has.
    pub scripts: usize,
    /// Password inputs outside any form (a form put together by JavaScript).
    pub loose_password_inputs: usize,
    /// What shows a CAPTCHA outside any form (its script, a widget).
    pub captcha: Option<String>,
}

impl Forms {
    /// The login form: the one the selector matched, when one was given; else, of the forms that are no
    /// sign-up form (one whose password input is marked `autocomplete="new-password"`, and none
    /// `current-password`), the one whose password input is marked `current-password`, else the one with
    /// exactly one password input whose words say log in or sign in ([`Form::reads_as_sign_in`]), else the
    /// one with exactly one password input (a sign-up or change-password form has two) having every field of
    /// `fields`, else the one with exactly one password input, else the first with any; a form whose words
    /// say sign-up ([`Form::reads_as_sign_up`]) only when no other would do.
    pub fn login_form(&self, selector_given: bool) -> Option<&Form> {
        self.login_form_with(selector_given, None, &[])
    }

    /// [`Forms::login_form`], where a named `password_field` decides first: the login form is one having a
    /// control of that name (of any type) — the one with exactly one password input among them, else the
    /// first; none when no form (or not the selected one) has it.
    pub fn login_form_with(
        &self,
        selector_given: bool,
        password_field: Option<&str>,
        fields: &[&str],
    ) -> Option<&Form> {
        let candidates = || {
            self.forms
                .iter()
                .filter(move |f| !selector_given || f.selected)
                .filter(move |f| password_field.is_none_or(|n| f.has_control(n)))
        };
        if selector_given {
            return candidates().next();
        }
        // A sign-up form never takes the login's password (xt44b F10: a one-password sign-up form before
        // the login form was posted to), unless the operator named its field.
        let logins = || {
            candidates().filter(move |f| {
                password_field.is_some() || !f.new_password || f.current_password.is_some()
            })
        };
        let one = |f: &&Form| f.password_inputs().count() == 1;
        let pick = |words: bool| {
            let logins = move || logins().filter(move |f| words || !f.reads_as_sign_up());
            logins()
                .find(|f| f.current_password.is_some())
                .or_else(|| logins().find(|f| one(f) && f.reads_as_sign_in()))
                .or_else(|| {
                    logins().find(|f| {
                        one(f) && !fields.is_empty() && fields.iter().all(|n| f.has_control(n))
                    })
                })
                .or_else(|| logins().find(one))
                .or_else(|| logins().find(|f| f.has_password()))
        };
        // A form whose words say sign-up is taken only when no other would do.
        pick(false)
            .or_else(|| pick(true))
            .or_else(|| password_field.and_then(|_| candidates().next()))
    }
}

/// A `form` selector lol_html cannot read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a CSS selector trawl can use: {1}")]
pub struct BadSelector(pub String, pub String);

/// Checks that `selector` is a CSS selector forms can be picked with.
pub fn check_selector(selector: &str) -> Result<(), BadSelector> {
    selector
        .parse::<lol_html::Selector>()
        .map(|_| ())
        .map_err(|e| BadSelector(selector.to_string(), e.to_string()))
}

/// What the parse tracks.
#[derive(Default)]
struct State {
    forms: Forms,
    base: Option<String>,
    /// The form open now (its index).
    open: Option<usize>,
    /// Depth of disabled fieldsets open now.
    disabled_fieldsets: usize,
    /// Forms named by id from controls outside them (`form="id"`), attached at the end.
    owned_by_id: Vec<(String, Control)>,
    /// The `<select>` open now: its name, whether it takes several options, whether it is disabled, its
    /// options so far as (value or None for "its text", text, selected, disabled).
    select: Option<OpenSelect>,
    /// Where text goes now.
    text_into: Option<TextInto>,
    /// A selector matched an element that is not a form: the first form opened inside it is the one.
    selecting: bool,
    /// Each form's `action` as written, resolved once the page's base URL is known.
    actions: Vec<String>,
    /// Each form's `accept-charset` as written, read once the page's encoding is known.
    accept_charsets: Vec<Option<String>>,
}

struct OpenSelect {
    name: String,
    multiple: bool,
    disabled: bool,
    owner: Owner,
    options: Vec<OpenOption>,
}

struct OpenOption {
    value: Option<String>,
    text: String,
    selected: bool,
    disabled: bool,
}

#[derive(Clone)]
enum TextInto {
    Option,
    /// The textarea: the control's index in its form (or in `owned_by_id`).
    Textarea(Owner, usize),
    /// A `<button>`'s label, likewise.
    Button(Owner, usize),
}

/// Which form a control belongs to.
#[derive(Clone, Debug)]
enum Owner {
    Form(usize),
    ById(String),
    None,
}

impl State {
    fn owner(&self, form_attr: Option<String>) -> Owner {
        match (form_attr, self.open) {
            (Some(id), _) => Owner::ById(id),
            (None, Some(i)) => Owner::Form(i),
            (None, None) => Owner::None,
        }
    }

    /// Adds `control` to its form; returns where it went.
    fn add(&mut self, owner: &Owner, control: Control) -> Option<usize> {
        match owner {
            Owner::Form(i) => {
                let controls = &mut self.forms.forms[*i].controls;
                controls.push(control);
                Some(controls.len() - 1)
            }
            Owner::ById(id) => {
                self.owned_by_id.push((id.clone(), control));
                Some(self.owned_by_id.len() - 1)
            }
            Owner::None => None,
        }
    }

    fn control_mut(&mut self, owner: &Owner, at: usize) -> Option<&mut Control> {
        match owner {
            Owner::Form(i) => self.forms.forms[*i].controls.get_mut(at),
            Owner::ById(_) => self.owned_by_id.get_mut(at).map(|(_, c)| c),
            Owner::None => None,
        }
    }

    fn note_captcha(&mut self, owner: &Owner, what: String) {
        match owner {
            Owner::Form(i) => {
                self.forms.forms[*i].captcha.get_or_insert(what);
            }
            _ => {
                self.forms.captcha.get_or_insert(what);
            }
        }
    }

    /// Ends the open `<select>`: its selected options become controls.
    fn close_select(&mut self) {
        let Some(select) = self.select.take() else {
            return;
        };
        if matches!(self.text_into, Some(TextInto::Option)) {
            self.text_into = None;
        }
        let value = |o: &OpenOption| {
            o.value.clone().unwrap_or_else(|| {
                o.text
                    .split(crate::is_ascii_ws)
                    .filter(|w| !w.is_empty())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
        };
        let mut chosen: Vec<String> = if select.multiple {
            select
                .options
                .iter()
                .filter(|o| o.selected)
                .map(value)
                .collect()
        } else {
            // One option: the last selected one, else the first one not disabled (a drop-down shows one).
            select
                .options
                .iter()
                .rev()
                .find(|o| o.selected)
                .or_else(|| select.options.iter().find(|o| !o.disabled))
                .map(value)
                .into_iter()
                .collect()
        };
        for v in chosen.drain(..) {
            self.add(
                &select.owner,
                Control {
                    name: select.name.clone(),
                    value: v,
                    kind: ControlKind::Select,
                    checked: false,
                    disabled: select.disabled,
                    image: false,
                    overrides: None,
                    label: String::new(),
                },
            );
        }
    }
}

/// The attribute `name`, its character references decoded.
fn attr(el: &lol_html::html_content::Element<'_, '_>, name: &str) -> Option<String> {
    el.get_attribute(name).map(|v| decode_attr(&v).into_owned())
}

fn class_has(el: &lol_html::html_content::Element<'_, '_>, names: &[&str]) -> Option<String> {
    let class = el.get_attribute("class")?;
    class
        .split(crate::is_ascii_ws)
        .find(|c| names.iter().any(|n| c.eq_ignore_ascii_case(n)))
        .map(str::to_string)
}

/// Script hosts of CAPTCHA services.
const CAPTCHA_SCRIPTS: [(&str, &str); 4] = [
    ("recaptcha", "reCAPTCHA"),
    ("hcaptcha", "hCaptcha"),
    ("turnstile", "Cloudflare Turnstile"),
    ("friendlycaptcha", "Friendly Captcha"),
];

/// Widget classes of CAPTCHA services.
const CAPTCHA_CLASSES: [&str; 4] = ["g-recaptcha", "h-captcha", "cf-turnstile", "frc-captcha"];

/// Reads the forms of an HTML page fetched from `doc_url` (its content coding already removed).
/// `selector`, when given, marks the form it matches (or the first form inside the element it matches):
/// check it first with [`check_selector`] — a selector that does not parse marks nothing.
pub fn read_forms(
    body: &[u8],
    content_type: Option<&str>,
    doc_url: &Url,
    selector: Option<&str>,
) -> Forms {
    // A byte order mark outranks what the page says of its encoding, as in a browser.
    let (text, encoding, _) = charset::sniff_html(body, content_type, doc_url).decode(body);
    let state = Rc::new(RefCell::new(State::default()));
    let mut handlers = Vec::new();
    let s = state.clone();
    handlers.push(element!("base[href]", move |el| {
        let mut st = s.borrow_mut();
        if st.base.is_none() {
            st.base = attr(el, "href");
        }
        Ok(())
    }));
    let s = state.clone();
    let page = doc_url.clone();
    handlers.push(element!("form", move |el| {
        let mut st = s.borrow_mut();
        st.close_select();
        // A form inside a form is ignored by the parser: its controls belong to the outer one.
        if st.open.is_some() {
            return Ok(());
        }
        let method = method_of(attr(el, "method")).unwrap_or_else(|| "get".into());
        let enctype = enctype_of(attr(el, "enctype")).unwrap_or(Enctype::UrlEncoded);
        let action = attr(el, "action").unwrap_or_default();
        let selected = std::mem::take(&mut st.selecting);
        st.forms.forms.push(Form {
            id: attr(el, "id"),
            // Resolved once the page's base URL is known.
            action: page.clone(),
            method,
            enctype,
            controls: Vec::new(),
            selected,
            captcha: None,
            // Picked once the page's encoding is known.
            charset: encoding_rs::UTF_8,
            current_password: None,
            new_password: false,
        });
        let index = st.forms.forms.len() - 1;
        st.open = Some(index);
        st.actions.push(action);
        st.accept_charsets.push(attr(el, "accept-charset"));
        let s = s.clone();
        let _ = el.on_end_tag(end_tag!(move |_| {
            let mut st = s.borrow_mut();
            st.close_select();
            st.open = None;
            Ok(())
        }));
        Ok(())
    }));
    let s = state.clone();
    handlers.push(element!("fieldset[disabled]", move |el| {
        s.borrow_mut().disabled_fieldsets += 1;
        let s = s.clone();
        let _ = el.on_end_tag(end_tag!(move |_| {
            let mut st = s.borrow_mut();
            st.disabled_fieldsets = st.disabled_fieldsets.saturating_sub(1);
            Ok(())
        }));
        Ok(())
    }));
    let s = state.clone();
    handlers.push(element!("input", move |el| {
        let mut st = s.borrow_mut();
        let kind = attr(el, "type")
            .map(|t| t.trim().to_ascii_lowercase())
            .unwrap_or_default();
        let owner = st.owner(attr(el, "form"));
        let name = attr(el, "name").unwrap_or_default();
        if name.to_ascii_lowercase().contains("captcha") {
            st.note_captcha(&owner, format!("a field named {name:?}"));
        }
        let (kind, image) = match kind.as_str() {
            "hidden" => (ControlKind::Hidden, false),
            "password" => (ControlKind::Password, false),
            "checkbox" => (ControlKind::Checkbox, false),
            "radio" => (ControlKind::Radio, false),
            "submit" => (ControlKind::Submit, false),
            "image" => (ControlKind::Submit, true),
            "file" => (ControlKind::File, false),
            // Never submitted.
            "button" | "reset" => return Ok(()),
            _ => (ControlKind::Text, false),
        };
        if kind == ControlKind::Password && matches!(owner, Owner::None) {
            st.forms.loose_password_inputs += 1;
        }
        if kind == ControlKind::Password
            && let Owner::Form(i) = owner
        {
            let marked = |token: &str| {
                attr(el, "autocomplete").is_some_and(|a| {
                    a.split(crate::is_ascii_ws)
                        .any(|t| t.eq_ignore_ascii_case(token))
                })
            };
            if marked("current-password") {
                st.forms.forms[i]
                    .current_password
                    .get_or_insert(name.clone());
            }
            if marked("new-password") {
                st.forms.forms[i].new_password = true;
            }
        }
        let value = match (kind, attr(el, "value")) {
            (ControlKind::Checkbox | ControlKind::Radio, None) => "on".to_string(),
            (ControlKind::File, _) => String::new(),
            (_, v) => v.unwrap_or_default(),
        };
        let disabled = el.has_attribute("disabled") || st.disabled_fieldsets > 0;
        let checked = el.has_attribute("checked");
        st.add(
            &owner,
            Control {
                name,
                value,
                kind,
                checked,
                disabled,
                image,
                overrides: if kind == ControlKind::Submit {
                    overrides_of(el)
                } else {
                    None
                },
                label: String::new(),
            },
        );
        Ok(())
    }));
    let s = state.clone();
    handlers.push(element!("button", move |el| {
        let mut st = s.borrow_mut();
        let kind = attr(el, "type")
            .map(|t| t.trim().to_ascii_lowercase())
            .unwrap_or_default();
        if kind == "button" || kind == "reset" {
            return Ok(());
        }
        let owner = st.owner(attr(el, "form"));
        let disabled = el.has_attribute("disabled") || st.disabled_fieldsets > 0;
        let at = st.add(
            &owner,
            Control {
                name: attr(el, "name").unwrap_or_default(),
                value: attr(el, "value").unwrap_or_default(),
                kind: ControlKind::Submit,
                checked: false,
                disabled,
                image: false,
                overrides: overrides_of(el),
                label: String::new(),
            },
        );
        // Its text is its label (xt46c N2: "Sign in" told the login form from a sign-up form).
        if st.text_into.is_none() {
            st.text_into = at.map(|at| TextInto::Button(owner, at));
            let s = s.clone();
            let _ = el.on_end_tag(end_tag!(move |_| {
                let mut st = s.borrow_mut();
                if matches!(st.text_into, Some(TextInto::Button(..))) {
                    st.text_into = None;
                }
                Ok(())
            }));
        }
        Ok(())
    }));
    let s = state.clone();
    handlers.push(element!("select", move |el| {
        let mut st = s.borrow_mut();
        st.close_select();
        let owner = st.owner(attr(el, "form"));
        st.select = Some(OpenSelect {
            name: attr(el, "name").unwrap_or_default(),
            multiple: el.has_attribute("multiple"),
            disabled: el.has_attribute("disabled") || st.disabled_fieldsets > 0,
            owner,
            options: Vec::new(),
        });
        let s = s.clone();
        let _ = el.on_end_tag(end_tag!(move |_| {
            s.borrow_mut().close_select();
            Ok(())
        }));
        Ok(())
    }));
    let s = state.clone();
    handlers.push(element!("option", move |el| {
        let mut st = s.borrow_mut();
        let Some(select) = st.select.as_mut() else {
            return Ok(());
        };
        select.options.push(OpenOption {
            value: attr(el, "value"),
            text: String::new(),
            selected: el.has_attribute("selected"),
            disabled: el.has_attribute("disabled"),
        });
        st.text_into = Some(TextInto::Option);
        Ok(())
    }));
    let s = state.clone();
    handlers.push(element!("optgroup", move |_| {
        let mut st = s.borrow_mut();
        if matches!(st.text_into, Some(TextInto::Option)) {
            st.text_into = None;
        }
        Ok(())
    }));
    let s = state.clone();
    handlers.push(element!("textarea", move |el| {
        let mut st = s.borrow_mut();
        let owner = st.owner(attr(el, "form"));
        let disabled = el.has_attribute("disabled") || st.disabled_fieldsets > 0;
        let at = st.add(
            &owner,
            Control {
                name: attr(el, "name").unwrap_or_default(),
                value: String::new(),
                kind: ControlKind::Textarea,
                checked: false,
                disabled,
                image: false,
                overrides: None,
                label: String::new(),
            },
        );
        st.text_into = at.map(|at| TextInto::Textarea(owner, at));
        let s = s.clone();
        let _ = el.on_end_tag(end_tag!(move |_| {
            s.borrow_mut().text_into = None;
            Ok(())
        }));
        Ok(())
    }));
    let s = state.clone();
    handlers.push(element!("script", move |el| {
        let mut st = s.borrow_mut();
        st.forms.scripts += 1;
        if let Some(src) = el.get_attribute("src") {
            let lower = src.to_ascii_lowercase();
            if let Some((_, service)) = CAPTCHA_SCRIPTS.iter().find(|(k, _)| lower.contains(k)) {
                st.forms
                    .captcha
                    .get_or_insert(format!("the {service} script"));
            }
        }
        Ok(())
    }));
    let s = state.clone();
    handlers.push(element!("[class], [data-sitekey]", move |el| {
        let mut st = s.borrow_mut();
        let widget = class_has(el, &CAPTCHA_CLASSES).or_else(|| {
            el.has_attribute("data-sitekey")
                .then(|| "data-sitekey".into())
        });
        if let Some(w) = widget {
            let owner = st.owner(attr(el, "form"));
            st.note_captcha(&owner, format!("a CAPTCHA widget ({w})"));
        }
        Ok(())
    }));
    if let Some(selector) = selector
        && check_selector(selector).is_ok()
    {
        let s = state.clone();
        handlers.push(element!(selector, move |el| {
            let mut st = s.borrow_mut();
            if el.tag_name().eq_ignore_ascii_case("form") {
                // The form handler ran first for this element: it is the form open now.
                if let Some(i) = st.open
                    && !st.forms.forms.iter().any(|f| f.selected)
                {
                    st.forms.forms[i].selected = true;
                }
            } else if !st.forms.forms.iter().any(|f| f.selected) {
                st.selecting = true;
                let s = s.clone();
                let _ = el.on_end_tag(end_tag!(move |_| {
                    s.borrow_mut().selecting = false;
                    Ok(())
                }));
            }
            Ok(())
        }));
    }
    let s = state.clone();
    let document = vec![doc_text!(move |chunk| {
        let mut st = s.borrow_mut();
        match st.text_into.clone() {
            Some(TextInto::Option) => {
                if let Some(o) = st.select.as_mut().and_then(|s| s.options.last_mut()) {
                    o.text.push_str(chunk.as_str());
                }
            }
            Some(TextInto::Textarea(owner, at)) => {
                if let Some(c) = st.control_mut(&owner, at) {
                    c.value.push_str(chunk.as_str());
                }
            }
            // A label of some words: a page's button holding a book is no label.
            Some(TextInto::Button(owner, at)) => {
                if let Some(c) = st.control_mut(&owner, at)
                    && c.label.len() < 200
                {
                    c.label.push_str(chunk.as_str());
                }
            }
            None => {}
        }
        Ok(())
    })];
    {
        let mut rewriter = HtmlRewriter::new(
            Settings {
                element_content_handlers: handlers,
                document_content_handlers: document,
                // Markup a token stream cannot read for sure ends nothing: a browser reads it too.
                strict: false,
                ..Settings::new()
            },
            |_: &[u8]| {},
        );
        // Malformed HTML ends the parse early: the forms read so far count.
        let _ = rewriter
            .write(text.as_bytes())
            .and_then(|()| rewriter.end());
    }
    let mut st = state.take();
    st.close_select();
    let actions = std::mem::take(&mut st.actions);
    let base = st
        .base
        .as_deref()
        .and_then(|href| parse_with_encoding(trim_ascii_ws(href), Some(doc_url), Some(encoding)))
        .filter(|u| matches!(u.scheme(), "http" | "https"))
        .unwrap_or_else(|| doc_url.clone());
    // An `action` or `formaction` as written: resolved against the base URL; empty, the document's.
    let resolve = |action: &str| {
        let action = trim_ascii_ws(action);
        let mut url = if action.is_empty() {
            doc_url.clone()
        } else {
            parse_with_encoding(action, Some(&base), Some(encoding))
                .unwrap_or_else(|| doc_url.clone())
        };
        url.set_fragment(None);
        url
    };
    for (index, action) in actions.into_iter().enumerate() {
        if let Some(f) = st.forms.forms.get_mut(index) {
            f.action = resolve(&action);
        }
    }
    for (index, accept) in std::mem::take(&mut st.accept_charsets)
        .into_iter()
        .enumerate()
    {
        if let Some(f) = st.forms.forms.get_mut(index) {
            f.charset = submission_charset(accept.as_deref(), encoding);
        }
    }
    for (id, control) in std::mem::take(&mut st.owned_by_id) {
        if let Some(f) = st
            .forms
            .forms
            .iter_mut()
            .find(|f| f.id.as_deref() == Some(id.as_str()))
        {
            f.controls.push(control);
        } else if control.kind == ControlKind::Password {
            st.forms.loose_password_inputs += 1;
        }
    }
    for f in &mut st.forms.forms {
        for c in &mut f.controls {
            if let Some(o) = c.overrides.as_deref_mut()
                && let Some(raw) = o.raw_action.take()
            {
                o.action = Some(resolve(&raw));
            }
            if c.kind == ControlKind::Textarea {
                let decoded = decode_attr(&c.value).into_owned();
                // A newline right after `<textarea>` is not part of its value.
                c.value = decoded
                    .strip_prefix("\r\n")
                    .or_else(|| decoded.strip_prefix('\n'))
                    .unwrap_or(&decoded)
                    .to_string();
            }
        }
    }
    st.forms
}

/// The encoding a form is submitted in (HTML's "pick an encoding for the form"): with an `accept-charset`,
/// the first of its labels that names an encoding (UTF-8 when none does); without, the page's encoding; then
/// the encoding's output encoding (a UTF-16 one, or the replacement encoding, submits as UTF-8). A login form
/// of a page in windows-1252 or Shift_JIS posts its fields so (xt17a F5: a password with a non-ASCII
/// character was posted in UTF-8, and the site read another password).
fn submission_charset(
    accept_charset: Option<&str>,
    page: &'static encoding_rs::Encoding,
) -> &'static encoding_rs::Encoding {
    let chosen = match accept_charset {
        // Commas separate labels too, as Chromium reads them (`utf-8, iso-8859-1`).
        Some(labels) => labels
            .split(|c: char| c == ',' || crate::is_ascii_ws(c))
            .filter(|l| !l.is_empty())
            .find_map(|l| encoding_rs::Encoding::for_label(l.as_bytes()))
            .unwrap_or(encoding_rs::UTF_8),
        None => page,
    };
    chosen.output_encoding()
}

#[cfg(test)]
mod tests;
