//! Frontier store benchmark (issue 6): the frontier's real workload, run identically against
//! each candidate embedded store, so the choice in docs/frontier.md rests on measurement.
//!
//! Workload (one process per store, fresh store directory):
//!
//! 1. Enqueue: `--urls N` unique synthetic URLs plus ~20% duplicates of earlier ones, spread over
//!    `--hosts H` per-host queues. Every offered URL gets an xxh3-64 fingerprint checked against
//!    the persistent uniq set; an absent one is inserted there and its ~120-byte encoded
//!    `CrawlUri` is appended to its queue's FIFO under key `queue u32 BE ++ seq u64 BE`.
//!    Offers are group-committed 1000 at a time, each commit durable against kill -9.
//! 2. Dequeue: round-robin over the non-empty queues, pop each head (read the lowest key of the
//!    queue, delete it), 1000 pops per commit, until all N are drained.
//! 3. Uniq lookups: 100k random present and 100k random absent fingerprints.
//!
//! Per-queue tail/head sequence numbers live in memory, as they will in the frontier (recovered
//! at start by reading each queue's last/first key). `--pop prefix` ignores the known head and
//! seeks the queue prefix from seq 0 instead, which shows the cost of skipping delete tombstones
//! in an LSM.
//!
//! `--kill-after-batches K` enqueues K committed batches then sends itself SIGKILL (literally
//! `kill -9`); `--recover` then reopens the same directory and counts what survived.

use std::collections::HashSet;
use std::error::Error;
use std::path::{Path, PathBuf};
use std::time::Instant;

use xxhash_rust::xxh3::xxh3_64;

type Res<T> = Result<T, Box<dyn Error + Send + Sync>>;

/// Offers (enqueue) or pops (dequeue) per commit: the crawler's group-commit size.
const BATCH: usize = 1000;
/// Random present and absent keys probed in phase 3.
const LOOKUPS: usize = 100_000;

// ---------------------------------------------------------------------------------------------
// Synthetic workload
// ---------------------------------------------------------------------------------------------

/// splitmix64: a tiny deterministic PRNG, so every store sees exactly the same stream.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

const SECTIONS: [&str; 8] = [
    "news", "catalog", "blog", "products", "wiki", "forum", "a", "media",
];

/// The host (= queue) of unique URL number `i`.
fn host_of(i: u64, hosts: u32) -> u32 {
    (mix(i) % u64::from(hosts)) as u32
}

/// Unique URL number `i`: `http://hostNNNNN.example/section/NNNN/item-i.html?p=NN`, 60-80 bytes.
fn url_of(i: u64, hosts: u32) -> String {
    let r = mix(i ^ 0xA5A5);
    format!(
        "http://host{:05}.example/{}/{}/item-{}.html?p={}",
        host_of(i, hosts),
        SECTIONS[(r % 8) as usize],
        (r >> 8) % 10_000,
        i,
        (r >> 24) % 100
    )
}

/// A stand-in for the encoded `CrawlUri` (~120 bytes): queue id, hop path, URL, via fingerprint,
/// depth, schedule time, flags and a class key; the non-URL fields are pseudo-random so the
/// stores' compression sees realistic entropy.
fn payload_of(queue: u32, url: &str, i: u64) -> Vec<u8> {
    let r = mix(i ^ 0x5A5A);
    let mut p = Vec::with_capacity(128);
    p.extend_from_slice(&queue.to_be_bytes()); // queue id (checked on pop)
    p.extend_from_slice(&[3, b'L', b'L', b'X']); // hop path
    p.extend_from_slice(&(url.len() as u16).to_be_bytes());
    p.extend_from_slice(url.as_bytes());
    p.extend_from_slice(&r.to_le_bytes()); // via fingerprint
    p.extend_from_slice(&((r >> 40) as u16 % 20).to_be_bytes()); // depth
    p.extend_from_slice(&(1_790_000_000_000u64 + (i >> 4)).to_be_bytes()); // schedule time (ms)
    p.push((r >> 50) as u8 & 0x0f); // flags
    p.extend_from_slice(&mix(r).to_le_bytes()[..6]); // class-identity key
    p.extend_from_slice(b"seed:job-0001:s0042"); // source tag (job, seed)
    p
}

