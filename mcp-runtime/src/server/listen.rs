//! Who hears about changes to what a server serves: the clients that opened a
//! `subscriptions/listen` stream (2026-07-28), each told only what it asked for and tagged
//! with its subscription's id, and the stateful connections that completed the handshake
//! (stdio), told untagged.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::Notifier;
use super::jsonrpc::{self, Id};

/// The `_meta` key that ties a notification to its `subscriptions/listen` stream.
const SUBSCRIPTION_ID_KEY: &str = "io.modelcontextprotocol/subscriptionId";

/// A `subscriptions/listen` request, admitted: what its stream is to carry.
#[derive(Debug)]
pub(crate) struct Listen {
    pub(crate) id: Id,
    /// The notification types asked for that this server sends: `toolsListChanged`.
    pub(crate) tools: bool,
}

impl Listen {
    /// Reads the filter of a `subscriptions/listen` request: an object whose members say
    /// which notifications the client opts in to. Only those this server sends are kept.
    pub(crate) fn read(id: Id, params: &Map<String, Value>) -> Result<Self, String> {
        let Some(Value::Object(filter)) = params.get("notifications") else {
            return Err(
                "`notifications` must be an object naming the notifications to receive".to_owned(),
            );
        };
        let tools = match filter.get("toolsListChanged") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(tools)) => *tools,
            Some(_) => return Err("`notifications.toolsListChanged` must be a boolean".to_owned()),
        };
        Ok(Self { id, tools })
    }

    /// The acknowledgement, the stream's first message: the notification types agreed to.
    pub(crate) fn acknowledgement(&self) -> String {
        let mut agreed = Map::new();
        if self.tools {
            agreed.insert("toolsListChanged".to_owned(), Value::Bool(true));
        }
        jsonrpc::notification(
            "notifications/subscriptions/acknowledged",
            json!({ "notifications": agreed, "_meta": { SUBSCRIPTION_ID_KEY: self.id } }),
        )
    }
}

/// One listener.
struct Listener {
    serial: u64,
    /// Who it is, for a cancellation: the client and the listen request's id.
    key: String,
    /// The listen request's id, which tags every notification; none for a stateful
    /// connection.
    subscription: Option<Box<RawValue>>,
    tools: bool,
    send: Notifier,
}

/// The listeners of one server.
#[derive(Default)]
pub(crate) struct Listeners {
    serial: AtomicU64,
    list: Mutex<Vec<Listener>>,
}

/// Removes its listener when dropped: a stream that ends stops listening.
pub(crate) struct ListenGuard {
    listeners: Arc<Listeners>,
    serial: u64,
}

impl Drop for ListenGuard {
    fn drop(&mut self) {
        self.listeners
            .lock()
            .retain(|listener| listener.serial != self.serial);
    }
}

impl Listeners {
    fn lock(&self) -> MutexGuard<'_, Vec<Listener>> {
        // A panic while the lock was held leaves the list as it was: keep using it.
        self.list.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds the listener of `listen`, sending it the acknowledgement first; it listens
    /// until the guard is dropped or [`Listeners::cancel`] names it.
    pub(crate) fn listen(
        self: &Arc<Self>,
        listen: &Listen,
        key: String,
        send: Notifier,
    ) -> ListenGuard {
        let subscription = serde_json::value::to_raw_value(&listen.id).ok();
        let acknowledgement = listen.acknowledgement();
        self.add(key, subscription, listen.tools, send, Some(acknowledgement))
    }

    /// Adds a stateful connection, which hears of every change untagged.
    pub(crate) fn connection(self: &Arc<Self>, send: Notifier) -> ListenGuard {
        self.add(String::new(), None, true, send, None)
    }

    /// Adds a listener, sending it `first` before anything else. Both happen under the
    /// lock that a change takes to tell the listeners, so that a change is either told
    /// after `first` or made before the listener was there: never lost between the two.
    /// (Every sender here only queues, so the lock is held briefly.)
    fn add(
        self: &Arc<Self>,
        key: String,
        subscription: Option<Box<RawValue>>,
        tools: bool,
        send: Notifier,
        first: Option<String>,
    ) -> ListenGuard {
        let serial = self.serial.fetch_add(1, Ordering::Relaxed);
        let mut list = self.lock();
        if let Some(first) = first {
            send(first);
        }
        list.push(Listener {
            serial,
            key,
            subscription,
            tools,
            send,
        });
        drop(list);
        ListenGuard {
            listeners: Arc::clone(self),
            serial,
        }
    }

    /// Ends the listening of the listen request `key` (a client's cancellation).
    pub(crate) fn cancel(&self, key: &str) {
        self.lock()
            .retain(|listener| listener.key.is_empty() || listener.key != key);
    }

