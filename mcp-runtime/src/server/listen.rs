//! Who hears about changes to what a server serves: the clients that opened a
//! `subscriptions/listen` stream (2026-07-28), each told only what it asked for and tagged
//! with its subscription's id, and the stateful connections that completed the handshake
//! (stdio), told untagged.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};

use mcp_runtime_core::method::Method;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::Notifier;
use super::jsonrpc::{self, Id};

/// The `_meta` key that ties a notification to its `subscriptions/listen` stream.
const SUBSCRIPTION_ID_KEY: &str = "io.modelcontextprotocol/subscriptionId";

/// What a listener hears of.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Wants {
    /// `notifications/tools/list_changed`.
    pub(crate) tools: bool,
    /// `notifications/prompts/list_changed`.
    pub(crate) prompts: bool,
    /// `notifications/resources/list_changed`.
    pub(crate) resources: bool,
    /// `notifications/resources/updated`, for these URIs.
    pub(crate) subscriptions: BTreeSet<String>,
}

/// A kind of list that changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ListKind {
    Tools,
    Prompts,
    Resources,
}

impl ListKind {
    fn method(self) -> Method {
        match self {
            Self::Tools => Method::ToolsListChanged,
            Self::Prompts => Method::PromptsListChanged,
            Self::Resources => Method::ResourcesListChanged,
        }
    }

    fn wanted(self, wants: &Wants) -> bool {
        match self {
            Self::Tools => wants.tools,
            Self::Prompts => wants.prompts,
            Self::Resources => wants.resources,
        }
    }
}

#[cfg(all(feature = "http", feature = "redis"))]
impl ListKind {
    /// Its name, as the lists are named in capabilities: `tools`, `prompts`, `resources`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Tools => "tools",
            Self::Prompts => "prompts",
            Self::Resources => "resources",
        }
    }

    /// The kind `name` names.
    pub(crate) fn named(name: &str) -> Option<Self> {
        [Self::Tools, Self::Prompts, Self::Resources]
            .into_iter()
            .find(|kind| kind.name() == name)
    }
}

/// What tells the listeners of the server's other replicas of the changes made here.
pub(crate) trait Fanout: Send + Sync {
    /// The resource `uri` was updated here.
    fn resource_updated(&self, uri: &str);
    /// The list of `kind` changed here.
    fn list_changed(&self, kind: ListKind);
}

/// Every [`Fanout`] of a server: one for each session store its routers keep sessions in,
/// each added by the first router that uses that store (a server may be served by several,
/// on several addresses).
#[derive(Default)]
pub(crate) struct Fanouts(RwLock<Vec<(usize, Arc<dyn Fanout>)>>);

impl Fanouts {
    /// Adds `fanout` for the store known by `store`, unless that store has one already.
    #[cfg(feature = "http")]
    pub(crate) fn add(&self, store: usize, fanout: Arc<dyn Fanout>) {
        let mut fanouts = self.0.write().unwrap_or_else(PoisonError::into_inner);
        if fanouts.iter().all(|(known, _)| *known != store) {
            fanouts.push((store, fanout));
        }
    }

    /// The resource `uri` was updated here.
    pub(crate) fn resource_updated(&self, uri: &str) {
        for (_, fanout) in self.0.read().unwrap_or_else(PoisonError::into_inner).iter() {
            fanout.resource_updated(uri);
        }
    }

    /// The list of `kind` changed here.
    pub(crate) fn list_changed(&self, kind: ListKind) {
        for (_, fanout) in self.0.read().unwrap_or_else(PoisonError::into_inner).iter() {
            fanout.list_changed(kind);
        }
    }
}

/// Why a `subscriptions/listen` request's filter cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum FilterError {
    /// `notifications` is missing or not an object.
    #[error("`notifications` must be an object naming the notifications to receive")]
    Missing,
    /// A notification type's member is not a boolean.
    #[error("`notifications.{0}` must be a boolean")]
    Flag(&'static str),
    /// `resourceSubscriptions` is not an array of strings.
    #[error("`notifications.resourceSubscriptions` must be an array of URIs")]
    Uris,
}

/// A `subscriptions/listen` request, admitted: what its stream is to carry.
#[derive(Debug)]
pub(crate) struct Listen {
    pub(crate) id: Id,
    /// The notification types asked for.
    pub(crate) wants: Wants,
}