/// One offered URL: its fingerprint, queue and encoded item.
struct Offer {
    fp: u64,
    queue: u32,
    payload: Vec<u8>,
}

/// The offer stream: unique URL `i`, then with probability 0.2 a duplicate of a random earlier
/// (or the same) URL, for i in 0..n. So ~1.2 n offers of which exactly n are new.
struct Offers {
    n: u64,
    hosts: u32,
    i: u64,
    pending_dup: Option<u64>,
}

impl Iterator for Offers {
    type Item = Offer;
    fn next(&mut self) -> Option<Offer> {
        let idx = if let Some(j) = self.pending_dup.take() {
            j
        } else {
            if self.i == self.n {
                return None;
            }
            let i = self.i;
            self.i += 1;
            let r = mix(i ^ 0xD0D0);
            if r.is_multiple_of(5) {
                self.pending_dup = Some((r >> 8) % (i + 1));
            }
            i
        };
        let url = url_of(idx, self.hosts);
        let queue = host_of(idx, self.hosts);
        Some(Offer {
            fp: xxh3_64(url.as_bytes()),
            queue,
            payload: payload_of(queue, &url, idx),
        })
    }
}

/// Queue key: queue id u32 BE ++ seq u64 BE, so a queue's items sort together in FIFO order.
fn qkey(queue: u32, seq: u64) -> [u8; 12] {
    let mut k = [0u8; 12];
    k[..4].copy_from_slice(&queue.to_be_bytes());
    k[4..].copy_from_slice(&seq.to_be_bytes());
    k
}

fn seq_of(key: &[u8]) -> u64 {
    u64::from_be_bytes(key[4..12].try_into().expect("12-byte queue key"))
}

// ---------------------------------------------------------------------------------------------
// The store interface: exactly the operations the frontier needs
// ---------------------------------------------------------------------------------------------

/// One popped item, checked by the driver.
struct Popped {
    queue: u32,
    seq: u64,
    payload_queue: u32,
}

trait Store {
    /// One group commit: for each offer whose fingerprint is not yet in the uniq set, insert the
    /// fingerprint and append the item at `tails[queue]` (then bump it). Returns how many were
    /// new. When it returns, the batch survives kill -9 (see each store's durability setting).
    /// The driver has already removed duplicates within the batch itself.
    fn enqueue_batch(&mut self, offers: &[Offer], tails: &mut [u64]) -> Res<usize>;
    /// One group commit: for each `(queue, head)`, read the queue's lowest key >= `(queue, head)`
    /// and delete it. A queue appears at most once per batch.
    fn dequeue_batch(&mut self, pops: &[(u32, u64)], out: &mut Vec<Popped>) -> Res<()>;
    /// Probes the uniq set for each fingerprint; returns how many are present.
    fn count_present(&mut self, fps: &[u64]) -> Res<usize>;
    /// (fingerprints, queued items): a full count, for the kill -9 check.
    fn counts(&mut self) -> Res<(u64, u64)>;
}

fn payload_queue(p: &[u8]) -> u32 {
    u32::from_be_bytes(p[..4].try_into().expect("payload has a queue id"))
}

// ---- fjall -----------------------------------------------------------------------------------

mod fjall_store {
    use super::*;
    use fjall::{Database, Keyspace, KeyspaceCreateOptions, PersistMode};

    /// Two keyspaces (LSM trees) in one database, written atomically by one WriteBatch.
    pub(crate) struct FjallStore {
        db: Database,
        uniq: Keyspace,
        queues: Keyspace,
    }

