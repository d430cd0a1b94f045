//! What a tool asks of the client while it runs: the user (elicitation), the client's
//! model (sampling), the client's roots.
//!
//! A tool asks through its [`ToolContext`](crate::ToolContext), the same way whatever the
//! wire. At 2026-07-28 a call that asks is answered over rounds: the first round that meets
//! an ask not yet answered ends with an `InputRequiredResult` naming every ask still open,
//! the client calls again with the answers, and the tool body runs again from its start,
//! its earlier asks answered at once from the answers replayed (sealed in `requestState`).
//! Work a tool does before an ask therefore runs once per round: do side effects after the
//! asks they depend on.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use mcp_runtime_core::method::Method;
use tokio::sync::oneshot;

use mcp_runtime_core::{Role, ToolError};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// One request to the client, as `inputRequests` carries it: its method and params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputRequest {
    /// `elicitation/create`, `sampling/createMessage` or `roots/list`.
    pub method: String,
    /// Its parameters.
    pub params: Value,
}

impl InputRequest {
    /// A form for the user: `message`, and the restricted JSON Schema of what to fill in.
    pub fn elicit(message: impl Into<String>, requested_schema: Value) -> Self {
        Self {
            method: Method::ElicitationCreate.as_str().to_owned(),
            params: json!({
                "mode": "form",
                "message": message.into(),
                "requestedSchema": requested_schema,
            }),
        }
    }

    /// A page for the user to visit at `url` (URL-mode elicitation), for what must not
    /// pass through the client (credentials, payment); `id` names the elicitation.
    pub fn elicit_url(message: impl Into<String>, url: impl Into<String>, id: &str) -> Self {
        Self {
            method: Method::ElicitationCreate.as_str().to_owned(),
            params: json!({
                "mode": "url",
                "message": message.into(),
                "url": url.into(),
                "elicitationId": id,
            }),
        }
    }

    /// A message for the client's model.
    pub fn sample(sampling: &Sampling) -> Self {
        Self {
            method: Method::SamplingCreateMessage.as_str().to_owned(),
            params: serde_json::to_value(sampling).unwrap_or(Value::Null),
        }
    }

    /// The client's roots.
    pub fn roots() -> Self {
        Self {
            method: Method::RootsList.as_str().to_owned(),
            params: json!({}),
        }
    }

    /// The client capability the request needs: `elicitation.url` for a URL-mode
    /// elicitation.
    pub fn capability(&self) -> &'static str {
        match Method::parse(&self.method) {
            Method::ElicitationCreate
                if self.params.get("mode").and_then(Value::as_str) == Some("url") =>
            {
                "elicitation.url"
            }
            Method::ElicitationCreate => "elicitation",
            Method::SamplingCreateMessage => "sampling",
            _ => "roots",
        }
    }
}

/// Why an ask got no answer.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AskError {
    /// The client did not declare the capability the ask needs.
    #[error("the client did not declare the `{0}` capability")]
    MissingCapability(&'static str),
    /// Nothing to ask: the call did not come from a client (an in-process call), or it came
    /// over a wire this server does not ask on.
    #[error("no client to ask: {0}")]
    NoClient(&'static str),
    /// The client answered with an error.
    #[error("the client answered `{key}` with an error: {message}")]
    Client {
        /// The ask.
        key: String,
        /// The error's message.
        message: String,
    },
    /// The form's type does not fit elicitation's restricted schema (a type the registry
    /// could not check when it was built).
    #[error("the form does not fit elicitation's restricted schema: {0}")]
    Form(String),
    /// The client's answer is not what was asked for.
    #[error("the client's answer to `{key}` is malformed: {reason}")]
    Malformed {
        /// The ask.
        key: String,
        /// What is wrong with it.
        reason: String,
    },
}

impl From<AskError> for ToolError {
    fn from(err: AskError) -> Self {
        match err {
            AskError::MissingCapability(_) | AskError::NoClient(_) => ToolError::new(
                mcp_runtime_core::ErrorType::PermissionError,
                err.to_string(),
            ),
            _ => ToolError::execution(err.to_string()),
        }
    }
}

/// What the user did with a form.
#[derive(Debug, Clone, PartialEq)]
pub enum Elicitation<T> {
    /// They filled it in.
    Accept(T),
    /// They said no.
    Decline,
    /// They dismissed it without choosing.
    Cancel,
}

impl<T> Elicitation<T> {
    /// What they filled in, if they accepted.
    pub fn accepted(self) -> Option<T> {
        match self {
            Self::Accept(value) => Some(value),
            _ => None,
        }
    }

    /// `accept`, `decline` or `cancel`.
    pub fn action(&self) -> &'static str {
        match self {
            Self::Accept(_) => "accept",
            Self::Decline => "decline",
            Self::Cancel => "cancel",
        }
    }
}

