//! Telemetry the OpenTelemetry way: a span and a duration for every MCP operation, as the
//! semantic conventions for MCP name them, the caller's trace continued from
//! `params._meta.traceparent`, and the calls in flight and refused.
//!
//! Off until [`install`] turns it on (the command line does, for `serve --metrics` or when
//! `OTEL_EXPORTER_OTLP_ENDPOINT` is set with the `otel` feature). While it is off, every
//! entry point here returns after one atomic load, allocating nothing.
//!
//! What is recorded, and where it goes:
//! - **Spans** (feature `otel`): one per operation, named `{mcp.method.name} {target}`
//!   (`tools/call calculator.add`), of kind server (or client, [`client_operation`]), with
//!   the attributes `mcp.method.name`, `mcp.protocol.version`, `mcp.session.id`,
//!   `jsonrpc.request.id`, `gen_ai.tool.name`, `gen_ai.prompt.name`, `mcp.resource.uri`,
//!   `network.transport` and, on failure, `error.type`. Exported over OTLP (HTTP/protobuf)
//!   to `OTEL_EXPORTER_OTLP_ENDPOINT`, as the service `OTEL_SERVICE_NAME`.
//! - **Metrics**: the histograms `mcp.server.operation.duration` and
//!   `mcp.client.operation.duration` (seconds, the conventions' bucket boundaries and
//!   attributes), the operations in flight (`mcp.server.operations.in_flight`), and the
//!   refusals of the built-in layers (`mcp.server.refusals`, [`refused`]). Exported over
//!   OTLP with the spans, and, with the `http` feature, in the Prometheus text format
//!   ([`prometheus_text`], served by `serve --http ADDR --metrics`) as
//!   `mcp_server_operation_duration_seconds`, `mcp_client_operation_duration_seconds`,
//!   `mcp_server_operations_in_flight` and `mcp_server_refusals_total`, the attributes'
//!   dots made underscores (`mcp_method_name`, `gen_ai_tool_name`, `error_type`…).
//!
//! ```
//! use mcp_runtime::telemetry::{self, Operation, Outcome, Target, Transport};
//!
//! // Nothing is installed: the operation is not recorded, and costs one atomic load.
//! let operation = Operation::new("tools/call", Transport::Pipe)
//!     .with_target(Target::Tool("calculator.add"))
//!     .with_request_id("7");
//! assert!(telemetry::server_operation(&operation, None).is_none());
//! # let _ = Outcome::Success;
//! ```

mod clock;
#[cfg(feature = "otel")]
mod export;
#[cfg(feature = "otel")]
mod fields;
mod labels;
#[cfg(feature = "otel")]
mod metrics;
#[cfg(feature = "otel")]
mod post;
#[cfg(feature = "http")]
mod prometheus;
mod record;
#[cfg(feature = "otel")]
mod spans;
#[cfg(all(test, feature = "otel"))]
mod tests;
#[cfg(feature = "otel")]
mod trace;

use std::borrow::Cow;
use std::future::Future;
use std::sync::OnceLock;

use serde_json::{Map, Value};

use record::Telemetry;

/// The recorder, once installed; `None` (the default) is telemetry off.
static ACTIVE: OnceLock<Telemetry> = OnceLock::new();

/// The bucket boundaries of the operation-duration histograms, in seconds, as the
/// semantic conventions for MCP advise them.
pub const DURATION_BUCKETS: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

/// The transport an operation went over, as `network.transport` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Transport {
    /// Standard input and output: `pipe`.
    Pipe,
    /// HTTP: `tcp`.
    Tcp,
}

impl Transport {
    /// The value of `network.transport`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Pipe => "pipe",
            Self::Tcp => "tcp",
        }
    }
}

