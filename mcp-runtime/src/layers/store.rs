//! Where the state of the rate limits ([`RateLimitLayer`](super::RateLimitLayer)) and of
//! the result cache ([`CacheLayer`](super::CacheLayer)) lives: this process's memory, or
//! a Redis every replica shares, so that N calls a minute means N across the fleet.
//!
//! With Redis, a limited call costs a round trip at most: an atomic script checks and
//! updates the caller's GCRA state, `{namespace}:limit:{tool}:{limit}:{caller}`, which
//! expires once it no longer holds anything back; the checks asked while one is on its
//! way go together in the next script call, which reads and writes each key once. A
//! caller whose calls come faster than that has some granted ahead, which its replica
//! admits for a short while without asking (see the rate limit's leases). A
//! cached result is one `GET`, and one `SET … PX` when it was not there, under
//! `{namespace}:cache:…`. When Redis cannot be reached, the failure is logged (at most
//! once every ten seconds) and the [`OnFailure`] policy decides.

use crate::auth::Caller;
use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// What a limited call does when the limit store cannot be reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnFailure {
    /// The call is refused, saying the limit store is unreachable: no call escapes its
    /// limit. The default.
    #[default]
    Closed,
    /// The call proceeds, unlimited, while the store is unreachable.
    Open,
}

/// A policy that is neither `open` nor `closed`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is no limit store failure policy: write `open` or `closed`")]
pub struct OnFailureError(pub String);

impl FromStr for OnFailure {
    type Err = OnFailureError;

    fn from_str(text: &str) -> Result<Self, OnFailureError> {
        match text {
            "closed" => Ok(Self::Closed),
            "open" => Ok(Self::Open),
            other => Err(OnFailureError(other.to_owned())),
        }
    }
}

/// Why the limit store could not be set up or answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LimitStoreError {
    /// An address that is no Redis URL.
    #[error("`{url}` is no Redis address (redis://HOST:PORT): {reason}")]
    Address {
        /// The address given.
        url: String,
        /// Why it is none.
        reason: String,
    },
    /// An empty namespace.
    #[error("the limit store's namespace is empty")]
    Namespace,
    /// Redis did not answer, or answered with an error.
    #[error("the limit store at {address} is unreachable: {reason}")]
    Unreachable {
        /// Where it was looked for.
        address: String,
        /// What went wrong.
        reason: String,
    },
}

/// Where the state of rate limits and cached results lives, and what a call does when it
/// cannot be reached. Cloning it shares the store.
///
/// ```
/// use mcp_runtime::layers::{LimitStore, OnFailure};
///
/// let store = LimitStore::memory();
/// assert!(store.is_memory());
/// assert_eq!(store.on_failure(), OnFailure::Closed);
/// ```
#[derive(Clone)]
pub struct LimitStore {
    place: Place,
    on_failure: OnFailure,
}

#[derive(Clone)]
enum Place {
    Memory,
    #[cfg(feature = "redis")]
    Redis(std::sync::Arc<redis_store::RedisLimits>),
}

impl fmt::Debug for LimitStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let place = match &self.place {
            Place::Memory => "memory".to_owned(),
            #[cfg(feature = "redis")]
            Place::Redis(redis) => redis.describe(),
        };
        f.debug_struct("LimitStore")
            .field("place", &place)
            .field("on_failure", &self.on_failure)
            .finish()
    }
}

impl Default for LimitStore {
    fn default() -> Self {
        Self::memory()
    }
}

/// What a GCRA state in the shared store belongs to: a caller's calls of one tool under
/// one limit.
#[derive(Debug, Clone, Copy)]
#[cfg_attr(not(feature = "redis"), allow(dead_code))]
pub(crate) struct GcraKey<'a> {
    pub(crate) tool: &'a str,
    /// The limit as written: its name and quota (`calculator.*=3/min`), or its quota
    /// alone (`3/min`).
    pub(crate) limit: &'a str,
    pub(crate) caller: &'a Caller,
}

/// What one GCRA check of the shared store asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Ask {
    /// Calls to admit: the one asking, and those taken ahead for the caller's next calls.
    pub(crate) want: u64,
    /// Calls taken ahead before and not admitted, given back first.
    pub(crate) returned: u64,
}

impl Ask {
    /// One call, and nothing given back.
    pub(crate) const ONE: Self = Self {
        want: 1,
        returned: 0,
    };
}

