//! One connection to a server, whatever carries it: messages out through a channel, messages
//! in from another. Requests are matched to their responses by id; the server's own requests
//! go to the client's handlers; notifications go to whoever listens: progress to the request
//! whose token it carries, a log message to the request it came during, when that can be
//! told, the rest to every subscriber. When the connection ends, every request still waiting
//! gets the reason, at once.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

use mcp_runtime_core::method::Method;
use serde_json::{Map, Value, json};
use tokio::sync::{broadcast, mpsc, oneshot, watch};

use super::ClientError;
use super::handlers::Handlers;
use crate::base::pending::Awaiting;

/// What a transport hands the link.
#[derive(Debug)]
pub(crate) enum Inbound {
    /// A message read.
    Message(String),
    /// A message read on the stream of the request `request` (an HTTP response's): a request
    /// of the server's there is made for it.
    During { text: String, request: u64 },
    /// The request `id` failed in the transport (an HTTP error without a JSON-RPC one).
    Failed { id: u64, error: ClientError },
    /// The connection ended, and why.
    End(ClientError),
}

/// What the link hands a transport: a message, and what a request mirrors into headers
/// where the transport has them (HTTP).
#[derive(Debug, Clone)]
pub(crate) struct Outbound {
    /// The message.
    pub(crate) text: String,
    /// The `Mcp-Param-*` headers of a call.
    pub(crate) headers: Vec<(String, String)>,
}

/// A way into the other side that takes a message whole at once where it can, before the
/// transport's channel: a server's standard input.
pub(crate) trait Direct: Send + Sync {
    /// Writes `text` now if it can: `true`. Otherwise it counts one more message queued,
    /// for the sender to queue, and says `false`.
    fn write_now(&self, text: &str) -> bool;

    /// A message counted by [`Direct::write_now`] was not queued after all.
    fn unqueue(&self);
}

/// Where the link's messages go: the transport's channel, or, for a server's standard input
/// that takes a message whole at once, straight into it.
pub(crate) struct Outlet {
    sender: mpsc::Sender<Outbound>,
    input: Option<Arc<dyn Direct>>,
}

impl Outlet {
    /// Through the transport's channel only.
    pub(crate) fn channel(sender: mpsc::Sender<Outbound>) -> Self {
        Self {
            sender,
            input: None,
        }
    }

    /// Into `input` at once where it can, else through the channel to its writer.
    pub(crate) fn pipe(sender: mpsc::Sender<Outbound>, input: Arc<dyn Direct>) -> Self {
        Self {
            sender,
            input: Some(input),
        }
    }

    /// Sends `message`; refused when the transport's writer is gone.
    async fn send(&self, message: Outbound) -> Result<(), WriterGone> {
        if self
            .input
            .as_ref()
            .is_some_and(|input| input.write_now(&message.text))
        {
            return Ok(());
        }
        let sent = self.sender.send(message).await.map_err(|_| WriterGone);
        self.unless_queued(sent.is_ok());
        sent
    }

    /// Sends without waiting: a full channel refuses.
    fn try_send(&self, message: Outbound) {
        if self
            .input
            .as_ref()
            .is_some_and(|input| input.write_now(&message.text))
        {
            return;
        }
        let sent = self.sender.try_send(message).is_ok();
        self.unless_queued(sent);
    }

    /// A message counted as queued for the writer did not reach it.
    fn unless_queued(&self, queued: bool) {
        if let (false, Some(input)) = (queued, &self.input) {
            input.unqueue();
        }
    }
}

/// The transport's writer is gone: a message for it could not be queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the transport's writer is gone")]
pub(crate) struct WriterGone;

/// A notification from the server: its method and params.
#[derive(Debug, Clone, PartialEq)]
pub struct Notification {
    /// `notifications/tools/list_changed`, `notifications/message`, …
    pub method: String,
    /// Its params; an empty object when it had none.
    pub params: Value,
}

/// A JSON-RPC error the server answered with.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    /// Its code.
    pub code: i64,
    /// Its message.
    pub message: String,
    /// Its data, if any.
    pub data: Option<Value>,
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (code {})", self.message, self.code)
    }
}

