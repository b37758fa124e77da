//! The job store's behaviour, one test body run on both backends: SQLite in a temporary
//! folder, and a fresh database on a throw-away Postgres (skipped, saying why, when none can be
//! started). Two `Store`s on one database stand for two server replicas.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use queens::server::store::{Counts, JobStatus, Options, Store, StoreError};

use crate::pg;
use crate::temp;

/// Where a test's stores live; every `open` is another replica on the same database.
enum Db {
    Sqlite(temp::Dir),
    Postgres(String),
}

impl Db {
    fn open(&self, options: Options) -> Store {
        match self {
            Db::Sqlite(dir) => Store::open_with(dir, options).unwrap(),
            Db::Postgres(url) => Store::connect(url, options).unwrap(),
        }
    }

    fn store(&self) -> Store {
        self.open(Options::default())
    }
}

/// Each body runs twice: `on_sqlite::name` and `on_postgres::name`.
macro_rules! on_both_backends {
    ($(fn $name:ident($db:ident: &Db) $body:block)*) => {
        mod bodies {
            use super::*;
            $(pub fn $name($db: &Db) $body)*
        }
        mod on_sqlite {
            use super::*;
            $(#[test]
            fn $name() {
                bodies::$name(&Db::Sqlite(temp::dir(stringify!($name))));
            })*
        }
        mod on_postgres {
            use super::*;
            $(#[test]
            fn $name() {
                let Some(url) = pg::database(stringify!($name)) else { return };
                bodies::$name(&Db::Postgres(url));
            })*
        }
    };
}

fn short_lease() -> Options {
    Options {
        lease: Duration::from_millis(300),
        ..Options::default()
    }
}

