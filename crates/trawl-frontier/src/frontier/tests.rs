//! Frontier behaviour, in memory and on disk, with a fake clock (instants passed in by the test).

use std::time::{Duration, Instant};

use super::*;
use crate::{Control, QueueState};

fn s(x: &str) -> String {
    x.to_string()
}

fn take(f: &mut Frontier<String>, now: Instant) -> Taken<String> {
    match f.next(now).unwrap() {
        Next::Ready(t) => t,
        other => panic!("expected an item, got {other:?}"),
    }
}

#[test]
fn one_queue_is_polite() {
    let mut f = Frontier::in_memory(1);
    f.schedule("a", s("a/1"));
    f.schedule("a", s("a/2"));
    f.schedule("b", s("b/1"));
    assert_eq!(f.schedule("b", s("b/1")), Scheduled::Duplicate);
    let t0 = Instant::now() + Duration::from_millis(5);
    let x = take(&mut f, t0);
    assert_eq!((x.item.as_str(), x.queue.as_str()), ("a/1", "a"));
    // queue a is busy: b is next
    let y = take(&mut f, t0);
    assert_eq!(y.item, "b/1");
    assert!(matches!(f.next(t0).unwrap(), Next::Busy));
    f.finished("a", x.ticket, Some(200), t0, Duration::from_secs(2));
    match f.next(t0).unwrap() {
        Next::WaitUntil(at) => assert_eq!(at, t0 + Duration::from_secs(2)),
        other => panic!("{other:?}"),
    }
    // one millisecond early is still too early; on time it is ready
    assert!(matches!(
        f.next(t0 + Duration::from_millis(1999)).unwrap(),
        Next::WaitUntil(_)
    ));
    let z = take(&mut f, t0 + Duration::from_secs(2));
    assert_eq!(z.item, "a/2");
    f.finished("a", z.ticket, None, t0, Duration::ZERO);
    f.finished("b", y.ticket, None, t0, Duration::ZERO);
    assert!(matches!(
        f.next(t0 + Duration::from_secs(9)).unwrap(),
        Next::Empty
    ));
}

#[test]
fn parallel_connections_per_queue() {
    let mut f = Frontier::in_memory(2);
    for i in 0..3 {
        f.schedule("a", format!("a/{i}"));
    }
    let now = Instant::now() + Duration::from_millis(1);
    let _x = take(&mut f, now);
    let _y = take(&mut f, now);
    assert!(matches!(f.next(now).unwrap(), Next::Busy));
}

#[test]
fn prerequisites_go_first_and_bypass_uniq() {
    let mut f = Frontier::in_memory(1);
    f.schedule("a", s("a/page"));
    f.schedule_first("a", s("robots"));
    let now = Instant::now() + Duration::from_millis(1);
    assert_eq!(take(&mut f, now).item, "robots");
    assert_eq!(f.schedule("a", s("a/page")), Scheduled::Duplicate);
    assert_eq!(f.discovered(), 1);
}

#[test]
fn budgets_cap_each_queue() {
    let mut f = Frontier::in_memory(1).with_budget(Some(2));
    assert_eq!(f.schedule("a", s("1")), Scheduled::Queued);
    assert_eq!(f.schedule("a", s("2")), Scheduled::Queued);
    assert_eq!(f.schedule("a", s("3")), Scheduled::OverBudget);
    assert_eq!(f.schedule("b", s("3")), Scheduled::Queued);
    f.schedule_first("a", s("9")); // prerequisites are not counted
    assert_eq!(f.queued(), 4);
    assert!(f.set_budget("a", Some(3)));
    assert_eq!(f.schedule("a", s("4")), Scheduled::Queued);
}

#[test]
fn politeness_survives_an_empty_queue() {
    let mut f = Frontier::in_memory(1);
    let t0 = Instant::now() + Duration::from_millis(1);
    f.schedule("a", s("1"));
    let x = take(&mut f, t0);
    f.finished("a", x.ticket, None, t0, Duration::from_secs(5));
    f.schedule("a", s("2"));
    assert!(matches!(
        f.next(t0 + Duration::from_secs(1)).unwrap(),
        Next::WaitUntil(_)
    ));
}

