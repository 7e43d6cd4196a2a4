//! docs/api.md's route table matches the router: every documented route answers (not 404/405) to its method,
//! and every API route in `src/api/mod.rs` is documented. docs/openapi.json describes the same operations as
//! the table, each with a summary and a 200 answer, and its `$ref`s all name schemas it defines.

use std::collections::BTreeSet;

use axum::{
    body::Body,
    http::{Request, StatusCode, header},
};
use tower::ServiceExt;
use trawl_server::{AppState, Auth, JobManager, app};

const DOC: &str = include_str!("../../../docs/api.md");
const ROUTER: &str = include_str!("../src/api/mod.rs");
const OPENAPI: &str = include_str!("../../../docs/openapi.json");

/// The keys of an OpenAPI path item that are operations.
const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

fn documented() -> Vec<(String, String)> {
    let table = DOC
        .split("<!-- routes -->")
        .nth(1)
        .unwrap()
        .split("<!-- /routes -->")
        .next()
        .unwrap();
    table
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            (cells.len() > 3 && matches!(cells[1], "GET" | "POST" | "PUT"))
                .then(|| (cells[1].to_string(), cells[2].to_string()))
        })
        .collect()
}

#[test]
fn every_router_path_is_documented() {
    let doc = documented();
    for line in ROUTER.lines() {
        if let Some(rest) = line.trim().strip_prefix(".route(\"") {
            let path = rest.split('"').next().unwrap();
            assert!(
                doc.iter().any(|(_, p)| p == path),
                "{path} is not in docs/api.md"
            );
        }
    }
}

#[tokio::test]
async fn every_documented_route_exists() {
    let dir = tempfile::tempdir().unwrap();
    let app = app(AppState::new(
        JobManager::new(dir.path()).unwrap(),
        Auth::with_password("pw", Some("t")),
    ));
    for (method, path) in documented() {
        let uri = path.replace("{id}", "nojob").replace("{queue}", "q");
        let req = Request::builder()
            .method(method.as_str())
            .uri(&uri)
            .header(header::AUTHORIZATION, "Bearer t")
            .body(Body::empty())
            .unwrap();
        let res = app.clone().oneshot(req).await.unwrap();
        assert_ne!(
            res.status(),
            StatusCode::METHOD_NOT_ALLOWED,
            "{method} {path}"
        );
        if !uri.contains("nojob") {
            assert_ne!(res.status(), StatusCode::NOT_FOUND, "{method} {path}");
        }
    }
}

fn openapi() -> serde_json::Value {
    serde_json::from_str(OPENAPI).expect("docs/openapi.json is not valid JSON")
}

/// Every operation of docs/openapi.json: `(METHOD, path, operation)`.
fn operations(doc: &serde_json::Value) -> Vec<(String, String, &serde_json::Value)> {
    let paths = doc["paths"]
        .as_object()
        .expect("docs/openapi.json has no `paths` object");
    let mut ops = Vec::new();
    for (path, item) in paths {
        let item = item
            .as_object()
            .unwrap_or_else(|| panic!("docs/openapi.json: path {path} is not an object"));
        for (method, op) in item {
            if METHODS.contains(&method.as_str()) {
                ops.push((method.to_uppercase(), path.clone(), op));
            }
        }
    }
    ops
}

fn show(routes: &BTreeSet<&(String, String)>) -> String {
    routes
        .iter()
        .map(|(m, p)| format!("{m} {p}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn openapi_matches_the_route_table() {
    let doc = openapi();
    let table: BTreeSet<(String, String)> = documented().into_iter().collect();
    let spec: BTreeSet<(String, String)> = operations(&doc)
        .into_iter()
        .map(|(m, p, _)| (m, p))
        .collect();
    let missing: BTreeSet<_> = table.difference(&spec).collect();
    assert!(
        missing.is_empty(),
        "in docs/api.md's table but not in docs/openapi.json: {}",
        show(&missing)
    );
    let extra: BTreeSet<_> = spec.difference(&table).collect();
    assert!(
        extra.is_empty(),
        "in docs/openapi.json but not in docs/api.md's table: {}",
        show(&extra)
    );
    for rest in ROUTER.split(".route(").skip(1) {
        let path = rest.split('"').nth(1).unwrap();
        assert!(
            spec.iter().any(|(_, p)| p == path),
            "router path {path} (src/api/mod.rs) is not in docs/openapi.json"
        );
    }
}

#[test]
fn every_openapi_operation_has_a_summary_and_a_200() {
    let doc = openapi();
    for (method, path, op) in operations(&doc) {
        assert!(
            op["summary"].as_str().is_some_and(|s| !s.trim().is_empty()),
            "docs/openapi.json: {method} {path} has no summary"
        );
        assert!(
            op["responses"].get("200").is_some(),
            "docs/openapi.json: {method} {path} has no 200 response"
        );
    }
}

/// Every `$ref` under `v`, with where it is (`paths > /api/jobs > get > ...`).
fn refs<'a>(v: &'a serde_json::Value, at: &str, out: &mut Vec<(String, &'a str)>) {
    let under = |k: &dyn std::fmt::Display| match at {
        "" => k.to_string(),
        _ => format!("{at} > {k}"),
    };
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                match (k.as_str(), x.as_str()) {
                    ("$ref", Some(r)) => out.push((at.to_string(), r)),
                    _ => refs(x, &under(k), out),
                }
            }
        }
        serde_json::Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                refs(x, &under(&i), out);
            }
        }
        _ => {}
    }
}

#[test]
fn every_openapi_ref_resolves() {
    let doc = openapi();
    let schemas = doc["components"]["schemas"]
        .as_object()
        .expect("docs/openapi.json has no components/schemas");
    let mut found = Vec::new();
    refs(&doc, "", &mut found);
    assert!(!found.is_empty(), "docs/openapi.json has no $ref at all");
    // Shared answers (413, 421) are components/responses.
    let responses = doc["components"]["responses"].as_object();
    for (at, r) in found {
        let schema = r
            .strip_prefix("#/components/schemas/")
            .is_some_and(|n| schemas.contains_key(n));
        let response = r
            .strip_prefix("#/components/responses/")
            .is_some_and(|n| responses.is_some_and(|m| m.contains_key(n)));
        assert!(
            schema || response,
            "docs/openapi.json: $ref {r:?} at {at} names no components/schemas or components/responses entry"
        );
    }
}