/// A request the server made during one of the client's, passed to whoever relays that
/// one's (see [`Link::relay`]).
#[derive(Debug)]
pub(crate) struct ServerRequest {
    /// Its id, for the response.
    pub(crate) id: Value,
    /// `elicitation/create`, `sampling/createMessage` or `roots/list`.
    pub(crate) method: String,
    /// Its params.
    pub(crate) params: Value,
}

/// The server's requests a relay can pass on: the ones a user or a model answers.
const RELAYED: [Method; 3] = [
    Method::ElicitationCreate,
    Method::SamplingCreateMessage,
    Method::RootsList,
];

/// The shared half of a connection.
pub(crate) struct Link {
    outbox: Outlet,
    waiting: Awaiting<u64, Result<Value, ClientError>>,
    progress: Mutex<HashMap<String, mpsc::UnboundedSender<Value>>>,
    /// Who passes on the server's requests made during a request of the client's, by the
    /// id of that request.
    relays: Mutex<HashMap<u64, mpsc::UnboundedSender<ServerRequest>>>,
    /// Who takes the log messages the server sends during a request of the client's, by
    /// the id of that request.
    logs: Mutex<HashMap<u64, mpsc::UnboundedSender<Value>>>,
    /// The requests that stay open while others come and go (`subscriptions/listen`).
    lasting: Mutex<HashSet<u64>>,
    /// How the transport carries what the server sends during a request.
    streams: Streams,
    next_id: AtomicU64,
    notifications: broadcast::Sender<Notification>,
    /// Why the connection ended, once it has.
    ended: watch::Sender<Option<ClientError>>,
}

impl Link {
    /// A link sending through `outbox` and reading `inbox`, answering the server's requests
    /// with `handlers`. The reading runs as a task until `inbox` ends.
    pub(crate) fn start(
        outbox: Outlet,
        inbox: mpsc::Receiver<Inbound>,
        handlers: Arc<Handlers>,
        streams: Streams,
    ) -> Arc<Self> {
        let (notifications, _) = broadcast::channel(256);
        let link = Arc::new(Self {
            outbox,
            waiting: Awaiting::default(),
            progress: Mutex::new(HashMap::new()),
            relays: Mutex::new(HashMap::new()),
            logs: Mutex::new(HashMap::new()),
            lasting: Mutex::new(HashSet::new()),
            streams,
            next_id: AtomicU64::new(1),
            notifications,
            ended: watch::channel(None).0,
        });
        tokio::spawn(Self::read(Arc::downgrade(&link), inbox, handlers));
        link
    }

    /// Why the connection ended, if it has.
    pub(crate) fn ended(&self) -> Option<ClientError> {
        self.ended.borrow().clone()
    }

    /// Waits until the connection ends.
    pub(crate) async fn closed(&self) {
        let mut ended = self.ended.subscribe();
        // The sender lives as long as the link: it cannot close while this borrows it.
        let _ = ended.wait_for(Option::is_some).await;
    }

