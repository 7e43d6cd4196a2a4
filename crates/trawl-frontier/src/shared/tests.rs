//! Against a real `redis-server` on a loopback port (installed by the test command).

use std::{
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use super::*;

/// A redis-server of its own on a free loopback port, killed when dropped.
pub(crate) struct RedisServer {
    child: Child,
    pub(crate) url: String,
    _dir: tempfile::TempDir,
}

impl RedisServer {
    pub(crate) fn start() -> RedisServer {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let dir = tempfile::tempdir().unwrap();
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", ""])
            .arg("--dir")
            .arg(dir.path())
            .stdout(Stdio::null())
            .spawn()
            .expect("redis-server is not installed: run the README's test command (apt-get install redis-server)");
        let url = format!("redis://127.0.0.1:{port}/0");
        let client = redis::Client::open(url.as_str()).unwrap();
        let started = Instant::now();
        while client.get_connection().is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "redis-server did not start"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        RedisServer {
            child,
            url,
            _dir: dir,
        }
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn worker(server: &RedisServer, name: &str, lease_ms: u64) -> SharedFrontier<String> {
    SharedFrontier::connect(&server.url, "t", name, Duration::from_millis(lease_ms), 0).unwrap()
}

fn claim(f: &mut SharedFrontier<String>) -> (String, String, Lease) {
    match f.claim().unwrap() {
        Claim::Ready { item, queue, lease } => (item, queue, lease),
        other => panic!("expected an item, got {other:?}"),
    }
}

fn seeds(f: &mut SharedFrontier<String>, items: &[(&str, &str)]) -> Vec<Scheduled> {
    f.schedule_batch(
        items
            .iter()
            .map(|(q, i)| (q.to_string(), i.to_string()))
            .collect(),
    )
    .unwrap()
}

/// Claims and completes `n` items, waiting out the queues' rests; the items in the order they came.
fn take(f: &mut SharedFrontier<String>, n: usize) -> Vec<String> {
    let mut order = Vec::new();
    let started = Instant::now();
    while order.len() < n {
        match f.claim().unwrap() {
            Claim::Ready { item, queue, lease } => {
                order.push(item);
                f.finished(&queue, &lease, &Completion::default()).unwrap();
            }
            Claim::WaitUntil(at) => {
                std::thread::sleep(at.saturating_duration_since(Instant::now()))
            }
            other => panic!("{other:?} with {order:?}"),
        }
        assert!(started.elapsed() < Duration::from_secs(10), "{order:?}");
    }
    order
}

#[test]
fn each_item_once_and_one_lease_per_queue() {
    let server = RedisServer::start();
    let mut a = worker(&server, "a", 60_000);
    let mut b = worker(&server, "b", 60_000);
    assert_eq!(
        seeds(
            &mut a,
            &[
                ("h1", "h1/1"),
                ("h1", "h1/2"),
                ("h2", "h2/1"),
                ("h1", "h1/1")
            ]
        ),
        [
            Scheduled::Queued,
            Scheduled::Queued,
            Scheduled::Queued,
            Scheduled::Duplicate
        ]
    );
    let (item, q1, lease) = claim(&mut a);
    assert_eq!((item.as_str(), q1.as_str()), ("h1/1", "h1"));
    // h1 is leased: b gets h2's item, then nothing may be claimed (h1 leased, h2 empty).
    let (item, q2, lease2) = claim(&mut b);
    assert_eq!((item.as_str(), q2.as_str()), ("h2/1", "h2"));
    assert!(matches!(b.claim().unwrap(), Claim::WaitUntil(_)));
    // a finishes with a 300 ms delay and finds a new link and a duplicate.
    let done = Completion {
        pace: Duration::from_millis(300).into(),
        new: vec![
            ("h3".to_string(), "h3/1".to_string()),
            ("h2".into(), "h2/1".into()),
        ],
        ..Completion::default()
    };
    let finished_at = Instant::now();
    assert_eq!(
        a.finished(&q1, &lease, &done).unwrap(),
        Some(vec![Scheduled::Queued, Scheduled::Duplicate])
    );
    let (item, q3, lease3) = claim(&mut b);
    assert_eq!(item, "h3/1");
    // h1 rests its delay: nothing for a now, h1/2 after it.
    let Claim::WaitUntil(at) = a.claim().unwrap() else {
        panic!("h1 rests")
    };
    // Measured from before the completion, so a slow step in between cannot make the rest look short.
    let rest = at.saturating_duration_since(finished_at);
    assert!(
        rest >= Duration::from_millis(280) && at <= Instant::now() + Duration::from_millis(320),
        "{rest:?}"
    );
    std::thread::sleep(at.saturating_duration_since(Instant::now()) + Duration::from_millis(20));
    let (item, q4, lease4) = claim(&mut a);
    assert_eq!(item, "h1/2");
    assert_eq!(
        a.finished(&q4, &lease4, &Completion::default()).unwrap(),
        Some(vec![])
    );
    for (q, l) in [(&q2, &lease2), (&q3, &lease3)] {
        assert_eq!(
            b.finished(q, l, &Completion::default()).unwrap(),
            Some(vec![])
        );
    }
    assert!(matches!(a.claim().unwrap(), Claim::Empty));
    let counts = a.counts().unwrap();
    assert_eq!(
        (
            counts.done,
            counts.discovered,
            counts.queued,
            counts.in_flight
        ),
        (4, 4, 0, 0)
    );
}

#[test]
fn an_expired_lease_is_claimed_again_and_the_old_holder_cannot_complete() {
    let server = RedisServer::start();
    // Leases of 1 s, and steps 400 ms from each edge, so a stalled test thread does not cross one.
    let mut dead = worker(&server, "dead", 1_000);
    let mut live = worker(&server, "live", 1_000);
    seeds(&mut dead, &[("h", "h/1")]);
    let (_, q, stale) = claim(&mut dead);
    assert!(matches!(live.claim().unwrap(), Claim::WaitUntil(_)));
    // The live worker beats (every third of a lease) while the dead one's lease runs out.
    for _ in 0..3 {
        std::thread::sleep(Duration::from_millis(370));
        live.renew().unwrap();
    }
    let (item, _, lease) = claim(&mut live);
    assert_eq!(item, "h/1", "the dead worker's item, again");
    // The zombie wakes up: its result is dropped, links included.
    let late = Completion {
        new: vec![("h".to_string(), "h/zombie".to_string())],
        ..Completion::default()
    };
    assert_eq!(dead.finished(&q, &stale, &late).unwrap(), None);
    assert!(!live.is_seen("h/zombie").unwrap());
    // The live worker renews past the lease and still completes.
    std::thread::sleep(Duration::from_millis(600));
    assert_eq!(live.renew().unwrap(), 1);
    std::thread::sleep(Duration::from_millis(600));
    assert!(
        matches!(dead.claim().unwrap(), Claim::WaitUntil(_)),
        "still leased"
    );
    assert_eq!(
        live.finished(&q, &lease, &Completion::default()).unwrap(),
        Some(vec![])
    );
    let counts = live.counts().unwrap();
    assert_eq!((counts.reclaimed, counts.done, counts.in_flight), (1, 1, 0));
}

/// An outage in which no worker reaches Redis for longer than a lease does not expire the leases held
/// through it (xt6a F5): once Redis is back, the holder completes its URI and nobody fetches it again.
/// Here the outage is no call at all for 1.5 leases.
#[test]
fn leases_held_through_an_outage_are_not_claimed_again() {
    let server = RedisServer::start();
    let mut holder = worker(&server, "holder", 1_000);
    let mut other = worker(&server, "other", 1_000);
    seeds(&mut holder, &[("h", "h/1"), ("h", "h/2")]);
    let (_, q, lease) = claim(&mut holder);
    std::thread::sleep(Duration::from_millis(1_500));
    assert!(
        matches!(other.claim().unwrap(), Claim::WaitUntil(_)),
        "the held lease is still the holder's"
    );
    assert_eq!(
        holder.finished(&q, &lease, &Completion::default()).unwrap(),
        Some(vec![])
    );
    let counts = holder.counts().unwrap();
    assert_eq!((counts.reclaimed, counts.done), (0, 1));
}

/// The seen marks of what a browser fetched and a gallery's predicted page go in with the completion:
/// a kill between two calls cannot lose them, and a zombie's are dropped with the rest of its result.
#[test]
fn seen_marks_and_a_predicted_page_are_part_of_the_completion() {
    let server = RedisServer::start();
    let mut f = worker(&server, "w", 60_000);
    seeds(&mut f, &[("h", "h/1"), ("h", "h/2")]);
    let (_, q, lease) = claim(&mut f);
    let done = Completion {
        seen: vec!["h/style.css".to_string(), "h/2".to_string()],
        predicted: Some(("h".to_string(), "h/page2".to_string())),
        // h/style.css is seen by now (the browser fetched it): not queued again.
        new: vec![
            ("h".to_string(), "h/style.css".to_string()),
            ("h".to_string(), "h/3".to_string()),
        ],
        ..Completion::default()
    };
    assert_eq!(
        f.finished(&q, &lease, &done).unwrap(),
        Some(vec![Scheduled::Duplicate, Scheduled::Queued])
    );
    assert!(f.is_seen("h/style.css").unwrap());
    assert!(f.is_seen("h/page2").unwrap(), "a new link came: predicted");
    // A page whose links brought nothing new gets no predicted page.
    let (item, q, lease) = claim(&mut f);
    assert_eq!(item, "h/2");
    let done = Completion {
        predicted: Some(("h".to_string(), "h/page9".to_string())),
        new: vec![("h".to_string(), "h/3".to_string())],
        ..Completion::default()
    };
    assert_eq!(
        f.finished(&q, &lease, &done).unwrap(),
        Some(vec![Scheduled::Duplicate])
    );
    assert!(!f.is_seen("h/page9").unwrap());
    // A zombie's marks and predicted page are dropped.
    let mut dead = worker(&server, "dead", 100);
    let (item, q, stale) = claim(&mut dead);
    assert_eq!(item, "h/3");
    std::thread::sleep(Duration::from_millis(150));
    let (_, _, lease) = claim(&mut f);
    let late = Completion {
        seen: vec!["h/zombie.css".to_string()],
        predicted: Some(("h".to_string(), "h/zombie-next".to_string())),
        new: vec![("h".to_string(), "h/zombie".to_string())],
        ..Completion::default()
    };
    assert_eq!(dead.finished(&q, &stale, &late).unwrap(), None);
    for key in ["h/zombie.css", "h/zombie-next", "h/zombie"] {
        assert!(!f.is_seen(key).unwrap(), "{key}");
    }
    let next = f.finished(&q, &lease, &Completion::default()).unwrap();
    assert_eq!(next, Some(vec![]));
    assert_eq!(
        claim(&mut f).0,
        "h/page2",
        "the predicted page is queued behind the new link"
    );
}

/// One completion with every part at once: each part lands where it belongs (the script reads them in the
/// order they are sent).
#[test]
fn a_completion_with_every_part_puts_each_where_it_belongs() {
    let server = RedisServer::start();
    let mut f = worker(&server, "w", 60_000);
    seeds(&mut f, &[("h", "h/1"), ("h", "h/2")]);
    let (_, q, lease) = claim(&mut f);
    let keys = |k: &[&str]| k.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        f.claim_cuts(&q, &lease, &keys(&["refused"])).unwrap(),
        [true]
    );
    let done = Completion {
        pace: Duration::ZERO.into(),
        first: vec![("h".to_string(), "h/robots".to_string())],
        later: vec![(
            "g".to_string(),
            "g/later".to_string(),
            Duration::from_millis(100),
        )],
        seen: keys(&["h/fetched-by-browser"]),
        predicted: Some(("h".to_string(), "h/next-page".to_string())),
        cuts: keys(&["refused"]),
        new: vec![
            ("h".to_string(), "h/fetched-by-browser".to_string()),
            ("h".to_string(), "h/new".to_string()),
        ],
        ended: true,
    };
    assert_eq!(
        f.finished(&q, &lease, &done).unwrap(),
        Some(vec![Scheduled::Duplicate, Scheduled::Queued])
    );
    // The cut's line is final: nobody logs it again, and its claim is gone.
    assert!(!f.mark_cut("refused").unwrap());
    let order = take(&mut f, 5);
    // h's in its queue's order (the robots.txt first, the predicted page behind the new link); g's item
    // once due, whenever that falls.
    let h: Vec<_> = order.iter().filter(|i| i.starts_with("h/")).collect();
    assert_eq!(h, ["h/robots", "h/2", "h/new", "h/next-page"]);
    assert!(order.contains(&"g/later".to_string()));
    assert!(matches!(f.claim().unwrap(), Claim::Empty));
    let counts = f.counts().unwrap();
    assert_eq!((counts.done, counts.discovered), (6, 4));
    assert_eq!(counts.refused, 1, "the cut's line, counted once");
}

/// Review 71 R3: a queue nothing but a prerequisite or a redirect fed (`first`) is known by its name, as
/// `trawl ctl --frontier URL JOB queue-delay HOST` looks queues up, and has spent nothing of its budget.
#[test]
fn a_queue_fed_only_at_its_front_is_known_by_name() {
    let server = RedisServer::start();
    let mut f = worker(&server, "w", 60_000);
    seeds(&mut f, &[("h", "h/1")]);
    let (_, q, lease) = claim(&mut f);
    let done = Completion {
        first: vec![("r".to_string(), "r/robots".to_string())],
        ended: true,
        ..Completion::default()
    };
    f.finished(&q, &lease, &done).unwrap();
    let names = f.queue_names().unwrap();
    assert!(names.contains(&"r".to_string()), "{names:?}");
    let r = f
        .queues(10)
        .unwrap()
        .into_iter()
        .find(|row| row.name == "r");
    assert_eq!(r.map(|row| (row.queued, row.spent)), Some((1, 0)));
}

/// A completion that puts its item back (a retry, a page held for its robots.txt) does not count it done,
/// crawl-wide or for its worker: each item is counted once, when it ends.
#[test]
fn only_the_completion_that_ends_an_item_counts_it_done() {
    let server = RedisServer::start();
    let mut f = worker(&server, "w", 60_000);
    seeds(&mut f, &[("h", "h/1")]);
    let (item, q, lease) = claim(&mut f);
    let again = Completion {
        first: vec![(q.clone(), item)],
        ended: false,
        ..Completion::default()
    };
    f.finished(&q, &lease, &again).unwrap();
    let done = |f: &mut SharedFrontier<String>| {
        f.renew().unwrap();
        let w = f.workers().unwrap();
        (
            f.counts().unwrap().done,
            w.iter().map(|w| w.done).sum::<u64>(),
        )
    };
    assert_eq!(done(&mut f), (0, 0));
    let (item, q, lease) = claim(&mut f);
    assert_eq!(item, "h/1");
    f.finished(&q, &lease, &Completion::default()).unwrap();
    assert_eq!(done(&mut f), (1, 1));
}

/// A refused URL's line: claimed under a lease, final with the completion, taken over when its worker
/// died before completing; never for a URL the crawl schedules.
#[test]
fn a_refused_urls_line_is_claimed_once_and_taken_over_from_a_dead_worker() {
    let server = RedisServer::start();
    let mut a = worker(&server, "a", 60_000);
    let mut dead = worker(&server, "dead", 100);
    seeds(&mut a, &[("h1", "h1/1"), ("h2", "h2/1"), ("h3", "h3/1")]);
    let (_, q1, lease1) = claim(&mut a);
    let keys = |k: &[&str]| k.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    // A URL refused twice on a page, and one the crawl scheduled: one line.
    assert_eq!(
        a.claim_cuts(&q1, &lease1, &keys(&["x", "x", "h3/1"]))
            .unwrap(),
        [true, false, false]
    );
    // The same call again (its reply lost): still this worker's.
    assert_eq!(a.claim_cuts(&q1, &lease1, &keys(&["x"])).unwrap(), [true]);
    // Another worker meets the same URL while a's lease is alive: a logs it.
    let (_, q2, lease2) = claim(&mut dead);
    assert_eq!(
        dead.claim_cuts(&q2, &lease2, &keys(&["x", "y"])).unwrap(),
        [false, true]
    );
    let done = Completion {
        cuts: keys(&["x"]),
        ..Completion::default()
    };
    assert_eq!(a.finished(&q1, &lease1, &done).unwrap(), Some(vec![]));
    // "dead" dies before completing: its claim of y is taken over by whoever meets y next (here on
    // another queue: h3's item, or h2's again).
    std::thread::sleep(Duration::from_millis(150));
    let (_, q2, lease2) = claim(&mut a);
    assert_eq!(
        a.claim_cuts(&q2, &lease2, &keys(&["x", "y"])).unwrap(),
        [false, true]
    );
    let done = Completion {
        cuts: keys(&["y"]),
        ..Completion::default()
    };
    a.finished(&q2, &lease2, &done).unwrap();
    // Final: nobody logs x or y again, and a cut found after a completion is marked once.
    let (_, q3, lease3) = claim(&mut a);
    assert_eq!(
        a.claim_cuts(&q3, &lease3, &keys(&["x", "y"])).unwrap(),
        [false, false]
    );
    assert!(!a.mark_cut("y").unwrap() && !a.mark_cut("h1/1").unwrap());
    assert!(a.mark_cut("z").unwrap() && !a.mark_cut("z").unwrap());
    // One line each for x, y and z, however often they were met or claimed.
    assert_eq!(a.counts().unwrap().refused, 3);
}

#[test]
fn retries_go_first_and_later_items_wait() {
    let server = RedisServer::start();
    let mut f = worker(&server, "w", 60_000);
    seeds(&mut f, &[("h", "h/1"), ("h", "h/2")]);
    let (_, q, lease) = claim(&mut f);
    let done = Completion {
        first: vec![
            ("h".to_string(), "h/robots".to_string()),
            ("h".to_string(), "h/1".to_string()),
        ],
        later: vec![(
            "h".to_string(),
            "h/again".to_string(),
            Duration::from_millis(200),
        )],
        ..Completion::default()
    };
    f.finished(&q, &lease, &done).unwrap();
    let started = Instant::now();
    let order = take(&mut f, 4);
    assert_eq!(order, ["h/robots", "h/1", "h/2", "h/again"]);
    assert!(started.elapsed() >= Duration::from_millis(150));
    assert!(matches!(f.claim().unwrap(), Claim::Empty));
}

#[test]
fn an_operator_steers_one_queue_for_every_worker() {
    let server = RedisServer::start();
    let mut f = worker(&server, "w", 60_000);
    seeds(
        &mut f,
        &[("h", "h/1"), ("h", "h/2"), ("g", "g/1"), ("g", "g/2")],
    );
    assert_eq!(f.queue_action("pause", "h", None).unwrap(), Some(1));
    assert_eq!(f.queue_action("pause", "nowhere", None).unwrap(), None);
    assert_eq!(f.queue_action("delete", "nowhere", None).unwrap(), None);
    // Only g is claimed while h is paused; g's own delay replaces the computed one.
    f.queue_action("delay", "g", Some(250)).unwrap();
    let (item, q, lease) = claim(&mut f);
    assert_eq!(item, "g/1");
    let finished_at = Instant::now();
    let fetched = Completion {
        pace: Duration::ZERO.into(),
        ..Completion::default()
    };
    f.finished(&q, &lease, &fetched).unwrap();
    let Claim::WaitUntil(at) = f.claim().unwrap() else {
        panic!("g rests, h is paused")
    };
    assert!(at.saturating_duration_since(finished_at) >= Duration::from_millis(230));
    let rows = f.queues(10).unwrap();
    let h = rows.iter().find(|r| r.name == "h").unwrap();
    assert_eq!((h.state.as_str(), h.queued, h.spent), ("paused", 2, 2));
    let g = rows.iter().find(|r| r.name == "g").unwrap();
    assert_eq!((g.state.as_str(), g.delay_ms), ("snoozed", Some(250)));
    // h holds its URIs while paused; g alone takes turns.
    assert_eq!(SharedQueue::held(&f.queues(1).unwrap()), Some((1, 2)));
    assert_eq!(f.counts().unwrap().active_queues, 1);
    assert_eq!(f.queue_counts("g").unwrap(), (2, 1));
    assert_eq!(f.queue_counts("nowhere").unwrap(), (0, 0));
    // A budget of 2 for g: a third URI is over it.
    f.queue_action("budget", "g", Some(2)).unwrap();
    assert_eq!(seeds(&mut f, &[("g", "g/3")]), [Scheduled::OverBudget]);
    // Deleting h drops its URIs; unpausing it then has nothing to give.
    assert_eq!(f.queue_action("delete", "h", None).unwrap(), Some(2));
    f.queue_action("unpause", "h", None).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let (item, q, lease) = claim(&mut f);
    assert_eq!(item, "g/2");
    // What the server asked (a Retry-After) holds over the operator's shorter delay (xt21a F1).
    seeds(&mut f, &[("k", "k/1"), ("k", "k/2"), ("k", "k/3")]);
    f.queue_action("delay", "k", Some(10)).unwrap();
    f.finished(&q, &lease, &Completion::default()).unwrap();
    let (item, k, lease) = claim(&mut f);
    assert_eq!(item, "k/1");
    let finished_at = Instant::now();
    let asked = Completion {
        pace: crate::Pace {
            delay: Duration::from_millis(800),
            asked: Duration::from_millis(800),
            fetched: true,
        },
        ..Completion::default()
    };
    f.finished(&k, &lease, &asked).unwrap();
    let Claim::WaitUntil(at) = f.claim().unwrap() else {
        panic!("k rests as its server asked")
    };
    assert!(at.saturating_duration_since(finished_at) >= Duration::from_millis(780));
    std::thread::sleep(Duration::from_millis(850));
    let (item, k, lease) = claim(&mut f);
    assert_eq!(item, "k/2");
    // An item ended without a request (refused by robots.txt) does not rest its queue the operator's delay
    // (xt22a F5).
    f.queue_action("delay", "k", Some(5_000)).unwrap();
    f.finished(&k, &lease, &Completion::default()).unwrap();
    let (item, k, lease) = claim(&mut f);
    assert_eq!(item, "k/3");
    f.finished(&k, &lease, &Completion::default()).unwrap();
    assert!(matches!(f.claim().unwrap(), Claim::Empty));
    assert_eq!(f.counts().unwrap().queued, 0);
}

/// xt6a F15: a queue an operator paused or retired with items left keeps the crawl from ending, as in one
/// process: the workers wait for the operator instead of finishing with URIs queued.
#[test]
fn a_paused_queue_with_items_keeps_the_crawl_from_ending() {
    let server = RedisServer::start();
    let mut f = worker(&server, "w", 60_000);
    seeds(&mut f, &[("h", "h/1"), ("g", "g/1")]);
    f.queue_action("pause", "h", None).unwrap();
    let (item, q, lease) = claim(&mut f);
    assert_eq!(item, "g/1");
    f.finished(&q, &lease, &Completion::default()).unwrap();
    for action in ["pause", "retire"] {
        f.queue_action(action, "h", None).unwrap();
        let claimed = f.claim().unwrap();
        assert!(
            matches!(claimed, Claim::WaitUntil(_)),
            "{action}: {claimed:?}"
        );
    }
    f.queue_action("unpause", "h", None).unwrap();
    let (item, q, lease) = claim(&mut f);
    assert_eq!(item, "h/1");
    f.finished(&q, &lease, &Completion::default()).unwrap();
    assert!(matches!(f.claim().unwrap(), Claim::Empty));
}

#[test]
fn budgets_pause_and_the_seen_set() {
    let server = RedisServer::start();
    let mut f =
        SharedFrontier::<String>::connect(&server.url, "b", "w", Duration::from_secs(60), 2)
            .unwrap();
    assert_eq!(
        seeds(&mut f, &[("h", "1"), ("h", "2"), ("h", "3"), ("g", "4")]),
        [
            Scheduled::Queued,
            Scheduled::Queued,
            Scheduled::OverBudget,
            Scheduled::Queued
        ]
    );
    assert!(f.mark_cut("x").unwrap() && !f.mark_cut("x").unwrap());
    assert!(f.is_seen("1").unwrap() && !f.is_seen("3").unwrap());
    f.set_state("pause").unwrap();
    assert!(matches!(f.claim().unwrap(), Claim::Paused));
    f.set_state("run").unwrap();
    assert!(matches!(f.claim().unwrap(), Claim::Ready { .. }));
    f.renew().unwrap();
    let workers = f.workers().unwrap();
    assert_eq!(workers.len(), 1);
    assert_eq!((workers[0].worker.as_str(), workers[0].leases), ("w", 1));
    f.set_state("stop").unwrap();
    assert!(matches!(f.claim().unwrap(), Claim::Stopped));
    // Another job on the same server shares nothing.
    let mut other = worker(&server, "w", 60_000);
    assert!(matches!(other.claim().unwrap(), Claim::Empty));
}

/// A worker is alive while it beats within its own lease, however long that is (xt16b F4: a 240 s lease's
/// workers were all "silent", a dead 6 s lease's one "alive" for 60 s).
#[test]
fn a_worker_is_alive_within_its_own_lease() {
    let server = RedisServer::start();
    let mut long = worker(&server, "long", 240_000);
    let mut short = worker(&server, "short", 1_000);
    long.renew().unwrap();
    short.renew().unwrap();
    let alive = |f: &mut SharedFrontier<String>| -> Vec<(String, bool)> {
        let mut w: Vec<_> = f
            .workers()
            .unwrap()
            .into_iter()
            .map(|w| (w.worker, w.alive))
            .collect();
        w.sort();
        w
    };
    assert_eq!(
        alive(&mut long),
        [("long".into(), true), ("short".into(), true)]
    );
    std::thread::sleep(std::time::Duration::from_millis(1_100));
    assert_eq!(
        alive(&mut long),
        [("long".into(), true), ("short".into(), false)]
    );
}

#[test]
fn a_full_redis_refuses_whole_steps_and_comes_back() {
    let server = RedisServer::start();
    let mut f = worker(&server, "w", 60_000);
    seeds(&mut f, &[("h", "h/1"), ("h", "h/2")]);
    let (_, q, lease) = claim(&mut f);
    let mut admin = redis::Client::open(server.url.as_str())
        .unwrap()
        .get_connection()
        .unwrap();
    let set_max = |admin: &mut redis::Connection, v: &str| {
        redis::cmd("CONFIG")
            .arg("SET")
            .arg("maxmemory")
            .arg(v)
            .exec(admin)
            .unwrap()
    };
    set_max(&mut admin, "1");
    let done = Completion {
        new: vec![("g".to_string(), "g/1".to_string())],
        ..Completion::default()
    };
    let full = f.finished(&q, &lease, &done).unwrap_err();
    assert!(full.is_transient(), "{full}");
    assert!(full.to_string().contains("maxmemory"), "{full}");
    assert!(matches!(f.claim(), Err(SharedError::Full(_))));
    // Nothing of the refused step happened: the lease is still held, g/1 unknown.
    set_max(&mut admin, "0");
    assert!(!f.is_seen("g/1").unwrap());
    assert_eq!(
        f.finished(&q, &lease, &done).unwrap(),
        Some(vec![Scheduled::Queued])
    );
    let counts = f.counts().unwrap();
    assert_eq!((counts.done, counts.queued, counts.in_flight), (1, 2, 0));
}

/// A Redis Cluster of three primaries on loopback ports, made with `redis-cli --cluster create`.
struct Cluster {
    nodes: Vec<Child>,
    _dirs: Vec<tempfile::TempDir>,
    url: String,
}

impl Cluster {
    fn start() -> Cluster {
        let mut nodes = Vec::new();
        let mut dirs = Vec::new();
        let mut addrs = Vec::new();
        for _ in 0..3 {
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port();
            let dir = tempfile::tempdir().unwrap();
            nodes.push(
                Command::new("redis-server")
                    .args([
                        "--port",
                        &port.to_string(),
                        "--bind",
                        "127.0.0.1",
                        "--save",
                        "",
                    ])
                    .args([
                        "--cluster-enabled",
                        "yes",
                        "--cluster-config-file",
                        "nodes.conf",
                    ])
                    .arg("--dir")
                    .arg(dir.path())
                    .stdout(Stdio::null())
                    .spawn()
                    .expect("redis-server is not installed"),
            );
            dirs.push(dir);
            addrs.push(format!("127.0.0.1:{port}"));
        }
        for a in &addrs {
            let started = Instant::now();
            while std::net::TcpStream::connect(a).is_err() {
                assert!(
                    started.elapsed() < Duration::from_secs(10),
                    "{a} did not start"
                );
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        let made = Command::new("redis-cli")
            .args(["--cluster", "create"])
            .args(&addrs)
            .args(["--cluster-replicas", "0", "--cluster-yes"])
            .stdout(Stdio::null())
            .status()
            .expect("redis-cli is not installed");
        assert!(made.success(), "redis-cli --cluster create failed");
        let url = format!("redis://{}", addrs[0]);
        let started = Instant::now();
        loop {
            let ok = addrs.iter().all(|a| {
                Command::new("redis-cli")
                    .args(["-u", &format!("redis://{a}"), "cluster", "info"])
                    .output()
                    .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("cluster_state:ok"))
            });
            if ok {
                break;
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "the cluster did not form"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        Cluster {
            nodes,
            _dirs: dirs,
            url,
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for n in &mut self.nodes {
            let _ = n.kill();
            let _ = n.wait();
        }
    }
}

#[test]
fn a_redis_cluster_runs_the_same_steps() {
    let cluster = Cluster::start();
    // Two crawls whose keys hash to different slots (likely on different nodes).
    for job in ["nl", "be"] {
        let mut a =
            SharedFrontier::<String>::connect(&cluster.url, job, "a", Duration::from_secs(60), 0)
                .unwrap();
        assert_eq!(
            seeds(&mut a, &[("h1", "h1/1"), ("h2", "h2/1"), ("h1", "h1/1")]),
            [Scheduled::Queued, Scheduled::Queued, Scheduled::Duplicate]
        );
        let (_, q, lease) = claim(&mut a);
        // Every part of a completion, and the refused lines' claims, in the job's one slot.
        assert_eq!(
            a.claim_cuts(&q, &lease, &["x".to_string()]).unwrap(),
            [true]
        );
        let done = Completion {
            seen: vec!["h3/style.css".to_string()],
            predicted: Some(("h3".to_string(), "h3/2".to_string())),
            cuts: vec!["x".to_string()],
            new: vec![("h3".to_string(), "h3/1".to_string())],
            ..Completion::default()
        };
        assert_eq!(
            a.finished(&q, &lease, &done).unwrap(),
            Some(vec![Scheduled::Queued])
        );
        a.renew().unwrap();
        assert_eq!(a.workers().unwrap().len(), 1);
        assert!(!a.mark_cut("x").unwrap() && a.mark_cut("y").unwrap());
        let cache = SharedCache::connect(&cluster.url, job, "robots").unwrap();
        cache
            .put("http://h1", b"R", Duration::from_secs(60))
            .unwrap();
        assert_eq!(cache.get("http://h1").unwrap().unwrap().0, b"R");
        let mut n = 0;
        while let Claim::Ready { queue, lease, .. } = a.claim().unwrap() {
            a.finished(&queue, &lease, &Completion::default()).unwrap();
            n += 1;
        }
        assert_eq!(n, 3);
        assert_eq!(a.counts().unwrap().done, 4);
    }
}

/// A primary, its replica and one Sentinel watching them, on loopback ports.
struct Sentinel {
    procs: Vec<Child>,
    dir: tempfile::TempDir,
    sentinel_port: u16,
    primary: u16,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn wait_port(port: u16) {
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{port} did not start"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

impl Sentinel {
    fn start() -> Sentinel {
        let dir = tempfile::tempdir().unwrap();
        let (primary, replica, sentinel) = (free_port(), free_port(), free_port());
        let server = |port: u16, extra: &[&str]| {
            let sub = dir.path().join(port.to_string());
            std::fs::create_dir_all(&sub).unwrap();
            Command::new("redis-server")
                .args([
                    "--port",
                    &port.to_string(),
                    "--bind",
                    "127.0.0.1",
                    "--save",
                    "",
                ])
                .args(extra)
                .arg("--dir")
                .arg(&sub)
                .stdout(Stdio::null())
                .spawn()
                .expect("redis-server is not installed")
        };
        let mut procs = vec![server(primary, &[])];
        wait_port(primary);
        procs.push(server(
            replica,
            &["--replicaof", "127.0.0.1", &primary.to_string()],
        ));
        wait_port(replica);
        procs.push(sentinel_process(dir.path(), sentinel, primary));
        // The replica is in sync before anything is written.
        let started = Instant::now();
        loop {
            let info = Command::new("redis-cli")
                .args(["-p", &replica.to_string(), "info", "replication"])
                .output()
                .unwrap();
            if String::from_utf8_lossy(&info.stdout).contains("master_link_status:up") {
                break;
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "the replica did not sync"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        Sentinel {
            procs,
            dir,
            sentinel_port: sentinel,
            primary,
        }
    }
}

/// A sentinel watching `server` as service `trawl`, its files in `dir`: its port and process.
fn sentinel_of(server: &RedisServer, dir: &std::path::Path) -> (u16, Child) {
    let primary: u16 = server
        .url
        .trim_start_matches("redis://127.0.0.1:")
        .trim_end_matches("/0")
        .parse()
        .unwrap();
    let port = free_port();
    (port, sentinel_process(dir, port, primary))
}

/// A Sentinel on `port` watching the primary on `primary` as the service `trawl`, its config in `dir`;
/// returns once it takes connections.
fn sentinel_process(dir: &std::path::Path, port: u16, primary: u16) -> Child {
    let conf = dir.join("sentinel.conf");
    std::fs::write(
        &conf,
        format!(
            "port {port}\nbind 127.0.0.1\nsentinel monitor trawl 127.0.0.1 {primary} 1\n\
             sentinel down-after-milliseconds trawl 1000\nsentinel failover-timeout trawl 5000\n"
        ),
    )
    .unwrap();
    let child = Command::new("redis-server")
        .arg(&conf)
        .arg("--sentinel")
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    wait_port(port);
    child
}

impl Drop for Sentinel {
    fn drop(&mut self) {
        for p in &mut self.procs {
            let _ = p.kill();
            let _ = p.wait();
        }
        let _ = &self.dir;
    }
}

#[test]
fn through_sentinel_and_a_failover() {
    let s = Sentinel::start();
    let url = format!("redis+sentinel://127.0.0.1:{}/trawl/0", s.sentinel_port);
    let mut f =
        SharedFrontier::<String>::connect(&url, "t", "w", Duration::from_secs(60), 0).unwrap();
    seeds(&mut f, &[("h", "h/1"), ("h", "h/2")]);
    let (_, q, lease) = claim(&mut f);
    // Let the replica have it all (WAIT returns once it acknowledged every write), then fail over: the
    // replica becomes the primary. Sentinel refuses (NOGOODSLAVE) until it has found the replica through
    // the primary and heard from it, a few of its ticks after it starts: asked again until then.
    let acked = Command::new("redis-cli")
        .args(["-p", &s.primary.to_string(), "wait", "1", "10000"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&acked.stdout).trim(), "1");
    let started = Instant::now();
    loop {
        let out = Command::new("redis-cli")
            .args([
                "-p",
                &s.sentinel_port.to_string(),
                "sentinel",
                "failover",
                "trawl",
            ])
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stdout);
        if said.contains("OK") {
            break;
        }
        assert!(
            said.contains("NOGOODSLAVE") && started.elapsed() < Duration::from_secs(30),
            "{out:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    // The old primary is a replica now: the step below goes to the new one.
    let started = Instant::now();
    loop {
        let role = Command::new("redis-cli")
            .args(["-p", &s.primary.to_string(), "role"])
            .output()
            .unwrap();
        if String::from_utf8_lossy(&role.stdout).starts_with("slave") {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "no failover");
        std::thread::sleep(Duration::from_millis(100));
    }
    // The worker's steps fail as transient while the roles change, then work on the new primary.
    let started = Instant::now();
    let done = loop {
        match f.finished(&q, &lease, &Completion::default()) {
            Ok(r) => break r,
            Err(e) if e.is_transient() => {
                assert!(
                    started.elapsed() < Duration::from_secs(30),
                    "no new primary: {e}"
                );
                std::thread::sleep(Duration::from_millis(200));
            }
            Err(e) => panic!("{e}"),
        }
    };
    assert_eq!(done, Some(vec![]));
    let (item, _, _) = claim(&mut f);
    assert_eq!(item, "h/2");
}

/// Runs `f` on a thread of its own and returns what it gave and how long it took; `None` when it did not
/// return within `limit` (what a call with no reply timeout does with a server that never answers).
fn within<R: Send + 'static>(
    limit: Duration,
    f: impl FnOnce() -> R + Send + 'static,
) -> Option<(R, Duration)> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let started = Instant::now();
        let r = f();
        let _ = tx.send((r, started.elapsed()));
    });
    rx.recv_timeout(limit).ok()
}

#[test]
fn a_server_that_takes_the_connection_and_never_answers_is_unreachable_not_a_hang() {
    // The kernel completes the handshake into the backlog; nothing ever reads or answers.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("redis://{}/0", silent.local_addr().unwrap());
    let (result, took) = within(connect::REPLY_TIMEOUT * 3, move || {
        SharedFrontier::<String>::connect(&url, "t", "w", Duration::from_secs(30), 0).map(|_| ())
    })
    .expect("connecting to a silent server hung past three reply timeouts");
    let e = result.expect_err("a silent server cannot be connected to");
    assert!(e.is_transient(), "{e}");
    assert!(took >= connect::REPLY_TIMEOUT / 2, "{took:?}");
    drop(silent);
}

#[test]
fn a_stopped_redis_fails_a_step_as_unreachable_and_the_next_works_once_it_goes_on() {
    let server = RedisServer::start();
    let pid = server.child.id().to_string();
    let mut f = worker(&server, "w1", 10_000);
    seeds(&mut f, &[("q", "a")]);
    let signal = |sig: &str| {
        assert!(
            Command::new("kill")
                .args([sig, &pid])
                .status()
                .unwrap()
                .success()
        );
    };
    // SIGSTOP: the connection stays open and nothing answers, as with a dead host or a dropped link.
    signal("-STOP");
    let (result, f) = match within(connect::REPLY_TIMEOUT * 3, move || {
        let r = f.claim().map(|_| ());
        (r, f)
    }) {
        Some((r, _)) => r,
        None => {
            signal("-CONT");
            panic!("a step on a stopped redis hung past three reply timeouts");
        }
    };
    signal("-CONT");
    let e = result.expect_err("a stopped server answers nothing");
    assert!(matches!(e, SharedError::Unavailable(_)), "{e}");
    // The claim may have run once the server went on (its reply unread): the item is queued or leased.
    let mut f = f;
    let c = f.counts().expect("the next step reconnects");
    assert_eq!(c.queued + c.in_flight, 1, "{c:?}");
}

#[test]
fn an_unreadable_item_is_set_aside_and_the_queue_goes_on() {
    let server = RedisServer::start();
    let mut f = worker(&server, "w1", 10_000);
    seeds(&mut f, &[("q", "a")]);
    // Bytes no item decodes from (not UTF-8 for a String), at the front of the queue.
    let client = redis::Client::open(server.url.as_str()).unwrap();
    let mut conn = client.get_connection().unwrap();
    redis::cmd("LPUSH")
        .arg("trawl:{t}:q:q")
        .arg(&b"\xff\xfe"[..])
        .exec(&mut conn)
        .unwrap();
    let e = f.claim().expect_err("the bad item is said");
    assert!(
        matches!(&e, SharedError::Corrupt { queue, list } if queue == "q" && list == "trawl:{t}:unreadable"),
        "{e}"
    );
    let (item, _, _) = claim(&mut f);
    assert_eq!(item, "a");
    let aside: Vec<Vec<u8>> = redis::cmd("LRANGE")
        .arg("trawl:{t}:unreadable")
        .arg(0)
        .arg(-1)
        .query(&mut conn)
        .unwrap();
    assert_eq!(aside, [b"q\n\xff\xfe".to_vec()]);
}

/// A sentinel that takes the connection and never answers (a stopped process) is skipped after
/// `SENTINEL_TIMEOUT`, and the next one names the primary; it is asked first from then on, so a reconnection
/// does not wait for the silent one again. With no other sentinel, the error names the silent one and why
/// (it used to hang the worker forever: redis-rs's sentinel query has no read timeout).
#[test]
fn a_silent_sentinel_is_skipped_for_the_next_one() {
    let server = RedisServer::start();
    let dir = tempfile::tempdir().unwrap();
    let (port, mut sentinel) = sentinel_of(&server, dir.path());
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let quiet = silent.local_addr().unwrap();
    let limit = sentinel::SENTINEL_TIMEOUT * 4;

    let alone = format!("redis+sentinel://{quiet}/trawl/0");
    let (result, took) = within(limit, move || {
        SharedFrontier::<String>::connect(&alone, "t", "w", Duration::from_secs(30), 0).map(|_| ())
    })
    .expect("a silent sentinel hung the connection");
    let e = result.expect_err("a silent sentinel names no primary");
    assert!(e.is_transient(), "{e}");
    let said = e.to_string();
    assert!(
        said.contains(&format!("sentinel {quiet}: did not answer within 3 s")),
        "{said}"
    );
    assert!(took >= sentinel::SENTINEL_TIMEOUT / 2, "{took:?}");

    let url = format!("redis+sentinel://{quiet},127.0.0.1:{port}/trawl/0");
    let target = connect::Target::open(&url).unwrap();
    let set = |target: connect::Target| {
        move || {
            let done = target.connect().and_then(|mut c| {
                redis::cmd("SET")
                    .arg("through-sentinel")
                    .arg("yes")
                    .exec(&mut c)
            });
            (done.map_err(|e| e.to_string()), target)
        }
    };
    let ((done, target), took) =
        within(limit, set(target)).expect("a silent first sentinel hung the connection");
    done.expect("connected through the second sentinel");
    assert!(took >= sentinel::SENTINEL_TIMEOUT / 2, "{took:?}");
    let ((done, _), again) = within(limit, set(target)).expect("a reconnection hung");
    done.expect("connected again");
    assert!(again < sentinel::SENTINEL_TIMEOUT / 2, "{again:?}");
    let mut direct = redis::Client::open(server.url.as_str())
        .unwrap()
        .get_connection()
        .unwrap();
    let got: String = redis::cmd("GET")
        .arg("through-sentinel")
        .query(&mut direct)
        .unwrap();
    assert_eq!(got, "yes");
    let _ = sentinel.kill();
    let _ = sentinel.wait();
    drop(silent);
}

/// A sentinel's address that is not `HOST:PORT` is named in the error, with the form to write.
#[test]
fn a_sentinel_address_that_is_not_host_port_is_named() {
    let url = "redis+sentinel://127.0.0.1:26379,127.0.0.1:port/trawl";
    let e = connect::Target::open(url).err().expect("refused");
    let said = e.to_string();
    assert!(
        said.contains("the sentinel \"127.0.0.1:port\" is not HOST:PORT")
            && said.contains("write redis+sentinel://"),
        "{said}"
    );
    // A sentinel's password is named nowhere in the message.
    let url = "redis+sentinel://:s3cret@127.0.0.1:26379,u:s3cret@127.0.0.1:port/trawl";
    let said = connect::Target::open(url)
        .err()
        .expect("refused")
        .to_string();
    assert!(!said.contains("s3cret"), "{said}");
    assert!(
        said.starts_with("redis+sentinel://127.0.0.1:26379,127.0.0.1:port/trawl: "),
        "{said}"
    );
}

/// A password in a Redis URL is named in no message: not when the URL is plain, and not when the password
/// holds a `/`, which used to end the authority early and leave the whole URL, password and all, on show.
#[test]
fn a_password_in_the_url_is_not_kept() {
    use super::without_password;
    assert_eq!(
        without_password("redis://:s3cret@10.0.0.1:6379/0"),
        "redis://:PASSWORD@10.0.0.1:6379/0"
    );
    assert_eq!(
        without_password("redis://me:s3cret@h:1/0"),
        "redis://me:PASSWORD@h:1/0"
    );
    assert_eq!(without_password("redis://h:1/2"), "redis://h:1/2");
    assert_eq!(
        without_password("redis+sentinel://a:1,b:2/svc/0"),
        "redis+sentinel://a:1,b:2/svc/0"
    );
    assert_eq!(
        without_password("redis://:se/cr/et@h:1/0"),
        "redis://:PASSWORD@h:1/0"
    );
    // Read as the message shows it: the hosts after the last `@`, the service after them (a password
    // holding a `/` was read as hosts `:se` and service `cret@…`, and named so).
    let url = "redis+sentinel://:se/cret@127.0.0.1:port/trawl";
    let said = connect::Target::open(url)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        said.starts_with("redis+sentinel://127.0.0.1:port/trawl: the sentinel \"127.0.0.1:port\""),
        "{said}"
    );
    assert!(!said.contains("se/") && !said.contains("cret"), "{said}");
    // A URL redis cannot read says how to write one, a raw `/` in the password first (xt16b F9).
    for url in ["redis://:se/cret@127.0.0.1:1/0", "http://127.0.0.1:1/0"] {
        let said = connect::Target::open(url)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            said.contains("not a Redis URL") && said.contains("%2F") && !said.contains("cret"),
            "{said}"
        );
    }
}

/// Sentinels that answer, every one, that they know no service of the URL's name fail the connection at
/// once, as a mistake in the URL that no wait mends (it used to be retried as "unreachable" for ever).
#[test]
fn sentinels_that_know_no_such_service_fail_at_once() {
    let server = RedisServer::start();
    let dir = tempfile::tempdir().unwrap();
    let (port, mut sentinel) = sentinel_of(&server, dir.path());
    let url = format!("redis+sentinel://127.0.0.1:{port}/no-such-service/0");
    let Err(e) = SharedFrontier::<String>::connect(&url, "t", "w", Duration::from_secs(30), 0)
    else {
        panic!("connected through sentinels that know no such service");
    };
    let said = e.to_string();
    assert!(!e.is_transient(), "{said}");
    assert!(
        said.contains("knows no service \"no-such-service\"") && said.contains("sentinel monitor"),
        "{said}"
    );
    let _ = sentinel.kill();
    let _ = sentinel.wait();
}

/// A shorter operator delay shortens the rest a queue is in now, down to what its server asked, as in one
/// process; no worker needs to run (xt24a F1: the host rested the longer delay out).
#[test]
fn a_shorter_operator_delay_shortens_the_rest_down_to_the_ask() {
    let server = RedisServer::start();
    let mut f = worker(&server, "w", 60_000);
    seeds(&mut f, &[("m", "m/1"), ("m", "m/2"), ("m", "m/3")]);
    f.queue_action("delay", "m", Some(60_000)).unwrap();
    let (_, m, lease) = claim(&mut f);
    let fetched = Completion {
        pace: Duration::ZERO.into(),
        ..Completion::default()
    };
    f.finished(&m, &lease, &fetched).unwrap();
    assert!(matches!(f.claim().unwrap(), Claim::WaitUntil(_)));
    f.queue_action("delay", "m", Some(50)).unwrap();
    std::thread::sleep(Duration::from_millis(100));
    let (item, m, lease) = claim(&mut f);
    assert_eq!(item, "m/2", "the rest was cut to the new delay");
    let finished_at = Instant::now();
    let asked = Completion {
        pace: crate::Pace::fetch(Duration::from_millis(800), Duration::from_millis(800)),
        ..Completion::default()
    };
    f.finished(&m, &lease, &asked).unwrap();
    f.queue_action("delay", "m", Some(10)).unwrap();
    let Claim::WaitUntil(at) = f.claim().unwrap() else {
        panic!("m rests as its server asked")
    };
    assert!(at.saturating_duration_since(finished_at) >= Duration::from_millis(700));
}
