//! Heritrix's default profile and three tuned configurations (testdata/heritrix) imported and checked setting
//! by setting; the results pass trawl's own check; bad input fails with its line.

use std::path::{Path, PathBuf};

use trawl_import::heritrix::{Import, ImportError, import, import_strict};

fn testdata(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/heritrix")
        .join(name)
}

/// Imports `name` from a copy in a temporary folder holding `files` (the seed and SURT files the cxml names,
/// which testdata does not ship), and checks the result with trawl's check.
fn imported(name: &str, files: &[(&str, &str)]) -> (Import, toml::Table, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let cxml = dir.path().join(name);
    std::fs::copy(testdata(name), &cxml).unwrap();
    for (file, text) in files {
        std::fs::write(dir.path().join(file), text).unwrap();
    }
    let text = std::fs::read_to_string(&cxml).unwrap();
    let import = import(&text, &cxml).unwrap_or_else(|e| panic!("{name}: {e}"));
    let out = dir.path().join("crawl.toml");
    std::fs::write(&out, &import.toml).unwrap();
    if let Err(e) = trawl_config::CrawlConfig::check(&out) {
        panic!(
            "{name}: the import does not pass trawl check:\n{e}\n{}",
            import.toml
        );
    }
    let table: toml::Table = toml::from_str(&import.toml).unwrap();
    (import, table, dir)
}

fn get<'t>(t: &'t toml::Table, dotted: &str) -> &'t toml::Value {
    let mut v = t
        .get(dotted.split('.').next().unwrap())
        .unwrap_or_else(|| panic!("no {dotted}"));
    for part in dotted.split('.').skip(1) {
        v = v.get(part).unwrap_or_else(|| panic!("no {dotted}"));
    }
    v
}

fn rules(t: &toml::Table, key: &str) -> Vec<toml::Table> {
    get(t, key)
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_table().unwrap().clone())
        .collect()
}

fn names(rules: &[toml::Table]) -> Vec<&str> {
    rules.iter().map(|r| r["rule"].as_str().unwrap()).collect()
}

fn noted(import: &Import, line: usize, needle: &str) -> bool {
    import
        .notes
        .iter()
        .any(|n| n.line == line && n.to_string().contains(needle))
}

#[test]
fn heritrix_default_profile() {
    let (import, t, _dir) = imported("profile-crawler-beans.cxml", &[]);
    assert_eq!(
        get(&t, "fetch.user_agent").as_str().unwrap(),
        format!(
            "Mozilla/5.0 (compatible; heritrix/{} +ENTER_AN_URL_WITH_YOUR_CONTACT_INFO_HERE_FOR_WEBMASTERS_AFFECTED_BY_YOUR_CRAWL)",
            env!("CARGO_PKG_VERSION")
        )
    );
    let scope = rules(&t, "scope.rules");
    assert_eq!(
        names(&scope),
        [
            "reject",
            "surt_prefixed",
            "too_many_hops",
            "transclusion",
            "surt_prefixed",
            "matches_list_regex",
            "pathological_path",
            "too_many_path_segments",
            "prerequisite_accept",
            "scheme_not_in_set"
        ]
    );
    assert_eq!(scope[4]["decision"].as_str(), Some("reject"));
    assert_eq!(scope[4]["seeds_as_prefixes"].as_bool(), Some(false));
    assert_eq!(scope[5]["decision"].as_str(), Some("reject"));
    // What the profile asks and trawl cannot do is said, with the line.
    assert!(noted(&import, 40, "placeholder"), "{:#?}", import.notes);
    // What trawl does its own way is said so, with its setting.
    assert!(noted(
        &import,
        296,
        "trawl reads sitemaps itself (extract.sitemaps"
    ));
    assert!(noted(&import, 313, "links in scripts itself"));
    // The placeholder seed is left out, with a warning.
    assert!(noted(
        &import,
        55,
        "warning: http://example.example/example is a placeholder seed"
    ));
    assert!(get(&t, "seeds.urls").as_array().unwrap().is_empty());
    // The four stock example sheets are one line of the report.
    let sheets: Vec<_> = import
        .notes
        .iter()
        .filter(|n| n.to_string().contains("sheet"))
        .collect();
    assert_eq!(sheets.len(), 1, "{sheets:#?}");
    assert!(noted(
        &import,
        489,
        "stock example sheets forceRetire (line 489), smallBudget (line 502), veryPolite (line 513), highPrecedence (line 529) are applied to no URI"
    ));
    assert!(import.toml.contains("# Not carried over"));
}

