//! The SSE events sent on a session's streams, kept so that a client that reconnects with
//! `Last-Event-ID`, to this replica or to any other, receives what it missed: in order, and
//! once.
//!
//! Each stream of a session has its log: the session's `GET /mcp` stream (`g`), and each
//! `POST` answered with an SSE stream (32 hex digits: the replica that runs the call, then
//! 8 random bytes). An event's id is `{stream}.{n}`, its place in its log, counted from 1:
//! a reconnecting client names the last it received, and gets the events after it.
//!
//! A log is bounded by count ([`SessionLimits::events_per_stream`]) and by age
//! ([`SessionLimits::events_age`]); in memory, all logs together are bounded by size too
//! ([`SessionLimits::events_memory`]). A client that reconnects after events it missed
//! were dropped is told so (`Read::lost`), and its stream catches up otherwise.
//!
//! A log is written by whoever raises the event, not by whoever holds the stream: a
//! resource update goes into the logs of the sessions subscribed to it from the replica
//! that raised it, so that it is kept while no replica holds the session's stream (the
//! one that held it was killed, and the client is reconnecting).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

use tokio::sync::watch;

use super::SessionError;
use super::SessionLimits;
use super::event::{EventKind, GET_STREAM, Read};
use super::streams::Relay;

/// The logs of every session's streams, and the readers of this process that wait for
/// them to grow.
pub(crate) struct Events {
    logs: Logs,
    limits: SessionLimits,
    /// This process, as the other replicas know it.
    replica: String,
    watchers: Mutex<HashMap<String, watch::Sender<()>>>,
    /// What tells the other replicas that a log grew, with sessions in Redis.
    relay: OnceLock<Arc<dyn Relay>>,
}

enum Logs {
    Memory(super::memory_log::MemoryLogs),
    #[cfg(feature = "redis")]
    Redis(Arc<super::redis_log::RedisLogs>),
}

impl std::fmt::Debug for Events {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Events")
            .field("replica", &self.replica)
            .finish_non_exhaustive()
    }
}

impl Events {
    /// Logs in this process's memory.
    pub(crate) fn memory(limits: SessionLimits) -> Self {
        Self::new(
            Logs::Memory(super::memory_log::MemoryLogs::default()),
            limits,
        )
    }

    /// Logs in Redis, which every replica reads.
    #[cfg(feature = "redis")]
    pub(crate) fn redis(logs: Arc<super::redis_log::RedisLogs>, limits: SessionLimits) -> Self {
        Self::new(Logs::Redis(logs), limits)
    }

    fn new(logs: Logs, limits: SessionLimits) -> Self {
        Self {
            logs,
            limits,
            replica: crate::base::ids::random_hex::<8>().unwrap_or_else(|_| "0".repeat(16)),
            watchers: Mutex::default(),
            relay: OnceLock::new(),
        }
    }

    /// This process, as the other replicas know it (16 hex digits).
    #[cfg(feature = "redis")]
    pub(crate) fn replica(&self) -> &str {
        &self.replica
    }

    /// A new stream for a call this process runs.
    pub(crate) fn call_stream(&self) -> String {
        let random = crate::base::ids::random_hex::<8>().unwrap_or_else(|_| "0".repeat(16));
        format!("{}{random}", self.replica)
    }

    /// Has `relay` tell the other replicas when a log grows here.
    #[cfg(feature = "redis")]
    pub(crate) fn share(&self, relay: Arc<dyn Relay>) {
        let _ = self.relay.set(relay);
    }

    /// Says, every second until `alive` is dropped, that this replica is alive, in Redis.
    #[cfg(feature = "redis")]
    pub(crate) fn keep_alive<T: Send + Sync + 'static>(&self, alive: std::sync::Weak<T>) {
        if let Logs::Redis(logs) = &self.logs {
            logs.keep_alive(&self.replica, alive);
        }
    }

    /// Adds `data` to the log of `session`'s `stream`; its place there.
    pub(crate) async fn append(
        &self,
        session: &str,
        stream: &str,
        kind: EventKind,
        data: &str,
    ) -> Result<u64, SessionError> {
        let n = match &self.logs {
            Logs::Memory(logs) => logs.append(&key(session, stream), kind, data, &self.limits),
            #[cfg(feature = "redis")]
            Logs::Redis(logs) => {
                logs.append(session, stream, kind, data, &self.limits)
                    .await?
            }
        };
        self.grew(session, stream);
        Ok(n)
    }

    /// Adds the update of `uri` to the `GET` log of each session subscribed to it, in
    /// Redis; the sessions it reached, whose readers here it woke.
    #[cfg(feature = "redis")]
    pub(crate) async fn updated(&self, uri: &str) -> Result<Vec<String>, SessionError> {
        let Logs::Redis(logs) = &self.logs else {
            return Ok(Vec::new());
        };
        let sessions = logs
            .updated(uri, &super::updated(uri), &self.limits)
            .await?;
        for session in &sessions {
            self.wake(session, GET_STREAM);
        }
        Ok(sessions)
    }

    /// Adds `data` to the log of each session's `GET` stream in `sessions`, in memory.
    pub(crate) fn append_here(&self, sessions: &[String], data: &str) {
        match &self.logs {
            Logs::Memory(logs) => {
                for session in sessions {
                    logs.append(
                        &key(session, GET_STREAM),
                        EventKind::Message,
                        data,
                        &self.limits,
                    );
                    self.wake(session, GET_STREAM);
                }
            }
            #[cfg(feature = "redis")]
            Logs::Redis(_) => {}
        }
    }

    /// Wakes the readers of the log here, and tells the other replicas.
    pub(crate) fn grew(&self, session: &str, stream: &str) {
        self.wake(session, stream);
        if let Some(relay) = self.relay.get() {
            relay.appended(session, stream);
        }
    }

    /// What the log of `session`'s `stream` holds after the event `after`, or its last
    /// place alone when `after` is none; none when no such log is kept.
    pub(crate) async fn read(
        &self,
        session: &str,
        stream: &str,
        after: Option<u64>,
    ) -> Result<Option<Read>, SessionError> {
        match &self.logs {
            Logs::Memory(logs) => Ok(logs.read(&key(session, stream), after, &self.limits)),
            #[cfg(feature = "redis")]
            Logs::Redis(logs) => logs.read(session, stream, after).await,
        }
    }

    /// Whether `replica` runs still: the one that runs a call's stream.
    pub(crate) async fn alive(&self, replica: &str) -> bool {
        if replica == self.replica {
            return true;
        }
        match &self.logs {
            Logs::Memory(_) => false,
            #[cfg(feature = "redis")]
            // A store that cannot say counts it alive: its calls are not given up.
            Logs::Redis(logs) => logs.alive(replica).await.unwrap_or(true),
        }
    }

    /// What wakes when the log of `session`'s `stream` grows.
    pub(crate) fn watch(&self, session: &str, stream: &str) -> watch::Receiver<()> {
        let mut watchers = self.lock();
        watchers.retain(|_, watcher| watcher.receiver_count() > 0);
        watchers
            .entry(key(session, stream))
            .or_insert_with(|| watch::channel(()).0)
            .subscribe()
    }

    /// Wakes the readers of this process that wait for the log to grow.
    pub(crate) fn wake(&self, session: &str, stream: &str) {
        if let Some(watcher) = self.lock().get(&key(session, stream)) {
            watcher.send_replace(());
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, watch::Sender<()>>> {
        // A panic while the lock was held leaves the map as it was: keep using it.
        self.watchers.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The key of a session's stream among the logs in memory, and among the watchers.
fn key(session: &str, stream: &str) -> String {
    format!("{session}:{stream}")
}