/// Reads an `ElicitResult` into `T`.
pub(crate) fn elicitation<T: DeserializeOwned>(
    key: &str,
    answer: Value,
) -> Result<Elicitation<T>, AskError> {
    let malformed = |reason: String| AskError::Malformed {
        key: key.to_owned(),
        reason,
    };
    match answer.get("action").and_then(Value::as_str) {
        Some("accept") => {
            let content = answer
                .get("content")
                .cloned()
                .unwrap_or_else(|| Value::Object(Map::new()));
            serde_json::from_value(content)
                .map(Elicitation::Accept)
                .map_err(|err| malformed(format!("its content does not fit the form: {err}")))
        }
        Some("decline") => Ok(Elicitation::Decline),
        Some("cancel") => Ok(Elicitation::Cancel),
        _ => Err(malformed(
            "`action` must be accept, decline or cancel".to_owned(),
        )),
    }
}

/// A message for the client's model: `sampling/createMessage`'s parameters.
///
/// ```
/// use mcp_runtime::talk::Sampling;
///
/// let sampling = Sampling::user("Summarise: …", 200).with_system_prompt("Be brief.");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Sampling {
    /// The conversation so far.
    pub messages: Vec<SamplingMessage>,
    /// The most tokens to sample.
    pub max_tokens: u32,
    /// A system prompt the client may use.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Which model the server would prefer (hints, and priorities of cost, speed and
    /// intelligence), as MCP's `ModelPreferences`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<Value>,
    /// The sampling temperature.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Where to stop.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stop_sequences: Vec<String>,
}

/// One message of a [`Sampling`] conversation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SamplingMessage {
    /// Who says it.
    pub role: Role,
    /// What is said: text, an image or audio, as MCP's content.
    pub content: Value,
}

impl Sampling {
    /// One user message of `text`, with at most `max_tokens` in the answer.
    pub fn user(text: impl Into<String>, max_tokens: u32) -> Self {
        Self {
            messages: vec![SamplingMessage {
                role: Role::User,
                content: json!({ "type": "text", "text": text.into() }),
            }],
            max_tokens,
            system_prompt: None,
            model_preferences: None,
            temperature: None,
            stop_sequences: Vec::new(),
        }
    }

    /// With a system prompt.
    #[must_use]
    pub fn with_system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// With model preferences (MCP's `ModelPreferences`).
    #[must_use]
    pub fn with_model_preferences(mut self, preferences: Value) -> Self {
        self.model_preferences = Some(preferences);
        self
    }

    /// With another message.
    #[must_use]
    pub fn with_message(mut self, role: Role, text: impl Into<String>) -> Self {
        self.messages.push(SamplingMessage {
            role,
            content: json!({ "type": "text", "text": text.into() }),
        });
        self
    }
}

/// The client model's answer to a [`Sampling`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Sampled {
    /// Who speaks: the assistant.
    pub role: Role,
    /// What it said, as MCP's content.
    pub content: Value,
    /// The model that answered.
    #[serde(default)]
    pub model: String,
    /// Why it stopped.
    #[serde(default)]
    pub stop_reason: Option<String>,
}

