//! [`Asker`]: what asks the client on behalf of a tool's call, or of a prompt's.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use serde_json::{Map, Value};

use super::ask;
use super::{AskError, Elicitation, Form, InputRequest, Root, Sampled, Sampling};

/// What asks the client on behalf of one call: a tool's ([`ToolContext::asker`](crate::ToolContext::asker),
/// or the same methods on the `ToolContext`), or a prompt's registered with
/// [`Registry::register_prompt_asking`](crate::Registry::register_prompt_asking). Cloning it is
/// cheap. Made by the framework; the one of a call from no client that can answer (an
/// in-process call) fails every ask with [`AskError::NoClient`].
#[derive(Debug, Clone, Default)]
pub struct Asker(pub(crate) Option<Arc<dyn AskChannel>>);

/// What carries a call's asks to the client: the server's, by the call's wire, or a task's,
/// through its record. The [`Asker`] reaches either through this, and names neither.
pub(crate) trait AskChannel: Send + Sync + std::fmt::Debug {
    /// Asks `request` under `key`, and waits for the answer.
    fn ask<'a>(&'a self, key: &'a str, request: InputRequest) -> Asking<'a>;

    /// What the client declared it can answer, when known.
    // Read by the gateway only, which passes them on to a mounted server.
    #[cfg_attr(not(feature = "client"), allow(dead_code))]
    fn capabilities(&self) -> Option<Arc<Map<String, Value>>>;

    /// Itself, for the side that made it to find its own type again.
    fn into_any(self: Arc<Self>) -> Arc<dyn std::any::Any + Send + Sync>;
}

impl Asker {
    /// Asks the client `request` under `key`, and waits for its answer (the result of the
    /// request, as JSON). `key` names the ask within the call: give each ask of a tool its
    /// own, the same from call to call.
    ///
    /// At 2026-07-28 the call is answered over rounds: an ask not yet answered ends the
    /// round, the client answers, and the tool (or prompt) runs again from its start, this
    /// time getting the answer at once. So only `async` code can ask, and what it does
    /// before an ask runs once per round. A client that did not declare the capability the
    /// request needs gets no request: the ask fails with [`AskError::MissingCapability`],
    /// and never waits.
    pub async fn ask(&self, key: &str, request: InputRequest) -> Result<Value, AskError> {
        let Some(asks) = &self.0 else {
            return Err(AskError::NoClient(
                "only a call from an MCP client that takes requests can ask it",
            ));
        };
        asks.ask(key, request).await
    }

    /// What the client declared it can answer, when known.
    #[cfg(feature = "client")]
    pub(crate) fn capabilities(&self) -> Option<Arc<Map<String, Value>>> {
        self.0.as_ref().and_then(|asks| asks.capabilities())
    }

    /// Asks the user to fill in a form of `T`'s fields, with `message` saying why.
    /// `T` derives [`Form`]: a struct of named fields, each a string, number, integer,
    /// boolean, a unit-variant enum, or a list of such an enum; a field's doc comment is its
    /// description, and `#[serde(default)]` values are the form's defaults.
    ///
    /// The derive refuses at compile time, on the field, what a form cannot hold, and a
    /// `T` that is no `Form` cannot be awaited. What the derive cannot see is checked when
    /// the registry is built (see [`Form`]); only a generic form's schema is checked when it
    /// is asked, as [`AskError::Form`].
    pub fn elicit<'a, T>(&self, key: &'a str, message: &'a str) -> Elicit<'a, T> {
        Elicit {
            asker: self.clone(),
            key,
            message,
            pending: None,
            form: PhantomData,
        }
    }

    asks_built_on_ask!();
}

