//! Requests sent and awaiting their responses, by id: the client's to a server, and a
//! server's to its client. Each response goes to the one request of its id, once.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Mutex, MutexGuard, PoisonError};

use tokio::sync::oneshot;

/// The requests awaiting their responses (each a `T`), by id `K`.
#[derive(Debug)]
pub(crate) struct Awaiting<K, T> {
    waiting: Mutex<HashMap<K, oneshot::Sender<T>>>,
}

impl<K, T> Default for Awaiting<K, T> {
    fn default() -> Self {
        Self {
            waiting: Mutex::new(HashMap::new()),
        }
    }
}

impl<K: Eq + Hash, T> Awaiting<K, T> {
    /// Request `id` awaits its response, which comes through what this returns.
    pub(crate) fn open(&self, id: K) -> oneshot::Receiver<T> {
        let (sender, response) = oneshot::channel();
        self.lock().insert(id, sender);
        response
    }

    /// Hands `response` to request `id`; false when no request of that id awaits one
    /// (answered already, never sent, or forgotten).
    pub(crate) fn deliver<Q>(&self, id: &Q, response: T) -> bool
    where
        K: Borrow<Q>,
        Q: Eq + Hash + ?Sized,
    {
        match self.lock().remove(id) {
            Some(sender) => {
                // Its receiver gone means the request was given up meanwhile: nothing to do.
                let _ = sender.send(response);
                true
            }
            None => false,
        }
    }

    /// Forgets request `id`; false when it awaited nothing (already answered).
    pub(crate) fn forget<Q>(&self, id: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Eq + Hash + ?Sized,
    {
        self.lock().remove(id).is_some()
    }

    #[cfg(any(feature = "client", test))]
    /// Whether request `id` awaits its response.
    pub(crate) fn awaits<Q>(&self, id: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Eq + Hash + ?Sized,
    {
        self.lock().contains_key(id)
    }

    #[cfg(any(feature = "client", test))]
    /// The ids of the requests awaiting their responses.
    pub(crate) fn ids(&self) -> Vec<K>
    where
        K: Clone,
    {
        self.lock().keys().cloned().collect()
    }

    #[cfg(any(feature = "client", test))]
    /// Answers every request awaiting its response with `response()`, and forgets them.
    pub(crate) fn answer_all(&self, response: impl Fn() -> T) {
        let waiting: Vec<oneshot::Sender<T>> = self.lock().drain().map(|(_, w)| w).collect();
        for sender in waiting {
            let _ = sender.send(response());
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<K, oneshot::Sender<T>>> {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_response_reaches_the_request_of_its_id_once() {
        let awaiting = Awaiting::<u64, &str>::default();
        let mut one = awaiting.open(1);
        let mut two = awaiting.open(2);
        assert!(awaiting.deliver(&2, "second"));
        assert!(!awaiting.deliver(&2, "again"), "answered twice");
        assert!(!awaiting.deliver(&3, "never sent"));
        assert_eq!(two.try_recv(), Ok("second"));
        assert!(one.try_recv().is_err(), "no answer yet");
        assert_eq!(awaiting.ids(), [1]);
        awaiting.answer_all(|| "ended");
        assert_eq!(one.try_recv(), Ok("ended"));
        assert!(awaiting.ids().is_empty());
    }

    #[test]
    fn a_forgotten_request_takes_no_response() {
        let awaiting = Awaiting::<String, ()>::default();
        let _response = awaiting.open("a".to_owned());
        assert!(awaiting.awaits("a"));
        assert!(awaiting.forget("a"));
        assert!(!awaiting.forget("a"));
        assert!(!awaiting.deliver("a", ()));
    }
}
