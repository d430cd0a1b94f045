//! The client's side of telemetry: each request a span of kind client and a duration
//! (`mcp.client.operation.duration`), its trace context written into the request's
//! `params._meta` (`traceparent`, `tracestate`), where the server continues it.
//!
//! Within a server's operation (a gateway calling a mounted tool), the span is that
//! operation's child: a call through a gateway is then one trace. With telemetry off, a
//! request costs one atomic load more.

use mcp_runtime_core::method::Method;
use serde_json::{Map, Value};

use super::{Client, ClientError, RequestOptions};
use crate::telemetry::{self, ClientOperation, Operation, Outcome, Target, Transport};

impl Client {
    /// Begins the record of a request of `method` with `params`, writes its trace context
    /// into `params._meta`, and reserves the id the request goes under (in `options`), which
    /// its span names: `None`, and nothing touched, while telemetry is off.
    pub(super) fn trace_request(
        &self,
        method: &str,
        params: &mut Map<String, Value>,
        options: &mut RequestOptions,
    ) -> Option<ClientOperation> {
        if !telemetry::enabled() {
            return None;
        }
        let id = self.link.reserve_id();
        options.id = Some(id);
        let id = id.to_string();
        let version = self.server.protocol_version.as_str();
        let operation = Operation::new(method, self.transport)
            .with_target(target(method, params))
            .with_request_id(&id)
            .with_protocol_version((!version.is_empty()).then_some(version));
        let recorded = telemetry::client_operation(&operation)?;
        // Only spans have a context to carry: metrics alone leave `_meta` as it was.
        let mut context = Map::new();
        recorded.inject(&mut context);
        if !context.is_empty() {
            if let Value::Object(meta) = params
                .entry("_meta")
                .or_insert_with(|| Value::Object(Map::new()))
            {
                meta.extend(context);
            }
        }
        Some(recorded)
    }

    /// Sends a request and awaits its result, within the timeout ([`Client::exchange`]),
    /// recorded as [`Client::request`] records its requests.
    pub(super) async fn traced_exchange(
        &self,
        method: &str,
        mut params: Map<String, Value>,
        mut options: RequestOptions,
    ) -> Result<Map<String, Value>, ClientError> {
        let recorded = self.trace_request(method, &mut params, &mut options);
        let answered = self.exchange(method, &params, options).await;
        end(recorded, &answered);
        answered
    }
}

/// Ends the record of a request, if there is one, with the outcome its answer tells.
pub(super) fn end(
    recorded: Option<ClientOperation>,
    answered: &Result<Map<String, Value>, ClientError>,
) {
    if let Some(recorded) = recorded {
        recorded.end(outcome(answered));
    }
}

/// What a request of `method` is about, as its `params` say.
fn target<'a>(method: &str, params: &'a Map<String, Value>) -> Target<'a> {
    let text = |key| params.get(key).and_then(Value::as_str);
    match Method::known(method) {
        Some(Method::ToolsCall) => text("name").map_or(Target::None, Target::Tool),
        Some(Method::PromptsGet) => text("name").map_or(Target::None, Target::Prompt),
        Some(Method::ResourcesRead) => text("uri").map_or(Target::None, Target::Resource),
        _ => Target::None,
    }
}

/// How a request ended, as `error.type` tells it: the JSON-RPC error's code, `tool_error`
/// for a tool's failure, or what kept the answer from coming.
fn outcome(answered: &Result<Map<String, Value>, ClientError>) -> Outcome {
    match answered {
        Ok(result) if result.get("isError") == Some(&Value::Bool(true)) => Outcome::ToolError,
        Ok(_) => Outcome::Success,
        Err(ClientError::Rpc(error)) => Outcome::RpcError(error.code),
        Err(ClientError::TaskFailed { error, .. }) => Outcome::RpcError(error.code),
        Err(ClientError::TaskCancelled { .. }) => Outcome::Failed("task_cancelled"),
        Err(ClientError::Timeout { .. }) => Outcome::Failed("timeout"),
        Err(ClientError::Connect(_) | ClientError::Closed(_) | ClientError::Http { .. }) => {
            Outcome::Failed("transport_error")
        }
        Err(ClientError::Malformed(_)) => Outcome::Failed("malformed_response"),
        Err(ClientError::TooManyRounds(_)) => Outcome::Failed("too_many_rounds"),
        Err(ClientError::Version(_)) => Outcome::Failed("unsupported_version"),
        Err(ClientError::Auth(_)) => Outcome::Failed("authorization_failed"),
    }
}

/// The transport of a client connected over `streams`: standard input and output (or a
/// pipe in memory) share one stream; streamable HTTP has one per request.
pub(super) fn transport_of(streams: super::Streams) -> Transport {
    match streams {
        super::Streams::Shared => Transport::Pipe,
        super::Streams::PerRequest => Transport::Tcp,
    }
}
