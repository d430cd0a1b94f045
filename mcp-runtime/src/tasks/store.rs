//! Where task state lives: the [`TaskStore`] trait, the record it keeps ([`TaskRecord`]),
//! and the one way the runtime changes a record ([`modify`]).
//!
//! A store is a small versioned document store with a doorbell. It keeps each task's
//! record under its id until the record's expiry, replaces a record only when nobody
//! changed it since it was read (compare and set on a version), and rings the doorbell
//! ([`TaskStore::notify`]) so that whichever replica runs a task hears that its record
//! changed (a cancellation, an answer) and reads it again. Everything a task means lives in
//! the runtime; a store only keeps bytes safely, so a new store is a few dozen lines.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tokio::sync::broadcast;

use crate::talk::InputRequest;

/// What a store's methods return.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// The ids of tasks whose records changed, as a store's doorbell rings them.
pub type Doorbell = Pin<Box<dyn futures_util::Stream<Item = String> + Send>>;

/// How many rings a store's [`Doorbell`] keeps for a listener that has not read them yet.
/// Past it, the oldest are dropped: the runtime reads the records of its tasks at every
/// lease renewal too, so a dropped ring only delays, while a slow listener's rings never
/// pile up without end.
pub const DOORBELL_CAPACITY: usize = 1024;

/// The doorbell that rings what is sent on `rings`, a channel of [`DOORBELL_CAPACITY`]: a
/// listener that falls behind skips the rings it lost, and the doorbell ends when every
/// sender is gone.
pub(crate) fn bounded_doorbell(rings: broadcast::Receiver<String>) -> Doorbell {
    let rings = futures_util::stream::unfold(rings, |mut rings| async move {
        loop {
            match rings.recv().await {
                Ok(id) => return Some((id, rings)),
                // Rings lost to a slow listener: its tasks are read at their next lease
                // renewal.
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    });
    Box::pin(rings)
}

/// A store could not do what was asked: it is unreachable, or it holds something this
/// runtime cannot read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the task store failed: {0}")]
pub struct StoreError(pub String);

impl StoreError {
    /// An error saying `what`.
    pub fn new(what: impl std::fmt::Display) -> Self {
        Self(what.to_string())
    }
}

/// A task's state, as MCP's tasks extension names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Running.
    Working,
    /// Waiting for the client to answer its `inputRequests` (`tasks/update`).
    InputRequired,
    /// Finished with a result (a tool's error included: `isError` is in the result).
    Completed,
    /// Ended by a protocol-level error: a panic, a lost replica, a store failure.
    Failed,
    /// Cancelled by the client.
    Cancelled,
}

impl TaskStatus {
    /// Whether the task has ended: completed, failed or cancelled.
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Cancelled)
    }

    /// `working`, `input_required`, `completed`, `failed` or `cancelled`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Working => "working",
            Self::InputRequired => "input_required",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }
}

/// One task, as a store keeps it. Times are milliseconds since the Unix epoch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskRecord {
    /// The id the client names the task by: 128 random bits.
    pub id: String,
    /// Who may see and steer the task: the access token's subject and client, or the
    /// connection's peer; `None` when calls carry no identity.
    pub owner: Option<String>,
    /// The tool it runs.
    pub tool: String,
    /// Its state.
    pub status: TaskStatus,
    /// What the tool last said of its progress, or why the task ended.
    pub status_message: Option<String>,
    /// When it was created.
    pub created_at: u64,
    /// When it last changed.
    pub last_updated_at: u64,
    /// How long after its creation it is kept; `None` for as long as the store keeps it.
    pub ttl_ms: Option<u64>,
    /// How often the client should poll.
    pub poll_interval_ms: Option<u64>,
    /// The requests to the client still waiting for an answer, by key.
    pub input_requests: BTreeMap<String, InputRequest>,
    /// The answers given (`tasks/update`), by key, for the replica running the task to take.
    pub answers: Map<String, Value>,
    /// The replica running the task.
    pub runner: Option<String>,
    /// Until when the runner's lease holds: past it, a task not ended is reported failed.
    pub lease_until: Option<u64>,
    /// The final result (a `CallToolResult`), once completed.
    pub result: Option<Value>,
    /// The JSON-RPC error (`code`, `message`), once failed.
    pub error: Option<Value>,
}

impl TaskRecord {
    /// When the store may forget the record: its creation plus its TTL.
    pub fn expires_at(&self) -> Option<u64> {
        self.ttl_ms.map(|ttl| self.created_at.saturating_add(ttl))
    }
}

/// A record as read, with the version a replacement must name.
#[derive(Debug, Clone, PartialEq)]
pub struct Versioned {
    /// The record.
    pub record: TaskRecord,
    /// Its version: changed by every replacement.
    pub version: u64,
}

