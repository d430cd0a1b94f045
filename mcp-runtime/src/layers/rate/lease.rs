//! A replica's lease on a limit kept in a shared store: calls the store granted ahead, for
//! a caller whose calls of one tool come faster than a round trip to the store.
//!
//! A limited call that this replica holds no granted call for asks the store for itself
//! and, when the caller's calls came fast, for as many more as the caller would make in
//! the next [`LEASE`] at its recent pace, at most a sixteenth of the quota. The store
//! grants them from the same GCRA state, as if they had all arrived at once, and never
//! more than the quota allows: the fleet still admits at most N a period. The replica
//! admits the caller's next calls from them, without a round trip, for [`LEASE`] after they
//! were granted; those it did not admit by then go back to the store with its next ask. A
//! caller with fewer than one call every [`LEASE`], or a quota under 16 calls a period,
//! leases nothing: each of its calls is one check of the store, as without leases.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use governor::clock::Clock;

use super::Monotonic;
use crate::auth::Caller;
use crate::layers::store::Ask;

/// How long a replica may admit the calls granted ahead, and how much of a caller's
/// recent calls it asks ahead for.
pub(crate) const LEASE: Duration = Duration::from_millis(20);

/// How long a caller's lease is kept once it asked nothing.
const KEPT: Duration = Duration::from_secs(1);

/// How many asks between two sweeps of the leases no longer used.
const SWEEP_EVERY: u32 = 4096;

/// One tool's leases in this replica, by caller.
pub(crate) struct Leases {
    callers: Mutex<std::collections::HashMap<Caller, Lease, foldhash::fast::RandomState>>,
    /// The most calls one ask takes ahead: a sixteenth of the quota.
    most: u64,
    /// Asks since the unused leases were last dropped.
    asks: AtomicU32,
}

/// What this replica holds of one caller's limit.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Lease {
    /// Calls granted ahead and not admitted yet.
    held: u64,
    /// Until when they may be admitted, in [`Monotonic`]'s nanoseconds.
    until: u64,
    /// When the store was last asked.
    asked: u64,
    /// The caller's calls admitted since.
    used: u64,
}

impl Leases {
    /// The leases of a limit of `calls` a period.
    pub(crate) fn new(calls: u32) -> Self {
        Self {
            callers: Mutex::default(),
            most: u64::from(calls / 16),
            asks: AtomicU32::new(0),
        }
    }

    fn callers(
        &self,
    ) -> MutexGuard<'_, std::collections::HashMap<Caller, Lease, foldhash::fast::RandomState>> {
        // A panic while the lock was held leaves the leases as they were: keep using them.
        self.callers.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Admits a call of `caller` from what this replica holds, if it holds any.
    pub(crate) fn take(&self, caller: &Caller) -> bool {
        self.take_at(caller, now())
    }

    fn take_at(&self, caller: &Caller, now: u64) -> bool {
        self.callers()
            .get_mut(caller)
            .is_some_and(|lease| lease.take(now))
    }

    /// What to ask the store for on a call of `caller` that [`Leases::take`] did not
    /// admit; `None` when a grant that arrived since admits it after all.
    pub(crate) fn ask(&self, caller: &Caller) -> Option<Ask> {
        self.ask_at(caller, now())
    }

    fn ask_at(&self, caller: &Caller, now: u64) -> Option<Ask> {
        if self.asks.fetch_add(1, Ordering::Relaxed) % SWEEP_EVERY == SWEEP_EVERY - 1 {
            let kept = nanos(KEPT);
            self.callers()
                .retain(|_, lease| now < lease.until || now - lease.asked < kept);
        }
        let mut callers = self.callers();
        let lease = match callers.get_mut(caller) {
            Some(lease) => lease,
            None => callers.entry(caller.clone()).or_default(),
        };
        if lease.take(now) {
            return None;
        }
        // Granted ahead and not admitted in time: back to the store.
        let returned = std::mem::take(&mut lease.held);
        // As many as will be admitted in the next lease's time, by those admitted since the
        // last ask: twice as many when that was less than half a lease ago, in proportion
        // when it was longer. Asks made at once share them: the first takes the count.
        let lease_nanos = nanos(LEASE);
        let since = now.saturating_sub(lease.asked).max(lease_nanos / 2);
        let ahead = u128::from(lease.used) * u128::from(lease_nanos) / u128::from(since);
        lease.asked = now;
        lease.used = 0;
        Some(Ask {
            want: 1 + (ahead as u64).min(self.most),
            returned,
        })
    }