/// What an operation is about, beside its method: it names the span after the method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Target<'a> {
    /// Nothing in particular (`tools/list`, `ping`…): the span is named by its method alone.
    #[default]
    None,
    /// A tool (`gen_ai.tool.name`), by the name the client sent.
    Tool(&'a str),
    /// A prompt (`gen_ai.prompt.name`).
    Prompt(&'a str),
    /// A resource (`mcp.resource.uri`); kept out of the span's name, as the conventions
    /// advise, since URIs are many.
    Resource(&'a str),
}

/// One MCP operation as telemetry sees it: what its span and its metrics are made of.
///
/// ```
/// use mcp_runtime::telemetry::{Operation, Target, Transport};
///
/// let operation = Operation::new("prompts/get", Transport::Tcp)
///     .with_target(Target::Prompt("review"))
///     .with_session_id(Some("a1b2"))
///     .with_protocol_version(Some("2025-11-25"));
/// assert_eq!(operation.span_name(), "prompts/get review");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Operation<'a> {
    /// The method (`mcp.method.name`).
    pub method: &'a str,
    /// What it is about.
    pub target: Target<'a>,
    /// The JSON-RPC request id, written as a string (`jsonrpc.request.id`); `None` for a
    /// notification or a `null` id.
    pub request_id: Option<&'a str>,
    /// The MCP revision spoken (`mcp.protocol.version`), where known.
    pub protocol_version: Option<&'a str>,
    /// The session (`mcp.session.id`), where the transport has one.
    pub session_id: Option<&'a str>,
    /// The transport (`network.transport`).
    pub transport: Transport,
}

impl<'a> Operation<'a> {
    /// An operation of `method` over `transport`, about nothing in particular.
    pub const fn new(method: &'a str, transport: Transport) -> Self {
        Self {
            method,
            target: Target::None,
            request_id: None,
            protocol_version: None,
            session_id: None,
            transport,
        }
    }

    /// The same, about `target`.
    #[must_use]
    pub const fn with_target(mut self, target: Target<'a>) -> Self {
        self.target = target;
        self
    }

    /// The same, with its JSON-RPC request id.
    #[must_use]
    pub const fn with_request_id(mut self, id: &'a str) -> Self {
        self.request_id = Some(id);
        self
    }

    /// The same, speaking `version` of MCP, where known.
    #[must_use]
    pub const fn with_protocol_version(mut self, version: Option<&'a str>) -> Self {
        self.protocol_version = version;
        self
    }

    /// The same, within `session`, where the transport has one.
    #[must_use]
    pub const fn with_session_id(mut self, session: Option<&'a str>) -> Self {
        self.session_id = session;
        self
    }

    /// The span's name: `{mcp.method.name} {target}`, the target being the tool's or the
    /// prompt's name; the method alone otherwise.
    pub fn span_name(&self) -> String {
        match self.target {
            Target::Tool(name) | Target::Prompt(name) => format!("{} {name}", self.method),
            Target::None | Target::Resource(_) => self.method.to_owned(),
        }
    }
}

/// How an operation ended, as `error.type` tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// It succeeded.
    Success,
    /// A JSON-RPC error answered it: `error.type` is its code (`-32602`).
    RpcError(i64),
    /// A tool answered with `isError: true`: `error.type` is `tool_error`.
    ToolError,
    /// It was cancelled, or dropped unanswered: `error.type` is `cancelled`.
    Cancelled,
    /// It failed in a way of its own, named by a short, fixed string (`timeout`).
    Failed(&'static str),
}

impl Outcome {
    /// The outcome a JSON-RPC response tells: its error's code, a result's `isError`, or
    /// success. A response that cannot be read is `_OTHER`, the conventions' fallback.
    ///
    /// ```
    /// use mcp_runtime::telemetry::Outcome;
    ///
    /// let error = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no"}}"#;
    /// assert_eq!(Outcome::of_response(error), Outcome::RpcError(-32602));
    /// let failed = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}"#;
    /// assert_eq!(Outcome::of_response(failed), Outcome::ToolError);
    /// ```
    pub fn of_response(response: &str) -> Self {
        #[derive(serde::Deserialize)]
        struct Response {
            error: Option<Code>,
            result: Option<Result>,
        }
        #[derive(serde::Deserialize)]
        struct Code {
            code: i64,
        }
        #[derive(serde::Deserialize)]
        struct Result {
            #[serde(rename = "isError", default)]
            is_error: bool,
        }
        match serde_json::from_str::<Response>(response) {
            Ok(Response {
                error: Some(Code { code }),
                ..
            }) => Self::RpcError(code),
            Ok(Response {
                result: Some(Result { is_error: true }),
                ..
            }) => Self::ToolError,
            Ok(_) => Self::Success,
            Err(_) => Self::Failed("_OTHER"),
        }
    }

    /// The value of `error.type`: `None` on success.
    pub fn error_type(&self) -> Option<Cow<'static, str>> {
        match self {
            Self::Success => None,
            Self::RpcError(code) => Some(Cow::Owned(code.to_string())),
            Self::ToolError => Some(Cow::Borrowed("tool_error")),
            Self::Cancelled => Some(Cow::Borrowed("cancelled")),
            Self::Failed(kind) => Some(Cow::Borrowed(kind)),
        }
    }
}

