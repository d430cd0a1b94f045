//! What a tool asks of the client while it runs: the user (elicitation), the client's
//! model (sampling), the client's roots.
//!
//! A tool asks through its [`ToolContext`](crate::ToolContext), the same way whatever the
//! wire; what carries an ask to the client is the server's ([`AskChannel`](super::AskChannel)). At 2026-07-28 a call that asks is answered over rounds: the first round that meets
//! an ask not yet answered ends with an `InputRequiredResult` naming every ask still open,
//! the client calls again with the answers, and the tool body runs again from its start,
//! its earlier asks answered at once from the answers replayed (sealed in `requestState`).
//! Work a tool does before an ask therefore runs once per round: do side effects after the
//! asks they depend on.

use mcp_runtime_core::method::Method;
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
    Form(super::form::FormSchemaError),
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
