//! What the handshake's streamable HTTP remembers of a session between its requests: the
//! log level it set. It lives in the process that took the `logging/setLevel`; behind a
//! load balancer, a session whose requests reach other processes (no affinity) gets no
//! log messages there, and nothing else depends on it. The 2026-07-28 revision keeps
//! nothing: each request carries its own level.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use mcp_core::LoggingLevel;

/// How many sessions' levels are kept; past it, the one seen least recently is forgotten.
const MAX_SESSIONS: usize = 10_000;
/// How long a session unseen is remembered.
const IDLE: Duration = Duration::from_secs(60 * 60);

/// The log level of each session that set one.
#[derive(Debug, Default)]
pub(crate) struct Sessions {
    levels: Mutex<HashMap<String, (LoggingLevel, Instant)>>,
}

impl Sessions {
    /// Records that `session` wants log messages at `level` or above.
    pub(crate) fn set_log_level(&self, session: &str, level: LoggingLevel) {
        self.set_at(session, level, Instant::now());
    }

    fn set_at(&self, session: &str, level: LoggingLevel, now: Instant) {
        let mut levels = self.lock();
        if !levels.contains_key(session) && levels.len() >= MAX_SESSIONS {
            levels.retain(|_, (_, seen)| now.saturating_duration_since(*seen) < IDLE);
            if levels.len() >= MAX_SESSIONS {
                let oldest = levels
                    .iter()
                    .min_by_key(|(_, (_, seen))| *seen)
                    .map(|(id, _)| id.clone());
                if let Some(oldest) = oldest {
                    levels.remove(&oldest);
                }
            }
        }
        levels.insert(session.to_owned(), (level, now));
    }

    /// The level `session` set, if it set one and was seen within the idle time.
    pub(crate) fn log_level(&self, session: &str) -> Option<LoggingLevel> {
        self.log_level_at(session, Instant::now())
    }

    fn log_level_at(&self, session: &str, now: Instant) -> Option<LoggingLevel> {
        let mut levels = self.lock();
        let (level, seen) = levels.get_mut(session)?;
        if now.saturating_duration_since(*seen) >= IDLE {
            levels.remove(session);
            return None;
        }
        *seen = now;
        Some(*level)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, (LoggingLevel, Instant)>> {
        // A panic while the lock was held leaves the map as it was: keep using it.
        self.levels
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