/// Whether telemetry is on: one atomic load.
#[inline]
pub fn enabled() -> bool {
    ACTIVE.get().is_some()
}

/// Begins the server's record of `operation`: its span, a child of the trace that `meta`
/// (the request's `params._meta`) carries in `traceparent` and `tracestate`, and its place
/// among the operations in flight. `None`, at the cost of one atomic load, while telemetry
/// is off.
///
/// A `traceparent` that cannot be read (a wrong length, all-zero ids, version `ff`) is
/// ignored: the span starts a trace of its own, and the operation goes on as usual.
#[inline]
pub fn server_operation(
    operation: &Operation<'_>,
    meta: Option<&Map<String, Value>>,
) -> Option<ServerOperation> {
    ACTIVE
        .get()
        .map(|telemetry| telemetry.server_operation(operation, meta))
}

/// Begins the client's record of `operation`: its span (of kind client, a child of the
/// active context) and its duration. `None`, at the cost of one atomic load, while
/// telemetry is off.
///
/// ```no_run
/// use mcp_runtime::telemetry::{self, Operation, Outcome, Target, Transport};
///
/// let mut meta = serde_json::Map::new();
/// let operation = Operation::new("tools/call", Transport::Tcp).with_target(Target::Tool("add"));
/// let recorded = telemetry::client_operation(&operation);
/// if let Some(recorded) = &recorded {
///     recorded.inject(&mut meta); // `traceparent` and `tracestate`, for `params._meta`
/// }
/// // … send the request with `meta`, read its response …
/// if let Some(recorded) = recorded {
///     recorded.end(Outcome::Success);
/// }
/// ```
#[inline]
pub fn client_operation(operation: &Operation<'_>) -> Option<ClientOperation> {
    ACTIVE
        .get()
        .map(|telemetry| telemetry.client_operation(operation))
}

/// Counts one call of `tool` refused by the built-in layer `layer` (`"rate_limit"`,
/// `"concurrency"`, `"load_shed"`…): the counter `mcp.server.refusals`
/// (`mcp_server_refusals_total` in Prometheus), with the attributes `mcp.layer` and
/// `gen_ai.tool.name`. Nothing while telemetry is off.
#[inline]
pub fn refused(layer: &'static str, tool: &str) {
    if let Some(telemetry) = ACTIVE.get() {
        telemetry.refused(layer, tool);
    }
}

/// The metrics in the Prometheus text format (version 0.0.4, ending with `# EOF`); `None`
/// while telemetry is off or was installed without [`Config::prometheus`].
#[cfg(feature = "http")]
pub fn prometheus_text() -> Option<String> {
    ACTIVE.get().and_then(Telemetry::prometheus_text)
}

/// The content type of [`prometheus_text`].
#[cfg(feature = "http")]
pub const PROMETHEUS_CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// What [`install`] turns on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Config {
    /// Keep the metrics for [`prometheus_text`] (with the `http` feature; ignored without).
    pub prometheus: bool,
    /// Export spans and metrics over OTLP (with the `otel` feature; ignored without) when
    /// `OTEL_EXPORTER_OTLP_ENDPOINT` is set.
    pub otlp_from_env: bool,
}

impl Config {
    /// Nothing turned on.
    pub fn new() -> Self {
        Self::default()
    }

    /// The same, keeping the metrics for the Prometheus text format.
    #[must_use]
    pub fn with_prometheus(mut self, on: bool) -> Self {
        self.prometheus = on;
        self
    }

    /// The same, exporting over OTLP where the environment names an endpoint.
    #[must_use]
    pub fn with_otlp_from_env(mut self, on: bool) -> Self {
        self.otlp_from_env = on;
        self
    }
}

