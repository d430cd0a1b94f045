//! One connection to a server, whatever carries it: messages out through a channel, messages
//! in from another. Requests are matched to their responses by id; the server's own requests
//! go to the client's handlers; notifications go to whoever listens. When the connection
//! ends, every request still waiting gets the reason, at once.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

use serde_json::{Map, Value, json};
use tokio::sync::{broadcast, mpsc, oneshot, watch};

use super::ClientError;
use super::handlers::Handlers;

/// What a transport hands the link.
#[derive(Debug)]
pub(crate) enum Inbound {
    /// A message read.
    Message(String),
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

type Waiting = oneshot::Sender<Result<Value, ClientError>>;

/// The shared half of a connection.
pub(crate) struct Link {
    outbox: mpsc::Sender<Outbound>,
    waiting: Mutex<HashMap<u64, Waiting>>,
    progress: Mutex<HashMap<String, mpsc::UnboundedSender<Value>>>,
    next_id: AtomicU64,
    notifications: broadcast::Sender<Notification>,
    /// Why the connection ended, once it has.
    ended: watch::Sender<Option<ClientError>>,
}

impl Link {
    /// A link sending through `outbox` and reading `inbox`, answering the server's requests
    /// with `handlers`. The reading runs as a task until `inbox` ends.
    pub(crate) fn start(
        outbox: mpsc::Sender<Outbound>,
        inbox: mpsc::Receiver<Inbound>,
        handlers: Arc<Handlers>,
    ) -> Arc<Self> {
        let (notifications, _) = broadcast::channel(256);
        let link = Arc::new(Self {
            outbox,
            waiting: Mutex::new(HashMap::new()),
            progress: Mutex::new(HashMap::new()),
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
            .map_err(|_| {
                self.ended()
                    .unwrap_or(ClientError::closed("the connection closed"))
            })
    }

    /// Sends a request and registers its id; the answer comes through the returned
    /// [`Pending`], which cancels the request on the server if dropped unanswered.
    pub(crate) async fn request(
        self: &Arc<Self>,
        method: &str,
        params: Map<String, Value>,
        headers: Vec<(String, String)>,
    ) -> Result<Pending, ClientError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (sender, answer) = oneshot::channel();
        lock(&self.waiting).insert(id, sender);
        let pending = Pending {
            link: Arc::clone(self),
            id,
            answer,
            progress_token: None,
            done: false,
        };
        // Ended meanwhile: the reader already failed everything waiting, maybe not this.
        if let Some(ended) = self.ended() {
            lock(&self.waiting).remove(&id);
            return Err(ended);
        }
        let message = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        self.send(message.to_string(), headers).await?;
        Ok(pending)
    }

    /// Routes `notifications/progress` with `token` to `sender` until the request ends.
    pub(crate) fn watch_progress(&self, token: &str, sender: mpsc::UnboundedSender<Value>) {
        lock(&self.progress).insert(token.to_owned(), sender);
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
                Some(Inbound::Message(message)) => link.take(&message, &handlers),
                Some(Inbound::Failed { id, error }) => {
                    if let Some(waiter) = lock(&link.waiting).remove(&id) {
                        let _ = waiter.send(Err(error));
                    }
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
        let waiting: Vec<Waiting> = lock(&self.waiting).drain().map(|(_, w)| w).collect();
        for waiter in waiting {
            let _ = waiter.send(Err(reason.clone()));
        }
        lock(&self.progress).clear();
    }

    /// Takes one message from the server.
    fn take(self: &Arc<Self>, message: &str, handlers: &Arc<Handlers>) {
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
                self.take_one(item, handlers);
            }
        } else {
            self.take_one(value, handlers);
        }
    }

    fn take_one(self: &Arc<Self>, value: Value, handlers: &Arc<Handlers>) {
        let Value::Object(mut message) = value else {
            tracing::warn!("the server sent a message that is not an object; ignored");
            return;
        };
        let method = message
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let id = message.remove("id");
        match (method, id) {
            (Some(method), Some(id)) => {
                let params = message.remove("params").unwrap_or_else(|| json!({}));
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
                if method == "notifications/progress" {
                    let token = params.get("progressToken").map(token_key);
                    if let Some(sender) =
                        token.and_then(|token| lock(&self.progress).get(&token).cloned())
                    {
                        let _ = sender.send(params);
                        return;
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
        let Some(waiter) = id.as_u64().and_then(|id| lock(&self.waiting).remove(&id)) else {
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
        let _ = waiter.send(outcome);
    }
}

/// A request sent, its answer awaited. Dropped before the answer, it tells the server the
/// request is cancelled.
pub(crate) struct Pending {
    link: Arc<Link>,
    id: u64,
    answer: oneshot::Receiver<Result<Value, ClientError>>,
    progress_token: Option<String>,
    done: bool,
}

impl Pending {
    /// Watches progress under `token` until this request ends.
    pub(crate) fn with_progress(mut self, token: String) -> Self {
        self.progress_token = Some(token);
        self
    }

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
        if self.done || lock(&self.link.waiting).remove(&self.id).is_none() {
            return;
        }
        let cancel = json!({
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": { "requestId": self.id, "reason": "the caller stopped waiting" },
        });
        // Best effort: a full outbox means the connection is stuck anyway.
        let _ = self.link.outbox.try_send(Outbound {
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