    impl FjallStore {
        pub(crate) fn open(dir: &Path, cache: u64) -> Res<Self> {
            let db = Database::builder(dir).cache_size(cache).open()?;
            let uniq = db.keyspace("uniq", KeyspaceCreateOptions::default)?;
            let queues = db.keyspace("queues", KeyspaceCreateOptions::default)?;
            Ok(Self { db, uniq, queues })
        }

        /// PersistMode::Buffer: each commit write()s its journal entry to the OS before returning,
        /// so it survives kill -9 (not power loss) without an fsync.
        fn batch(&self) -> fjall::OwnedWriteBatch {
            self.db.batch().durability(Some(PersistMode::Buffer))
        }
    }

    impl Store for FjallStore {
        fn enqueue_batch(&mut self, offers: &[Offer], tails: &mut [u64]) -> Res<usize> {
            let mut b = self.batch();
            let mut new = 0;
            for o in offers {
                // A fresh fingerprint misses every table's bloom filter: cheap.
                if self.uniq.contains_key(o.fp.to_be_bytes())? {
                    continue;
                }
                b.insert(&self.uniq, o.fp.to_be_bytes(), []);
                let t = &mut tails[o.queue as usize];
                b.insert(&self.queues, qkey(o.queue, *t), o.payload.as_slice());
                *t += 1;
                new += 1;
            }
            b.commit()?;
            Ok(new)
        }

        fn dequeue_batch(&mut self, pops: &[(u32, u64)], out: &mut Vec<Popped>) -> Res<()> {
            let mut b = self.batch();
            for &(q, head) in pops {
                // Seek from the known head: tombstones of earlier pops sort below it and are
                // never visited. With head = 0 (`--pop prefix`) the seek must skip them.
                let from = qkey(q, head);
                let to = qkey(q + 1, 0);
                let (k, v) = self
                    .queues
                    .range(from..to)
                    .next()
                    .ok_or("queue empty")?
                    .into_inner()?;
                // Weak tombstone would vanish on meeting its single insert during compaction, but
                // it is experimental (doc-hidden); the bench uses the stable full tombstone.
                b.remove(&self.queues, k.clone());
                out.push(Popped {
                    queue: q,
                    seq: seq_of(&k),
                    payload_queue: payload_queue(&v),
                });
            }
            b.commit()?;
            Ok(())
        }

        fn count_present(&mut self, fps: &[u64]) -> Res<usize> {
            let mut n = 0;
            for fp in fps {
                n += usize::from(self.uniq.contains_key(fp.to_be_bytes())?);
            }
            Ok(n)
        }

        fn counts(&mut self) -> Res<(u64, u64)> {
            Ok((self.uniq.len()? as u64, self.queues.len()? as u64))
        }
    }
}

// ---- redb ------------------------------------------------------------------------------------

mod redb_store {
    use super::*;
    use redb::{
        Database, Durability, ReadableDatabase, ReadableTable, ReadableTableMetadata,
        TableDefinition,
    };

    const UNIQ: TableDefinition<u64, ()> = TableDefinition::new("uniq");
    const QUEUES: TableDefinition<&[u8], &[u8]> = TableDefinition::new("queues");

    /// Two B-trees in one file; one write transaction per batch.
    pub(crate) struct RedbStore {
        db: Database,
        durability: Durability,
    }

    impl RedbStore {
        pub(crate) fn open(dir: &Path, cache: u64, durability: Durability) -> Res<Self> {
            std::fs::create_dir_all(dir)?;
            let db = Database::builder()
                .set_cache_size(cache as usize)
                .create(dir.join("frontier.redb"))?;
            let tx = db.begin_write()?; // create the tables (an Immediate commit)
            tx.open_table(UNIQ)?;
            tx.open_table(QUEUES)?;
            tx.commit()?;
            Ok(Self { db, durability })
        }

        fn begin(&self) -> Res<redb::WriteTransaction> {
            let mut tx = self.db.begin_write()?;
            tx.set_durability(self.durability)?;
            Ok(tx)
        }
    }