impl Sampled {
    /// The text it said, when it said text.
    pub fn text(&self) -> Option<&str> {
        self.content.get("text").and_then(Value::as_str)
    }
}

/// One of the client's roots: a directory or file the server may work on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Root {
    /// Its URI, `file://…`.
    pub uri: String,
    /// A name for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

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

/// How a call's asks reach the client.
#[derive(Debug)]
pub(crate) struct Asks {
    /// What the client declared (`_meta` at 2026-07-28, `initialize` before); `None` when
    /// unknown.
    pub(crate) capabilities: Option<Arc<Map<String, Value>>>,
    pub(crate) way: Way,
    /// The task the call becomes, when it runs as one.
    pub(crate) task: TaskSlot,
}

/// The task a call becomes: once it does, asks wait in its record for `tasks/update`
/// (those its round answered are still answered from the round).
#[derive(Debug, Default)]
pub(crate) struct TaskSlot {
    /// Whether the call runs as a task.
    pub(crate) mode: std::sync::atomic::AtomicBool,
    /// Whether the tool said its task starts now ([`ToolContext::start_task`](crate::ToolContext::start_task)).
    pub(crate) wanted: std::sync::atomic::AtomicBool,
    /// The task, once it exists.
    pub(crate) link: std::sync::OnceLock<Arc<crate::tasks::engine::TaskLink>>,
    /// Wakes the asks waiting for the task to exist.
    pub(crate) ready: tokio::sync::Notify,
}

impl TaskSlot {
    /// Whether asks go through the task: it exists, or the tool started it.
    fn active(&self) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        self.link.get().is_some() || (self.mode.load(Relaxed) && self.wanted.load(Relaxed))
    }

    /// The task, once it exists.
    async fn link(&self) -> Arc<crate::tasks::engine::TaskLink> {
        loop {
            let ready = self.ready.notified();
            if let Some(link) = self.link.get() {
                return Arc::clone(link);
            }
            ready.await;
        }
    }

    /// The task exists: asks waiting for it go on.
    pub(crate) fn set(&self, link: Arc<crate::tasks::engine::TaskLink>) {
        let _ = self.link.set(link);
        self.ready.notify_waiters();
    }
}

/// The two wire models of asking.
pub(crate) enum Way {
    /// 2026-07-28: answered from the answers given, or the round ends.
    Round {
        round: Round,
        /// What the round's sealed state is bound to.
        context: String,
    },
    /// The handshake's revisions: a request to the client on the call's stream, its
    /// response routed back by [`Outgoing`].
    Send {
        /// The call's stream; `None` when its answer is no stream (an HTTP client that
        /// takes JSON only), so that nothing can be sent.
        send: Option<Arc<dyn Fn(String) + Send + Sync>>,
        outgoing: Arc<Outgoing>,
    },
}

impl std::fmt::Debug for Way {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Round { round, context } => f
                .debug_struct("Round")
                .field("round", round)
                .field("context", context)
                .finish(),
            Self::Send { .. } => f.write_str("Send"),
        }
    }
}

/// The requests this server sent clients and awaits the responses of, by id. An id is 128
/// random bits, so that no client answers another's request by guessing it.
#[derive(Debug, Default)]
pub(crate) struct Outgoing {
    waiting: Mutex<HashMap<String, oneshot::Sender<Result<Value, Value>>>>,
}

/// A request awaiting its response; dropping it forgets the request.
pub(crate) struct Awaited<'a> {
    outgoing: &'a Outgoing,
    pub(crate) id: String,
    pub(crate) response: oneshot::Receiver<Result<Value, Value>>,
}

impl Drop for Awaited<'_> {
    fn drop(&mut self) {
        lock(&self.outgoing.waiting).remove(&self.id);
    }
}

