//! The streams' logs in this process's memory: each a queue of its latest events, at most
//! [`SessionLimits::events_per_stream`] of them and none older than
//! [`SessionLimits::events_age`]; all of them together at most
//! [`SessionLimits::events_memory`] bytes, counting each event's data and
//! [`EVENT_OVERHEAD`] bytes for what keeps it. Past that, the oldest events of all go
//! first. A log whose events have all gone is forgotten.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use super::SessionLimits;
use super::event::{Event, EventKind, Read};

/// What an event costs in memory besides its data: its place in its log and in the order
/// of all events, with its stream's key.
pub(super) const EVENT_OVERHEAD: usize = 160;

#[derive(Debug, Default)]
pub(super) struct MemoryLogs {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    logs: HashMap<String, Log>,
    /// Every event kept, oldest first: its log, its place, when it was added.
    order: VecDeque<(Arc<str>, u64, Instant)>,
    /// What the events kept cost.
    bytes: usize,
}

#[derive(Debug)]
struct Log {
    last: u64,
    events: VecDeque<Event>,
}

fn cost(event: &Event) -> usize {
    event.data.len() + EVENT_OVERHEAD
}

impl MemoryLogs {
    pub(super) fn append(
        &self,
        key: &str,
        kind: EventKind,
        data: &str,
        limits: &SessionLimits,
    ) -> u64 {
        self.append_at(key, kind, data, limits, Instant::now())
    }

    pub(super) fn read(
        &self,
        key: &str,
        after: Option<u64>,
        limits: &SessionLimits,
    ) -> Option<Read> {
        self.read_at(key, after, limits, Instant::now())
    }

    fn append_at(
        &self,
        key: &str,
        kind: EventKind,
        data: &str,
        limits: &SessionLimits,
        now: Instant,
    ) -> u64 {
        let mut inner = self.lock();
        inner.expire(limits, now);
        let key: Arc<str> = Arc::from(key);
        let log = inner.logs.entry(key.to_string()).or_insert_with(|| Log {
            last: 0,
            events: VecDeque::new(),
        });
        log.last += 1;
        let n = log.last;
        let event = Event {
            n,
            kind,
            data: Arc::from(data),
        };
        let mut freed = 0;
        let added = cost(&event);
        log.events.push_back(event);
        while log.events.len() > limits.events_per_stream.max(1) {
            if let Some(dropped) = log.events.pop_front() {
                freed += cost(&dropped);
            }
        }
        inner.bytes = inner.bytes + added - freed;
        inner.order.push_back((key, n, now));
        while inner.bytes > limits.events_memory {
            if !inner.drop_oldest() {
                break;
            }
        }
        n
    }

    fn read_at(
        &self,
        key: &str,
        after: Option<u64>,
        limits: &SessionLimits,
        now: Instant,
    ) -> Option<Read> {
        let mut inner = self.lock();
        inner.expire(limits, now);
        let log = inner.logs.get(key)?;
        let Some(after) = after else {
            return Some(Read {
                last: log.last,
                ..Read::default()
            });
        };
        let events = log
            .events
            .iter()
            .filter(|event| event.n > after)
            .cloned()
            .collect();
        Some(Read::after(after, log.last, events))
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while the lock was held leaves the logs as they were: keep using them.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Inner {
    /// Drops the events older than the logs keep.
    fn expire(&mut self, limits: &SessionLimits, now: Instant) {
        while self
            .order
            .front()
            .is_some_and(|(_, _, at)| now.saturating_duration_since(*at) >= limits.events_age)
        {
            self.drop_oldest();
        }
    }

    /// Drops the oldest event kept, unless its log dropped it already; whether there was one.
    fn drop_oldest(&mut self) -> bool {
        let Some((key, n, _)) = self.order.pop_front() else {
            return false;
        };
        let Some(log) = self.logs.get_mut(&*key) else {
            return true;
        };
        if log.events.front().is_some_and(|event| event.n == n) {
            if let Some(dropped) = log.events.pop_front() {
                self.bytes -= cost(&dropped);
            }
        }
        if log.events.is_empty() {
            self.logs.remove(&*key);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn limits() -> SessionLimits {
        SessionLimits::default()
            .with_events(3, Duration::from_secs(60))
            .with_events_memory(10 * (EVENT_OVERHEAD + 1))
    }

    fn places(read: &Read) -> Vec<u64> {
        read.events.iter().map(|event| event.n).collect()
    }

    #[test]
    fn a_log_gives_what_follows_an_event_in_order_and_says_what_it_dropped() {
        let logs = MemoryLogs::default();
        let limits = limits();
        let now = Instant::now();
        assert_eq!(logs.read_at("s:g", Some(0), &limits, now), None);
        for data in ["a", "b", "c", "d"] {
            logs.append_at("s:g", EventKind::Message, data, &limits, now);
        }
        let read = logs.read_at("s:g", Some(2), &limits, now).unwrap();
        assert_eq!(
            (places(&read), read.last, read.lost),
            (vec![3, 4], 4, false)
        );
        assert_eq!(&*read.events[0].data, "c");
        // Three are kept: the first is gone.
        let read = logs.read_at("s:g", Some(0), &limits, now).unwrap();
        assert_eq!((places(&read), read.lost), (vec![2, 3, 4], true));
        let tail = logs.read_at("s:g", None, &limits, now).unwrap();
        assert_eq!((tail.events.len(), tail.last), (0, 4));
    }

    #[test]
    fn events_leave_once_too_old_and_the_oldest_of_all_leave_past_the_memory_bound() {
        let logs = MemoryLogs::default();
        let limits = limits();
        let now = Instant::now();
        for session in 0..4 {
            for _ in 0..3 {
                logs.append_at(
                    &format!("{session}:g"),
                    EventKind::Message,
                    "x",
                    &limits,
                    now,
                );
            }
        }
        // 12 events, 10 fit: the first session's first two went.
        assert!(logs.lock().bytes <= limits.events_memory);
        let read = logs.read_at("0:g", Some(0), &limits, now).unwrap();
        assert_eq!((places(&read), read.lost), (vec![3], true));
        let later = now + Duration::from_secs(61);
        assert_eq!(logs.read_at("3:g", Some(0), &limits, later), None);
        let inner = logs.lock();
        assert_eq!(
            (inner.bytes, inner.order.len(), inner.logs.len()),
            (0, 0, 0)
        );
    }
}
