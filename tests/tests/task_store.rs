//! The task stores' contract (`mcp_runtime::tasks::TaskStore`), held by the memory store
//! and by the Redis store against a real redis-server; and what only a shared store
//! does: namespaces apart, replicas together, a doorbell that outlives a restart, one
//! round trip per operation, many writers of one task at once. Both stores' doorbells keep
//! a listener that does not read the same bounded number of rings.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use mcp_runtime::tasks::{
    Change, DOORBELL_CAPACITY, Doorbell, MemoryStore, RedisStore, TaskRecord, TaskStatus,
    TaskStore, modify, now_ms,
};
use mcp_tests::redis::Redis;

/// How long a ring may take to arrive.
const RING: Duration = Duration::from_secs(5);

/// An id no other test uses.
fn new_id(label: &str) -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    format!(
        "{label}-{}-{}-{}",
        std::process::id(),
        now_ms(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

fn record(id: &str, ttl_ms: Option<u64>) -> TaskRecord {
    let now = now_ms();
    TaskRecord {
        id: id.to_owned(),
        owner: Some("alice".to_owned()),
        tool: "slow".to_owned(),
        status: TaskStatus::Working,
        status_message: None,
        created_at: now,
        last_updated_at: now,
        ttl_ms,
        poll_interval_ms: Some(500),
        input_requests: BTreeMap::new(),
        answers: serde_json::Map::new(),
        runner: Some("replica-1".to_owned()),
        lease_until: Some(now + 10_000),
        result: None,
        error: None,
    }
}

/// The next id `bell` rings, failing the test when none comes within [`RING`].
async fn next_ring(bell: &mut Doorbell) -> String {
    tokio::time::timeout(RING, bell.next())
        .await
        .expect("a ring within 5 s")
        .expect("the doorbell goes on")
}

/// Everything [`TaskStore`]'s documentation promises, as the runtime relies on it.
/// A task that adds one to the count in task `id`'s status message, through `modify`.
fn counting_writer(
    store: Arc<dyn TaskStore>,
    id: &str,
) -> tokio::task::JoinHandle<Result<Option<TaskRecord>, mcp_runtime::tasks::StoreError>> {
    let id = id.to_owned();
    tokio::spawn(async move {
        modify(&*store, &id, |record| {
            let count: u64 = record
                .status_message
                .as_deref()
                .map_or(0, |count| count.parse().expect("a count"));
            record.status_message = Some((count + 1).to_string());
            Change::Store
        })
        .await
    })
}

async fn contract(store: Arc<dyn TaskStore>) {
    // Created at version 1, and loaded as created.
    let id = new_id("task");
    let created = record(&id, None);
    store.create(&created).await.expect("created");
    let loaded = store.load(&id).await.expect("loaded").expect("kept");
    assert_eq!(loaded.version, 1);
    assert_eq!(loaded.record, created);

    // An id is taken once.
    let err = store.create(&record(&id, None)).await.expect_err("taken");
    assert!(err.to_string().contains(&id), "{err}");

    // Replaced at the version read, which moves on; a stale version replaces nothing.
    let mut changed = loaded.record.clone();
    changed.status_message = Some("halfway".to_owned());
    assert!(store.replace(&changed, 1).await.expect("replaced"));
    let after = store.load(&id).await.expect("loaded").expect("kept");
    assert_eq!((after.version, &after.record), (2, &changed));
    let mut stale = loaded.record.clone();
    stale.status = TaskStatus::Cancelled;
    assert!(!store.replace(&stale, 1).await.expect("answered"));
    assert_eq!(
        store.load(&id).await.expect("loaded"),
        Some(after.clone()),
        "a stale replacement leaves the record"
    );

    // No task: nothing to load, nothing to replace, nothing to modify.
    let missing = new_id("missing");
    assert_eq!(store.load(&missing).await.expect("answered"), None);
    assert!(
        !store
            .replace(&record(&missing, None), 1)
            .await
            .expect("answered")
    );
    assert_eq!(
        modify(&*store, &missing, |_| Change::Store)
            .await
            .expect("answered"),
        None
    );

    // Concurrent modifiers lose no update: each increments a counter.
    let counted = new_id("counter");
    store
        .create(&record(&counted, Some(60_000)))
        .await
        .expect("created");
    let modifiers: Vec<_> = (0..20)
        .map(|_| counting_writer(Arc::clone(&store), &counted))
        .collect();
    for modifier in modifiers {
        modifier
            .await
            .expect("no panic")
            .expect("modified")
            .expect("kept");
    }
    let counted = store.load(&counted).await.expect("loaded").expect("kept");
    assert_eq!(counted.record.status_message.as_deref(), Some("20"));
    assert_eq!(counted.version, 21);
    // A change that keeps the record stores nothing.
    let kept = modify(&*store, &counted.record.id, |_| Change::Keep)
        .await
        .expect("answered");
    assert_eq!(kept.as_ref(), Some(&counted.record));
    assert_eq!(
        store
            .load(&counted.record.id)
            .await
            .expect("loaded")
            .map(|kept| kept.version),
        Some(21)
    );

    // Forgotten after its TTL; a record without one is kept. Its id is free again.
    let brief = new_id("brief");
    store
        .create(&record(&brief, Some(300)))
        .await
        .expect("created");
    assert!(store.load(&brief).await.expect("loaded").is_some());
    tokio::time::sleep(Duration::from_millis(1200)).await;
    assert_eq!(store.load(&brief).await.expect("answered"), None);
    assert!(
        !store
            .replace(&record(&brief, Some(300)), 1)
            .await
            .expect("answered"),
        "an expired record is not replaced"
    );
    assert!(store.load(&id).await.expect("loaded").is_some());
    store
        .create(&record(&brief, Some(60_000)))
        .await
        .expect("an expired id is free");

    // A replacement that drops the TTL keeps the record for good.
    let extended = new_id("extended");
    let mut long_lived = record(&extended, Some(300));
    store.create(&long_lived).await.expect("created");
    long_lived.ttl_ms = None;
    assert!(store.replace(&long_lived, 1).await.expect("replaced"));
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert!(store.load(&extended).await.expect("loaded").is_some());

    // The doorbell rings with the ids notified once it is subscribed.
    let mut bell = store.doorbell().await.expect("subscribed");
    store.notify(&id).await.expect("rung");
    store.notify(&brief).await.expect("rung");
    assert_eq!(next_ring(&mut bell).await, id);
    assert_eq!(next_ring(&mut bell).await, brief);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_memory_store_keeps_the_contract() {
    contract(Arc::new(MemoryStore::new())).await;
    assert_eq!(MemoryStore::new().describe(), "memory");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_redis_store_keeps_the_contract() {
    let redis = Redis::start();
    let store = RedisStore::connect(&redis.url).await.expect("connected");
    assert_eq!(
        store.describe(),
        format!("redis://127.0.0.1:{}/0 (namespace mcp-runtime)", redis.port)
    );
    contract(Arc::new(store)).await;
    // Under its namespace, and nothing else.
    let keys = redis.command(&["KEYS", "*"]).expect("KEYS answers");
    assert_ne!(keys, "*0", "records are kept");
    assert_eq!(
        redis.command(&["KEYS", "[^m]*"]).as_deref(),
        Some("*0"),
        "every key is under the namespace"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn namespaces_keep_apps_apart() {
    let redis = Redis::start();
    let a = RedisStore::connect_with_namespace(&redis.url, "app-a")
        .await
        .expect("connected");
    let b = RedisStore::connect_with_namespace(&redis.url, "app-b")
        .await
        .expect("connected");
    assert!(
        b.describe().ends_with("(namespace app-b)"),
        "{}",
        b.describe()
    );

    let id = new_id("shared-id");
    a.create(&record(&id, None)).await.expect("created in a");
    assert_eq!(b.load(&id).await.expect("answered"), None);
    assert!(!b.replace(&record(&id, None), 1).await.expect("answered"));
    let mut in_b = record(&id, None);
    in_b.tool = "other".to_owned();
    b.create(&in_b).await.expect("the same id is free in b");
    assert_eq!(
        a.load(&id)
            .await
            .expect("loaded")
            .expect("kept")
            .record
            .tool,
        "slow"
    );

    let mut bell_b = b.doorbell().await.expect("subscribed");
    a.notify("for-a").await.expect("rung");
    b.notify("for-b").await.expect("rung");
    assert_eq!(next_ring(&mut bell_b).await, "for-b");
    assert!(
        tokio::time::timeout(Duration::from_millis(300), bell_b.next())
            .await
            .is_err(),
        "b hears a's ring"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn replicas_share_records_and_rings() {
    let redis = Redis::start();
    let one = Arc::new(RedisStore::connect(&redis.url).await.expect("connected"));
    let two = Arc::new(RedisStore::connect(&redis.url).await.expect("connected"));

    let id = new_id("task");
    one.create(&record(&id, Some(60_000)))
        .await
        .expect("created");
    assert!(
        two.create(&record(&id, None)).await.is_err(),
        "taken for both"
    );
    let changed = modify(&*two, &id, |record| {
        record.status = TaskStatus::Cancelled;
        Change::Store
    })
    .await
    .expect("modified")
    .expect("kept");
    let seen = one.load(&id).await.expect("loaded").expect("kept");
    assert_eq!((seen.version, &seen.record), (2, &changed));

    let mut bell_one = one.doorbell().await.expect("subscribed");
    let mut bell_two = two.doorbell().await.expect("subscribed");
    two.notify(&id).await.expect("rung");
    assert_eq!(next_ring(&mut bell_one).await, id);
    assert_eq!(next_ring(&mut bell_two).await, id);
}

/// Rings `UNREAD` ids while nobody reads the store's doorbell, four times as many as it
/// keeps: the listener is kept the last [`DOORBELL_CAPACITY`] of them, in order, and
/// nothing else, and hears rings as before once it reads. `settle` returns once the store
/// has taken in every ring published. The doorbell, to drop.
async fn a_listener_that_does_not_read_is_kept_its_last_rings(
    store: &dyn TaskStore,
    settle: impl Future<Output = ()>,
) -> Doorbell {
    const UNREAD: usize = 4 * DOORBELL_CAPACITY;
    let ring = |n: usize| format!("ring-{n}");
    let mut bell = store.doorbell().await.expect("subscribed");
    for n in 0..UNREAD {
        store.notify(&ring(n)).await.expect("rung");
    }
    settle.await;
    assert_eq!(
        next_ring(&mut bell).await,
        ring(UNREAD - DOORBELL_CAPACITY),
        "the rings past the doorbell's bound are dropped, the oldest first"
    );
    for n in UNREAD - DOORBELL_CAPACITY + 1..UNREAD {
        assert_eq!(next_ring(&mut bell).await, ring(n));
    }
    let after = new_id("after");
    store.notify(&after).await.expect("rung");
    assert_eq!(
        next_ring(&mut bell).await,
        after,
        "nothing else was kept, and the doorbell rings on"
    );
    bell
}

#[tokio::test(flavor = "multi_thread")]
async fn a_memory_doorbell_keeps_a_listener_that_does_not_read_its_last_rings() {
    let store = MemoryStore::new();
    let bell =
        a_listener_that_does_not_read_is_kept_its_last_rings(&store, std::future::ready(())).await;
    // With its one doorbell dropped, a ring is heard by nobody, which is no error.
    drop(bell);
    store.notify("to-nobody").await.expect("rung");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_redis_doorbell_keeps_a_listener_that_does_not_read_its_last_rings() {
    let redis = Redis::start();
    let store = RedisStore::connect(&redis.url).await.expect("connected");
    // The doorbell reads its connection to the end before it subscribes again on a new
    // one: once its connection is cut and it subscribed again, it has taken in every ring
    // published before the cut. Should it never subscribe again, the ring published after
    // is not heard, and the test fails there.
    let settle = async {
        assert_eq!(
            redis
                .command(&["CLIENT", "KILL", "TYPE", "pubsub"])
                .as_deref(),
            Some(":1"),
            "one doorbell listens"
        );
        subscribed(&redis, true).await;
    };
    let bell = a_listener_that_does_not_read_is_kept_its_last_rings(&store, settle).await;
    // Dropped, the doorbell stops reading and leaves the channel.
    drop(bell);
    subscribed(&redis, false).await;
    assert_eq!(
        redis.command(&["PUBSUB", "CHANNELS"]).as_deref(),
        Some("*0"),
        "a dropped doorbell keeps its subscription"
    );
}

/// Waits, at most 15 s, until the doorbell's channel has a subscriber (`true`) or none.
async fn subscribed(redis: &Redis, subscribed: bool) {
    let expected = if subscribed { "*1" } else { "*0" };
    let deadline = Instant::now() + Duration::from_secs(15);
    while redis.command(&["PUBSUB", "CHANNELS"]).as_deref() != Some(expected)
        && Instant::now() < deadline
    {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn as_many_writers_of_one_task_as_a_modify_makes_attempts_all_succeed() {
    // A writer's attempt fails only when another writer's succeeded meanwhile, and each
    // succeeds once: with as many writers as a modify makes attempts (64), every writer
    // succeeds, however they interleave. On four replicas, each its own connection.
    const WRITERS: usize = 64;
    let redis = Redis::start();
    let mut replicas = Vec::new();
    for _ in 0..4 {
        replicas.push(Arc::new(
            RedisStore::connect(&redis.url).await.expect("connected"),
        ));
    }
    let id = new_id("contended");
    replicas[0]
        .create(&record(&id, Some(60_000)))
        .await
        .expect("created");
    let writers: Vec<_> = (0..WRITERS)
        .map(|n| {
            let store: Arc<dyn TaskStore> = replicas[n % replicas.len()].clone();
            counting_writer(store, &id)
        })
        .collect();
    for writer in writers {
        writer
            .await
            .expect("no panic")
            .expect("modified")
            .expect("kept");
    }
    let counted = replicas[0].load(&id).await.expect("loaded").expect("kept");
    assert_eq!(
        counted.record.status_message,
        Some(WRITERS.to_string()),
        "every writer's change is kept"
    );
    assert_eq!(counted.version, 1 + WRITERS as u64);
}

/// Round trips, as Redis counts the commands its clients send (`INFO commandstats`): those
/// a script runs count too, so they are left out.
fn commands_sent(redis: &Redis) -> u64 {
    const IN_SCRIPTS: [&str; 5] = ["exists", "hset", "hget", "pexpireat", "persist"];
    redis
        .info("commandstats")
        .into_iter()
        .filter_map(|(name, stats)| {
            let command = name.strip_prefix("cmdstat_")?;
            if command == "info" || IN_SCRIPTS.contains(&command) {
                return None;
            }
            let calls = stats
                .split(',')
                .find_map(|stat| stat.strip_prefix("calls="))?;
            calls.parse::<u64>().ok()
        })
        .sum()
}

#[tokio::test(flavor = "multi_thread")]
async fn each_operation_is_one_round_trip() {
    let redis = Redis::start();
    let store = RedisStore::connect(&redis.url).await.expect("connected");
    let id = new_id("task");
    let mut counts = Vec::new();
    let mut count =
        |what: &str, before: u64| counts.push((what.to_owned(), commands_sent(&redis) - before));

    let before = commands_sent(&redis);
    store
        .create(&record(&id, Some(60_000)))
        .await
        .expect("created");
    count("create", before);
    let before = commands_sent(&redis);
    store.load(&id).await.expect("loaded").expect("kept");
    count("load", before);
    let before = commands_sent(&redis);
    assert!(
        store
            .replace(&record(&id, None), 1)
            .await
            .expect("replaced")
    );
    count("replace", before);
    let before = commands_sent(&redis);
    modify(&store, &id, |record| {
        record.status = TaskStatus::Completed;
        Change::Store
    })
    .await
    .expect("modified")
    .expect("kept");
    count("modify", before);
    let before = commands_sent(&redis);
    store.notify(&id).await.expect("rung");
    count("notify", before);

    let expected = [
        ("create", 1),
        ("load", 1),
        ("replace", 1),
        ("modify", 2),
        ("notify", 1),
    ]
    .map(|(what, trips)| (what.to_owned(), trips));
    assert_eq!(counts, expected);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_record_it_cannot_read_is_an_error_naming_the_task() {
    let redis = Redis::start();
    let store = RedisStore::connect(&redis.url).await.expect("connected");
    redis
        .command(&[
            "HSET",
            "mcp-runtime:task:garbled",
            "v",
            "1",
            "doc",
            "{not json",
        ])
        .expect("HSET answers");
    let err = store.load("garbled").await.expect_err("unreadable");
    assert!(err.to_string().contains("`garbled`"), "{err}");
    redis
        .command(&["HSET", "mcp-runtime:task:versionless", "doc", "{}"])
        .expect("HSET answers");
    let err = store.load("versionless").await.expect_err("unreadable");
    assert!(err.to_string().contains("`versionless`"), "{err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_store_and_its_doorbell_outlive_a_restart() {
    let mut redis = Redis::start();
    let port = redis.port;
    let store = RedisStore::connect(&redis.url).await.expect("connected");
    let mut bell = store.doorbell().await.expect("subscribed");
    redis.kill();
    let restarted = Redis::start_on(port).expect("redis-server starts again on its port");

    // The command that finds the connection dropped fails; the doorbell subscribes again
    // within a few seconds. Rings before that are lost, as the contract allows.
    let id = new_id("after-restart");
    let heard = tokio::time::timeout(Duration::from_secs(15), async {
        loop {
            let _ = store.notify(&id).await;
            if let Ok(Some(ring)) =
                tokio::time::timeout(Duration::from_millis(200), bell.next()).await
            {
                return ring;
            }
        }
    })
    .await
    .expect("the doorbell rings again after the restart");
    assert_eq!(heard, id);

    // Its scripts are loaded again, on the new server.
    store.create(&record(&id, None)).await.expect("created");
    assert_eq!(
        store
            .load(&id)
            .await
            .expect("loaded")
            .map(|kept| kept.version),
        Some(1)
    );
    drop(restarted);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unreachable_redis_is_refused_at_connect() {
    let mut redis = Redis::start();
    let url = format!("redis://someone:hunter2@127.0.0.1:{}/0", redis.port);
    redis.kill();
    let err = RedisStore::connect(&url)
        .await
        .expect_err("nothing listens");
    let message = err.to_string();
    assert!(message.contains("someone:***@127.0.0.1"), "{message}");
    assert!(!message.contains("hunter2"), "{message}");
}
