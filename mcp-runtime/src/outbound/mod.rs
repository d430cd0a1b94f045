//! The server's requests to its client, made on behalf of a call that asks: how a call's
//! asks reach the client ([`Asks`]), by either wire model: over rounds of the call at
//! 2026-07-28 ([`Round`]), or as requests on the call's stream whose responses come back
//! by id ([`Outgoing`]); and, once the call runs as a task, through the task's record
//! ([`TaskSlot`]). A tool sees none of this: its [`Asker`](crate::talk::Asker) reaches it
//! through [`AskChannel`].

mod outgoing;
mod round;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Map, Value, json};

use crate::talk::{AskChannel, AskError, Asker, Asking, InputRequest};

pub(crate) use outgoing::Outgoing;
pub(crate) use round::{Round, ends_round, is_input_response};

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
    pub(crate) mode: AtomicBool,
    /// Whether the tool said its task starts now ([`ToolContext::start_task`](crate::ToolContext::start_task)).
    pub(crate) wanted: AtomicBool,
    /// What the task's asks go through, once it exists.
    link: std::sync::OnceLock<Arc<dyn AskChannel>>,
    /// Wakes the asks waiting for the task to exist.
    ready: tokio::sync::Notify,
}

impl TaskSlot {
    /// Whether asks go through the task: it exists, or the tool started it.
    fn active(&self) -> bool {
        self.link.get().is_some()
            || (self.mode.load(Ordering::Relaxed) && self.wanted.load(Ordering::Relaxed))
    }

    /// What the task's asks go through, once it exists.
    async fn link(&self) -> Arc<dyn AskChannel> {
        loop {
            let ready = self.ready.notified();
            if let Some(link) = self.link.get() {
                return Arc::clone(link);
            }
            ready.await;
        }
    }

    /// The task exists, its asks going through `link`: asks waiting for it go on.
    pub(crate) fn set<L: AskChannel + 'static>(&self, link: Arc<L>) {
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
        /// The id of the call that asks, named in each request's `_meta`.
        related: Option<Value>,
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
            Way::Send {
                send,
                outgoing,
                related,
            } => {
                let Some(send) = send else {
                    return Err(AskError::NoClient(
                        "the call's answer is no stream a request can go on (over HTTP, accept text/event-stream)",
                    ));
                };
                send_and_await(send, outgoing, key, request, related.as_ref()).await
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

impl AskChannel for Asks {
    fn ask<'a>(&'a self, key: &'a str, request: InputRequest) -> Asking<'a> {
        Box::pin(Asks::ask(self, key, request))
    }

    fn capabilities(&self) -> Option<Arc<Map<String, Value>>> {
        self.capabilities.clone()
    }

    fn into_any(self: Arc<Self>) -> Arc<dyn std::any::Any + Send + Sync> {
        self
    }
}

impl Asks {
    /// What asks the client through these: a tool's or a prompt's [`Asker`].
    pub(crate) fn asker(self: &Arc<Self>) -> Asker {
        Asker(Some(Arc::clone(self) as Arc<dyn AskChannel>))
    }

    /// The asks behind `asker`, when the server made it (not a task's).
    pub(crate) fn of(asker: &Asker) -> Option<Arc<Asks>> {
        let channel = Arc::clone(asker.0.as_ref()?);
        channel.into_any().downcast::<Asks>().ok()
    }
}

/// Sends `request` to the client on the call's stream, naming the call `related` in its
/// `_meta`, and waits for its response.
async fn send_and_await(
    send: &Arc<dyn Fn(String) + Send + Sync>,
    outgoing: &Outgoing,
    key: &str,
    request: InputRequest,
    related: Option<&Value>,
) -> Result<Value, AskError> {
    let awaited = outgoing.open()?;
    let InputRequest { method, mut params } = request;
    if let Some(related) = related {
        related_in(&mut params, related);
    }
    let message = json!({
        "jsonrpc": "2.0",
        "id": awaited.id,
        "method": method,
        "params": params,
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

/// `params` with `_meta` naming the client's request `related`, which it was sent during.
pub(crate) fn related_in(params: &mut Value, related: &Value) {
    if let Value::Object(params) = params {
        let meta = params
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(meta) = meta {
            meta.insert(
                mcp_runtime_core::wire::RELATED_REQUEST_META.to_owned(),
                related.clone(),
            );
        }
    }
}
