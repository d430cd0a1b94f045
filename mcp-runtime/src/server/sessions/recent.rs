//! The sessions a replica read from Redis within the last second, so that a session in use
//! costs Redis one read a second, not one a request. A change made here forgets the
//! session here at once; one made on another replica, when that replica's message
//! (`bus`) arrives, and at the latest once the second is over: that long, at most, a
//! replica may answer a session by what it was.
//!
//! Reading a session again from Redis also starts its idle time again there, so a session
//! in use is kept alive by those reads.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use super::SessionRecord;

/// How long a session read from Redis is answered from here.
pub(crate) const FRESH: Duration = Duration::from_secs(1);

/// The most sessions kept here; past it, the stale ones are dropped, then all.
const MOST: usize = 10_000;

/// The sessions read lately, and when.
#[derive(Debug, Default)]
pub(crate) struct Recent {
    read: Mutex<HashMap<String, (Arc<SessionRecord>, Instant)>>,
}

impl Recent {
    /// The session `id`, if it was read within [`FRESH`] of `now` and not forgotten since.
    pub(crate) fn get(&self, id: &str, now: Instant) -> Option<Arc<SessionRecord>> {
        let read = self.lock();
        let (record, at) = read.get(id)?;
        (now.saturating_duration_since(*at) < FRESH).then(|| Arc::clone(record))
    }

    /// Keeps `record`, the session `id` as read at `now`.
    pub(crate) fn put(&self, id: &str, record: Arc<SessionRecord>, now: Instant) {
        let mut read = self.lock();
        if read.len() >= MOST && !read.contains_key(id) {
            read.retain(|_, (_, at)| now.saturating_duration_since(*at) < FRESH);
            if read.len() >= MOST {
                read.clear();
            }
        }
        read.insert(id.to_owned(), (record, now));
    }

    /// Forgets the session `id`: it changed, or ended.
    pub(crate) fn forget(&self, id: &str) {
        self.lock().remove(id);
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, (Arc<SessionRecord>, Instant)>> {
        // A panic while the lock was held leaves the map as it was: keep using it.
        self.read.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_is_answered_from_here_for_a_second_unless_forgotten() {
        let recent = Recent::default();
        let start = Instant::now();
        let record = Arc::new(SessionRecord::default());
        assert!(recent.get("a", start).is_none());
        recent.put("a", Arc::clone(&record), start);
        assert!(recent.get("a", start + FRESH / 2).is_some());
        assert!(
            recent.get("a", start + FRESH).is_none(),
            "read again after a second"
        );
        recent.put("a", Arc::clone(&record), start);
        recent.forget("a");
        assert!(recent.get("a", start).is_none(), "forgotten once changed");
    }

    #[test]
    fn past_the_most_the_stale_go_first() {
        let recent = Recent::default();
        let start = Instant::now();
        let record = Arc::new(SessionRecord::default());
        for n in 0..MOST {
            recent.put(&n.to_string(), Arc::clone(&record), start);
        }
        let later = start + FRESH;
        recent.put("fresh", Arc::clone(&record), later);
        assert_eq!(recent.lock().len(), 1, "every stale one dropped");
        assert!(recent.get("fresh", later).is_some());
    }
}