/// Where task state lives: in this process ([`MemoryStore`](super::MemoryStore)), or shared
/// by every replica (`RedisStore`, with the `redis` feature).
///
/// Its contract:
/// - [`create`](Self::create) stores a new record at version 1, durably once it returns:
///   any replica's [`load`](Self::load) finds it from then on;
/// - [`replace`](Self::replace) stores a record only if its version is still `expected`,
///   and then at `expected + 1`; it answers whether it did;
/// - a record is kept at least until its [`expires_at`](TaskRecord::expires_at) and may be
///   forgotten after; one without an expiry is kept;
/// - [`notify`](Self::notify) rings every replica's [`doorbell`](Self::doorbell) with the
///   id. A ring may be lost (a replica reconnecting); the runtime reads the records of its
///   tasks at every lease renewal too, so that a lost ring only delays.
pub trait TaskStore: Send + Sync + 'static {
    /// Stores a new record; an error if its id is taken.
    fn create<'a>(&'a self, record: &'a TaskRecord) -> StoreFuture<'a, ()>;
    /// The record of task `id`, if kept.
    fn load<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<Versioned>>;
    /// Replaces the record of `record.id` if its version is `expected`.
    fn replace<'a>(&'a self, record: &'a TaskRecord, expected: u64) -> StoreFuture<'a, bool>;
    /// Rings the doorbell for task `id`.
    fn notify<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()>;
    /// The ids rung from now on, by any replica.
    fn doorbell(&self) -> StoreFuture<'_, Doorbell>;
    /// What the store is, for logs and `check`: `memory`, or the Redis address.
    fn describe(&self) -> String;
}

/// How a [`modify`] step goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// Store the record as changed.
    Store,
    /// Leave the record as it was.
    Keep,
}

/// How many times [`modify`] reads and replaces a record before it gives up.
const MODIFY_ATTEMPTS: u32 = 64;

/// The longest wait before a first retry of [`modify`]: each further retry may wait twice
/// as long, up to [`MAX_RETRY_DELAY`].
const FIRST_RETRY_DELAY: Duration = Duration::from_micros(100);

/// The longest wait between two attempts of [`modify`].
const MAX_RETRY_DELAY: Duration = Duration::from_millis(5);

/// Changes the record of task `id` with `change`, retried on the store's record until no
/// other replica changed it meanwhile; the record after (or as it was, when `change`
/// kept it), `None` when there is no such task.
///
/// # Errors
///
/// When the store fails, or when another writer changed the record between the read and
/// the write of each of 64 attempts.
pub async fn modify(
    store: &dyn TaskStore,
    id: &str,
    mut change: impl FnMut(&mut TaskRecord) -> Change + Send,
) -> Result<Option<TaskRecord>, StoreError> {
    // Contention on one task is a handful of writers (its runner, a few clients): a
    // conflict is retried after a short wait, random and growing, so that writers who
    // collided spread out instead of colliding again in step; a long run of conflicts
    // means something is wrong.
    for attempt in 0..MODIFY_ATTEMPTS {
        if let Some(retry) = attempt.checked_sub(1) {
            tokio::time::sleep(retry_delay(retry, jitter())).await;
        }
        let Some(Versioned {
            mut record,
            version,
        }) = store.load(id).await?
        else {
            return Ok(None);
        };
        if change(&mut record) == Change::Keep {
            return Ok(Some(record));
        }
        record.last_updated_at = now_ms().max(record.last_updated_at);
        if store.replace(&record, version).await? {
            return Ok(Some(record));
        }
    }
    Err(StoreError::new(format!(
        "task `{id}` was changed by another writer during each of {MODIFY_ATTEMPTS} attempts \
         to update it"
    )))
}

/// The wait before retry `retry` (0 for the first) of [`modify`]: at most
/// [`FIRST_RETRY_DELAY`] doubled `retry` times and capped at [`MAX_RETRY_DELAY`], and at
/// least half of that, with `random` (any `u64`, as a fraction of 2^64) choosing where in
/// between.
fn retry_delay(retry: u32, random: u64) -> Duration {
    let ceiling = (FIRST_RETRY_DELAY * (1 << retry.min(16))).min(MAX_RETRY_DELAY);
    let half = ceiling / 2;
    let span = u64::try_from(half.as_nanos()).unwrap_or(u64::MAX);
    let jitter = (u128::from(span) * u128::from(random)) >> 64;
    half + Duration::from_nanos(u64::try_from(jitter).unwrap_or(span))
}

/// A random `u64` for [`retry_delay`]: from the system's randomness, or 0 (the shortest
/// wait) where it has none, since the jitter only spreads writers apart.
fn jitter() -> u64 {
    crate::base::ids::random_bytes::<8>().map_or(0, u64::from_le_bytes)
}

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| {
            u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
        })
}

/// `ms` since the Unix epoch as ISO 8601 (RFC 3339, UTC, milliseconds).
pub fn iso8601(ms: u64) -> String {
    humantime::format_rfc3339_millis(UNIX_EPOCH + Duration::from_millis(ms)).to_string()
}