    /// The server's notifications from now on.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Notification> {
        self.notifications.subscribe()
    }

    /// Sends a notification.
    pub(crate) async fn notify(&self, method: &str, params: Value) -> Result<(), ClientError> {
        let message = json!({ "jsonrpc": "2.0", "method": method, "params": params });
        self.send(message.to_string(), Vec::new()).await
    }

    async fn send(&self, text: String, headers: Vec<(String, String)>) -> Result<(), ClientError> {
        if let Some(ended) = self.ended() {
            return Err(ended);
        }
        self.outbox
            .send(Outbound { text, headers })
            .await
            .map_err(|WriterGone| {
                self.ended()
                    .unwrap_or(ClientError::closed("the connection closed"))
            })
    }

    /// An id no other request of this link is sent under: for a request whose id must be
    /// known before it is sent ([`Watch::id`]).
    pub(crate) fn reserve_id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    /// Sends a request and registers its id; the answer comes through the returned
    /// [`Pending`], which cancels the request on the server if dropped unanswered.
    pub(crate) async fn request(
        self: &Arc<Self>,
        method: &str,
        params: &Map<String, Value>,
        headers: Vec<(String, String)>,
        watch: Watch,
    ) -> Result<Pending, ClientError> {
        let id = watch.id.unwrap_or_else(|| self.reserve_id());
        let answer = self.waiting.open(id);
        // Watched before it is sent: the server may report, or ask, at once.
        let progress_token = watch.progress.map(|(token, sender)| {
            lock(&self.progress).insert(token.clone(), sender);
            token
        });
        let relayed = watch.relay.is_some_and(|relay| {
            lock(&self.relays).insert(id, relay);
            true
        });
        let logged = watch.log.is_some_and(|log| {
            lock(&self.logs).insert(id, log);
            true
        });
        if watch.lasting {
            lock(&self.lasting).insert(id);
        }
        let pending = Pending {
            link: Arc::clone(self),
            id,
            answer,
            progress_token,
            relayed,
            logged,
            lasting: watch.lasting,
            done: false,
        };
        // Ended meanwhile: the reader already failed everything waiting, maybe not this.
        if let Some(ended) = self.ended() {
            self.waiting.forget(&id);
            return Err(ended);
        }
        /// A request as written: its params borrowed, not copied into a new value.
        #[derive(serde::Serialize)]
        struct Request<'a> {
            jsonrpc: &'static str,
            id: u64,
            method: &'a str,
            params: &'a Map<String, Value>,
        }
        let message = Request {
            jsonrpc: "2.0",
            id,
            method,
            params,
        };
        let text = serde_json::to_string(&message).map_err(|err| {
            ClientError::Malformed(format!("the request cannot be written: {err}"))
        })?;
        self.send(text, headers).await?;
        Ok(pending)
    }

    /// Answers the server's request `id` with a result, or with a JSON-RPC error (its
    /// data sent when it has some).
    pub(crate) async fn respond(
        &self,
        id: Value,
        outcome: Result<Value, RpcError>,
    ) -> Result<(), ClientError> {
        let answer = match outcome {
            Ok(result) => json!({ "jsonrpc": "2.0", "id": id, "result": result }),
            Err(RpcError {
                code,
                message,
                data,
            }) => {
                let mut error = json!({ "code": code, "message": message });
                if let Some(data) = data {
                    error["data"] = data;
                }
                json!({ "jsonrpc": "2.0", "id": id, "error": error })
            }
        };
        self.send(answer.to_string(), Vec::new()).await
    }

    /// Who passes on a request the server made during `during` (or, unsaid, during the
    /// only request relayed), if anyone.
    fn relay_for(&self, during: Option<u64>) -> Option<mpsc::UnboundedSender<ServerRequest>> {
        let relays = lock(&self.relays);
        match during {
            Some(request) => relays.get(&request).cloned(),
            None if relays.len() == 1 => relays.values().next().cloned(),
            None => None,
        }
    }

    /// Who takes a log message the server sent during `during`, if anyone. A message on no
    /// request's stream, where the transport has no such streams (stdio), is the watched
    /// request's when that is the only request in flight (a lasting one aside), since it
    /// can have come during no other; with two or more in flight (watched or not), or where
    /// a transport has a stream per request (HTTP), it is no request's.
    fn log_for(&self, during: Option<u64>) -> Option<mpsc::UnboundedSender<Value>> {
        if let Some(request) = during {
            return lock(&self.logs).get(&request).cloned();
        }
        if self.streams == Streams::PerRequest {
            return None;
        }
        let in_flight: Vec<u64> = {
            let lasting = lock(&self.lasting);
            self.waiting
                .ids()
                .into_iter()
                .filter(|id| !lasting.contains(id))
                .collect()
        };
        match in_flight.as_slice() {
            [only] => lock(&self.logs).get(only).cloned(),
            _ => None,
        }
    }

    /// Reads until the transport ends, or until no one holds the link: then the outbox
    /// closes with it, and the transport closes the connection.
    async fn read(link: Weak<Self>, mut inbox: mpsc::Receiver<Inbound>, handlers: Arc<Handlers>) {
        let reason = loop {
            let inbound = inbox.recv().await;
            let Some(link) = link.upgrade() else {
                return;
            };
            match inbound {
                Some(Inbound::Message(message)) => link.take(&message, &handlers, None),
                Some(Inbound::During { text, request }) => {
                    link.take(&text, &handlers, Some(request));
                }
                Some(Inbound::Failed { id, error }) => {
                    link.waiting.deliver(&id, Err(error));
                }
                Some(Inbound::End(reason)) => break reason,
                None => break ClientError::closed("the server closed the connection"),
            }
        };
        if let Some(link) = link.upgrade() {
            link.end(reason);
        }
    }

    /// Ends the connection: every request waiting gets `reason`.
    pub(crate) fn end(&self, reason: ClientError) {
        self.ended.send_if_modified(|ended| {
            if ended.is_none() {
                *ended = Some(reason.clone());
                true
            } else {
                false
            }
        });
        self.waiting.answer_all(|| Err(reason.clone()));
        lock(&self.progress).clear();
        lock(&self.relays).clear();
        lock(&self.logs).clear();
        lock(&self.lasting).clear();
    }

    /// Takes one message from the server.
    fn take(self: &Arc<Self>, message: &str, handlers: &Arc<Handlers>, during: Option<u64>) {
        let value: Value = match serde_json::from_str(message) {
            Ok(value) => value,
            Err(err) => {
                tracing::warn!(error = %err, "the server sent a message that is not JSON; ignored");
                return;
            }
        };
        // A batch: each in turn.
        if let Value::Array(items) = value {
            for item in items {
                self.take_one(item, handlers, during);
            }
        } else {
            self.take_one(value, handlers, during);
        }
    }

    fn take_one(self: &Arc<Self>, value: Value, handlers: &Arc<Handlers>, during: Option<u64>) {
        let Value::Object(mut message) = value else {
            tracing::warn!("the server sent a message that is not an object; ignored");
            return;
        };
        // Where every message shares one stream (stdio), a server may name the request it
        // sends this during.
        let during = during.or_else(|| related_request(&message));
        let method = message
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let id = message.remove("id");
        match (method, id) {
            (Some(method), Some(id)) => {
                let params = message.remove("params").unwrap_or_else(|| json!({}));
                let mut request = ServerRequest { id, method, params };
                if RELAYED
                    .iter()
                    .any(|relayed| relayed.as_str() == request.method)
                {
                    if let Some(relay) = self.relay_for(during) {
                        match relay.send(request) {
                            Ok(()) => return,
                            // The request relayed has just ended: the handlers answer.
                            Err(mpsc::error::SendError(back)) => request = back,
                        }
                    }
                }
                let ServerRequest { id, method, params } = request;
                let link = Arc::clone(self);
                let handlers = Arc::clone(handlers);
                tokio::spawn(async move {
                    let answer = match handlers.answer(&method, params).await {
                        Ok(result) => json!({ "jsonrpc": "2.0", "id": id, "result": result }),
                        Err(error) => json!({
                            "jsonrpc": "2.0",
                            "id": id,
                            "error": { "code": error.code, "message": error.message },
                        }),
                    };
                    let _ = link.send(answer.to_string(), Vec::new()).await;
                });
            }
            (Some(method), None) => {
                let params = message.remove("params").unwrap_or_else(|| json!({}));
                if method == Method::Progress.as_str() {
                    let token = params.get("progressToken").map(token_key);
                    if let Some(sender) =
                        token.and_then(|token| lock(&self.progress).get(&token).cloned())
                    {
                        let _ = sender.send(params);
                        return;
                    }
                }
                if method == Method::Message.as_str() {
                    if let Some(sender) = self.log_for(during) {
                        match sender.send(params) {
                            Ok(()) => return,
                            // The request has just ended: a notification like any other.
                            Err(mpsc::error::SendError(back)) => {
                                let _ = self.notifications.send(Notification {
                                    method,
                                    params: back,
                                });
                                return;
                            }
                        }
                    }
                }
                let _ = self.notifications.send(Notification { method, params });
            }
            (None, Some(id)) => self.answered(&id, message),
            (None, None) => {
                tracing::warn!("the server sent a message with neither method nor id; ignored");
            }
        }
    }

    /// A response: to the request waiting for it, or, for no request waiting (answered
    /// twice, or never asked), ignored with a warning.
    fn answered(&self, id: &Value, mut message: Map<String, Value>) {
        let Some(request) = id.as_u64().filter(|request| self.waiting.awaits(request)) else {
            tracing::warn!(%id, "the server answered a request the client is not waiting for; ignored");
            return;
        };
        let outcome = match (message.remove("result"), message.remove("error")) {
            (Some(result), None) => Ok(result),
            (None, Some(Value::Object(error))) => Err(ClientError::Rpc(RpcError {
                code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
                message: error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("(no message)")
                    .to_owned(),
                data: error.get("data").cloned(),
            })),
            _ => Err(ClientError::Malformed(format!(
                "response {id} has neither a `result` nor an `error` object"
            ))),
        };
        self.waiting.deliver(&request, outcome);
    }
}