/// The asks built on `ask` (a form given as a schema, a URL, a sampled message, the
/// roots), written once for the two types that ask: [`Asker`], and the
/// [`ToolContext`](crate::ToolContext), whose `ask` is its asker's. The names they use are
/// the invoking module's.
macro_rules! asks_built_on_ask {
    () => {
        /// Asks the user to fill in a form whose restricted JSON Schema is given as is.
        pub async fn elicit_with(
            &self,
            key: &str,
            message: &str,
            requested_schema: Value,
        ) -> Result<Elicitation<Map<String, Value>>, AskError> {
            let answer = self
                .ask(key, InputRequest::elicit(message, requested_schema))
                .await?;
            $crate::talk::ask::elicitation(key, answer)
        }

        /// Asks the user to visit `url` (URL-mode elicitation): for what must not pass
        /// through the client, such as credentials or a payment. The answer says only whether
        /// they agreed to go; what happens there reaches the server by its own way.
        pub async fn elicit_url(
            &self,
            key: &str,
            message: &str,
            url: &str,
        ) -> Result<Elicitation<()>, AskError> {
            let answer = self
                .ask(key, InputRequest::elicit_url(message, url, key))
                .await?;
            match $crate::talk::ask::elicitation::<Value>(key, answer)? {
                Elicitation::Accept(_) => Ok(Elicitation::Accept(())),
                Elicitation::Decline => Ok(Elicitation::Decline),
                Elicitation::Cancel => Ok(Elicitation::Cancel),
            }
        }

        /// Asks the client's model for a message.
        pub async fn sample(&self, key: &str, sampling: &Sampling) -> Result<Sampled, AskError> {
            let answer = self.ask(key, InputRequest::sample(sampling)).await?;
            serde_json::from_value(answer).map_err(|err| AskError::Malformed {
                key: key.to_owned(),
                reason: format!("not a sampled message: {err}"),
            })
        }

        /// Asks the client for its roots.
        pub async fn roots(&self, key: &str) -> Result<Vec<Root>, AskError> {
            let answer = self.ask(key, InputRequest::roots()).await?;
            #[derive(serde::Deserialize)]
            struct Roots {
                roots: Vec<Root>,
            }
            serde_json::from_value::<Roots>(answer)
                .map(|answer| answer.roots)
                .map_err(|err| AskError::Malformed {
                    key: key.to_owned(),
                    reason: format!("not a list of roots: {err}"),
                })
        }
    };
}

pub(crate) use asks_built_on_ask;

/// An ask sent, its answer awaited.
pub(crate) type Asking<'a> = Pin<Box<dyn Future<Output = Result<Value, AskError>> + Send + 'a>>;

/// An elicitation under way: [`Asker::elicit`], or [`ToolContext::elicit`](crate::ToolContext::elicit),
/// to be awaited.
///
/// It is a future only when `T` is a [`Form`], so that a `T` which is none is one compile
/// error, on the `.await`, saying so.
#[must_use = "an ask does nothing until it is awaited"]
pub struct Elicit<'a, T> {
    asker: Asker,
    key: &'a str,
    message: &'a str,
    pending: Option<Asking<'a>>,
    form: PhantomData<fn() -> T>,
}

impl<T: Form> Future for Elicit<'_, T> {
    type Output = Result<Elicitation<T>, AskError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        let pending = match &mut this.pending {
            Some(pending) => pending,
            None => {
                let schema = match super::form::form_schema::<T>() {
                    Ok(schema) => schema,
                    Err(reason) => return Poll::Ready(Err(AskError::Form(reason))),
                };
                let (asker, key) = (this.asker.clone(), this.key);
                let request = InputRequest::elicit(this.message, schema);
                this.pending
                    .insert(Box::pin(async move { asker.ask(key, request).await }))
            }
        };
        let answer = ready!(pending.as_mut().poll(cx));
        Poll::Ready(answer.and_then(|answer| ask::elicitation(this.key, answer)))
    }
}

impl<T> std::fmt::Debug for Elicit<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Elicit")
            .field("key", &self.key)
            .field("message", &self.message)
            .field("asked", &self.pending.is_some())
            .finish()
    }
}