    impl Store for RedbStore {
        fn enqueue_batch(&mut self, offers: &[Offer], tails: &mut [u64]) -> Res<usize> {
            let tx = self.begin()?;
            let mut new = 0;
            {
                let mut uniq = tx.open_table(UNIQ)?;
                let mut queues = tx.open_table(QUEUES)?;
                for o in offers {
                    // insert returns the previous value: membership check and insert in one descent.
                    if uniq.insert(o.fp, ())?.is_some() {
                        continue;
                    }
                    let t = &mut tails[o.queue as usize];
                    queues.insert(qkey(o.queue, *t).as_slice(), o.payload.as_slice())?;
                    *t += 1;
                    new += 1;
                }
            }
            tx.commit()?;
            Ok(new)
        }

        fn dequeue_batch(&mut self, pops: &[(u32, u64)], out: &mut Vec<Popped>) -> Res<()> {
            let tx = self.begin()?;
            {
                let mut queues = tx.open_table(QUEUES)?;
                for &(q, head) in pops {
                    let (from, to) = (qkey(q, head), qkey(q + 1, 0));
                    let (key, pq) = {
                        let mut r = queues.range(from.as_slice()..to.as_slice())?;
                        let (k, v) = r.next().ok_or("queue empty")??;
                        (k.value().to_vec(), payload_queue(v.value()))
                    };
                    queues.remove(key.as_slice())?;
                    out.push(Popped {
                        queue: q,
                        seq: seq_of(&key),
                        payload_queue: pq,
                    });
                }
            }
            tx.commit()?;
            Ok(())
        }

        fn count_present(&mut self, fps: &[u64]) -> Res<usize> {
            let tx = self.db.begin_read()?;
            let uniq = tx.open_table(UNIQ)?;
            let mut n = 0;
            for &fp in fps {
                n += usize::from(uniq.get(fp)?.is_some());
            }
            Ok(n)
        }

        fn counts(&mut self) -> Res<(u64, u64)> {
            let tx = self.db.begin_read()?;
            Ok((tx.open_table(UNIQ)?.len()?, tx.open_table(QUEUES)?.len()?))
        }
    }
}

// ---- SQLite (rusqlite, bundled) --------------------------------------------------------------

mod sqlite_store {
    use super::*;
    use rusqlite::{Connection, OptionalExtension, params};

    /// WAL + synchronous=NORMAL: a commit is appended to the WAL with write() and no fsync, so it
    /// survives kill -9 (not power loss); fsyncs happen only at checkpoints.
    pub(crate) struct SqliteStore {
        conn: Connection,
    }

    impl SqliteStore {
        pub(crate) fn open(dir: &Path, cache: u64) -> Res<Self> {
            std::fs::create_dir_all(dir)?;
            let conn = Connection::open(dir.join("frontier.sqlite"))?;
            conn.pragma_update(None, "journal_mode", "WAL")?;
            conn.pragma_update(None, "synchronous", "NORMAL")?;
            conn.pragma_update(None, "cache_size", -((cache / 1024) as i64))?; // negative = KiB
            conn.execute_batch(
                "CREATE TABLE IF NOT EXISTS uniq(fp INTEGER PRIMARY KEY);
                 CREATE TABLE IF NOT EXISTS queue(
                     qid INTEGER NOT NULL, seq INTEGER NOT NULL, item BLOB NOT NULL,
                     PRIMARY KEY (qid, seq)) WITHOUT ROWID;",
            )?;
            Ok(Self { conn })
        }
    }