/// The request of this client's that `message` names in its `_meta` as the one it was sent
/// during, if it names one of the ids this client gives.
fn related_request(message: &Map<String, Value>) -> Option<u64> {
    message
        .get("params")?
        .get("_meta")?
        .get(mcp_runtime_core::wire::RELATED_REQUEST_META)?
        .as_u64()
}

/// What a request's caller hears of besides its answer, until it ends.
#[derive(Default)]
pub(crate) struct Watch {
    /// The id to send it under, reserved with [`Link::reserve_id`]; a new one if `None`.
    pub(crate) id: Option<u64>,
    /// `notifications/progress` with this token, to this sender.
    pub(crate) progress: Option<(String, mpsc::UnboundedSender<Value>)>,
    /// The server's requests made during it: those that arrive on its own stream (HTTP),
    /// and, where a transport has no such streams (stdio), those made while it is the only
    /// request relayed.
    pub(crate) relay: Option<mpsc::UnboundedSender<ServerRequest>>,
    /// The server's log messages (`notifications/message` params) sent during it: those on
    /// its own stream (HTTP), and, where a transport has no such streams (stdio), those
    /// sent while it is the only request in flight.
    pub(crate) log: Option<mpsc::UnboundedSender<Value>>,
    /// Whether it stays open while others come and go (`subscriptions/listen`): what the
    /// server sends on a shared stream is not taken to be its, nor is it counted as another
    /// request in flight.
    pub(crate) lasting: bool,
}

