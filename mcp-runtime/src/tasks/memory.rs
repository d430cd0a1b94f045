//! The task store of one process, the default: no setup, and bounded, since every record
//! expires by its TTL and the number kept at once has a ceiling.

use std::collections::HashMap;
use std::sync::Mutex;

use tokio::sync::broadcast;

use super::store::{
    DOORBELL_CAPACITY, Doorbell, StoreError, StoreFuture, TaskRecord, TaskStore, Versioned,
    bounded_doorbell, now_ms,
};

/// The most records a [`MemoryStore`] keeps by default.
pub const DEFAULT_MEMORY_CAPACITY: usize = 100_000;

/// Task state in this process. Replicas of a server do not share it: behind a balancer,
/// use a shared store (`RedisStore`).
pub struct MemoryStore {
    records: Mutex<Records>,
    bell: broadcast::Sender<String>,
    capacity: usize,
}

#[derive(Default)]
struct Records {
    by_id: HashMap<String, Versioned>,
    /// When the next sweep of expired records is due.
    next_sweep: u64,
}

impl Default for MemoryStore {
    fn default() -> Self {
        Self::new()
    }
}

impl MemoryStore {
    /// An empty store keeping at most [`DEFAULT_MEMORY_CAPACITY`] records.
    pub fn new() -> Self {
        Self::with_capacity(DEFAULT_MEMORY_CAPACITY)
    }

    /// An empty store keeping at most `capacity` records: creating one more is refused
    /// until some expire.
    pub fn with_capacity(capacity: usize) -> Self {
        let (bell, _) = broadcast::channel(DOORBELL_CAPACITY);
        Self {
            records: Mutex::new(Records::default()),
            bell,
            capacity,
        }
    }

    /// How many records it keeps now, expired ones not yet swept included.
    pub fn len(&self) -> usize {
        self.lock().by_id.len()
    }

    /// Whether it keeps none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Records> {
        self.records
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Records {
    /// Forgets expired records, at most once a second.
    fn sweep(&mut self, now: u64) {
        if now < self.next_sweep {
            return;
        }
        self.next_sweep = now + 1000;
        self.by_id
            .retain(|_, kept| kept.record.expires_at().is_none_or(|at| at > now));
    }

    fn live(&self, id: &str, now: u64) -> Option<&Versioned> {
        self.by_id
            .get(id)
            .filter(|kept| kept.record.expires_at().is_none_or(|at| at > now))
    }
}

impl TaskStore for MemoryStore {
    fn create<'a>(&'a self, record: &'a TaskRecord) -> StoreFuture<'a, ()> {
        let now = now_ms();
        let mut records = self.lock();
        records.sweep(now);
        let outcome = if records.live(&record.id, now).is_some() {
            Err(StoreError::new(format!("task id `{}` is taken", record.id)))
        } else if records.by_id.len() >= self.capacity {
            Err(StoreError::new(format!(
                "the memory task store holds its {} tasks; more are kept once some expire",
                self.capacity
            )))
        } else {
            records.by_id.insert(
                record.id.clone(),
                Versioned {
                    record: record.clone(),
                    version: 1,
                },
            );
            Ok(())
        };
        Box::pin(std::future::ready(outcome))
    }

    fn load<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<Versioned>> {
        let found = self.lock().live(id, now_ms()).cloned();
        Box::pin(std::future::ready(Ok(found)))
    }

    fn replace<'a>(&'a self, record: &'a TaskRecord, expected: u64) -> StoreFuture<'a, bool> {
        let now = now_ms();
        let mut records = self.lock();
        let replaced = match records.by_id.get_mut(&record.id) {
            Some(kept)
                if kept.version == expected
                    && kept.record.expires_at().is_none_or(|at| at > now) =>
            {
                kept.record = record.clone();
                kept.version += 1;
                true
            }
            _ => false,
        };
        Box::pin(std::future::ready(Ok(replaced)))
    }

    fn notify<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()> {
        // Nobody listening is no error: no task of this process waits.
        let _ = self.bell.send(id.to_owned());
        Box::pin(std::future::ready(Ok(())))
    }

    fn doorbell(&self) -> StoreFuture<'_, Doorbell> {
        let rings = bounded_doorbell(self.bell.subscribe());
        Box::pin(std::future::ready(Ok(rings)))
    }

    fn describe(&self) -> String {
        "memory".to_owned()
    }
}