impl Outgoing {
    /// A new request id, and where its response will come.
    pub(crate) fn open(&self) -> Result<Awaited<'_>, AskError> {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes)
            .map_err(|_| AskError::NoClient("no randomness for a request id"))?;
        let id: String = std::iter::once("mcp-runtime-".to_owned())
            .chain(bytes.iter().map(|byte| format!("{byte:02x}")))
            .collect();
        let (sender, response) = oneshot::channel();
        lock(&self.waiting).insert(id.clone(), sender);
        Ok(Awaited {
            outgoing: self,
            id,
            response,
        })
    }

    /// Hands the client's response to the request `id` awaits; false when none does.
    pub(crate) fn deliver(&self, id: &str, outcome: Result<Value, Value>) -> bool {
        match lock(&self.waiting).remove(id) {
            Some(sender) => sender.send(outcome).is_ok(),
            None => false,
        }
    }
}

impl Asks {
    /// The round of a 2026-07-28 call.
    pub(crate) fn round(&self) -> Option<&Round> {
        match &self.way {
            Way::Round { round, .. } => Some(round),
            Way::Send { .. } => None,
        }
    }

    /// Asks `request` under `key` and waits for the answer.
    pub(crate) async fn ask(&self, key: &str, request: InputRequest) -> Result<Value, AskError> {
        let capability = request.capability();
        if !self.declared(capability) {
            return Err(AskError::MissingCapability(capability));
        }
        if self.task.active() {
            if let Some(answer) = self.round().and_then(|round| round.given(key)) {
                return Ok(answer);
            }
            return self.task.link().await.ask(key, request).await;
        }
        match &self.way {
            Way::Round { round, .. } => match round.answer(key, request) {
                Some(answer) => Ok(answer),
                // The round ends here: the call is answered with what is still open.
                None => std::future::pending().await,
            },
            Way::Send { send, outgoing } => {
                let Some(send) = send else {
                    return Err(AskError::NoClient(
                        "the call's answer is no stream a request can go on (over HTTP, accept text/event-stream)",
                    ));
                };
                let awaited = outgoing.open()?;
                let message = json!({
                    "jsonrpc": "2.0",
                    "id": awaited.id,
                    "method": request.method,
                    "params": request.params,
                });
                send(message.to_string());
                match (&mut { awaited }.response).await {
                    Ok(Ok(result)) => Ok(result),
                    Ok(Err(error)) => Err(AskError::Client {
                        key: key.to_owned(),
                        message: error
                            .get("message")
                            .and_then(Value::as_str)
                            .unwrap_or("no message")
                            .to_owned(),
                    }),
                    Err(_) => Err(AskError::NoClient("the connection closed")),
                }
            }
        }
    }

    /// Whether the client declared `capability` (`elicitation.url`: `url` within
    /// `elicitation`).
    pub(crate) fn declared(&self, capability: &str) -> bool {
        let Some(capabilities) = &self.capabilities else {
            return false;
        };
        match capability.split_once('.') {
            Some((outer, inner)) => capabilities
                .get(outer)
                .and_then(Value::as_object)
                .is_some_and(|outer| outer.contains_key(inner)),
            None => capabilities.contains_key(capability),
        }
    }
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
    answers: Map<String, Value>,
    /// What this round asked and found answered, to carry into the next round's state.
    used: Mutex<Map<String, Value>>,
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
            Some(answer) => {
                lock(&self.used).insert(key.to_owned(), answer.clone());
                Some(answer.clone())
            }
            None => {
                lock(&self.open).insert(key.to_owned(), request);
                None
            }
        }
    }

    /// The answer to `key`, if given, without recording an ask.
    pub(crate) fn given(&self, key: &str) -> Option<Value> {
        let answer = self.answers.get(key)?;
        lock(&self.used).insert(key.to_owned(), answer.clone());
        Some(answer.clone())
    }

    /// Whether an ask is still open.
    pub(crate) fn is_open(&self) -> bool {
        !lock(&self.open).is_empty()
    }

    /// The asks still open, by key.
    pub(crate) fn open(&self) -> BTreeMap<String, InputRequest> {
        lock(&self.open).clone()
    }

    /// The answers this round used, for the next round's state.
    pub(crate) fn used(&self) -> Map<String, Value> {
        lock(&self.used).clone()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