/// How a transport carries what the server sends during a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Streams {
    /// One stream for everything (stdio, a pipe in memory): nothing tells which request a
    /// notification belongs to but its content.
    Shared,
    /// A stream per request (streamable HTTP's response streams), besides one for the rest.
    PerRequest,
}

/// A request sent, its answer awaited. Dropped before the answer, it tells the server the
/// request is cancelled.
pub(crate) struct Pending {
    link: Arc<Link>,
    id: u64,
    answer: oneshot::Receiver<Result<Value, ClientError>>,
    progress_token: Option<String>,
    /// Whether the server's requests during this one are relayed.
    relayed: bool,
    /// Whether the server's log messages during this one are watched.
    logged: bool,
    /// Whether it stays open while others come and go.
    lasting: bool,
    done: bool,
}

impl Pending {
    /// The answer.
    pub(crate) async fn answer(mut self) -> Result<Value, ClientError> {
        let answer = (&mut self.answer).await.unwrap_or_else(|_| {
            Err(self
                .link
                .ended()
                .unwrap_or(ClientError::closed("the connection closed")))
        });
        self.done = true;
        answer
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if let Some(token) = &self.progress_token {
            lock(&self.link.progress).remove(token);
        }
        if self.relayed {
            lock(&self.link.relays).remove(&self.id);
        }
        if self.logged {
            lock(&self.link.logs).remove(&self.id);
        }
        if self.lasting {
            lock(&self.link.lasting).remove(&self.id);
        }
        if self.done || !self.link.waiting.forget(&self.id) {
            return;
        }
        let cancel = json!({
            "jsonrpc": "2.0",
            "method": Method::Cancelled.as_str(),
            "params": { "requestId": self.id, "reason": "the caller stopped waiting" },
        });
        // Best effort: a full outbox means the connection is stuck anyway.
        self.link.outbox.try_send(Outbound {
            text: cancel.to_string(),
            headers: Vec::new(),
        });
    }
}

/// A progress token as a map key: the string itself, or a number's digits.
fn token_key(token: &Value) -> String {
    match token {
        Value::String(token) => token.clone(),
        other => other.to_string(),
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
