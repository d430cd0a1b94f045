//! At most N holders at once: a counting semaphore whose slot is taken and given back with
//! one atomic operation each while no one waits.
//!
//! tokio's `Semaphore` locks its queue of waiters each time a permit is given back, waiting
//! or not; a concurrency limit pays that on every call. Here the queue is a `Notify`, told
//! only when someone waits. While someone waits, a newcomer does not take a slot at once:
//! it waits too, and waiters are woken in the order they began to wait.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::Notify;

/// N slots, each held by at most one [`Slot`] at a time.
#[derive(Debug)]
pub(crate) struct Slots {
    /// Slots no one holds.
    free: AtomicUsize,
    /// Takers waiting for a slot.
    waiting: AtomicUsize,
    /// Told once for each slot given back while someone waits.
    freed: Notify,
}

/// A slot held, given back when dropped.
#[derive(Debug)]
pub(crate) struct Slot(Arc<Slots>);

impl Slots {
    pub(crate) fn new(slots: usize) -> Arc<Self> {
        Arc::new(Self {
            free: AtomicUsize::new(slots),
            waiting: AtomicUsize::new(0),
            freed: Notify::new(),
        })
    }

    /// A slot, if one is free and no one waits for one.
    pub(crate) fn try_take(self: &Arc<Self>) -> Option<Slot> {
        if self.waiting.load(Ordering::SeqCst) > 0 {
            return None;
        }
        self.take_free()
    }

    /// A slot, once one is free. Dropped while it waits, it waits no more, and a slot
    /// given back meanwhile goes to the next waiter.
    pub(crate) async fn take(self: &Arc<Self>) -> Slot {
        if let Some(slot) = self.try_take() {
            return slot;
        }
        let _waiting = Waiting::begin(self);
        loop {
            let freed = self.freed.notified();
            let mut freed = std::pin::pin!(freed);
            // In the queue before looking: a slot given back after the look tells it.
            freed.as_mut().enable();
            if let Some(slot) = self.take_free() {
                return slot;
            }
            freed.await;
        }
    }

    fn take_free(self: &Arc<Self>) -> Option<Slot> {
        self.free
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |free| {
                free.checked_sub(1)
            })
            .ok()
            .map(|_| Slot(Arc::clone(self)))
    }

    /// Slots no one holds.
    pub(crate) fn free(&self) -> usize {
        self.free.load(Ordering::SeqCst)
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let slots = &self.0;
        slots.free.fetch_add(1, Ordering::SeqCst);
        // Read after the slot is free: a taker counted as waiting after this read looks at
        // `free` after it too, and finds the slot.
        if slots.waiting.load(Ordering::SeqCst) > 0 {
            slots.freed.notify_one();
        }
    }
}

/// One taker counted among those waiting, until it is dropped.
struct Waiting<'a>(&'a Slots);

impl<'a> Waiting<'a> {
    fn begin(slots: &'a Slots) -> Self {
        slots.waiting.fetch_add(1, Ordering::SeqCst);
        Self(slots)
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.waiting.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_slot_is_taken_while_one_is_free_and_given_back_when_dropped() {
        let slots = Slots::new(2);
        let first = slots.try_take().expect("two free");
        let second = slots.try_take().expect("one free");
        assert!(slots.try_take().is_none());
        drop(first);
        assert_eq!(slots.free(), 1);
        let third = slots.try_take().expect("one given back");
        drop((second, third));
        assert_eq!(slots.free(), 2);
    }

    #[tokio::test]
    async fn a_waiter_gets_the_slot_given_back_and_a_newcomer_does_not_pass_it() {
        let slots = Slots::new(1);
        let held = slots.try_take().unwrap();
        let waiter = tokio::spawn({
            let slots = Arc::clone(&slots);
            async move { slots.take().await }
        });
        while slots.waiting.load(Ordering::SeqCst) == 0 {
            tokio::task::yield_now().await;
        }
        drop(held);
        // The slot is free, but goes to the one waiting.
        assert!(slots.try_take().is_none());
        let slot = tokio::time::timeout(Duration::from_secs(5), waiter)
            .await
            .expect("the waiter is woken")
            .unwrap();
        assert_eq!(slots.free(), 0);
        drop(slot);
        assert_eq!(slots.free(), 1);
        assert_eq!(slots.waiting.load(Ordering::SeqCst), 0);
    }

    #[tokio::test]
    async fn a_waiter_dropped_passes_its_turn_on() {
        let slots = Slots::new(1);
        let held = slots.try_take().unwrap();
        let mut first = Box::pin(slots.take());
        let pending =
            std::future::poll_fn(|cx| std::task::Poll::Ready(first.as_mut().poll(cx).is_pending()));
        assert!(pending.await);
        let second = tokio::spawn({
            let slots = Arc::clone(&slots);
            async move { slots.take().await }
        });
        while slots.waiting.load(Ordering::SeqCst) < 2 {
            tokio::task::yield_now().await;
        }
        // The slot is given back to the first waiter, which is dropped before it runs.
        drop(held);
        drop(first);
        let slot = tokio::time::timeout(Duration::from_secs(5), second)
            .await
            .expect("the second waiter is woken")
            .unwrap();
        drop(slot);
        assert_eq!(slots.free(), 1);
    }

    #[test]
    fn many_threads_never_hold_more_slots_than_there_are() {
        let slots = Slots::new(3);
        let holding = Arc::new(AtomicUsize::new(0));
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(4)
            .enable_time()
            .build()
            .unwrap();
        runtime.block_on(async {
            let tasks: Vec<_> = (0..16)
                .map(|_| {
                    let (slots, holding) = (Arc::clone(&slots), Arc::clone(&holding));
                    tokio::spawn(async move {
                        for _ in 0..500 {
                            let _slot = slots.take().await;
                            let now = holding.fetch_add(1, Ordering::SeqCst) + 1;
                            assert!(now <= 3, "{now} slots held of 3");
                            tokio::task::yield_now().await;
                            holding.fetch_sub(1, Ordering::SeqCst);
                        }
                    })
                })
                .collect();
            for task in tasks {
                tokio::time::timeout(Duration::from_secs(30), task)
                    .await
                    .expect("no taker is left waiting for ever")
                    .unwrap();
            }
        });
        assert_eq!(slots.free(), 3);
    }
}
