//! docs/api.md's route table matches the router: every documented route answers (not 404/405) to its method,
//! and every API route in `src/api/mod.rs` is documented.

use axum::{
    body::Body,
    http::{Request, StatusCode, header},
};
use tower::ServiceExt;
use trawl_server::{AppState, Auth, JobManager, app};

const DOC: &str = include_str!("../../../docs/api.md");
const ROUTER: &str = include_str!("../src/api/mod.rs");

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