    impl Store for SqliteStore {
        fn enqueue_batch(&mut self, offers: &[Offer], tails: &mut [u64]) -> Res<usize> {
            let tx = self.conn.transaction()?;
            let mut new = 0;
            {
                let mut add_fp = tx.prepare_cached("INSERT OR IGNORE INTO uniq(fp) VALUES (?1)")?;
                let mut push =
                    tx.prepare_cached("INSERT INTO queue(qid, seq, item) VALUES (?1, ?2, ?3)")?;
                for o in offers {
                    // One statement is the membership check and the insert: 0 rows = present.
                    if add_fp.execute([o.fp as i64])? == 0 {
                        continue;
                    }
                    let t = &mut tails[o.queue as usize];
                    push.execute(params![o.queue, *t as i64, o.payload])?;
                    *t += 1;
                    new += 1;
                }
            }
            tx.commit()?;
            Ok(new)
        }

        fn dequeue_batch(&mut self, pops: &[(u32, u64)], out: &mut Vec<Popped>) -> Res<()> {
            let tx = self.conn.transaction()?;
            {
                let mut head = tx.prepare_cached(
                    "SELECT seq, item FROM queue WHERE qid = ?1 AND seq >= ?2 ORDER BY seq LIMIT 1",
                )?;
                let mut del = tx.prepare_cached("DELETE FROM queue WHERE qid = ?1 AND seq = ?2")?;
                for &(q, h) in pops {
                    let (seq, pq): (i64, u32) = head
                        .query_row(params![q, h as i64], |r| {
                            Ok((r.get(0)?, payload_queue(r.get_ref(1)?.as_blob()?)))
                        })
                        .optional()?
                        .ok_or("queue empty")?;
                    del.execute(params![q, seq])?;
                    out.push(Popped {
                        queue: q,
                        seq: seq as u64,
                        payload_queue: pq,
                    });
                }
            }
            tx.commit()?;
            Ok(())
        }

        fn count_present(&mut self, fps: &[u64]) -> Res<usize> {
            let mut st = self
                .conn
                .prepare_cached("SELECT 1 FROM uniq WHERE fp = ?1")?;
            let mut n = 0;
            for &fp in fps {
                n += usize::from(st.exists([fp as i64])?);
            }
            Ok(n)
        }