    /// Tells every listener that asked for it that the tool list changed.
    pub(crate) fn tools_changed(&self) {
        // The messages are sent outside the lock: a sender may block on a full pipe.
        let sends: Vec<(Notifier, String)> = self
            .lock()
            .iter()
            .filter(|listener| listener.tools)
            .map(|listener| {
                let params = match &listener.subscription {
                    Some(id) => json!({ "_meta": { SUBSCRIPTION_ID_KEY: id } }),
                    None => json!({}),
                };
                (
                    Arc::clone(&listener.send),
                    jsonrpc::notification("notifications/tools/list_changed", params),
                )
            })
            .collect();
        for (send, message) in sends {
            send(message);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A notifier that keeps what it is sent.
    fn kept() -> (Notifier, Arc<Mutex<Vec<Value>>>) {
        let kept = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&kept);
        let send: Notifier = Arc::new(move |message: String| {
            let message = serde_json::from_str(&message).expect("a JSON message");
            sink.lock().unwrap().push(message);
        });
        (send, kept)
    }

    fn listen(id: &str, filter: Value) -> Listen {
        let id: Box<RawValue> = serde_json::from_str(id).unwrap();
        let params = json!({ "notifications": filter });
        let Value::Object(params) = params else {
            unreachable!()
        };
        Listen::read(Id::of(&id).expect("an id"), &params).expect("a filter")
    }

    #[test]
    fn a_listener_is_acknowledged_then_told_only_what_it_asked_for_tagged_with_its_id() {
        let listeners = Arc::new(Listeners::default());
        let (tools_send, tools) = kept();
        let (prompts_send, prompts) = kept();
        let _tools = listeners.listen(
            &listen("\"t\"", json!({ "toolsListChanged": true })),
            "client \"t\"".to_owned(),
            tools_send,
        );
        let _prompts = listeners.listen(
            &listen(
                "7",
                json!({ "promptsListChanged": true, "toolsListChanged": false }),
            ),
            "client 7".to_owned(),
            prompts_send,
        );
        listeners.tools_changed();
        assert_eq!(
            *tools.lock().unwrap(),
            [
                json!({
                    "jsonrpc": "2.0",
                    "method": "notifications/subscriptions/acknowledged",
                    "params": {
                        "notifications": { "toolsListChanged": true },
                        "_meta": { "io.modelcontextprotocol/subscriptionId": "t" },
                    },
                }),
                json!({
                    "jsonrpc": "2.0",
                    "method": "notifications/tools/list_changed",
                    "params": { "_meta": { "io.modelcontextprotocol/subscriptionId": "t" } },
                }),
            ]
        );
        // Prompts are not served: agreed to nothing, and told nothing.
        assert_eq!(
            *prompts.lock().unwrap(),
            [json!({
                "jsonrpc": "2.0",
                "method": "notifications/subscriptions/acknowledged",
                "params": {
                    "notifications": {},
                    "_meta": { "io.modelcontextprotocol/subscriptionId": 7 },
                },
            })]
        );
    }

    #[test]
    fn a_listener_stops_when_its_guard_drops_or_its_request_is_cancelled() {
        let listeners = Arc::new(Listeners::default());
        let (first_send, first) = kept();
        let (second_send, second) = kept();
        let (connection_send, connection) = kept();
        let (third_send, third) = kept();
        let filter = json!({ "toolsListChanged": true });
        let _third = listeners.listen(&listen("3", filter.clone()), "a 3".to_owned(), third_send);
        let first_guard =
            listeners.listen(&listen("1", filter.clone()), "a 1".to_owned(), first_send);
        let _second = listeners.listen(&listen("2", filter), "a 2".to_owned(), second_send);
        let _connection = listeners.connection(connection_send);
        drop(first_guard);
        listeners.cancel("a 2");
        listeners.tools_changed();
        assert_eq!(first.lock().unwrap().len(), 1, "the acknowledgement only");
        assert_eq!(second.lock().unwrap().len(), 1, "the acknowledgement only");
        assert_eq!(
            third.lock().unwrap().len(),
            2,
            "another's cancellation is not its own"
        );
        // A cancellation names a listen request: the handshake's listener stays, untagged.
        assert_eq!(
            *connection.lock().unwrap(),
            [json!({
                "jsonrpc": "2.0",
                "method": "notifications/tools/list_changed",
                "params": {},
            })]
        );
    }

    #[test]
    fn a_filter_is_an_object_of_booleans() {
        for params in [
            json!({}),
            json!({ "notifications": true }),
            json!({ "notifications": { "toolsListChanged": "yes" } }),
        ] {
            let Value::Object(params) = params else {
                unreachable!()
            };
            assert!(Listen::read(Id::NONE, &params).is_err(), "{params:?}");
        }
    }
}
