//! One round of a 2026-07-28 call that asks: the answers given so far, the asks still
//! open, and the future that ends the round when it waits on one.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value};

use super::Asks;
use crate::talk::InputRequest;

/// Whether `answer` could be the client's answer to some ask: an `ElicitResult`, a
/// `CreateMessageResult` or a `ListRootsResult`.
pub(crate) fn is_input_response(answer: &Value) -> bool {
    let Some(answer) = answer.as_object() else {
        return false;
    };
    let elicited = answer
        .get("action")
        .and_then(Value::as_str)
        .is_some_and(|action| matches!(action, "accept" | "decline" | "cancel"));
    let sampled = answer.get("role").is_some_and(Value::is_string)
        && answer
            .get("content")
            .is_some_and(|c| c.is_object() || c.is_array());
    let roots = answer.get("roots").is_some_and(Value::is_array);
    elicited || sampled || roots
}

/// `future`, ended with `ended()` when it waits while an ask of its round is still open
/// (2026-07-28): the call is then answered with the asks.
pub(crate) fn ends_round<T: Send + 'static>(
    mut future: std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send>>,
    asks: Option<Arc<Asks>>,
    ended: impl Fn() -> T + Send + 'static,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send>> {
    let Some(asks) = asks.filter(|asks| asks.round().is_some()) else {
        return future;
    };
    Box::pin(std::future::poll_fn(move |cx| {
        match future.as_mut().poll(cx) {
            std::task::Poll::Pending if asks.round().is_some_and(Round::is_open) => {
                std::task::Poll::Ready(ended())
            }
            polled => polled,
        }
    }))
}

/// One round of a 2026-07-28 call: the answers given so far, and the asks still open.
#[derive(Debug, Default)]
pub(crate) struct Round {
    /// Answers by key: replayed from `requestState`, and this round's `inputResponses`.
    /// All are carried into the next round's state, those this round did not ask for too:
    /// a call made again may ask in another order, and reach them later.
    answers: Map<String, Value>,
    /// What this round asked and found no answer for.
    open: Mutex<BTreeMap<String, InputRequest>>,
}

impl Round {
    pub(crate) fn new(answers: Map<String, Value>) -> Self {
        Self {
            answers,
            ..Self::default()
        }
    }

    /// The answer to `key`, if given; otherwise `request` is recorded as open.
    pub(crate) fn answer(&self, key: &str, request: InputRequest) -> Option<Value> {
        match self.answers.get(key) {
            Some(answer) => Some(answer.clone()),
            None => {
                lock(&self.open).insert(key.to_owned(), request);
                None
            }
        }
    }

    /// The answer to `key`, if given, without recording an ask.
    pub(crate) fn given(&self, key: &str) -> Option<Value> {
        self.answers.get(key).cloned()
    }

    /// Whether an ask is still open.
    pub(crate) fn is_open(&self) -> bool {
        !lock(&self.open).is_empty()
    }

    /// The asks still open, by key.
    pub(crate) fn open(&self) -> BTreeMap<String, InputRequest> {
        lock(&self.open).clone()
    }

    /// The answers given so far, for the next round's state.
    pub(crate) fn given_so_far(&self) -> &Map<String, Value> {
        &self.answers
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