    /// The store granted `granted` calls on an ask of `caller`'s: the first, if any, is
    /// the call that asked, and the rest are held for the caller's next calls.
    pub(crate) fn granted(&self, caller: &Caller, granted: u64) {
        self.granted_at(caller, granted, now());
    }

    fn granted_at(&self, caller: &Caller, granted: u64, now: u64) {
        if granted == 0 {
            return;
        }
        let mut callers = self.callers();
        let lease = callers.entry(caller.clone()).or_default();
        lease.used += 1;
        if granted > 1 {
            lease.held += granted - 1;
            lease.until = now + nanos(LEASE);
        }
    }
}

impl Lease {
    /// Admits a call from what is held, if any is and still may be.
    fn take(&mut self, now: u64) -> bool {
        if self.held == 0 || now >= self.until {
            return false;
        }
        self.held -= 1;
        self.used += 1;
        true
    }
}

fn now() -> u64 {
    Monotonic.now().as_u64()
}

fn nanos(duration: Duration) -> u64 {
    duration.as_nanos() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn caller() -> Caller {
        Caller::Address("10.0.0.1".into())
    }

    /// Admits `calls` calls of `caller` a millisecond apart from `start`, asking the
    /// store, which grants all it is asked, as a call needs; the asks made.
    fn run(leases: &Leases, start: u64, calls: u64, gap: u64) -> Vec<Ask> {
        let mut asks = Vec::new();
        for at in (0..calls).map(|n| start + n * gap) {
            if leases.take_at(&caller(), at) {
                continue;
            }
            if let Some(ask) = leases.ask_at(&caller(), at) {
                leases.granted_at(&caller(), ask.want, at);
                asks.push(ask);
            }
        }
        asks
    }

    #[test]
    fn a_busy_caller_leases_what_it_used_at_most_a_sixteenth_of_the_quota() {
        let leases = Leases::new(320);
        let asks = run(&leases, 1_000 * MS, 200, MS / 10);
        let wants: Vec<u64> = asks.iter().map(|ask| ask.want).collect();
        // Each ask takes ahead twice what was admitted since the one before, up to 20.
        assert_eq!(&wants[..6], &[1, 3, 7, 15, 21, 21], "{wants:?}");
        assert!(wants.iter().all(|&want| want <= 21), "{wants:?}");
        assert!(asks.len() < 20, "{} asks for 200 calls", asks.len());
        assert!(asks.iter().all(|ask| ask.returned == 0));
    }

    #[test]
    fn a_caller_slower_than_the_lease_or_a_small_quota_asks_for_each_call() {
        let slow = Leases::new(1_000_000);
        let asks = run(&slow, 1_000 * MS, 50, 25 * MS);
        assert_eq!(asks.len(), 50);
        assert!(asks.iter().all(|ask| ask.want == 1));
        let small = Leases::new(15);
        let asks = run(&small, 1_000 * MS, 50, MS / 10);
        assert_eq!(asks.len(), 50);
        assert!(asks.iter().all(|ask| ask.want == 1));
    }

    #[test]
    fn what_was_not_admitted_in_time_goes_back_with_the_next_ask() {
        let leases = Leases::new(1_600);
        let start = 1_000 * MS;
        let asks = run(&leases, start, 30, MS / 10);
        let held = leases.callers()[&caller()].held;
        assert!(held > 0, "{asks:?}");
        // Still in time: admitted from the lease.
        let later = start + 5 * MS;
        assert!(leases.take_at(&caller(), later));
        // Past it: not admitted, and the rest goes back.
        let late = later + nanos(LEASE) + 1;
        assert!(!leases.take_at(&caller(), late));
        let ask = leases.ask_at(&caller(), late).expect("an ask");
        assert_eq!(ask.returned, held - 1);
        assert_eq!(leases.callers()[&caller()].held, 0);
    }

    #[test]
    fn a_grant_that_arrived_meanwhile_admits_the_call_without_an_ask() {
        let leases = Leases::new(1_600);
        let at = 1_000 * MS;
        assert!(leases.ask_at(&caller(), at).is_some());
        leases.granted_at(&caller(), 5, at);
        assert_eq!(leases.ask_at(&caller(), at + 1), None);
        assert_eq!(leases.callers()[&caller()].held, 3);
        // Nothing granted: nothing held, nothing counted.
        let other = Caller::Address("10.0.0.2".into());
        leases.granted_at(&other, 0, at);
        assert!(!leases.callers().contains_key(&other));
    }
}