#[test]
fn operators_pause_retire_delay_and_delete() {
    let mut f = Frontier::in_memory(1);
    let t0 = Instant::now() + Duration::from_millis(1);
    f.schedule("a", s("a1"));
    f.schedule("a", s("a2"));
    f.schedule("b", s("b1"));
    assert!(f.set_control("a", Control::Paused));
    assert_eq!(take(&mut f, t0).item, "b1");
    assert!(
        matches!(f.next(t0).unwrap(), Next::Busy),
        "a paused, b in flight"
    );
    let states: Vec<_> = f
        .queue_infos(t0)
        .into_iter()
        .map(|q| (q.name, q.state))
        .collect();
    assert!(
        states.contains(&(s("a"), QueueState::Inactive)),
        "{states:?}"
    );
    assert!(
        states.contains(&(s("b"), QueueState::InProcess)),
        "{states:?}"
    );
    assert!(f.set_control("a", Control::Active));
    assert!(f.set_delay("a", Some(Duration::from_secs(60))));
    let x = take(&mut f, t0);
    assert_eq!(x.item, "a1");
    f.finished("a", x.ticket, Some(200), t0, Duration::ZERO);
    // the operator's delay replaces the computed one
    assert!(matches!(
        f.next(t0 + Duration::from_secs(59)).unwrap(),
        Next::Busy | Next::WaitUntil(_)
    ));
    assert_eq!(f.delete_queued("a").unwrap(), 1);
    assert!(f.set_control("b", Control::Retired));
    assert!(!f.set_control("nope", Control::Paused));
    assert_eq!(f.queued(), 0);
}

#[test]
fn store_restores_queued_and_in_flight_items_but_not_finished_ones() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut f: Frontier<String> = Frontier::open(dir.path(), 1).unwrap();
        for i in 0..100 {
            f.schedule(&format!("q{}", i % 7), format!("u{i}"));
        }
        f.schedule_first("q0", s("robots"));
        let t0 = Instant::now() + Duration::from_millis(1);
        let done = take(&mut f, t0);
        assert_eq!(done.item, "robots");
        f.finished(&done.queue, done.ticket, Some(200), t0, Duration::ZERO);
        let done = take(&mut f, t0);
        assert_eq!(
            done.item, "u1",
            "q0 waits behind its prerequisite; q1 is next"
        );
        f.finished(&done.queue, done.ticket, Some(404), t0, Duration::ZERO);
        let in_flight = take(&mut f, t0);
        assert_eq!(in_flight.item, "u2");
        f.set_control("q3", Control::Paused);
        f.flush().unwrap();
        // changes after the last flush are lost, as after kill -9
        f.schedule("q0", s("lost"));
    }
    let mut f: Frontier<String> = Frontier::open(dir.path(), 1).unwrap();
    let t0 = Instant::now() + Duration::from_millis(1);
    assert_eq!(
        f.queued(),
        99,
        "100 + robots - 2 finished; the in-flight one is back"
    );
    assert_eq!(f.lookup("u1"), UrlStatus::Done(404));
    assert_eq!(f.lookup("robots"), UrlStatus::Done(200));
    assert_eq!(
        f.lookup("u2"),
        UrlStatus::Queued,
        "in flight at the crash: queued again"
    );
    assert_eq!(f.lookup("lost"), UrlStatus::Unknown);
    assert_eq!(f.schedule("q1", s("u1")), Scheduled::Duplicate);
    assert_eq!(f.schedule("q2", s("u2")), Scheduled::Duplicate);
    assert_eq!(f.discovered(), 101, "100 URLs and the robots.txt fetched");
    let paused = f
        .queue_infos(t0)
        .into_iter()
        .find(|q| q.name == "q3")
        .unwrap();
    assert_eq!(paused.state, QueueState::Inactive);
    f.set_control("q3", Control::Active);
    // drain everything, checking FIFO order within each queue
    let mut got = Vec::new();
    loop {
        match f.next(t0).unwrap() {
            Next::Ready(t) => {
                got.push((t.queue.clone(), t.item.clone()));
                f.finished(&t.queue, t.ticket, Some(200), t0, Duration::ZERO);
            }
            Next::Empty => break,
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(got.len(), 99);
    for q in 0..7 {
        let name = format!("q{q}");
        let nums: Vec<u32> = got
            .iter()
            .filter(|(qn, _)| *qn == name)
            .map(|(_, u)| u[1..].parse().unwrap())
            .collect();
        let mut sorted = nums.clone();
        sorted.sort();
        assert_eq!(nums, sorted, "queue {name} out of order");
    }
}

#[test]
fn checkpoints_copy_a_consistent_store() {
    let dir = tempfile::tempdir().unwrap();
    let mut f: Frontier<String> = Frontier::open(&dir.path().join("live"), 1).unwrap();
    for i in 0..50 {
        f.schedule(&format!("q{}", i % 3), format!("u{i}"));
    }
    let t0 = Instant::now() + Duration::from_millis(1);
    let t = take(&mut f, t0);
    f.finished(&t.queue, t.ticket, Some(200), t0, Duration::ZERO);
    f.checkpoint_to(&dir.path().join("cp")).unwrap();
    f.schedule("q0", s("after"));
    f.flush().unwrap();
    let cp: Frontier<String> = Frontier::open(&dir.path().join("cp"), 1).unwrap();
    assert_eq!(cp.queued(), 49);
    assert_eq!(cp.lookup("u0"), UrlStatus::Done(200));
    assert_eq!(cp.lookup("after"), UrlStatus::Unknown);
}

#[test]
fn bloom_filter_fronts_the_store_and_survives_reopening() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut f: Frontier<String> = Frontier::open(dir.path(), 1)
            .unwrap()
            .with_bloom(1000, 0.01, false)
            .unwrap();
        for i in 0..200 {
            assert_eq!(f.schedule("q", format!("u{i}")), Scheduled::Queued);
        }
        assert_eq!(f.schedule("q", s("u7")), Scheduled::Duplicate);
        f.flush().unwrap();
    }
    let mut exact: Frontier<String> = Frontier::open(dir.path(), 1)
        .unwrap()
        .with_bloom(1000, 0.01, false)
        .unwrap();
    for i in 0..200 {
        assert_eq!(
            exact.schedule("q", format!("u{i}")),
            Scheduled::Duplicate,
            "u{i}"
        );
    }
    // Exact mode never loses a new key to a false positive.
    let new = (200..2200)
        .filter(|i| exact.schedule("q", format!("u{i}")) == Scheduled::Queued)
        .count();
    assert_eq!(new, 2000);
    drop(exact);
    // Lossy mode: only the filter decides; at 1% a few of 2000 new keys may be taken for seen.
    let mut lossy: Frontier<String> = Frontier::open(dir.path(), 1)
        .unwrap()
        .with_bloom(10_000, 0.01, true)
        .unwrap();
    let new = (5000..7000)
        .filter(|i| lossy.schedule("q", format!("u{i}")) == Scheduled::Queued)
        .count();
    assert!(new > 1900, "{new}");
}