/// How long a lease lasts by default, and so how soon a lost replica's tasks are reported
/// failed.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(10);

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::time::Instant;

    use super::*;
    use crate::tasks::MemoryStore;

    #[test]
    fn a_retry_waits_twice_as_long_as_the_one_before_until_the_cap() {
        // 0.1 ms doubled five times is 3.2 ms, under the cap of 5 ms; once more is over it.
        for random in [0, 1 << 20, u64::MAX / 3, u64::MAX] {
            let delays: Vec<Duration> = (0..10).map(|retry| retry_delay(retry, random)).collect();
            for pair in delays[..6].windows(2) {
                let ratio = pair[1].as_secs_f64() / pair[0].as_secs_f64();
                assert!((1.99..=2.01).contains(&ratio), "{delays:?}");
            }
            let capped = retry_delay(u32::MAX, random);
            assert!(
                delays[6..].iter().all(|delay| *delay == capped),
                "{delays:?}"
            );
        }
        assert_eq!(retry_delay(0, 0), FIRST_RETRY_DELAY / 2);
        assert!(retry_delay(0, u64::MAX) < FIRST_RETRY_DELAY);
        assert!(FIRST_RETRY_DELAY < Duration::from_millis(1));
    }

    #[test]
    fn a_retry_waits_at_most_the_cap_and_at_least_half_of_it() {
        for retry in [6, 7, 16, 17, 63, u32::MAX] {
            for random in [0, 1, u64::MAX / 2, u64::MAX] {
                let delay = retry_delay(retry, random);
                assert!(delay <= MAX_RETRY_DELAY, "{retry}: {delay:?}");
                assert!(delay >= MAX_RETRY_DELAY / 2, "{retry}: {delay:?}");
            }
        }
        assert!(MAX_RETRY_DELAY <= Duration::from_millis(10));
    }

    #[test]
    fn the_jitter_spreads_retries_apart() {
        let low = retry_delay(3, 0);
        let middle = retry_delay(3, u64::MAX / 2);
        let high = retry_delay(3, u64::MAX);
        assert!(low < middle && middle < high, "{low:?} {middle:?} {high:?}");
        let waits =
            || -> Vec<Duration> { (0..8).map(|retry| retry_delay(retry, jitter())).collect() };
        assert_ne!(waits(), waits(), "two writers' retries wait alike");
    }

    /// A memory store whose every replacement finds the record changed, as under writers
    /// that always come first; it notes when each replacement was tried.
    struct Contended {
        records: MemoryStore,
        replaced: Mutex<Vec<Instant>>,
    }

    impl TaskStore for Contended {
        fn create<'a>(&'a self, record: &'a TaskRecord) -> StoreFuture<'a, ()> {
            self.records.create(record)
        }
        fn load<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<Versioned>> {
            self.records.load(id)
        }
        fn replace<'a>(&'a self, _: &'a TaskRecord, _: u64) -> StoreFuture<'a, bool> {
            self.replaced
                .lock()
                .expect("not poisoned")
                .push(Instant::now());
            Box::pin(std::future::ready(Ok(false)))
        }
        fn notify<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()> {
            self.records.notify(id)
        }
        fn doorbell(&self) -> StoreFuture<'_, Doorbell> {
            self.records.doorbell()
        }
        fn describe(&self) -> String {
            "contended".to_owned()
        }
    }

    #[tokio::test]
    async fn a_modify_that_always_conflicts_waits_ever_longer_then_gives_up_naming_the_task() {
        let store = Contended {
            records: MemoryStore::new(),
            replaced: Mutex::new(Vec::new()),
        };
        let now = now_ms();
        let record = TaskRecord {
            id: "busy".to_owned(),
            owner: None,
            tool: "slow".to_owned(),
            status: TaskStatus::Working,
            status_message: None,
            created_at: now,
            last_updated_at: now,
            ttl_ms: None,
            poll_interval_ms: None,
            input_requests: BTreeMap::new(),
            answers: Map::new(),
            runner: None,
            lease_until: None,
            result: None,
            error: None,
        };
        store.create(&record).await.expect("created");
        let err = modify(&store, "busy", |_| Change::Store)
            .await
            .expect_err("every attempt conflicts");
        assert_eq!(
            err.0,
            "task `busy` was changed by another writer during each of 64 attempts to update it"
        );
        // Between two attempts, at least the shortest wait of its retry: a timer never
        // fires early.
        let attempts = store.replaced.lock().expect("not poisoned").clone();
        assert_eq!(attempts.len(), 64);
        for (retry, pair) in (0..).zip(attempts.windows(2)) {
            let waited = pair[1] - pair[0];
            assert!(
                waited >= retry_delay(retry, 0),
                "retry {retry} came {waited:?} after the attempt before"
            );
        }
    }

    #[test]
    fn formats_iso8601() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(1_764_130_200_123), "2025-11-26T04:10:00.123Z");
        assert_eq!(iso8601(951_782_400_000), "2000-02-29T00:00:00.000Z");
    }
}
