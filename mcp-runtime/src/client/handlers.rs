//! What the client answers when the server asks: the application's handlers for
//! elicitation, sampling and roots. The capabilities the client declares are the handlers
//! it has.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use mcp_runtime_core::method::Method;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::talk::Root;

type Answering<T> = Pin<Box<dyn Future<Output = Result<T, HandlerError>> + Send>>;
type ElicitFn = Arc<dyn Fn(ElicitRequest) -> Answering<ElicitResponse> + Send + Sync>;
type SampleFn = Arc<dyn Fn(Value) -> Answering<Value> + Send + Sync>;
type RootsFn = Arc<dyn Fn() -> Answering<Vec<Root>> + Send + Sync>;

/// What the server asks the user (`elicitation/create`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitRequest {
    /// `form` (the default) or `url`.
    #[serde(default = "form_mode")]
    pub mode: String,
    /// Why it asks.
    pub message: String,
    /// A form's restricted JSON Schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_schema: Option<Value>,
    /// The page to visit, in URL mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The elicitation's id, in URL mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
}

fn form_mode() -> String {
    "form".to_owned()
}

/// What the user answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitResponse {
    /// `accept`, `decline` or `cancel`.
    pub action: String,
    /// The form's values, when accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Map<String, Value>>,
}

impl ElicitResponse {
    /// Accepted, with the form's values.
    pub fn accept(content: Map<String, Value>) -> Self {
        Self {
            action: "accept".to_owned(),
            content: Some(content),
        }
    }

    /// Declined.
    pub fn decline() -> Self {
        Self {
            action: "decline".to_owned(),
            content: None,
        }
    }

    /// Cancelled.
    pub fn cancel() -> Self {
        Self {
            action: "cancel".to_owned(),
            content: None,
        }
    }
}

/// Why a handler did not answer the server's request: the server is answered with a
/// JSON-RPC internal error (-32603) whose message is this error's.
///
/// ```
/// use mcp_runtime::client::HandlerError;
///
/// let refused: HandlerError = "no model is configured".into();
/// assert_eq!(refused.to_string(), "no model is configured");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HandlerError {
    /// The handler failed, for the reason given.
    #[error("{0}")]
    Failed(String),
}

impl From<String> for HandlerError {
    fn from(reason: String) -> Self {
        Self::Failed(reason)
    }
}

impl From<&str> for HandlerError {
    fn from(reason: &str) -> Self {
        Self::Failed(reason.to_owned())
    }
}

/// A JSON-RPC error answered to the server.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Refusal {
    pub(crate) code: i64,
    pub(crate) message: String,
}

/// The application's answers to the server's requests.
#[derive(Clone, Default)]
pub(crate) struct Handlers {
    pub(crate) elicitation: Option<ElicitFn>,
    pub(crate) sampling: Option<SampleFn>,
    pub(crate) roots: Option<RootsFn>,
    /// Declares every capability, whatever the handlers: the requests are relayed.
    pub(crate) relays: bool,
}

impl std::fmt::Debug for Handlers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handlers")
            .field("elicitation", &self.elicitation.is_some())
            .field("sampling", &self.sampling.is_some())
            .field("roots", &self.roots.is_some())
            .finish()
    }
}

impl Handlers {
    pub(crate) fn on_elicitation<F, Fut>(&mut self, handler: F)
    where
        F: Fn(ElicitRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ElicitResponse, HandlerError>> + Send + 'static,
    {
        self.elicitation = Some(Arc::new(move |request| Box::pin(handler(request))));
    }

    pub(crate) fn on_sampling<F, Fut>(&mut self, handler: F)
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, HandlerError>> + Send + 'static,
    {
        self.sampling = Some(Arc::new(move |request| Box::pin(handler(request))));
    }

    pub(crate) fn on_roots<F, Fut>(&mut self, handler: F)
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<Root>, HandlerError>> + Send + 'static,
    {
        self.roots = Some(Arc::new(move || Box::pin(handler())));
    }

    /// The capabilities these handlers give the client.
    pub(crate) fn capabilities(&self) -> Value {
        let mut capabilities = Map::new();
        if self.elicitation.is_some() || self.relays {
            capabilities.insert("elicitation".to_owned(), json!({ "form": {}, "url": {} }));
        }
        if self.sampling.is_some() || self.relays {
            capabilities.insert("sampling".to_owned(), json!({}));
        }
        if self.roots.is_some() || self.relays {
            capabilities.insert("roots".to_owned(), json!({ "listChanged": false }));
        }
        Value::Object(capabilities)
    }

    /// The answer to the server's request `method` with `params`.
    pub(crate) async fn answer(&self, method: &str, params: Value) -> Result<Value, Refusal> {
        let failed = |err: &dyn std::fmt::Display| Refusal {
            code: -32603,
            message: err.to_string(),
        };
        let missing = || Refusal {
            code: -32601,
            message: format!("this client does not answer `{method}`"),
        };
        match Method::parse(method) {
            Method::Ping => Ok(json!({})),
            Method::ElicitationCreate => {
                let handler = self.elicitation.as_ref().ok_or_else(missing)?;
                let request: ElicitRequest =
                    serde_json::from_value(params).map_err(|err| Refusal {
                        code: -32602,
                        message: format!("`{}` params: {err}", Method::ElicitationCreate),
                    })?;
                let response = handler(request).await.map_err(|err| failed(&err))?;
                serde_json::to_value(response).map_err(|err| failed(&err))
            }
            Method::SamplingCreateMessage => {
                let handler = self.sampling.as_ref().ok_or_else(missing)?;
                handler(params).await.map_err(|err| failed(&err))
            }
            Method::RootsList => {
                let handler = self.roots.as_ref().ok_or_else(missing)?;
                let roots = handler().await.map_err(|err| failed(&err))?;
                Ok(json!({ "roots": roots }))
            }
            _ => Err(missing()),
        }
    }
}