        fn counts(&mut self) -> Res<(u64, u64)> {
            let c = |sql: &str| self.conn.query_row(sql, [], |r| r.get::<_, i64>(0));
            Ok((
                c("SELECT count(*) FROM uniq")? as u64,
                c("SELECT count(*) FROM queue")? as u64,
            ))
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Driver
// ---------------------------------------------------------------------------------------------

struct Args {
    store: String,
    urls: u64,
    hosts: u32,
    dir: PathBuf,
    cache_mb: u64,
    pop_prefix: bool,
    kill_after: Option<u64>,
    recover: bool,
}

fn parse_args() -> Res<Args> {
    let mut a = Args {
        store: "fjall".into(),
        urls: 10_000_000,
        hosts: 100_000,
        dir: PathBuf::new(),
        cache_mb: 256,
        pop_prefix: false,
        kill_after: None,
        recover: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut val = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--store" => a.store = val()?,
            "--urls" => a.urls = val()?.replace('_', "").parse()?,
            "--hosts" => a.hosts = val()?.replace('_', "").parse()?,
            "--dir" => a.dir = val()?.into(),
            "--cache-mb" => a.cache_mb = val()?.parse()?,
            "--pop" => a.pop_prefix = val()? == "prefix",
            "--kill-after-batches" => a.kill_after = Some(val()?.parse()?),
            "--recover" => a.recover = true,
            _ => {
                return Err(format!(
                    "unknown flag {flag}\nusage: frontier-store-bench --store fjall|redb|redb-none|sqlite \
                     [--urls N] [--hosts H] [--dir D] [--cache-mb M] [--pop head|prefix] \
                     [--kill-after-batches K | --recover]"
                )
                .into());
            }
        }
    }
    if a.dir.as_os_str().is_empty() {
        a.dir = PathBuf::from(format!("/work/main/target/bench-store/data/{}", a.store));
    }
    Ok(a)
}

fn open_store(a: &Args) -> Res<Box<dyn Store>> {
    let cache = a.cache_mb << 20;
    Ok(match a.store.as_str() {
        "fjall" => Box::new(fjall_store::FjallStore::open(&a.dir, cache)?),
        // Immediate = fsync on every commit; None = no write at commit (lost on kill -9).
        "redb" => Box::new(redb_store::RedbStore::open(
            &a.dir,
            cache,
            redb::Durability::Immediate,
        )?),
        "redb-none" => Box::new(redb_store::RedbStore::open(
            &a.dir,
            cache,
            redb::Durability::None,
        )?),
        "sqlite" => Box::new(sqlite_store::SqliteStore::open(&a.dir, cache)?),
        s => return Err(format!("unknown store {s}").into()),
    })
}

/// Disk usage like `du`: allocated blocks of every file under `dir`.
fn du(dir: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let mut total = 0;
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let Ok(m) = e.metadata() else { continue };
        total += if m.is_dir() {
            du(&e.path())
        } else {
            m.blocks() * 512
        };
    }
    total
}

/// Peak resident set size of this process (VmHWM), in bytes.
fn peak_rss() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// CPU seconds (user + system, all threads, background compaction included) used so far, from
/// /proc/self/stat fields 14 and 15 (clock ticks; 100 per second on Linux).
fn cpu_secs() -> f64 {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the parenthesised command name; utime and stime are the 12th and 13th of them.
    let rest = s.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let tick = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (tick(11) + tick(12)) / 100.0
}

fn main() -> Res<()> {
    let a = parse_args()?;
    if a.recover {
        // Kill -9 check, second half: what did the killed process leave?
        let mut s = open_store(&a)?;
        let (fps, queued) = s.counts()?;
        println!(
            "recovered store={} fingerprints={fps} queued={queued}",
            a.store
        );
        return Ok(());
    }
    if a.dir.exists() {
        std::fs::remove_dir_all(&a.dir)?;
    }
    let mut store = open_store(&a)?;
    let hosts = a.hosts as usize;
    let mut tails = vec![0u64; hosts];
    let mut heads = vec![0u64; hosts];

    // ---- 1. enqueue --------------------------------------------------------------------------
    let t0 = Instant::now();
    let mut offers = Offers {
        n: a.urls,
        hosts: a.hosts,
        i: 0,
        pending_dup: None,
    };
    let (mut offered, mut accepted, mut batches) = (0u64, 0u64, 0u64);
    let mut batch: Vec<Offer> = Vec::with_capacity(BATCH);
    let mut in_batch: HashSet<u64> = HashSet::with_capacity(BATCH);
    let mut next_report = 1_000_000;
    loop {
        // Collect up to BATCH offers; a repeat inside the batch is a duplicate caught here (the
        // crawler keeps the same small in-memory set for its open group commit).
        batch.clear();
        in_batch.clear();
        let mut dup_in_batch = 0u64;
        for o in offers.by_ref() {
            if in_batch.insert(o.fp) {
                batch.push(o);
            } else {
                dup_in_batch += 1;
            }
            if batch.len() + dup_in_batch as usize == BATCH {
                break;
            }
        }
        if batch.is_empty() && dup_in_batch == 0 {
            break;
        }
        offered += batch.len() as u64 + dup_in_batch;
        accepted += store.enqueue_batch(&batch, &mut tails)? as u64;
        batches += 1;
        if Some(batches) == a.kill_after {
            // Kill -9 check, first half: everything up to here was reported committed.
            println!(
                "killing store={} after batches={batches} accepted={accepted}",
                a.store
            );
            use std::io::Write;
            std::io::stdout().flush()?;
            std::process::Command::new("kill")
                .args(["-9", &std::process::id().to_string()])
                .status()?;
            unreachable!("SIGKILL is not survivable");
        }
        if accepted >= next_report {
            eprintln!(
                "  enqueued {accepted} in {:.1}s",
                t0.elapsed().as_secs_f64()
            );
            next_report += 1_000_000;
        }
    }
    let enq_s = t0.elapsed().as_secs_f64();
    assert_eq!(
        accepted, a.urls,
        "uniq check must accept exactly the unique URLs"
    );
    let dups = offered - accepted;
    let disk = du(&a.dir);
    eprintln!(
        "  enqueue done: {offered} offered, {dups} duplicates rejected, {enq_s:.1}s, disk {disk} B"
    );

    // ---- 2. dequeue: one pass = one pop from every non-empty queue ----------------------------
    let t1 = Instant::now();
    let mut active: Vec<u32> = (0..a.hosts).filter(|&q| tails[q as usize] > 0).collect();
    let mut popped = 0u64;
    let mut pops = Vec::with_capacity(BATCH);
    let mut out = Vec::with_capacity(BATCH);
    next_report = 1_000_000;
    while !active.is_empty() {
        for chunk in active.chunks(BATCH) {
            pops.clear();
            pops.extend(
                chunk
                    .iter()
                    .map(|&q| (q, if a.pop_prefix { 0 } else { heads[q as usize] })),
            );
            out.clear();
            store.dequeue_batch(&pops, &mut out)?;
            for p in &out {
                // FIFO order and item integrity.
                assert_eq!(
                    p.seq, heads[p.queue as usize],
                    "queue {} popped out of order",
                    p.queue
                );
                assert_eq!(p.payload_queue, p.queue, "item in the wrong queue");
                heads[p.queue as usize] += 1;
            }
            popped += out.len() as u64;
            if popped >= next_report {
                eprintln!("  dequeued {popped} in {:.1}s", t1.elapsed().as_secs_f64());
                next_report += 1_000_000;
            }
        }
        active.retain(|&q| heads[q as usize] < tails[q as usize]);
    }
    let deq_s = t1.elapsed().as_secs_f64();
    assert_eq!(popped, a.urls);

    // ---- 3. uniq lookups ---------------------------------------------------------------------
    let present: Vec<u64> = (0..LOOKUPS as u64)
        .map(|k| xxh3_64(url_of(mix(k ^ 0x1111) % a.urls, a.hosts).as_bytes()))
        .collect();
    // Absent: URL numbers beyond n were never offered.
    let absent: Vec<u64> = (0..LOOKUPS as u64)
        .map(|k| xxh3_64(url_of(a.urls + 1 + (mix(k) % a.urls), a.hosts).as_bytes()))
        .collect();
    let t2 = Instant::now();
    let hits = store.count_present(&present)?;
    let present_s = t2.elapsed().as_secs_f64();
    let t3 = Instant::now();
    let false_hits = store.count_present(&absent)?;
    let absent_s = t3.elapsed().as_secs_f64();
    assert_eq!(hits, LOOKUPS, "every present fingerprint must be found");
    assert_eq!(false_hits, 0, "no absent fingerprint may be found");

    let rss = peak_rss();
    let cpu = cpu_secs();
    let combined = (offered + popped) as f64 / (enq_s + deq_s);
    println!(
        "| {} | {} | {} | {:.0} k/s | {:.1} | {:.0} k/s | {:.1} | {:.0} k/s | {:.0} | {:.0} | {:.0} k/s | {:.0} k/s | {} | {:.0} |",
        a.store,
        a.urls,
        if a.pop_prefix { "prefix" } else { "head" },
        offered as f64 / enq_s / 1e3,
        enq_s,
        popped as f64 / deq_s / 1e3,
        deq_s,
        combined / 1e3,
        disk as f64 / a.urls as f64,
        rss as f64 / (1 << 20) as f64,
        LOOKUPS as f64 / present_s / 1e3,
        LOOKUPS as f64 / absent_s / 1e3,
        dups,
        cpu,
    );
    eprintln!(
        "  columns: store | N | pop | enqueue offers/s | enqueue s | dequeue pops/s | dequeue s | combined/s \
         | disk B/URL | peak RSS MiB | present lookups/s | absent lookups/s | duplicates rejected | CPU s (all threads)"
    );
    Ok(())
}
