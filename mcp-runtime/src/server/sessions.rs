//! What the handshake's streamable HTTP remembers of a session between its requests: the
//! log level it set, the capabilities it declared at `initialize` (which requests a tool
//! may send it), the resources it subscribed to, and its stream of notifications. They live in the process that took those requests; behind a load
//! balancer, a session whose requests reach other processes (no affinity) gets no log
//! messages and no requests there, and nothing else depends on it. The 2026-07-28 revision
//! keeps nothing: each request carries its own level and capabilities.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use mcp_runtime_core::LoggingLevel;

use super::listen::ListenGuard;
use serde_json::{Map, Value};

/// How many sessions are kept; past it, the one seen least recently is forgotten.
const MAX_SESSIONS: usize = 10_000;
/// How long a session unseen is remembered.
const IDLE: Duration = Duration::from_secs(60 * 60);

/// What is known of one session.
#[derive(Debug, Clone, Default)]
pub(crate) struct Session {
    /// The least severe log messages it wants.
    pub(crate) log_level: Option<LoggingLevel>,
    /// What it declared at `initialize`.
    pub(crate) capabilities: Option<Arc<Map<String, Value>>>,
    /// The resources it subscribed to.
    pub(crate) subscriptions: BTreeSet<String>,
    /// Its stream of notifications (`GET /mcp`), while one is open.
    pub(crate) stream: Weak<ListenGuard>,
}

/// The sessions this process knows.
#[derive(Debug, Default)]
pub(crate) struct Sessions {
    known: Mutex<HashMap<String, (Session, Instant)>>,
}

impl Sessions {
    /// Records that `session` wants log messages at `level` or above.
    pub(crate) fn set_log_level(&self, session: &str, level: LoggingLevel) {
        self.update(session, Instant::now(), |known| {
            known.log_level = Some(level)
        });
    }

    /// Records what `session` declared at `initialize`.
    pub(crate) fn set_capabilities(&self, session: &str, capabilities: Arc<Map<String, Value>>) {
        self.update(session, Instant::now(), |known| {
            known.capabilities = Some(capabilities);
        });
    }

    /// Subscribes `session` to updates of `uri`, or ends that subscription; its stream, if
    /// one is open, hears of them from now on.
    pub(crate) fn subscribe(&self, session: &str, uri: &str, on: bool) {
        self.update(session, Instant::now(), |known| {
            if on {
                known.subscriptions.insert(uri.to_owned());
            } else {
                known.subscriptions.remove(uri);
            }
            if let Some(stream) = known.stream.upgrade() {
                stream.subscribe(uri, on);
            }
        });
    }

    /// Makes `stream` the session's stream of notifications, subscribed to what the
    /// session subscribed to.
    pub(crate) fn stream(&self, session: &str, stream: &Arc<ListenGuard>) {
        self.update(session, Instant::now(), |known| {
            for uri in &known.subscriptions {
                stream.subscribe(uri, true);
            }
            known.stream = Arc::downgrade(stream);
        });
    }

    /// What is known of `session`, if it was seen within the idle time.
    pub(crate) fn get(&self, session: &str) -> Option<Session> {
        self.get_at(session, Instant::now())
    }

    /// The level `session` set, if it set one and was seen within the idle time.
    #[cfg(test)]
    fn log_level_at(&self, session: &str, now: Instant) -> Option<LoggingLevel> {
        self.get_at(session, now)?.log_level
    }

    #[cfg(test)]
    fn set_at(&self, session: &str, level: LoggingLevel, now: Instant) {
        self.update(session, now, |known| known.log_level = Some(level));
    }

    fn update(&self, session: &str, now: Instant, change: impl FnOnce(&mut Session)) {
        let mut known = self.lock();
        if !known.contains_key(session) && known.len() >= MAX_SESSIONS {
            known.retain(|_, (_, seen)| now.saturating_duration_since(*seen) < IDLE);
            if known.len() >= MAX_SESSIONS {
                let oldest = known
                    .iter()
                    .min_by_key(|(_, (_, seen))| *seen)
                    .map(|(id, _)| id.clone());
                if let Some(oldest) = oldest {
                    known.remove(&oldest);
                }
            }
        }
        let entry = known
            .entry(session.to_owned())
            .or_insert_with(|| (Session::default(), now));
        change(&mut entry.0);
        entry.1 = now;
    }

    fn get_at(&self, session: &str, now: Instant) -> Option<Session> {
        let mut known = self.lock();
        let (found, seen) = known.get_mut(session)?;
        if now.saturating_duration_since(*seen) >= IDLE {
            known.remove(session);
            return None;
        }
        *seen = now;
        Some(found.clone())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, (Session, Instant)>> {
        // A panic while the lock was held leaves the map as it was: keep using it.
        self.known
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_keeps_its_level_until_it_is_idle_too_long() {
        let sessions = Sessions::default();
        let start = Instant::now();
        assert_eq!(sessions.log_level_at("a", start), None);
        sessions.set_at("a", LoggingLevel::Debug, start);
        sessions.set_at("a", LoggingLevel::Warning, start);
        assert_eq!(
            sessions.log_level_at("a", start + IDLE / 2),
            Some(LoggingLevel::Warning)
        );
        // Seen at IDLE / 2: still there just before IDLE / 2 + IDLE.
        let later = start + IDLE / 2 + IDLE - Duration::from_secs(1);
        assert_eq!(
            sessions.log_level_at("a", later),
            Some(LoggingLevel::Warning)
        );
        assert_eq!(sessions.log_level_at("a", later + IDLE), None);
        assert_eq!(sessions.lock().len(), 0, "an idle session is forgotten");
    }

    #[test]
    fn past_the_limit_the_session_seen_least_recently_is_forgotten() {
        let sessions = Sessions::default();
        let start = Instant::now();
        for n in 0..MAX_SESSIONS {
            let seen = start + Duration::from_millis(n as u64);
            sessions.set_at(&n.to_string(), LoggingLevel::Info, seen);
        }
        let now = start + Duration::from_secs(60);
        assert_eq!(sessions.log_level_at("0", now), Some(LoggingLevel::Info));
        sessions.set_at("new", LoggingLevel::Error, now);
        let levels = sessions.lock();
        assert_eq!(levels.len(), MAX_SESSIONS);
        assert!(levels.contains_key("0"), "seen again just now");
        assert!(!levels.contains_key("1"), "the least recently seen");
        assert!(levels.contains_key("new"));
    }
}