#[test]
fn domain_crawl_with_sheets() {
    let (import, t, _dir) = imported("domain-with-sheets.cxml", &[]);
    assert_eq!(
        get(&t, "seeds.urls").as_array().unwrap().len(),
        4,
        "the + and - lines are not seeds"
    );
    for (key, want) in [
        ("frontier.delay_factor", toml::Value::Float(3.0)),
        ("frontier.min_delay_ms", 2000.into()),
        ("frontier.max_delay_ms", 30000.into()),
        ("frontier.max_crawl_delay_ms", 300_000.into()),
        ("frontier.max_retries", 10.into()),
        ("frontier.retry_delay_ms", 600_000.into()),
        ("frontier.queue_assignment", "host".into()),
        ("frontier.checkpoint_interval_s", 21600.into()),
        ("fetch.robots_expiry_s", 21600.into()),
        ("fetch.max_fetch_ms", 600_000.into()),
        ("fetch.timeout_ms", 15000.into()),
        ("fetch.max_bytes", 104_857_600.into()),
        ("fetch.max_connections", 25.into()),
        ("fetch.obey_robots", true.into()),
        ("warc.prefix", "EXAMPLEORG".into()),
        ("warc.compression", "gzip".into()),
    ] {
        assert_eq!(get(&t, key), &want, "{key}");
    }
    assert_eq!(
        get(&t, "fetch.user_agent").as_str().unwrap(),
        format!(
            "Mozilla/5.0 (compatible; example-archiver/{} +https://www.example.com/crawler-contact)",
            env!("CARGO_PKG_VERSION")
        ),
        "the override's contact URL fills the template"
    );
    let scope = rules(&t, "scope.rules");
    // The seed list's + line joins acceptSurts' own lines; its - line the REJECT rule's.
    assert_eq!(
        scope[1]["prefixes"].as_array().unwrap(),
        &vec![toml::Value::from("http://(org,example,")]
    );
    assert_eq!(scope[2]["max_hops"].as_integer(), Some(25));
    assert_eq!(scope[3]["max_trans_hops"].as_integer(), Some(3));
    assert_eq!(scope[3]["max_speculative_hops"].as_integer(), Some(0));
    let negative: Vec<&str> = scope[4]["prefixes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(
        negative,
        [
            "http://(org,example,www,)/private/",
            "http://(org,example,intranet,)/",
            "http://(org,example,www,)/cgi-bin/"
        ]
    );
    assert_eq!(
        scope[5]["regexes"].as_array().unwrap()[0].as_str(),
        Some(r"^(?:.*/calendar/\d{4}/\d{2}/.*)$"),
        "Java regexes match whole URIs: anchored"
    );
    let sheets = rules(&t, "sheet");
    assert_eq!(
        sheets
            .iter()
            .map(|s| s["name"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["slowMedia", "smallBudget", "largeDownloads"]
    );
    assert_eq!(
        sheets[0]["set"]["frontier.min_delay_ms"].as_integer(),
        Some(15000)
    );
    assert_eq!(
        sheets[0]["surt_prefixes"].as_array().unwrap().len(),
        2,
        "two associations target one sheet"
    );
    // A queue budget is carried by the sheet (the frontier takes a queue's budget from its sheet: xt12a F14);
    // the balance replenish amount is read once per crawl, and the import says so.
    assert_eq!(
        sheets[1]["set"]["frontier.max_uris_per_host"].as_integer(),
        Some(500),
        "{:#?}",
        sheets[1]
    );
    assert!(
        noted(&import, 312, "read once per crawl"),
        "{:#?}",
        import.notes
    );
    assert!(noted(&import, 301, "maxFetchKBSec"), "{:#?}", import.notes);
}

/// A sheet's `candidates.seedsRedirectNewSeeds` is carried by the trawl sheet: the setting is read per URI
/// (xt14c F7: the import's own list of per-URI sections left it out and said "read once per crawl").
#[test]
fn a_sheets_seed_redirect_setting_is_carried() {
    let cxml = std::fs::read_to_string(testdata("domain-with-sheets.cxml")).unwrap();
    let xml = cxml.replace(
        "<entry key='fetchHttp.maxFetchKBSec' value='64'/>",
        "<entry key='fetchHttp.maxFetchKBSec' value='64'/>\n    \
         <entry key='candidates.seedsRedirectNewSeeds' value='false'/>",
    );
    assert!(xml != cxml);
    let import = import_ok(&xml);
    let t: toml::Table = toml::from_str(&import.toml).unwrap();
    let sheets = rules(&t, "sheet");
    assert_eq!(
        sheets[0]["set"]["scope.seed_redirects_new_seeds"].as_bool(),
        Some(false),
        "{}",
        import.toml
    );
    assert!(
        !import
            .notes
            .iter()
            .any(|n| n.to_string().contains("seedsRedirectNewSeeds")),
        "{:#?}",
        import.notes
    );
}

#[test]
fn single_site_with_regex_rules_and_credentials() {
    let (import, t, _dir) = imported(
        "single-site-regex.cxml",
        &[("seeds.txt", "# seeds\nhttps://www.example.com/\n")],
    );
    assert!(
        get(&t, "seeds.files").as_array().unwrap()[0]
            .as_str()
            .unwrap()
            .ends_with("seeds.txt")
    );
    assert_eq!(get(&t, "frontier.parallel_queues").as_integer(), Some(3));
    assert_eq!(get(&t, "frontier.uri_precedence").as_str(), Some("hops"));
    assert_eq!(
        get(&t, "frontier.max_host_bytes_per_s").as_integer(),
        Some(512_000)
    );
    let scope = rules(&t, "scope.rules");
    let and_list = &scope[3];
    assert_eq!(and_list["list_logic"].as_str(), Some("all"));
    assert_eq!(scope[6]["rule"].as_str(), Some("not_matches_regex"));
    assert_eq!(
        scope.last().unwrap()["schemes"].as_array().unwrap().len(),
        3
    );
    // The preselector's regex, the body rule and the writer's rule land on trawl's gates.
    assert_eq!(names(&rules(&t, "decide.before_fetch")), ["matches_regex"]);
    assert_eq!(
        names(&rules(&t, "decide.after_headers")),
        ["accept", "content_type_matches_regex"]
    );
    let write = rules(&t, "decide.before_write");
    assert_eq!(write[1]["statuses"].as_array().unwrap().len(), 2);
    // Credentials become [[credentials]] tables reading their passwords from the environment, never written.
    let creds = rules(&t, "credentials");
    let kinds: Vec<&str> = creds.iter().map(|c| c["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["basic", "digest", "form"]);
    assert_eq!(creds[0]["realm"].as_str(), Some("Staff only"));
    assert_eq!(creds[1]["user"].as_str(), Some("archive-bot"));
    assert_eq!(
        creds[1]["password_env"].as_str(),
        Some("STAFF_AREA_PASSWORD")
    );
    assert_eq!(
        creds[2]["login_url"].as_str(),
        Some("https://www.example.com/login")
    );
    assert_eq!(creds[2]["password_field"].as_str(), Some("password"));
    assert_eq!(
        creds[2]["password_env"].as_str(),
        Some("MEMBER_LOGIN_PASSWORD")
    );
    assert_eq!(creds[2]["fields"]["username"].as_str(), Some("archive-bot"));
    assert!(creds[2]["fields"].get("password").is_none());
    assert!(noted(&import, 341, "STAFF_AREA_PASSWORD"));
    assert!(noted(&import, 326, "MEMBER_LOGIN_PASSWORD"));
    assert!(!import.toml.contains("not-a-real-password"));
    assert!(
        !import
            .notes
            .iter()
            .any(|n| n.to_string().contains("not-a-real-password"))
    );
}

#[test]
fn broad_crawl_with_budgets() {
    let (import, t, _dir) = imported(
        "broad-budgets.cxml",
        &[
            (
                "broad-seeds.txt",
                "http://example.com/\n# a comment\nexample.org\n",
            ),
            ("negative-surts.txt", "+http://(com,example,ads,\n"),
        ],
    );
    for (key, want) in [
        ("frontier.queue_assignment", toml::Value::from("domain")),
        ("frontier.max_uris_per_host", 2000.into()),
        ("frontier.balance_replenish", 500.into()),
        ("frontier.checkpoint_interval_s", 14400.into()),
        ("fetch.max_connections", 150.into()),
        ("fetch.max_bytes", 52_428_800.into()),
    ] {
        assert_eq!(get(&t, key), &want, "{key}");
    }
    let scope = rules(&t, "scope.rules");
    assert_eq!(
        names(&scope)[..5],
        [
            "accept",
            "too_many_hops",
            "hop_crosses_registered_domain",
            "too_many_hops",
            "transclusion"
        ]
    );
    assert!(noted(&import, 153, "WagCostAssignmentPolicy"));
    assert!(noted(&import, 287, "maxTimeSeconds"));
}

#[test]
fn bad_xml_fails_and_unknown_classes_are_listed_with_their_line() {
    let e = import(
        "<beans>\n <bean id='a' class='org.archive.modules.CrawlMetadata'>\n</beans>\n",
        Path::new("x.cxml"),
    )
    .unwrap_err();
    assert!(matches!(e, ImportError::Xml { line: 3, .. }), "{e}");
    // A third-party bean is not carried over, with its line and its place; fatal only when strict.
    let xml = "<beans>\n <bean id='fetchProcessors' class='org.archive.modules.FetchChain'>\n  <property name='processors'><list>\n   <ref bean='x'/>\n  </list></property>\n </bean>\n <bean id='x' class='com.example.MyProcessor'/>\n</beans>\n";
    let ok = import(xml, Path::new("x.cxml")).unwrap();
    assert!(
        noted(
            &ok,
            7,
            "com.example.MyProcessor is not one of Heritrix 3's classes"
        ),
        "{:#?}",
        ok.notes
    );
    assert!(noted(
        &ok,
        7,
        "one of the processors of fetchProcessors; the chain goes on without it"
    ));
    let e = import_strict(xml, Path::new("x.cxml")).unwrap_err();
    assert!(
        matches!(e, ImportError::NotCarriedOver { line: 7, .. }),
        "{e}"
    );
    assert!(e.to_string().contains("com.example.MyProcessor"), "{e}");
    let e = import("<html/>", Path::new("x.cxml")).unwrap_err();
    assert!(e.to_string().contains("not Spring's <beans>"), "{e}");
}

#[test]
fn heritrix_defaults_disabled_rules_and_secrets() {
    let xml = r#"<beans xmlns="http://www.springframework.org/schema/beans">
 <bean id="scope" class="org.archive.modules.deciderules.DecideRuleSequence">
  <property name="rules"><list>
   <bean class="org.archive.modules.deciderules.RejectDecideRule"/>
   <bean class="org.archive.modules.deciderules.NotMatchesRegexDecideRule">
    <constructor-arg value="unused"/><property name="regex" value=".*\.pdf"/>
   </bean>
   <bean class="org.archive.modules.deciderules.AcceptDecideRule"><property name="enabled" value="false"/></bean>
   <bean class="org.archive.modules.deciderules.surt.OnDomainsDecideRule"/>
  </list></property>
 </bean>
 <bean id="seeds" class="org.archive.modules.seeds.TextSeedModule">
  <property name="textSource"><bean class="org.archive.spring.ConfigString">
   <property name="value"><value>http://www.example.org/</value></property>
  </bean></property>
 </bean>
 <bean id="fetchHttp" class="org.archive.modules.fetcher.FetchHTTP">
  <property name="httpProxyPassword" value="s3cret"/>
 </bean>
</beans>"#;
    let import = import(xml, Path::new("t.cxml")).unwrap();
    let t: toml::Table = toml::from_str(&import.toml).unwrap();
    let scope = rules(&t, "scope.rules");
    assert_eq!(names(&scope), ["reject", "not_matches_regex", "on_domains"]);
    // Heritrix's NotMatchesRegex answers ACCEPT unless told otherwise; trawl's not_* rules REJECT: written out.
    assert_eq!(scope[1]["decision"].as_str(), Some("accept"));
    assert_eq!(scope[1]["regex"].as_str(), Some(r"^(?:.*\.pdf)$"));
    // A domain rule takes the seed's domain, www cut off, as Heritrix does.
    assert_eq!(
        scope[2]["domains"].as_array().unwrap(),
        &vec![toml::Value::from("example.org")]
    );
    assert!(noted(&import, 8, "disabled"), "{:#?}", import.notes);
    let all_notes: String = import.notes.iter().map(|n| n.to_string()).collect();
    assert!(!import.toml.contains("s3cret") && !all_notes.contains("s3cret"));
    assert!(
        all_notes.contains("httpProxyPassword = (hidden)"),
        "{all_notes}"
    );
}

/// Credentials by reference and by value: a form whose password item has an odd name, a relative loginUri, a
/// form with no item named as a password (left out, its values unwritten), a credential no store holds.
#[test]
fn credentials_become_tables_without_their_passwords() {
    let xml = r#"<beans xmlns="http://www.springframework.org/schema/beans">
 <bean id="credentialStore" class="org.archive.modules.credential.CredentialStore">
  <property name="credentials"><map>
   <entry key="wp" value-ref="wpLogin"/>
   <entry key="odd">
    <bean class="org.archive.modules.credential.HtmlFormCredential">
     <property name="domain" value="shop.example.org"/>
     <property name="loginUri" value="account/login"/>
     <property name="formItems"><map>
      <entry key="email" value="a@example.org"/>
      <entry key="code" value="hunter2-odd"/>
     </map></property>
    </bean>
   </entry>
  </map></property>
 </bean>
 <bean id="wpLogin" class="org.archive.modules.credential.HtmlFormCredential">
  <property name="domain" value="blog.example.org"/>
  <property name="loginUri" value="/wp-login.php"/>
  <property name="httpMethod" value="GET"/>
  <property name="formItems"><map>
   <entry key="log" value="archivist"/>
   <entry key="pwd" value="hunter2-wp"/>
   <entry key="user_pass_again" value="hunter2-again"/>
  </map></property>
 </bean>
 <bean id="stray" class="org.archive.modules.credential.HttpAuthenticationCredential">
  <property name="domain" value="x.example.org"/>
  <property name="password" value="hunter2-stray"/>
 </bean>
</beans>"#;
    let import = import(xml, Path::new("t.cxml")).unwrap();
    let t: toml::Table = toml::from_str(&import.toml).unwrap();
    let creds = rules(&t, "credentials");
    assert_eq!(creds.len(), 1, "{}", import.toml);
    assert_eq!(creds[0]["kind"].as_str(), Some("form"));
    assert_eq!(
        creds[0]["login_url"].as_str(),
        Some("http://blog.example.org/wp-login.php")
    );
    assert_eq!(creds[0]["password_field"].as_str(), Some("pwd"));
    assert_eq!(creds[0]["password_env"].as_str(), Some("WP_PASSWORD"));
    let all_notes: String = import.notes.iter().map(|n| n.to_string() + "\n").collect();
    assert!(
        !import.toml.contains("hunter2") && !all_notes.contains("hunter2"),
        "{}",
        import.toml
    );
    assert!(
        all_notes.contains("httpMethod GET is not kept"),
        "{all_notes}"
    );
    assert!(
        all_notes.contains("user_pass_again also look secret"),
        "{all_notes}"
    );
    assert!(
        all_notes.contains("credentialStore.credentials[odd]: no form item is named as a password"),
        "{all_notes}"
    );
    assert!(
        all_notes.contains("stray: a credential no CredentialStore holds is never used"),
        "{all_notes}"
    );
    assert!(
        trawl_config::CrawlConfig::check_str(&import.toml, Path::new("crawl.toml")).is_ok(),
        "{}",
        import.toml
    );
}

/// Imports the real configuration `path` (under testdata/heritrix) from a copy in a temporary job folder holding
/// `files`; the profile must pass trawl's check (what `trawl import` exits 0 on).
fn imported_real(path: &str, files: &[(&str, &str)]) -> (Import, toml::Table) {
    let dir = tempfile::tempdir().unwrap();
    let cxml = dir.path().join("crawler-beans.cxml");
    std::fs::copy(testdata(path), &cxml).unwrap();
    for (file, text) in files {
        let to = dir.path().join(file);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::write(to, text).unwrap();
    }
    let text = std::fs::read_to_string(&cxml).unwrap();
    let import = import(&text, &cxml).unwrap_or_else(|e| panic!("{path}: {e}"));
    let out = dir.path().join("crawl.toml");
    std::fs::write(&out, &import.toml).unwrap();
    if let Err(e) = trawl_config::CrawlConfig::check(&out) {
        panic!(
            "{path}: the import does not pass trawl check:\n{e}\n{}",
            import.toml
        );
    }
    let table = toml::from_str(&import.toml).unwrap();
    (import, table)
}

// See: issue 37. Real configurations of Heritrix 3.0 to today, and of a project that ships a Heritrix job:
// each imports, with every bean not carried over named at its line.
#[test]
fn real_configurations_of_every_heritrix_era_import() {
    // (file, files of the job folder, [(line, what the note says)]).
    type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a [(usize, &'a str)]);
    let seeds = [("seeds.txt", "http://www.example.org/\n")];
    let sfm_seeds = [("HERITRIX_DATA_PATH/seeds.txt", "http://www.example.org/\n")];
    let cases: &[Case<'_>] = &[
        (
            "heritrix-3.0.0-profile-crawler-beans.cxml",
            &[],
            &[
                (
                    55,
                    "warning: http://example.example/example is a placeholder seed",
                ),
                (
                    507,
                    "BdbCookieStorage is Heritrix 3.0–3.2's name of org.archive.modules.fetcher.BdbCookieStore",
                ),
            ],
        ),
        (
            "heritrix-3.1.1-profile-crawler-beans.cxml",
            &[],
            &[(678, "BdbCookieStorage is Heritrix 3.0–3.2's name")],
        ),
        (
            "heritrix-3.2.0-profile-crawler-beans.cxml",
            &[],
            &[
                (681, "BdbCookieStorage is Heritrix 3.0–3.2's name"),
                (
                    448,
                    "stock example sheets forceRetire (line 448), smallBudget (line 461)",
                ),
            ],
        ),
        (
            "heritrix-3.4.0-20210923-profile-crawler-beans.cxml",
            &[],
            &[(466, "stock example sheets forceRetire (line 466)")],
        ),
        (
            "heritrix-3.15.0-migrate-template-crawler-beans.cxml",
            &seeds,
            &[
                (508, "BdbCookieStorage is Heritrix 3.0–3.2's name"),
                (294, "trawl writes WARC files only, never ARC"),
            ],
        ),
        (
            "sfm-web-harvester/crawler-beans.cxml",
            &sfm_seeds,
            &[
                (358, "ContentDigestHistoryLoader is not carried over"),
                (
                    358,
                    "one of the processors of dispositionProcessors; the chain goes on without it",
                ),
                (361, "ContentDigestHistoryStorer is not carried over"),
                (726, "BdbContentDigestHistory is not carried over"),
                (431, "stock example sheets"),
            ],
        ),
    ];
    for (path, files, want) in cases {
        let (import, t) = imported_real(path, files);
        for (line, needle) in *want {
            assert!(
                noted(&import, *line, needle),
                "{path}: no note at line {line} with {needle:?}:\n{:#?}",
                import.notes
            );
        }
        let seeds = t
            .get("seeds")
            .and_then(|s| s.get("urls"))
            .and_then(|u| u.as_array());
        assert!(
            seeds.is_none_or(|urls| !urls
                .iter()
                .any(|u| u.as_str().unwrap().contains(".example/"))),
            "{path}: a placeholder seed kept"
        );
        assert!(
            names(&rules(&t, "scope.rules")).contains(&"too_many_hops"),
            "{path}"
        );
        // The stock example sheets are one line ("sheets"), none of their own.
        let stock = ["forceRetire", "smallBudget", "veryPolite", "highPrecedence"];
        assert!(
            !import
                .notes
                .iter()
                .any(|n| stock.iter().any(|s| n.subject == format!("sheet {s}"))),
            "{path}: {:#?}",
            import.notes
        );
    }
}

// See: issue 37. A Heritrix processor trawl does not run, and a third-party bean, in a chain: each listed with
// its line and what it did, the chain going on without it; fatal only when strict.
#[test]
fn processors_trawl_does_not_run_are_listed_not_fatal() {
    let profile = std::fs::read_to_string(testdata("profile-crawler-beans.cxml")).unwrap();
    let line_of = |needle: &str| profile.lines().position(|l| l.contains(needle)).unwrap() + 1;
    let writer = line_of("<bean id=\"warcWriter\"");
    let xml = profile
        .replace(
            "<bean id=\"warcWriter\" class=\"org.archive.modules.writer.WARCWriterChainProcessor\"",
            "<bean id=\"warcWriter\" class=\"org.archive.modules.writer.MirrorWriterProcessor\"",
        )
        .replace(
            "<bean id=\"candidates\"",
            "<bean id=\"dedup\" class=\"is.hi.bok.deduplicator.DeDuplicator\"><property name=\"indexLocation\" value=\"/heritrix/dedup-index\"/><property name=\"matchingMethod\" value=\"URL\"/></bean><bean id=\"candidates\"",
        )
        .replace("<ref bean=\"candidates\"/>", "<ref bean=\"dedup\"/><ref bean=\"candidates\"/>");
    assert_ne!(xml, profile);
    let candidates = line_of("<bean id=\"candidates\"");
    let import = import(&xml, Path::new("crawler-beans.cxml")).unwrap();
    assert!(
        noted(
            &import,
            writer,
            "MirrorWriterProcessor is not carried over: it wrote each fetched document into a folder tree that mirrors its URL"
        ),
        "{:#?}",
        import.notes
    );
    assert!(noted(
        &import,
        writer,
        "one of the processors of dispositionProcessors"
    ));
    assert!(noted(
        &import,
        candidates,
        "is.hi.bok.deduplicator.DeDuplicator is not one of Heritrix 3's classes (a third-party bean)"
    ));
    // Its settings are said too, with their values: where the earlier crawl is goes to dedup_from (xt45a F3).
    let said = |needle: &str| import.notes.iter().any(|n| n.to_string().contains(needle));
    assert!(
        said(
            "dedup.indexLocation = /heritrix/dedup-index: where the earlier crawl is: name its WARCs or ARCs"
        ) && said(
            "dedup.matchingMethod = URL: not carried over with its bean (closest trawl setting: warc.dedup_from)"
        ),
        "{:#?}",
        import.notes
    );
    let e = import_strict(&xml, Path::new("crawler-beans.cxml")).unwrap_err();
    assert!(
        matches!(e, ImportError::NotCarriedOver { line, .. } if line == writer),
        "{e}"
    );
}

/// A cxml in the encoding its declaration names is read as Spring reads it; a byte that is not text in it is
/// named by line and column.
#[test]
fn cxml_encodings() {
    use trawl_import::heritrix::{ImportError, decode};
    let latin1 = b"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<beans>caf\xe9</beans>";
    assert!(decode(latin1).unwrap().contains("caf\u{e9}"));
    let bom = b"\xef\xbb\xbf<?xml version='1.0'?><beans/>";
    assert_eq!(decode(bom).unwrap(), "<?xml version='1.0'?><beans/>");
    let bad = b"<?xml version=\"1.0\"?>\n<beans>\n  caf\xe9</beans>";
    match decode(bad) {
        Err(ImportError::Encoding { line, column, .. }) => assert_eq!((line, column), (3, 6)),
        other => panic!("{other:?}"),
    }
}

proptest::proptest! {
    /// Any bytes: text or a named error, never a panic.
    #[test]
    fn decoding_never_panics(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300)) {
        let mut doc = b"<?xml version=\"1.0\" encoding=\"".to_vec();
        doc.extend_from_slice(&bytes);
        let _ = trawl_import::heritrix::decode(&doc);
        let _ = trawl_import::heritrix::decode(&bytes);
    }
}

/// A processor bean no chain lists (a leftover of an older job) never runs in Heritrix: it must not override the
/// one the chain runs, and it is noted; a processor written inline in a chain's list runs.
#[test]
fn processors_no_chain_runs_do_not_override_the_ones_that_run() {
    let profile = std::fs::read_to_string(testdata("profile-crawler-beans.cxml")).unwrap();
    let xml = profile
        .replace(
            "<bean id=\"fetchHttp\" class=\"org.archive.modules.fetcher.FetchHTTP\">",
            "<bean id=\"fetchHttp\" class=\"org.archive.modules.fetcher.FetchHTTP\">\
             <property name=\"timeoutSeconds\" value=\"100\"/>",
        )
        .replace(
            "<bean id=\"warcWriter\" class=\"org.archive.modules.writer.WARCWriterChainProcessor\">",
            "<bean id=\"warcWriter\" class=\"org.archive.modules.writer.WARCWriterChainProcessor\">\
             <property name=\"prefix\" value=\"LIVE\"/><property name=\"compress\" value=\"true\"/>",
        )
        .replace(
            "<bean id=\"crawlController\"",
            "<bean id=\"fetchHttpOld\" class=\"org.archive.modules.fetcher.FetchHTTP\">\n\
             <property name=\"timeoutSeconds\" value=\"5\"/><property name=\"maxLengthBytes\" value=\"1000\"/>\n\
             </bean>\n\
             <bean id=\"warcWriterTest\" class=\"org.archive.modules.writer.WARCWriterProcessor\">\n\
             <property name=\"prefix\" value=\"TEST\"/><property name=\"compress\" value=\"false\"/>\n\
             </bean>\n<bean id=\"crawlController\"",
        );
    let line_of = |needle: &str| xml.lines().position(|l| l.contains(needle)).unwrap() + 1;
    let import = import(&xml, Path::new("crawler-beans.cxml")).unwrap();
    let t: toml::Table = toml::from_str(&import.toml).unwrap();
    assert_eq!(get(&t, "fetch.max_fetch_ms").as_integer(), Some(100_000));
    assert!(t["fetch"].get("max_bytes").is_none(), "{}", import.toml);
    assert_eq!(get(&t, "warc.prefix").as_str(), Some("LIVE"));
    assert_eq!(get(&t, "warc.compression").as_str(), Some("gzip"));
    let old = line_of("id=\"fetchHttpOld\"");
    assert!(
        noted(&import, old, "not in any chain: no effect")
            && noted(&import, old, "no FetchChain lists this FetchHTTP")
            && noted(
                &import,
                old,
                "(timeoutSeconds, maxLengthBytes) are not carried over"
            )
            && noted(
                &import,
                old,
                &format!(
                    "the chain runs fetchHttp (line {})",
                    line_of("id=\"fetchHttp\"")
                )
            ),
        "{:#?}",
        import.notes
    );
    assert!(noted(
        &import,
        line_of("id=\"warcWriterTest\""),
        "no DispositionChain lists this WARCWriterProcessor"
    ));

    // A processor inline in a chain's list runs; a chain-less fragment is read as it is.
    let inline = profile.replace(
        "<ref bean=\"fetchHttp\"/>",
        "<bean class=\"org.archive.modules.fetcher.FetchHTTP\"><property name=\"soTimeoutMs\" value=\"7000\"/></bean>",
    );
    assert_ne!(inline, profile);
    let import = import_ok(&inline);
    assert!(import.toml.contains("timeout_ms = 7000"), "{}", import.toml);
    let fragment = r#"<beans xmlns="http://www.springframework.org/schema/beans">
 <bean id="fetchHttp" class="org.archive.modules.fetcher.FetchHTTP"><property name="timeoutSeconds" value="9"/></bean>
</beans>"#;
    assert!(import_ok(fragment).toml.contains("max_fetch_ms = 9000"));
}

fn import_ok(xml: &str) -> Import {
    import(xml, Path::new("crawler-beans.cxml")).unwrap()
}

/// Overrides into the scope's rule list and through a property Heritrix fills itself are applied where they
/// point; one that points at nothing is noted as not carried over, with what that means.
#[test]
fn overrides_into_rule_lists_and_default_policies() {
    let profile = std::fs::read_to_string(testdata("profile-crawler-beans.cxml")).unwrap();
    let xml = profile.replace(
        "metadata.description=Basic crawl starting with useful defaults",
        "metadata.description=Basic crawl starting with useful defaults\r\n\
         scope.rules[2].maxHops=3\r\n\
         preparer.uriPrecedencePolicy.basePrecedence=5\r\n\
         scope.rules[40].maxHops=4",
    );
    assert!(xml != profile);
    let line_of = |needle: &str| xml.lines().position(|l| l.contains(needle)).unwrap() + 1;
    let import = import_ok(&xml);
    let t: toml::Table = toml::from_str(&import.toml).unwrap();
    let scope = rules(&t, "scope.rules");
    let hops = scope
        .iter()
        .find(|r| r["rule"].as_str() == Some("too_many_hops"))
        .unwrap();
    assert_eq!(hops["max_hops"].as_integer(), Some(3), "{}", import.toml);
    assert_eq!(
        get(&t, "frontier.uri_precedence_base").as_integer(),
        Some(5)
    );
    let base = line_of("preparer.uriPrecedencePolicy.basePrecedence");
    assert!(
        noted(
            &import,
            base,
            "CostUriPrecedencePolicy (the preparer's default) has no basePrecedence"
        ),
        "{:#?}",
        import.notes
    );
    let wrong = line_of("scope.rules[40]");
    assert!(
        noted(
            &import,
            wrong,
            "override scope.rules[40].maxHops = 4: not carried over: the list has 10 entries"
        ),
        "{:#?}",
        import.notes
    );
    assert!(
        !import
            .notes
            .iter()
            .any(|n| n.to_string().contains("rules[2]")
                || n.message.contains("URI's trace") && n.line == wrong),
        "{:#?}",
        import.notes
    );
}

/// A WARC writer's record builders (`chain`) and `skipIdenticalDigests` are noted with what trawl writes
/// instead (xt15a F12: both were dropped without a word, or with no closest setting).
#[test]
fn a_writers_record_builders_are_noted() {
    let profile = std::fs::read_to_string(testdata("profile-crawler-beans.cxml")).unwrap();
    let xml = profile.replace(
        "<!-- <property name=\"skipIdenticalDigests\" value=\"false\" /> -->",
        "<property name=\"skipIdenticalDigests\" value=\"true\" />\n  <property name=\"chain\"><list>\n   \
         <bean class=\"org.archive.modules.warc.DnsResponseRecordBuilder\"/>\n   \
         <bean class=\"org.archive.modules.warc.HttpResponseRecordBuilder\"/>\n  </list></property>",
    );
    assert!(xml != profile);
    let import = import_ok(&xml);
    let line_of = |needle: &str| xml.lines().position(|l| l.contains(needle)).unwrap() + 1;
    for (needle, says) in [
        ("skipIdenticalDigests", "trawl writes a revisit record"),
        (
            "name=\"chain\"",
            "the record builders are not chosen one by one",
        ),
    ] {
        assert!(
            import.notes.iter().any(|n| n.line == line_of(needle)
                && n.message.contains(says)
                && n.closest.as_deref() == Some("warc.dedup")),
            "{needle}: {:#?}",
            import.notes
        );
    }
}

/// `writeRequests` and `writeMetadata` set to false leave those records out, as in Heritrix; true is trawl's
/// default, written as nothing.
#[test]
fn a_writer_without_requests_or_metadata_maps_to_the_warc_keys() {
    let profile = std::fs::read_to_string(testdata("profile-crawler-beans.cxml")).unwrap();
    let xml = profile.replace(
        "<!-- <property name=\"skipIdenticalDigests\" value=\"false\" /> -->",
        "<property name=\"writeRequests\" value=\"false\" />\n  <property name=\"writeMetadata\" value=\"true\" />",
    );
    assert!(xml != profile);
    let import = import_ok(&xml);
    let table: toml::Table = toml::from_str(&import.toml).unwrap();
    let warc = table["warc"].as_table().unwrap();
    assert_eq!(
        warc.get("write_requests"),
        Some(&toml::Value::Boolean(false))
    );
    assert_eq!(warc.get("write_metadata"), None, "{}", import.toml);
}

/// An override of `decision` on a rule whose Heritrix class has none (here the `AcceptDecideRule` Heritrix puts
/// in an unset `shouldFetchBodyRule`) is noted as what Heritrix refuses, and no rule deciding against its class
/// is written.
#[test]
fn an_override_of_a_decision_the_rule_class_lacks_is_noted() {
    let profile = std::fs::read_to_string(testdata("profile-crawler-beans.cxml")).unwrap();
    let xml = profile.replace(
        "metadata.description=Basic crawl starting with useful defaults",
        "metadata.description=Basic crawl starting with useful defaults\r\n\
         fetchHttp.shouldFetchBodyRule.decision=REJECT",
    );
    assert!(xml != profile);
    let line = xml
        .lines()
        .position(|l| l.contains("shouldFetchBodyRule.decision"))
        .unwrap()
        + 1;
    let import = import_ok(&xml);
    let t: toml::Table = toml::from_str(&import.toml).unwrap();
    let after_headers = t
        .get("decide")
        .and_then(|d| d.get("after_headers"))
        .and_then(toml::Value::as_array)
        .cloned()
        .unwrap_or_default();
    assert!(
        after_headers
            .iter()
            .all(|r| r.get("decision").is_none() && r["rule"].as_str() == Some("accept")),
        "{}",
        import.toml
    );
    assert!(
        noted(
            &import,
            line,
            "Heritrix's AcceptDecideRule has no decision property, so Heritrix refuses a job that sets one"
        ),
        "{:#?}",
        import.notes
    );
}

/// xt25b F3: a scope rule whose Java regex trawl cannot read (a look-ahead) was left out, which widened a
/// REJECT of every other site into a crawl of the whole web that `trawl check` passed. Now the rule is kept
/// with the regex as written, which the check refuses at its line until it is rewritten; `--strict` refuses
/// the import.
#[test]
fn a_rule_with_a_regex_trawl_cannot_read_is_kept_for_the_check_to_refuse() {
    let profile = std::fs::read_to_string(testdata("profile-crawler-beans.cxml")).unwrap();
    let xml = profile.replacen(
        "    <!-- ...but REJECT those more than a configured link-hop-count from start... -->",
        "    <bean class=\"org.archive.modules.deciderules.MatchesRegexDecideRule\">\n\
         \x20    <property name=\"decision\" value=\"REJECT\" />\n\
         \x20    <property name=\"regex\" value=\"^https?://(?!127\\.0\\.0\\.1:19001/).*\" />\n\
         \x20   </bean>",
        1,
    );
    assert!(xml != profile);
    let ok = import_ok(&xml);
    assert!(
        ok.notes
            .iter()
            .any(|n| n.message.contains("look-ahead")
                && n.message.contains("kept with it as written")),
        "{:#?}",
        ok.notes
    );
    assert!(ok.toml.contains("(?!127"), "{}", ok.toml);
    let Err(refused) = trawl_config::CrawlConfig::check_str(&ok.toml, Path::new("crawl.toml"))
    else {
        panic!("the check passed a rule it cannot run")
    };
    let problems: Vec<String> = refused.problems.iter().map(|p| p.to_string()).collect();
    assert!(
        problems.iter().any(|p| p.contains("look-around")),
        "{problems:#?}"
    );
    let e = import_strict(&xml, Path::new("crawler-beans.cxml")).unwrap_err();
    assert!(
        matches!(e, ImportError::NotCarriedOver { .. }) && e.to_string().contains("look-ahead"),
        "{e}"
    );
    // A possessive quantifier, which the regex crate reads as a nested repetition: neither carried over nor
    // kept, so the import fails, strict or not (review 73 R1).
    let possessive = xml.replace(r"(?!127\.0\.0\.1:19001/).*", r"other\.org/.*+");
    assert!(possessive != xml);
    let e = import(&possessive, Path::new("crawler-beans.cxml")).unwrap_err();
    assert!(
        matches!(e, ImportError::UnkeepableRegex { .. }) && e.to_string().contains("possessive"),
        "{e}"
    );
}

/// xt26b F1: a scope rule trawl has no rule for (a file pattern; a status regex that is not a plain list) is
/// left out with a note, and `--strict` fails the import on it: left out, a REJECT widened the scope.
#[test]
fn a_rule_left_out_fails_a_strict_import() {
    let profile = std::fs::read_to_string(testdata("profile-crawler-beans.cxml")).unwrap();
    for (class, property) in [
        (
            "MatchesFilePatternDecideRule",
            "<property name=\"usePreset\" value=\"IMAGES\" />",
        ),
        (
            "FetchStatusMatchesRegexDecideRule",
            "<property name=\"regex\" value=\"4\\d\\d\" />",
        ),
    ] {
        let xml = profile.replacen(
            "    <!-- ...but REJECT those more than a configured link-hop-count from start... -->",
            &format!(
                "    <bean class=\"org.archive.modules.deciderules.{class}\">\n\
                 \x20    <property name=\"decision\" value=\"REJECT\" />\n\
                 \x20    {property}\n\
                 \x20   </bean>"
            ),
            1,
        );
        assert!(xml != profile);
        let ok = import_ok(&xml);
        assert!(
            ok.notes
                .iter()
                .any(|n| n.message.contains("left out of the sequence")),
            "{class}: {:#?}",
            ok.notes
        );
        let e = import_strict(&xml, Path::new("crawler-beans.cxml")).unwrap_err();
        assert!(
            matches!(e, ImportError::NotCarriedOver { .. }),
            "{class}: {e}"
        );
    }
}

/// xt36b F1, F2: the candidates processor's `seedsRedirectNewSeeds` and FetchHTTP's proxy, set on the beans
/// of Heritrix's own profile, were noted as no such setting (a seed's redirect widened the scope; the crawl
/// went direct).
#[test]
fn the_candidates_processor_and_the_fetchers_proxy_are_carried() {
    let cxml = r#"<?xml version="1.0" encoding="UTF-8"?>
<beans xmlns="http://www.springframework.org/schema/beans">
 <bean id="seeds" class="org.archive.modules.seeds.TextSeedModule">
  <property name="textSource"><bean class="org.archive.spring.ConfigString"><property name="value"><value>http://127.0.0.1:18310/</value></property></bean></property>
 </bean>
 <bean id="dispositionChain" class="org.archive.modules.DispositionChain">
  <property name="processors"><list><ref bean="candidates"/><ref bean="disposition"/></list></property>
 </bean>
 <bean id="candidates" class="org.archive.crawler.postprocessor.CandidatesProcessor">
  <property name="seedsRedirectNewSeeds" value="false"/>
 </bean>
 <bean id="disposition" class="org.archive.crawler.postprocessor.DispositionProcessor"/>
 <bean id="fetchHttp" class="org.archive.modules.fetcher.FetchHTTP">
  <property name="httpProxyHost" value="::1"/>
  <property name="httpProxyPort" value="3128"/>
  <property name="httpProxyUser" value="crawler"/>
  <property name="httpProxyPassword" value="Pr0xySecret!"/>
 </bean>
 <bean id="fetchProcessors" class="org.archive.modules.FetchChain">
  <property name="processors"><list><ref bean="fetchHttp"/><bean class="org.archive.modules.extractor.ExtractorDOC"/></list></property>
 </bean>
 <bean id="cookieStore" class="org.archive.modules.fetcher.BdbCookieStore">
  <property name="cookiesLoadFile"><bean class="org.archive.spring.ConfigFile"><property name="path" value="cookies.txt"/></bean></property>
 </bean>
</beans>
"#;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crawler-beans.cxml");
    let import = import(cxml, &path).unwrap();
    let table: toml::Table = toml::from_str(&import.toml).unwrap();
    assert_eq!(
        get(&table, "scope.seed_redirects_new_seeds").as_bool(),
        Some(false),
        "{}",
        import.toml
    );
    // An IPv6 address in brackets (xt38b N9).
    assert_eq!(
        get(&table, "fetch.proxy").as_str(),
        Some("http://[::1]:3128")
    );
    assert!(
        noted(&import, 16, "takes no credentials"),
        "{}",
        import.toml
    );
    assert!(!import.toml.contains("Pr0xySecret"), "{}", import.toml);
    // xt36b F6 and xt38b N3, N4: what trawl does instead, and the closest setting.
    assert!(
        noted(&import, 20, "links in Word documents itself"),
        "{}",
        import.toml
    );
    assert!(noted(&import, 23, "fetch.cookies_file"), "{}", import.toml);
}

/// xt36b F8: `surtsSourceFile` given as a path (`value="surts.txt"`, as Heritrix's default profile shows it)
/// was dropped, the crawl narrower than the Heritrix job's; F4: form items holding an API key or a one-time
/// code were written in clear.
#[test]
fn a_surts_source_file_path_and_secret_form_items() {
    let cxml = r#"<?xml version="1.0" encoding="UTF-8"?>
<beans xmlns="http://www.springframework.org/schema/beans">
 <bean id="seeds" class="org.archive.modules.seeds.TextSeedModule">
  <property name="textSource"><bean class="org.archive.spring.ConfigString"><property name="value"><value>http://127.0.0.1:18310/</value></property></bean></property>
 </bean>
 <bean id="acceptSurts" class="org.archive.modules.deciderules.surt.SurtPrefixedDecideRule">
  <property name="surtsSourceFile" value="surts.txt"/>
 </bean>
 <bean id="scope" class="org.archive.modules.deciderules.DecideRuleSequence">
  <property name="rules"><list>
    <bean class="org.archive.modules.deciderules.RejectDecideRule"/>
    <ref bean="acceptSurts"/>
  </list></property>
 </bean>
 <bean id="credentialStore" class="org.archive.modules.credential.CredentialStore">
  <property name="credentials"><map>
    <entry key="f"><bean class="org.archive.modules.credential.HtmlFormCredential">
      <property name="domain" value="127.0.0.1:18310"/><property name="loginUri" value="http://127.0.0.1:18310/login"/>
      <property name="formItems"><map><entry key="user" value="u"/><entry key="apikey" value="K3Y"/><entry key="otp_code" value="123456"/><entry key="pass" value="P"/></map></property>
    </bean></entry>
  </map></property>
 </bean>
</beans>
"#;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("surts.txt"), "http://(org,example,uni,\n").unwrap();
    let path = dir.path().join("crawler-beans.cxml");
    let import = import(cxml, &path).unwrap();
    let table: toml::Table = toml::from_str(&import.toml).unwrap();
    let accept = rules(&table, "scope.rules")
        .into_iter()
        .find(|r| r.get("rule").and_then(toml::Value::as_str) == Some("surt_prefixed"))
        .unwrap_or_else(|| panic!("{}", import.toml));
    let files = accept["files"].as_array().unwrap();
    assert!(
        files[0].as_str().unwrap().ends_with("surts.txt"),
        "{}",
        import.toml
    );
    for secret in ["K3Y", "123456", "\"P\""] {
        assert!(!import.toml.contains(secret), "{secret}: {}", import.toml);
    }
    let credential = &table["credentials"].as_array().unwrap()[0];
    assert_eq!(credential["password_field"].as_str(), Some("pass"));
    assert!(
        import
            .notes
            .iter()
            .any(|n| n.to_string().contains("apikey, otp_code also look secret")),
        "{}",
        import.toml
    );
    // Both on one bean: the later one is written, the other noted as overridden by it (xt38b N10).
    let both = cxml.replace(
        r#"<property name="surtsSourceFile" value="surts.txt"/>"#,
        "<property name=\"surtsSourceFile\" value=\"surts.txt\"/>\n  <property name=\"surtsSource\"><bean class=\"org.archive.spring.ConfigString\"><property name=\"value\"><value>+http://(org,example,b,</value></property></bean></property>",
    );
    let import = trawl_import::heritrix::import(&both, &path).unwrap();
    assert!(
        import.toml.contains("http://(org,example,b,") && !import.toml.contains("surts.txt"),
        "{}",
        import.toml
    );
    assert!(
        noted(
            &import,
            7,
            "surtsSourceFile is overridden by surtsSource (line 8)"
        ),
        "{:?}",
        import
            .notes
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
    );
}