#[test]
fn store_pages_long_queues_through_memory() {
    let dir = tempfile::tempdir().unwrap();
    let mut f: Frontier<String> = Frontier::open(dir.path(), 1).unwrap();
    for i in 0..1000 {
        f.schedule("big", format!("{i:04}"));
    }
    f.flush().unwrap();
    assert!(f.queues["big"].head.len() <= HEAD_MAX);
    let t0 = Instant::now() + Duration::from_millis(1);
    for i in 0..1000 {
        let t = take(&mut f, t0);
        assert_eq!(t.item, format!("{i:04}"));
        f.finished(&t.queue, t.ticket, None, t0, Duration::ZERO);
    }
    assert!(matches!(f.next(t0).unwrap(), Next::Empty));
}

proptest::proptest! {
    // Each case opens a store: keep the count modest.
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    /// The on-disk frontier hands out exactly what the in-memory one does, for any sequence of operations.
    #[test]
    fn store_behaves_like_memory(ops in proptest::collection::vec((0u8..4, 0u8..5, 0u16..40), 1..200)) {
        let dir = tempfile::tempdir().unwrap();
        let mut disk: Frontier<String> = Frontier::open(dir.path(), 1).unwrap();
        let mut mem: Frontier<String> = Frontier::in_memory(1);
        let now = Instant::now() + Duration::from_millis(1);
        let mut taken: Vec<(Taken<String>, Taken<String>)> = Vec::new();
        for (op, q, u) in ops {
            let queue = format!("q{q}");
            let url = format!("u{u}");
            match op {
                0 => proptest::prop_assert_eq!(disk.schedule(&queue, url.clone()), mem.schedule(&queue, url)),
                1 => { disk.schedule_first(&queue, url.clone()); mem.schedule_first(&queue, url); }
                2 => match (disk.next(now).unwrap(), mem.next(now).unwrap()) {
                    (Next::Ready(a), Next::Ready(b)) => {
                        proptest::prop_assert_eq!((&a.item, &a.queue), (&b.item, &b.queue));
                        taken.push((a, b));
                    }
                    (a, b) => proptest::prop_assert_eq!(format!("{a:?}"), format!("{b:?}")),
                },
                _ => if let Some((a, b)) = taken.pop() {
                    disk.finished(&a.queue, a.ticket, Some(200), now, Duration::ZERO);
                    mem.finished(&b.queue, b.ticket, Some(200), now, Duration::ZERO);
                },
            }
            if u % 17 == 0 { disk.flush().unwrap(); }
            proptest::prop_assert_eq!(disk.queued(), mem.queued());
        }
    }
}
