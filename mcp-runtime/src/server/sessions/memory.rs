//! Sessions kept in this process: a map of records, each with the time it was last used,
//! and a count of each client's sessions for their cap. An idle session is forgotten when
//! it is next asked for, or when a cap is reached (at most once a second, so that a client
//! at its cap cannot make every attempt walk the whole map).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use super::{Change, SessionError, SessionLimits, SessionRecord};

/// The least time between two sweeps of idle sessions.
const SWEEP_EVERY: Duration = Duration::from_secs(1);

#[derive(Debug, Default)]
pub(super) struct Memory {
    known: Mutex<Known>,
}

#[derive(Debug, Default)]
struct Known {
    /// Hashed fast: the server makes every id it keeps, so that one a client names can
    /// only be looked up, never crowd a bucket.
    sessions: HashMap<String, (Arc<SessionRecord>, Instant), foldhash::fast::RandomState>,
    per_client: HashMap<String, usize>,
    /// The sessions subscribed to each URI.
    subscribers: HashMap<String, HashSet<String>>,
    swept: Option<Instant>,
}

impl Memory {
    pub(super) fn open(
        &self,
        id: &str,
        record: SessionRecord,
        limits: &SessionLimits,
    ) -> Result<(), SessionError> {
        self.open_at(id, record, limits, Instant::now())
    }

    pub(super) fn load(&self, id: &str, limits: &SessionLimits) -> Option<Arc<SessionRecord>> {
        self.load_at(id, limits, Instant::now())
    }

    pub(super) fn change(&self, id: &str, change: Change<'_>, limits: &SessionLimits) -> bool {
        let now = Instant::now();
        let mut known = self.lock();
        if known.expire(id, limits, now) {
            return false;
        }
        let known = &mut *known;
        let Some((record, seen)) = known.sessions.get_mut(id) else {
            return false;
        };
        let record = Arc::make_mut(record);
        *seen = now;
        match change {
            Change::Level(level) => record.log_level = Some(level),
            Change::Subscribe(uri, true) => {
                record.subscriptions.insert(uri.to_owned());
                known
                    .subscribers
                    .entry(uri.to_owned())
                    .or_default()
                    .insert(id.to_owned());
            }
            Change::Subscribe(uri, false) => {
                record.subscriptions.remove(uri);
                known.unsubscribe(uri, id);
            }
        }
        true
    }

    /// The sessions subscribed to `uri`.
    pub(super) fn subscribers(&self, uri: &str) -> Vec<String> {
        self.lock()
            .subscribers
            .get(uri)
            .map(|sessions| sessions.iter().cloned().collect())
            .unwrap_or_default()
    }

    pub(super) fn end(&self, id: &str) -> bool {
        self.lock().remove(id)
    }

    fn open_at(
        &self,
        id: &str,
        record: SessionRecord,
        limits: &SessionLimits,
        now: Instant,
    ) -> Result<(), SessionError> {
        let mut known = self.lock();
        let open = known.per_client.get(&record.client).copied().unwrap_or(0);
        if open >= limits.per_client || known.sessions.len() >= limits.total {
            known.sweep(limits, now);
        }
        let open = known.per_client.get(&record.client).copied().unwrap_or(0);
        if open >= limits.per_client {
            return Err(SessionError::TooManyForClient { open });
        }
        if known.sessions.len() >= limits.total {
            return Err(SessionError::Full(known.sessions.len()));
        }
        *known.per_client.entry(record.client.clone()).or_default() += 1;
        if let Some((earlier, _)) = known
            .sessions
            .insert(id.to_owned(), (Arc::new(record), now))
        {
            // An id is 128 random bits: taken twice only in a test. Its count goes back.
            known.uncount(&earlier.client);
        }
        Ok(())
    }

    fn load_at(
        &self,
        id: &str,
        limits: &SessionLimits,
        now: Instant,
    ) -> Option<Arc<SessionRecord>> {
        // One look-up of the id, which every request in a session makes.
        let mut known = self.lock();
        let (record, seen) = known.sessions.get_mut(id)?;
        if is_idle(*seen, limits, now) {
            known.remove(id);
            return None;
        }
        *seen = now;
        Some(Arc::clone(record))
    }

    fn lock(&self) -> MutexGuard<'_, Known> {
        // A panic while the lock was held leaves the map as it was: keep using it.
        self.known.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Whether a session last used at `seen` has been idle too long at `now`.
fn is_idle(seen: Instant, limits: &SessionLimits, now: Instant) -> bool {
    now.saturating_duration_since(seen) >= limits.idle
}

impl Known {
    /// Forgets `id` if it has been idle too long; whether it did.
    fn expire(&mut self, id: &str, limits: &SessionLimits, now: Instant) -> bool {
        let idle = self
            .sessions
            .get(id)
            .is_some_and(|(_, seen)| is_idle(*seen, limits, now));
        if idle {
            self.remove(id);
        }
        idle
    }

    /// Forgets every session idle too long, unless that was done within [`SWEEP_EVERY`].
    fn sweep(&mut self, limits: &SessionLimits, now: Instant) {
        if self
            .swept
            .is_some_and(|swept| now.saturating_duration_since(swept) < SWEEP_EVERY)
        {
            return;
        }
        self.swept = Some(now);
        let idle: Vec<String> = self
            .sessions
            .iter()
            .filter(|(_, (_, seen))| is_idle(*seen, limits, now))
            .map(|(id, _)| id.clone())
            .collect();
        for id in idle {
            self.remove(&id);
        }
    }