on_both_backends! {
    fn a_job_goes_from_queued_to_done_with_its_artifacts(db: &Db) {
        let store = db.store();
        store.ping().unwrap();
        let job = store.insert("prove", r#"{"n":8}"#, 10).unwrap();
        assert_eq!(job.id.len(), 32);
        assert!(job.id.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
        assert_eq!((job.status, job.attempts), (JobStatus::Queued, 0));
        assert!(job.created_ms > 1_600_000_000_000, "ms since the epoch");
        assert_eq!(store.get(&job.id).unwrap().unwrap(), job);

        let claimed = store.claim_next().unwrap().unwrap();
        assert_eq!((claimed.id.as_str(), claimed.status, claimed.attempts), (job.id.as_str(), JobStatus::Running, 1));
        assert!(claimed.started_ms.unwrap() >= job.created_ms);
        assert_eq!(store.claim_next().unwrap(), None, "nothing else queued");
        assert!(store.set_progress(&job.id, r#"{"done":1,"total":4}"#).unwrap());
        assert_eq!(
            store.get(&job.id).unwrap().unwrap().progress.as_deref(),
            Some(r#"{"done":1,"total":4}"#)
        );

        // Bytes of every value, a few MB of them, come back exactly.
        let proof: Vec<u8> = (0..(3 << 20)).map(|i: u32| (i.wrapping_mul(2_654_435_761) >> 24) as u8).collect();
        let artifacts: [(&str, &[u8]); 2] = [("proof", &proof), ("cnf", b"p cnf 1 1\n1 0\n")];
        // Field order and spacing of the result are kept as written.
        assert!(store.finish(&job.id, r#"{"z":1, "a":[2]}"#, &artifacts).unwrap());
        let done = store.get(&job.id).unwrap().unwrap();
        assert_eq!(done.status, JobStatus::Done);
        assert_eq!(done.result.as_deref(), Some(r#"{"z":1, "a":[2]}"#));
        assert_eq!(done.artifacts, ["cnf", "proof"]);
        assert!(done.finished_ms.unwrap() >= claimed.started_ms.unwrap());
        assert_eq!(store.artifact(&job.id, "proof").unwrap(), Some(proof));
        assert_eq!(store.artifact(&job.id, "drat").unwrap(), None);
        assert_eq!(store.artifact("nope", "proof").unwrap(), None);
        // An artifact may be a file of the artifacts folder: the store keeps its path.
        let filed = store.insert("solve", "{}", 10).unwrap();
        assert_eq!(store.claim_next().unwrap().unwrap().id, filed.id);
        let files = [("proof", "some-id/proof")];
        assert!(store.finish_with_files(&filed.id, "{}", &[("cnf", b"c")], &files).unwrap());
        assert_eq!(store.get(&filed.id).unwrap().unwrap().artifacts, ["cnf", "proof"]);
        assert_eq!(
            store.artifact_source(&filed.id, "proof").unwrap(),
            Some(queens::server::store::Artifact::File("some-id/proof".into()))
        );
        assert_eq!(store.artifact(&filed.id, "proof").unwrap(), None);
        assert_eq!(store.artifact(&filed.id, "cnf").unwrap(), Some(b"c".to_vec()));
        // A finished job no longer moves.
        assert!(!store.set_progress(&job.id, "{}").unwrap());
        assert!(!store.finish(&job.id, "{}", &[]).unwrap());
        assert!(!store.fail(&job.id, "{}").unwrap());
        assert!(!store.requeue(&job.id).unwrap());
        assert_eq!(store.cancel(&job.id).unwrap(), Some(JobStatus::Done));
        assert_eq!(store.get(&job.id).unwrap().unwrap(), done);

        let bad = store.insert("solve", "{}", 10).unwrap();
        assert!(!store.fail(&bad.id, "{}").unwrap(), "only a running job fails");
        store.claim_next().unwrap().unwrap();
        assert!(store.fail(&bad.id, r#"{"title":"x"}"#).unwrap());
        assert_eq!(store.get(&bad.id).unwrap().unwrap().status, JobStatus::Failed);
        let queued = store.insert("solve", "{}", 10).unwrap();
        assert_eq!(store.cancel(&queued.id).unwrap(), Some(JobStatus::Queued));
        assert_eq!(store.claim_next().unwrap(), None, "a cancelled job is not run");
        assert_eq!(store.cancel("no-such-job").unwrap(), None);
        assert_eq!(store.get("0123456789abcdef0123456789abcdef").unwrap(), None);
        assert_eq!(
            store.counts().unwrap(),
            Counts { done: 2, failed: 1, cancelled: 1, ..Counts::default() }
        );
    }

    fn the_queue_limit_holds_and_claims_follow_arrival_order(db: &Db) {
        let store = db.store();
        let ids: Vec<String> = (0..3).map(|i| store.insert("count", &format!("{{\"i\":{i}}}"), 3).unwrap().id).collect();
        let err = store.insert("count", "{}", 3).unwrap_err();
        assert!(matches!(err, StoreError::Full(3)), "{err:?}");
        let first = store.claim_next().unwrap().unwrap();
        assert_eq!(first.id, ids[0]);
        // Handed back: it runs again before the jobs that arrived after it.
        assert!(store.requeue(&first.id).unwrap());
        assert!(!store.requeue(&first.id).unwrap(), "no longer running");
        let again = store.claim_next().unwrap().unwrap();
        assert_eq!((again.id.as_str(), again.attempts), (ids[0].as_str(), 2));
        let rest: Vec<String> = std::iter::from_fn(|| store.claim_next().unwrap()).map(|j| j.id).collect();
        assert_eq!(rest, ids[1..]);
    }

    fn a_replica_that_stops_renewing_loses_its_jobs_to_the_others(db: &Db) {
        let a = db.open(short_lease());
        let b = db.open(short_lease());
        assert_ne!(a.owner(), b.owner());
        let kept = a.insert("solve", "{}", 10).unwrap();
        let lost = a.insert("solve", "{}", 10).unwrap();
        assert_eq!(a.claim_next().unwrap().unwrap().id, kept.id);
        assert_eq!(a.claim_next().unwrap().unwrap().id, lost.id);
        // Only the owner records a running job's progress or end.
        assert!(!b.set_progress(&kept.id, "{}").unwrap());
        assert!(!b.finish(&kept.id, "{}", &[]).unwrap());
        assert!(!b.fail(&kept.id, "{}").unwrap());
        assert!(!b.requeue(&kept.id).unwrap());
        assert!(b.requeue_expired().unwrap().is_empty(), "the leases are fresh");

        // `a` renews both, finishes one, then goes silent past the lease.
        let mut renewed = a.renew().unwrap();
        renewed.sort();
        let mut both = vec![kept.id.clone(), lost.id.clone()];
        both.sort();
        assert_eq!(renewed, both);
        assert!(a.finish(&kept.id, r#"{"ok":true}"#, &[]).unwrap());
        std::thread::sleep(Duration::from_millis(600));
        assert_eq!(b.requeue_expired().unwrap(), std::slice::from_ref(&lost.id));
        assert!(b.requeue_expired().unwrap().is_empty());
        let retried = b.claim_next().unwrap().unwrap();
        assert_eq!((retried.id.as_str(), retried.attempts), (lost.id.as_str(), 2));
        // The old owner learns it lost the job, and its late answer is not recorded.
        assert!(a.renew().unwrap().is_empty());
        assert!(!a.set_progress(&lost.id, "{}").unwrap());
        assert!(!a.finish(&lost.id, r#"{"late":true}"#, &[("proof", b"x")]).unwrap());
        assert!(b.finish(&lost.id, r#"{"ok":2}"#, &[]).unwrap());
        let done = a.get(&lost.id).unwrap().unwrap();
        assert_eq!((done.status, done.attempts, done.result.as_deref()), (JobStatus::Done, 2, Some(r#"{"ok":2}"#)));
        assert!(done.artifacts.is_empty());
        // A finished job's lease does not run out.
        std::thread::sleep(Duration::from_millis(400));
        assert!(b.requeue_expired().unwrap().is_empty());
    }

    fn a_cancel_from_another_replica_reaches_the_owner(db: &Db) {
        let a = db.store();
        let b = db.store();
        let job = a.insert("solve", "{}", 10).unwrap();
        a.claim_next().unwrap().unwrap();
        assert_eq!(a.renew().unwrap(), std::slice::from_ref(&job.id));
        assert_eq!(b.cancel(&job.id).unwrap(), Some(JobStatus::Running));
        assert!(a.renew().unwrap().is_empty(), "the owner's renewal no longer has it");
        assert!(!a.finish(&job.id, "{}", &[("proof", b"p")]).unwrap());
        let after = b.get(&job.id).unwrap().unwrap();
        assert_eq!(after.status, JobStatus::Cancelled);
        assert!(after.result.is_none() && after.artifacts.is_empty());
    }

    fn a_result_or_artifact_over_the_limit_is_refused_whole(db: &Db) {
        let store = db.open(Options { max_artifact: 1000, ..Options::default() });
        let job = store.insert("prove", "{}", 10).unwrap();
        store.claim_next().unwrap().unwrap();
        let big = vec![b'd'; 1001];
        let err = store.finish(&job.id, "{}", &[("cnf", b"p cnf 0 0\n"), ("proof", &big)]).unwrap_err();
        assert!(matches!(&err, StoreError::TooLarge { what, bytes: 1001, limit: 1000 } if what == "proof"), "{err:?}");
        assert!(err.to_string().contains("the proof is 1001 bytes"), "{err}");
        let long_result = format!("\"{}\"", "x".repeat(1000));
        assert!(matches!(store.finish(&job.id, &long_result, &[]), Err(StoreError::TooLarge { .. })));
        let after = store.get(&job.id).unwrap().unwrap();
        assert_eq!(after.status, JobStatus::Running, "nothing stored");
        assert!(after.artifacts.is_empty());
        // At the limit exactly, stored whole.
        assert!(store.finish(&job.id, "{}", &[("proof", &big[..1000])]).unwrap());
        assert_eq!(store.artifact(&job.id, "proof").unwrap().unwrap().len(), 1000);
    }

    fn duplicate_artifact_names_store_nothing(db: &Db) {
        let store = db.store();
        let job = store.insert("prove", "{}", 10).unwrap();
        store.claim_next().unwrap().unwrap();
        let err = store.finish(&job.id, "{}", &[("proof", b"a"), ("proof", b"b")]).unwrap_err();
        assert!(err.to_string().starts_with(&format!("job store: finishing job {}: ", job.id)), "{err}");
        let after = store.get(&job.id).unwrap().unwrap();
        assert_eq!(after.status, JobStatus::Running, "rolled back");
        assert!(store.finish(&job.id, "{}", &[("proof", b"a")]).unwrap());
    }

    fn concurrent_replicas_never_share_a_job_and_keep_near_the_limit(db: &Db) {
        let stores = [Arc::new(db.store()), Arc::new(db.store())];
        let accepted: usize = (0..4)
            .map(|i| {
                let store = Arc::clone(&stores[i % 2]);
                std::thread::spawn(move || {
                    (0..25)
                        .filter(|_| match store.insert("solve", "{}", 60) {
                            Ok(_) => true,
                            // Postgres may report a count past the limit: inserts in flight overshoot it.
                            Err(StoreError::Full(queued)) if queued >= 60 => false,
                            Err(e) => panic!("{e}"),
                        })
                        .count()
                })
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|t| t.join().unwrap())
            .sum();
        // Exact on SQLite; on Postgres the four inserts in flight may pass it together.
        assert!((60..64).contains(&accepted), "{accepted}");
        let claimed: Vec<String> = (0..4)
            .map(|i| {
                let store = Arc::clone(&stores[i % 2]);
                std::thread::spawn(move || {
                    std::iter::from_fn(|| store.claim_next().unwrap())
                        .map(|job| {
                            assert_eq!(job.attempts, 1);
                            job.id
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect::<Vec<_>>()
            .into_iter()
            .flat_map(|t| t.join().unwrap())
            .collect();
        assert_eq!(claimed.len(), accepted, "each job claimed exactly once");
        assert_eq!(claimed.iter().collect::<HashSet<_>>().len(), accepted);
        assert_eq!(stores[0].counts().unwrap().running, accepted as u64);
    }

    fn a_deleted_job_is_gone_with_its_artifacts_whatever_its_status(db: &Db) {
        let a = db.store();
        let b = db.store();
        let done = a.insert("prove", "{}", 10).unwrap();
        a.claim_next().unwrap().unwrap();
        assert!(a.finish_with_files(&done.id, "{}", &[("cnf", b"c")], &[("proof", "x/proof")]).unwrap());
        let running = a.insert("count", "{}", 10).unwrap();
        assert_eq!(a.claim_next().unwrap().unwrap().id, running.id);
        let queued = a.insert("solve", "{}", 10).unwrap();

        // From another replica, as a DELETE on any replica is.
        assert_eq!(b.delete(&done.id).unwrap(), Some(JobStatus::Done));
        assert_eq!(b.get(&done.id).unwrap(), None);
        assert_eq!(b.artifact_source(&done.id, "proof").unwrap(), None);
        assert_eq!(b.artifact(&done.id, "cnf").unwrap(), None);
        assert_eq!(b.delete(&done.id).unwrap(), None, "once");
        assert_eq!(b.delete(&queued.id).unwrap(), Some(JobStatus::Queued));
        assert_eq!(a.claim_next().unwrap(), None, "a deleted job never runs");
        // A running job: its owner's renewal no longer has it, and its end records nothing.
        assert_eq!(b.delete(&running.id).unwrap(), Some(JobStatus::Running));
        assert!(a.renew().unwrap().is_empty());
        assert!(!a.set_progress(&running.id, "{}").unwrap());
        assert!(!a.finish(&running.id, "{}", &[("proof", b"p")]).unwrap());
        assert!(!a.fail(&running.id, "{}").unwrap());
        assert!(!a.requeue(&running.id).unwrap());
        assert_eq!(a.counts().unwrap(), Counts::default());
        assert_eq!(a.delete("0123456789abcdef0123456789abcdef").unwrap(), None);
    }

    fn expired_jobs_are_removed_once_oldest_first_and_unfinished_ones_never(db: &Db) {
        let store = db.store();
        let mut finished = Vec::new();
        for (i, end) in ["done", "failed", "cancelled"].into_iter().enumerate() {
            let job = store.insert("solve", &format!("{{\"i\":{i}}}"), 100).unwrap();
            if end == "cancelled" {
                store.cancel(&job.id).unwrap();
            } else {
                store.claim_next().unwrap().unwrap();
                if end == "done" {
                    assert!(store.finish(&job.id, "{}", &[("proof", b"p")]).unwrap());
                } else {
                    assert!(store.fail(&job.id, "{}").unwrap());
                }
            }
            finished.push(job.id);
            std::thread::sleep(Duration::from_millis(5));
        }
        let running = store.insert("count", "{}", 100).unwrap();
        store.claim_next().unwrap().unwrap();
        let queued = store.insert("count", "{}", 100).unwrap();
        std::thread::sleep(Duration::from_millis(300));
        let young = store.insert("solve", "{}", 100).unwrap();
        store.cancel(&young.id).unwrap();

        // Not yet old enough: nothing goes.
        assert!(store.delete_finished(Duration::from_secs(60), 10).unwrap().is_empty());
        // Oldest first, in batches.
        assert_eq!(store.delete_finished(Duration::from_millis(200), 2).unwrap(), finished[..2]);
        assert_eq!(store.delete_finished(Duration::from_millis(200), 2).unwrap(), finished[2..]);
        assert!(store.delete_finished(Duration::from_millis(200), 2).unwrap().is_empty());
        for id in &finished {
            assert_eq!(store.get(id).unwrap(), None);
        }
        assert_eq!(store.artifact(&finished[0], "proof").unwrap(), None);
        // However old, a queued or running job is never expired.
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(store.delete_finished(Duration::ZERO, 10).unwrap(), std::slice::from_ref(&young.id));
        assert_eq!(store.get(&running.id).unwrap().unwrap().status, JobStatus::Running);
        assert_eq!(store.get(&queued.id).unwrap().unwrap().status, JobStatus::Queued);
        let asked = [running.id.clone(), young.id.clone(), "f".repeat(32)];
        assert_eq!(store.existing(&asked).unwrap(), std::slice::from_ref(&running.id));
    }

    fn replicas_sweeping_at_once_remove_each_expired_job_once(db: &Db) {
        let stores: Vec<Arc<Store>> = (0..3).map(|_| Arc::new(db.store())).collect();
        let ids: HashSet<String> = (0..90)
            .map(|_| {
                let job = stores[0].insert("solve", "{}", 1000).unwrap();
                stores[0].cancel(&job.id).unwrap();
                job.id
            })
            .collect();
        std::thread::sleep(Duration::from_millis(20));
        let removed: Vec<String> = stores
            .iter()
            .map(|store| {
                let store = Arc::clone(store);
                std::thread::spawn(move || {
                    let mut mine = Vec::new();
                    loop {
                        let batch = store.delete_finished(Duration::from_millis(10), 7).unwrap();
                        if batch.is_empty() {
                            return mine;
                        }
                        mine.extend(batch);
                    }
                })
            })
            .collect::<Vec<_>>()
            .into_iter()
            .flat_map(|t| t.join().unwrap())
            .collect();
        assert_eq!(removed.len(), ids.len(), "each removed, and reported, once");
        assert_eq!(removed.into_iter().collect::<HashSet<_>>(), ids);
        assert_eq!(stores[1].counts().unwrap(), Counts::default());
    }

    fn keys_are_claimed_apart_and_the_queue_is_counted_by_op(db: &Db) {
        let store = db.store();
        let a1 = store.insert_for("solve", "{}", 10, Some("a")).unwrap();
        let a2 = store.insert_for("count", "{}", 10, Some("a")).unwrap();
        let b1 = store.insert_for("solve", "{}", 10, Some("b")).unwrap();
        let n1 = store.insert_for("solve", "{}", 10, None).unwrap();
        let keys: Vec<Option<String>> =
            store.queued_keys().unwrap().into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, [Some("a".to_string()), Some("b".to_string()), None], "oldest first");
        assert_eq!(store.claim_next_of(Some("b")).unwrap().unwrap().id, b1.id);
        assert_eq!(store.claim_next_of(Some("b")).unwrap(), None);
        assert_eq!(store.claim_next_of(None).unwrap().unwrap().id, n1.id);
        let claimed = store.claim_next_of(Some("a")).unwrap().unwrap();
        assert_eq!((claimed.id.as_str(), claimed.status), (a1.id.as_str(), JobStatus::Running));
        let queue = store.queue_by_op().unwrap();
        let by = |op: &str| queue.iter().find(|q| q.op == op).unwrap().clone();
        assert_eq!((by("solve").queued, by("solve").running), (0, 3));
        assert_eq!(by("solve").oldest_queued_ms, None);
        assert_eq!((by("count").queued, by("count").running), (1, 0));
        assert_eq!(by("count").oldest_queued_ms, Some(a2.created_ms));
    }
}

#[test]
fn postgres_schema_is_versioned_and_a_newer_one_is_refused() {
    let Some(url) = pg::database("schema") else {
        return;
    };
    // Replicas starting together migrate once.
    let stores: Vec<Store> = (0..3)
        .map(|_| {
            let url = url.clone();
            std::thread::spawn(move || Store::connect(&url, Options::default()).unwrap())
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|t| t.join().unwrap())
        .collect();
    let id = stores[0].insert("solve", "{}", 10).unwrap().id;
    drop(stores);
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let version: i32 = admin
        .query_one("SELECT version FROM queens_schema", &[])
        .unwrap()
        .get(0);
    assert!(version >= 1);
    admin
        .execute("UPDATE queens_schema SET version = version + 1", &[])
        .unwrap();
    let err = Store::connect(&url, Options::default()).unwrap_err();
    assert!(matches!(err, StoreError::TooNew { .. }), "{err:?}");
    assert!(
        err.to_string().contains("is newer than this queens knows"),
        "{err}"
    );
    admin
        .execute("UPDATE queens_schema SET version = version - 1", &[])
        .unwrap();
    let store = Store::connect(&url, Options::default()).unwrap();
    assert_eq!(store.get(&id).unwrap().unwrap().status, JobStatus::Queued);
}

#[test]
fn a_postgres_url_never_shows_its_password() {
    let err = Store::connect(
        "postgres://queens:s3cret@127.0.0.1:1/none?connect_timeout=2",
        Options::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(!err.contains("s3cret"), "{err}");
    assert!(
        err.contains("postgres://queens:***@127.0.0.1:1/none"),
        "{err}"
    );
}

/// TLS to the store, on a throw-away server that refuses TCP without TLS and has a
/// certificate for `localhost` signed by a CA of the test's own: `require` encrypts,
/// `verify-full` with the CA file connects by that name only, `verify-ca` by any name, another
/// CA is refused, and `queens serve` does not start when `verify-full` fails.
#[test]
fn the_store_speaks_tls_and_refuses_a_server_it_cannot_verify() {
    let Some(cluster) = pg::tls_cluster() else {
        return;
    };
    let tls = cluster.tls().expect("a TLS cluster");
    let db = cluster.fresh_database("tls");
    let name = db.rsplit('/').next().unwrap().to_string();
    let url = |host: &str, query: &str| format!("{}?{query}", cluster.url_at(host, &name));
    let connect = |url: &str| Store::connect(url, Options::default());
    let ca = tls.ca.display().to_string();
    let other = tls.other_ca.display().to_string();

    // Without TLS the server says no: every connection that works below is encrypted.
    let plain = connect(&url("127.0.0.1", "sslmode=disable"))
        .unwrap_err()
        .to_string();
    assert!(
        plain.contains("no encryption") || plain.contains("pg_hba.conf"),
        "{plain}"
    );

    for (host, query) in [
        ("127.0.0.1", "sslmode=require".to_string()),
        ("127.0.0.1", "sslmode=prefer".to_string()),
        ("localhost", format!("sslmode=verify-full&sslrootcert={ca}")),
        ("127.0.0.1", format!("sslmode=verify-ca&sslrootcert={ca}")),
    ] {
        let store = connect(&url(host, &query)).unwrap_or_else(|e| panic!("{host} {query}: {e}"));
        let job = store.insert("solve", r#"{"n":8}"#, 10).unwrap();
        assert_eq!(store.claim_next().unwrap().unwrap().id, job.id);
        assert!(store.finish(&job.id, "{}", &[("proof", b"p")]).unwrap());
        assert_eq!(store.delete(&job.id).unwrap(), Some(JobStatus::Done));
    }
    // The key=value form too.
    let port = cluster
        .url_at("x", "y")
        .rsplit(':')
        .next()
        .unwrap()
        .split('/')
        .next()
        .unwrap()
        .to_string();
    connect(&format!(
        "host=localhost port={port} user=queens dbname={name} sslmode=verify-full sslrootcert={ca}"
    ))
    .unwrap()
    .ping()
    .unwrap();

    // verify-full: the certificate is for localhost, not for 127.0.0.1.
    let err = connect(&url(
        "127.0.0.1",
        &format!("sslmode=verify-full&sslrootcert={ca}"),
    ))
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("certificate") && err.contains("127.0.0.1"),
        "{err}"
    );
    // Another CA signed nothing of the server's: refused in both verifying modes, and by
    // `require` given a CA (as libpq does).
    for mode in ["verify-full", "verify-ca", "require"] {
        let err = connect(&url(
            "localhost",
            &format!("sslmode={mode}&sslrootcert={other}"),
        ))
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("UnknownIssuer") || err.contains("unknown issuer"),
            "{mode}: {err}"
        );
    }

    // The server refuses to start on a store it cannot verify, and says why.
    let data = crate::temp::dir("tls-serve");
    let bad = url(
        "localhost",
        &format!("sslmode=verify-full&sslrootcert={other}"),
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_queens"))
        .args(["serve", "--addr", "127.0.0.1:0", "--store", &bad, "--data"])
        .arg(data.join("data"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(!stderr.contains("listening"), "{stderr}");
    assert!(
        stderr.contains("TLS") || stderr.contains("certificate"),
        "{stderr}"
    );
    let missing = url("localhost", "sslmode=verify-full");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_queens"))
        .args([
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--store",
            &missing,
            "--data",
        ])
        .arg(data.join("data"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("sslmode=verify-full needs sslrootcert=FILE"),
        "{stderr}"
    );
}