/// What the shared store granted on an [`Ask`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Grant {
    /// How many of the calls asked for may proceed: the first ones.
    pub(crate) granted: u64,
    /// When none may, how long the first must wait.
    pub(crate) wait: Duration,
}

/// What a GCRA check decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// The call may proceed.
    Allowed,
    /// The call must wait this long.
    Wait(Duration),
}

impl LimitStore {
    /// This process's memory: each replica counts for itself. The default.
    pub fn memory() -> Self {
        Self {
            place: Place::Memory,
            on_failure: OnFailure::Closed,
        }
    }

    /// The Redis at `url` (`redis://HOST:PORT`), shared by every replica using it, its keys
    /// under `{namespace}:limit:` and `{namespace}:cache:`. It connects on the first call
    /// that needs it, and again after Redis comes back.
    ///
    /// # Errors
    ///
    /// When `url` is no Redis address or `namespace` is empty.
    #[cfg(feature = "redis")]
    pub fn redis(url: &str, namespace: &str) -> Result<Self, LimitStoreError> {
        Ok(Self {
            place: Place::Redis(std::sync::Arc::new(redis_store::RedisLimits::new(
                url, namespace,
            )?)),
            on_failure: OnFailure::Closed,
        })
    }

    /// The same store, whose calls follow `policy` when it cannot be reached.
    #[must_use]
    pub fn with_on_failure(mut self, policy: OnFailure) -> Self {
        self.on_failure = policy;
        self
    }

    /// What a call does when the store cannot be reached.
    pub fn on_failure(&self) -> OnFailure {
        self.on_failure
    }

    /// Whether the state lives in this process's memory.
    pub fn is_memory(&self) -> bool {
        matches!(self.place, Place::Memory)
    }

    /// One GCRA check of the shared store, for `caller`'s calls of `tool` under the
    /// limit written `limit` (the key `{tool}:{limit}:{caller}`, so that two limits of one
    /// tool count apart): a call each `interval`, `tolerance` ahead at most, `ask`
    /// saying how many calls and what it gives back. `None` for the memory store, which
    /// its layer checks itself.
    pub(crate) async fn gcra(
        &self,
        key: GcraKey<'_>,
        interval: Duration,
        tolerance: Duration,
        ask: Ask,
    ) -> Option<Result<Grant, LimitStoreError>> {
        match &self.place {
            Place::Memory => {
                let _ = (key, interval, tolerance, ask);
                None
            }
            #[cfg(feature = "redis")]
            Place::Redis(redis) => Some(redis.gcra(key, interval, tolerance, ask).await),
        }
    }

    /// The cached value under `key` in the shared store; `None` for the memory store.
    pub(crate) async fn cache_get(
        &self,
        key: &str,
    ) -> Option<Result<Option<String>, LimitStoreError>> {
        match &self.place {
            Place::Memory => {
                let _ = key;
                None
            }
            #[cfg(feature = "redis")]
            Place::Redis(redis) => Some(redis.get(key).await),
        }
    }

    /// Keeps `value` under `key` in the shared store for `ttl`; nothing for the memory
    /// store.
    pub(crate) async fn cache_set(
        &self,
        key: &str,
        value: String,
        ttl: Duration,
    ) -> Result<(), LimitStoreError> {
        match &self.place {
            Place::Memory => {
                let _ = (key, value, ttl);
                Ok(())
            }
            #[cfg(feature = "redis")]
            Place::Redis(redis) => redis.set(key, value, ttl).await,
        }
    }

    /// Logs that a store failed, at most once every ten seconds.
    pub(crate) fn warn(&self, error: &LimitStoreError) {
        static LAST: AtomicU64 = AtomicU64::new(0);
        let now = now_ms();
        let last = LAST.load(Ordering::Relaxed);
        let due = now.saturating_sub(last) >= WARN_EVERY.as_millis() as u64;
        if due
            && LAST
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            tracing::warn!(policy = ?self.on_failure, "{error}");
        }
    }
}

/// How often at most an unreachable store is logged.
const WARN_EVERY: Duration = Duration::from_secs(10);

/// Milliseconds since the Unix epoch, by this host's clock.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_millis() as u64)
}

#[cfg(feature = "redis")]
mod redis_store;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failure_policies_parse_and_refuse_the_rest() {
        assert_eq!("open".parse(), Ok(OnFailure::Open));
        assert_eq!("closed".parse(), Ok(OnFailure::Closed));
        let refused = "ajar".parse::<OnFailure>().unwrap_err();
        assert!(
            refused.to_string().contains("`open` or `closed`"),
            "{refused}"
        );
    }
}