    fn remove(&mut self, id: &str) -> bool {
        let Some((record, _)) = self.sessions.remove(id) else {
            return false;
        };
        self.uncount(&record.client);
        for uri in &record.subscriptions {
            self.unsubscribe(uri, id);
        }
        true
    }

    fn unsubscribe(&mut self, uri: &str, id: &str) {
        if let Some(sessions) = self.subscribers.get_mut(uri) {
            sessions.remove(id);
            if sessions.is_empty() {
                self.subscribers.remove(uri);
            }
        }
    }

    fn uncount(&mut self, client: &str) {
        if let Some(open) = self.per_client.get_mut(client) {
            *open -= 1;
            if *open == 0 {
                self.per_client.remove(client);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use mcp_runtime_core::LoggingLevel;

    use super::*;

    fn record(client: &str) -> SessionRecord {
        SessionRecord {
            revision: "2025-11-25".to_owned(),
            client: client.to_owned(),
            ..SessionRecord::default()
        }
    }

    const HOUR: Duration = Duration::from_secs(60 * 60);

    #[test]
    fn a_session_is_kept_while_it_is_used_and_forgotten_once_idle_too_long() {
        let memory = Memory::default();
        let limits = SessionLimits::default().with_idle(HOUR);
        let start = Instant::now();
        assert!(memory.load_at("a", &limits, start).is_none());
        memory.open_at("a", record("x"), &limits, start).unwrap();
        assert!(memory.change("a", Change::Level(LoggingLevel::Warning), &limits));
        let used = start + HOUR / 2;
        let found = memory.load_at("a", &limits, used).expect("open");
        assert_eq!(found.log_level, Some(LoggingLevel::Warning));
        // Used at HOUR / 2: still there just before HOUR / 2 + HOUR.
        let later = used + HOUR - Duration::from_secs(1);
        assert!(memory.load_at("a", &limits, later).is_some());
        assert!(memory.load_at("a", &limits, later + HOUR).is_none());
        let known = memory.lock();
        assert!(known.sessions.is_empty(), "an idle session is forgotten");
        assert!(known.per_client.is_empty(), "and no longer counted");
    }

    #[test]
    fn a_client_holds_at_most_its_cap_and_ending_or_idling_one_frees_a_place() {
        let memory = Memory::default();
        let limits = SessionLimits::default().with_idle(HOUR).with_per_client(2);
        let start = Instant::now();
        memory.open_at("a", record("x"), &limits, start).unwrap();
        memory.open_at("b", record("x"), &limits, start).unwrap();
        let refused = memory
            .open_at("c", record("x"), &limits, start)
            .unwrap_err();
        assert_eq!(refused, SessionError::TooManyForClient { open: 2 });
        memory
            .open_at("d", record("y"), &limits, start)
            .expect("another client");
        assert!(memory.end("a"));
        assert!(!memory.end("a"), "ended once");
        memory.open_at("c", record("x"), &limits, start).unwrap();
        // Both of x's sessions idle past the limit: swept when the cap is reached.
        let later = start + HOUR + Duration::from_secs(1);
        memory.open_at("e", record("x"), &limits, later).unwrap();
        assert!(memory.load_at("b", &limits, later).is_none());
        assert_eq!(memory.lock().per_client.get("x"), Some(&1));
    }

    #[test]
    fn past_the_total_new_sessions_are_refused_and_the_open_ones_kept() {
        let memory = Memory::default();
        let limits = SessionLimits::default().with_idle(HOUR).with_total(3);
        let start = Instant::now();
        for (n, id) in ["a", "b", "c"].into_iter().enumerate() {
            memory
                .open_at(id, record(&n.to_string()), &limits, start)
                .unwrap();
        }
        let refused = memory
            .open_at("d", record("z"), &limits, start)
            .unwrap_err();
        assert_eq!(refused, SessionError::Full(3));
        for id in ["a", "b", "c"] {
            assert!(memory.load_at(id, &limits, start).is_some(), "{id} is kept");
        }
    }

    #[test]
    fn subscriptions_are_kept_and_ended() {
        let memory = Memory::default();
        let limits = SessionLimits::default();
        memory.open("a", record("x"), &limits).unwrap();
        assert!(memory.change("a", Change::Subscribe("file:///a", true), &limits));
        assert!(memory.change("a", Change::Subscribe("file:///b", true), &limits));
        assert!(memory.change("a", Change::Subscribe("file:///a", false), &limits));
        let found = memory.load("a", &limits).unwrap();
        assert_eq!(
            found.subscriptions.iter().collect::<Vec<_>>(),
            ["file:///b"]
        );
        assert_eq!(memory.subscribers("file:///b"), ["a"]);
        assert!(memory.subscribers("file:///a").is_empty());
        assert!(memory.end("a"));
        assert!(
            memory.subscribers("file:///b").is_empty(),
            "ended, no longer told"
        );
        assert!(!memory.change("nope", Change::Level(LoggingLevel::Debug), &limits));
    }
}
