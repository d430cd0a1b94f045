//! [`Asker`]: what asks the client on behalf of a tool's call, or of a prompt's.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::ask::{self, Asks};
use super::{AskError, Elicitation, InputRequest, Root, Sampled, Sampling};

/// What asks the client on behalf of one call: a tool's ([`ToolContext::asker`](crate::ToolContext::asker),
/// or the same methods on the `ToolContext`), or a prompt's registered with
/// [`Registry::register_prompt_asking`](crate::Registry::register_prompt_asking). Cloning it is
/// cheap. Made by the framework; the one of a call from no client that can answer (an
/// in-process call) fails every ask with [`AskError::NoClient`].
#[derive(Debug, Clone, Default)]
pub struct Asker(pub(crate) Option<Arc<Asks>>);

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

    /// Asks the user to fill in a form of `T`'s fields, with `message` saying why.
    /// `T` must be a struct of named fields, each a string, number, integer, boolean, a
    /// unit-variant enum, or a list of such an enum; a field's doc comment is its
    /// description, and `#[serde(default)]` values are the form's defaults.
    ///
    /// A type that cannot be a form is refused when the registry is built, naming the tool,
    /// the type and the field, for each `ctx.elicit::<T>(…)` written in an `#[mcp_tool]`'s
    /// body. Where the macro cannot see the type (inferred, or asked from elsewhere), the
    /// ask fails with [`AskError::Form`] instead.
    pub async fn elicit<T: JsonSchema + DeserializeOwned>(
        &self,
        key: &str,
        message: &str,
    ) -> Result<Elicitation<T>, AskError> {
        let schema = super::form::form_schema::<T>().map_err(AskError::Form)?;
        let answer = self.ask(key, InputRequest::elicit(message, schema)).await?;
        ask::elicitation(key, answer)
    }

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
        ask::elicitation(key, answer)
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
        match ask::elicitation::<Value>(key, answer)? {
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
}