/// Telemetry could not be turned on.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TelemetryError {
    /// It was turned on before, in this process: it is turned on once.
    #[error("telemetry is already installed in this process")]
    AlreadyInstalled,
    /// The thread that exports spans and metrics over OTLP could not be started.
    #[cfg(feature = "otel")]
    #[error("the OTLP exporter for `{endpoint}` could not be started")]
    ExportThread {
        /// `OTEL_EXPORTER_OTLP_ENDPOINT`.
        endpoint: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// Turns telemetry on as `config` says, for the rest of the process: what it keeps of
/// every operation from now on, and where it goes. Telemetry stays off when `config` turns
/// nothing on that this build has (no `http` feature for Prometheus, no `otel` feature or
/// no `OTEL_EXPORTER_OTLP_ENDPOINT` for OTLP).
///
/// Keep the handle it returns until the process ends: [`Installed::shutdown`] (or
/// dropping it) flushes the spans and metrics not yet exported.
pub fn install(config: &Config) -> Result<Installed, TelemetryError> {
    if ACTIVE.get().is_some() {
        return Err(TelemetryError::AlreadyInstalled);
    }
    let (telemetry, installed) = record::build(config)?;
    if let Some(telemetry) = telemetry {
        ACTIVE
            .set(telemetry)
            .map_err(|_| TelemetryError::AlreadyInstalled)?;
    }
    Ok(installed)
}

/// What [`install`] turned on; flushes the exporters when shut down or dropped.
#[derive(Debug, Default)]
#[must_use = "dropping it flushes and stops the exporters"]
pub struct Installed {
    #[cfg(feature = "otel")]
    export: Option<export::Exporters>,
}

impl Installed {
    /// Whether spans and metrics go out over OTLP, and to which endpoint.
    pub fn otlp_endpoint(&self) -> Option<&str> {
        #[cfg(feature = "otel")]
        {
            self.export.as_ref().map(export::Exporters::endpoint)
        }
        #[cfg(not(feature = "otel"))]
        {
            None
        }
    }

    /// Exports what is left and stops the exporters.
    pub fn shutdown(mut self) {
        self.flush();
    }

    fn flush(&mut self) {
        #[cfg(feature = "otel")]
        if let Some(export) = self.export.take() {
            export.shutdown();
        }
    }
}

impl Drop for Installed {
    fn drop(&mut self) {
        self.flush();
    }
}

/// The server's record of one operation, from [`server_operation`]: ended with
/// [`ServerOperation::end`], or, dropped unended, recorded as cancelled.
#[derive(Debug)]
pub struct ServerOperation {
    inner: record::Recorded,
}

impl ServerOperation {
    /// Ends the operation: its span, with `error.type` unless it succeeded, and its
    /// duration.
    pub fn end(mut self, outcome: Outcome) {
        self.inner.end(outcome);
    }

    /// Ends the operation with the outcome its JSON-RPC `response` tells
    /// ([`Outcome::of_response`]).
    pub fn end_with_response(self, response: &str) {
        self.end(Outcome::of_response(response));
    }

    /// `future`, run within the operation's span: what it starts (a client's call to
    /// another server, through [`client_operation`]) is that span's child.
    pub fn scope<F: Future>(&self, future: F) -> Scoped<F> {
        self.inner.scope(future)
    }
}

/// The client's record of one operation, from [`client_operation`]: ended with
/// [`ClientOperation::end`], or, dropped unended, recorded as cancelled.
#[derive(Debug)]
pub struct ClientOperation {
    inner: record::Recorded,
}

impl ClientOperation {
    /// Writes the operation's trace context into `meta` (the request's `params._meta`):
    /// `traceparent`, and `tracestate` where there is one, as W3C trace context has them.
    /// Nothing without the `otel` feature.
    pub fn inject(&self, meta: &mut Map<String, Value>) {
        self.inner.inject(meta);
    }

    /// Ends the operation: its span, with `error.type` unless it succeeded, and its
    /// duration (`mcp.client.operation.duration`).
    pub fn end(mut self, outcome: Outcome) {
        self.inner.end(outcome);
    }

    /// Ends the operation with the outcome its JSON-RPC `response` tells.
    pub fn end_with_response(self, response: &str) {
        self.end(Outcome::of_response(response));
    }
}

/// A future run within an operation's span ([`ServerOperation::scope`]).
#[cfg(feature = "otel")]
pub type Scoped<F> = opentelemetry::context::WithContext<F>;

/// A future run within an operation's span ([`ServerOperation::scope`]): without the
/// `otel` feature there are no spans, and the future is itself.
#[cfg(not(feature = "otel"))]
pub type Scoped<F> = F;