impl Listen {
    /// Reads the filter of a `subscriptions/listen` request: an object whose members say
    /// which notifications the client opts in to.
    pub(crate) fn read(id: Id, params: &Map<String, Value>) -> Result<Self, FilterError> {
        let Some(Value::Object(filter)) = params.get("notifications") else {
            return Err(FilterError::Missing);
        };
        let flag = |name: &'static str| match filter.get(name) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(on)) => Ok(*on),
            Some(_) => Err(FilterError::Flag(name)),
        };
        let subscriptions = match filter.get("resourceSubscriptions") {
            None | Some(Value::Null) => BTreeSet::new(),
            Some(Value::Array(uris)) => uris
                .iter()
                .map(|uri| uri.as_str().map(str::to_owned))
                .collect::<Option<_>>()
                .ok_or(FilterError::Uris)?,
            Some(_) => return Err(FilterError::Uris),
        };
        Ok(Self {
            id,
            wants: Wants {
                tools: flag("toolsListChanged")?,
                prompts: flag("promptsListChanged")?,
                resources: flag("resourcesListChanged")?,
                subscriptions,
            },
        })
    }

    /// The acknowledgement, the stream's first message: the notification types agreed to.
    pub(crate) fn acknowledgement(&self) -> String {
        let mut agreed = Map::new();
        for (on, name) in [
            (self.wants.tools, "toolsListChanged"),
            (self.wants.prompts, "promptsListChanged"),
            (self.wants.resources, "resourcesListChanged"),
        ] {
            if on {
                agreed.insert(name.to_owned(), Value::Bool(true));
            }
        }
        if !self.wants.subscriptions.is_empty() {
            agreed.insert(
                "resourceSubscriptions".to_owned(),
                json!(self.wants.subscriptions),
            );
        }
        jsonrpc::notification(
            &Method::SubscriptionsAcknowledged,
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
    wants: Wants,
    send: Notifier,
}

impl Listener {
    /// A notification's parameters, tagged with the subscription's id if it has one.
    fn params(&self, mut params: Map<String, Value>) -> Value {
        if let Some(id) = &self.subscription {
            params.insert("_meta".to_owned(), json!({ SUBSCRIPTION_ID_KEY: id }));
        }
        Value::Object(params)
    }
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

impl ListenGuard {
    /// Subscribes the listener to updates of `uri`, or ends that subscription.
    pub(crate) fn subscribe(&self, uri: &str, on: bool) {
        if let Some(listener) = self
            .listeners
            .lock()
            .iter_mut()
            .find(|listener| listener.serial == self.serial)
        {
            if on {
                listener.wants.subscriptions.insert(uri.to_owned());
            } else {
                listener.wants.subscriptions.remove(uri);
            }
        }
    }
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
        self.add(
            key,
            subscription,
            listen.wants.clone(),
            send,
            Some(acknowledgement),
        )
    }

    /// Adds a stateful connection, which hears of every list change untagged, and of
    /// updates to the resources it subscribes to.
    pub(crate) fn connection(self: &Arc<Self>, send: Notifier) -> ListenGuard {
        let wants = Wants {
            tools: true,
            prompts: true,
            resources: true,
            subscriptions: BTreeSet::new(),
        };
        self.add(String::new(), None, wants, send, None)
    }

    /// Adds a listener, sending it `first` before anything else. Both happen under the
    /// lock that a change takes to tell the listeners, so that a change is either told
    /// after `first` or made before the listener was there: never lost between the two.
    /// (Every sender here only queues, so the lock is held briefly.)
    fn add(
        self: &Arc<Self>,
        key: String,
        subscription: Option<Box<RawValue>>,
        wants: Wants,
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
            wants,
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

    /// Tells every listener that asked for it that the list of `kind` changed.
    pub(crate) fn changed(&self, kind: ListKind) {
        self.tell(|wants| kind.wanted(wants), &kind.method(), &Map::new());
    }

    /// Tells every listener subscribed to `uri` that the resource changed.
    pub(crate) fn updated(&self, uri: &str) {
        let mut params = Map::new();
        params.insert("uri".to_owned(), Value::String(uri.to_owned()));
        self.tell(
            |wants| wants.subscriptions.contains(uri),
            &Method::ResourcesUpdated,
            &params,
        );
    }

    /// Tells every listener that sends through `send` all it may have missed: each list it
    /// listens to changed, and each resource it subscribed to was updated. For a
    /// connection that fell behind and lost notifications: reading the lists and the
    /// resources again brings it back in step.
    pub(crate) fn resync(&self, send: &Notifier) {
        let sends: Vec<String> = self
            .lock()
            .iter()
            .filter(|listener| Arc::ptr_eq(&listener.send, send))
            .flat_map(|listener| {
                let lists = [ListKind::Tools, ListKind::Prompts, ListKind::Resources]
                    .into_iter()
                    .filter(|kind| kind.wanted(&listener.wants))
                    .map(|kind| jsonrpc::notification(&kind.method(), listener.params(Map::new())));
                let updates = listener.wants.subscriptions.iter().map(|uri| {
                    let mut params = Map::new();
                    params.insert("uri".to_owned(), Value::String(uri.clone()));
                    jsonrpc::notification(&Method::ResourcesUpdated, listener.params(params))
                });
                lists.chain(updates).collect::<Vec<_>>()
            })
            .collect();
        for message in sends {
            send(message);
        }
    }

    fn tell(&self, wanted: impl Fn(&Wants) -> bool, method: &Method, params: &Map<String, Value>) {
        // The messages are sent outside the lock: a sender may block on a full pipe.
        let sends: Vec<(Notifier, String)> = self
            .lock()
            .iter()
            .filter(|listener| wanted(&listener.wants))
            .map(|listener| {
                (
                    Arc::clone(&listener.send),
                    jsonrpc::notification(method, listener.params(params.clone())),
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
        listeners.changed(ListKind::Tools);
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
        // Asked for prompts only: agreed to that, and told nothing of tools.
        assert_eq!(
            *prompts.lock().unwrap(),
            [json!({
                "jsonrpc": "2.0",
                "method": "notifications/subscriptions/acknowledged",
                "params": {
                    "notifications": { "promptsListChanged": true },
                    "_meta": { "io.modelcontextprotocol/subscriptionId": 7 },
                },
            })]
        );
        listeners.changed(ListKind::Prompts);
        assert_eq!(prompts.lock().unwrap().len(), 2);
        assert_eq!(
            prompts.lock().unwrap()[1]["method"],
            "notifications/prompts/list_changed"
        );
        assert_eq!(
            tools.lock().unwrap().len(),
            2,
            "tools heard nothing of prompts"
        );
    }

    #[test]
    fn a_resync_tells_the_listeners_of_one_sender_every_list_and_subscription_they_hear_of() {
        let listeners = Arc::new(Listeners::default());
        let (send, heard) = kept();
        let (other_send, other) = kept();
        let connection = listeners.connection(Arc::clone(&send));
        connection.subscribe("a://x", true);
        let _stream = listeners.listen(
            &listen("9", json!({ "toolsListChanged": true })),
            "client 9".to_owned(),
            Arc::clone(&send),
        );
        let _other = listeners.connection(other_send);
        heard.lock().unwrap().clear();
        listeners.resync(&send);
        let methods: Vec<(Value, Value)> = heard
            .lock()
            .unwrap()
            .iter()
            .map(|message| {
                (
                    message["method"].clone(),
                    message["params"]["_meta"][SUBSCRIPTION_ID_KEY].clone(),
                )
            })
            .collect();
        assert_eq!(
            methods,
            [
                (json!("notifications/tools/list_changed"), Value::Null),
                (json!("notifications/prompts/list_changed"), Value::Null),
                (json!("notifications/resources/list_changed"), Value::Null),
                (json!("notifications/resources/updated"), Value::Null),
                (json!("notifications/tools/list_changed"), json!(9)),
            ]
        );
        assert_eq!(heard.lock().unwrap()[3]["params"]["uri"], "a://x");
        assert!(
            other.lock().unwrap().is_empty(),
            "another sender heard nothing"
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
        listeners.changed(ListKind::Tools);
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
    fn resource_updates_reach_only_the_subscribers_of_that_uri() {
        let listeners = Arc::new(Listeners::default());
        let (stream_send, stream) = kept();
        let (connection_send, connection) = kept();
        let _stream = listeners.listen(
            &listen("9", json!({ "resourceSubscriptions": ["a://x"] })),
            "c 9".to_owned(),
            stream_send,
        );
        let connection_guard = listeners.connection(connection_send);
        listeners.updated("a://x");
        connection_guard.subscribe("a://y", true);
        listeners.updated("a://y");
        connection_guard.subscribe("a://y", false);
        listeners.updated("a://y");
        let stream = stream.lock().unwrap();
        assert_eq!(
            stream[0]["params"]["notifications"],
            json!({ "resourceSubscriptions": ["a://x"] })
        );
        assert_eq!(
            stream[1],
            json!({
                "jsonrpc": "2.0",
                "method": "notifications/resources/updated",
                "params": { "uri": "a://x", "_meta": { "io.modelcontextprotocol/subscriptionId": 9 } },
            })
        );
        assert_eq!(stream.len(), 2);
        assert_eq!(
            *connection.lock().unwrap(),
            [json!({
                "jsonrpc": "2.0",
                "method": "notifications/resources/updated",
                "params": { "uri": "a://y" },
            })]
        );
    }

    #[test]
    fn a_filter_is_an_object_of_booleans() {
        for params in [
            json!({}),
            json!({ "notifications": true }),
            json!({ "notifications": { "toolsListChanged": "yes" } }),
            json!({ "notifications": { "resourceSubscriptions": "a://x" } }),
            json!({ "notifications": { "resourceSubscriptions": [1] } }),
        ] {
            let Value::Object(params) = params else {
                unreachable!()
            };
            assert!(Listen::read(Id::NONE, &params).is_err(), "{params:?}");
        }
    }
}
