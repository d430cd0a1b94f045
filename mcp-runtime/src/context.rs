//! What a tool may know about the call it serves, and what it may report back.

pub(crate) mod options;

use std::fmt;
use std::sync::{Arc, OnceLock};

use mcp_runtime_core::{LogMessage, LoggingLevel, ToolName};

use crate::outbound::Asks;
use crate::state::States;
pub(crate) use crate::talk::log::LogSink;
use crate::talk::{AskError, Asker, Elicit, Elicitation, InputRequest, Root, Sampled, Sampling};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

/// A progress report of a running tool (MCP's `notifications/progress`).
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// How far the tool is; grows with every report.
    pub progress: f64,
    /// The value `progress` reaches when the tool is done, if known.
    pub total: Option<f64>,
    /// What the tool is doing.
    pub message: Option<String>,
}

/// Where a call's progress reports go, e.g. a transport sending them to the client.
pub type ProgressSink = Arc<dyn Fn(Progress) + Send + Sync>;

/// What a call reports back as it runs, and where each kind goes.
#[derive(Clone, Default)]
pub(crate) struct Reports {
    pub(crate) progress: Option<ProgressSink>,
    /// The least severe level the caller wants, and where those messages go.
    pub(crate) log: Option<(LoggingLevel, LogSink)>,
    /// How the call's asks reach the client, when it came from one that can answer.
    pub(crate) asks: Option<Arc<Asks>>,
    /// Who calls, when an access token said so.
    pub(crate) auth: Option<Arc<crate::auth::AuthInfo>>,
    /// Raised when the tool panics, for a caller that tells a panic from an error.
    pub(crate) panicked: Option<Arc<std::sync::atomic::AtomicBool>>,
    /// Where the tool tells of the resources it updated.
    pub(crate) updates: Option<UpdateSink>,
    /// Cancelled to end the SSE stream the call's answer would go on, when its client can
    /// resume it ([`ToolContext::close_sse_stream`]).
    pub(crate) stream_close: Option<CancellationToken>,
}

/// What a tool tells of a resource it updated, by URI.
pub(crate) type UpdateSink = Arc<dyn Fn(&str) + Send + Sync>;

impl Reports {
    /// Nowhere to report anything.
    pub(crate) const NONE: Reports = Reports {
        progress: None,
        log: None,
        asks: None,
        auth: None,
        panicked: None,
        updates: None,
        stream_close: None,
    };
}

/// The context of one call, injected into a tool that asks for it with a parameter of type
/// `&ToolContext` or `ToolContext` (anywhere in its parameter list). It never appears in
/// the tool's input schema.
///
/// ```
/// use mcp_runtime::{ToolContext, mcp_tool};
///
/// /// Says which tool is running.
/// #[mcp_tool(namespace = "demo", inline)]
/// fn whoami(ctx: &ToolContext) -> String {
///     ctx.progress(1.0, Some(1.0), Some("done"));
///     ctx.tool_name().to_string()
/// }
///
/// let result = mcp_runtime::Registry::global()
///     .call_blocking(mcp_runtime::MCPToolCall::new("demo.whoami", serde_json::json!({}))?);
/// assert_eq!(result.data().unwrap()["result"], "demo.whoami");
/// # Ok::<(), mcp_runtime::MessageError>(())
/// ```
#[derive(Clone)]
pub struct ToolContext {
    tool_name: Arc<ToolName>,
    /// `None` for an inline tool, which nothing can cancel while it runs.
    cancellation: Option<CancellationToken>,
    meta: Option<Arc<Map<String, Value>>>,
    reports: Reports,
    span: tracing::Span,
    states: States,
}

impl ToolContext {
    /// The context of a call of the tool named `tool_name`, with nothing else attached.
    pub fn new(tool_name: Arc<ToolName>) -> Self {
        Self {
            tool_name,
            cancellation: Some(CancellationToken::new()),
            meta: None,
            reports: Reports::default(),
            span: tracing::Span::none(),
            states: States::default(),
        }
    }

    /// This context, with `value` as the state of type `T`: for calling a tool that reads
    /// [`ToolContext::state`] as plain Rust, in a test.
    #[must_use]
    pub fn with_state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.states.insert(Arc::new(value));
        self
    }

    /// The name of the tool being called.
    pub fn tool_name(&self) -> &ToolName {
        &self.tool_name
    }

    /// The registry's state of type `T` ([`RegistryBuilder::state`]), if it was given one.
    /// A tool that cannot run without it takes a [`State<T>`](crate::State) parameter
    /// instead: the registry then checks that it was given when it is built.
    ///
    /// ```
    /// use mcp_runtime::{ToolContext, mcp_tool};
    ///
    /// /// The greeting this server uses.
    /// struct Greeting(String);
    ///
    /// /// Greets someone, as configured.
    /// #[mcp_tool(namespace = "demo")]
    /// fn greet_as_configured(ctx: &ToolContext, name: String) -> String {
    ///     let greeting = ctx.state::<Greeting>().map_or("Hello", |greeting| &greeting.0);
    ///     format!("{greeting}, {name}!")
    /// }
    /// ```
    ///
    /// [`RegistryBuilder::state`]: crate::RegistryBuilder::state
    pub fn state<T: 'static>(&self) -> Option<&T> {
        self.states.get::<T>()
    }

    /// The call's cancellation token: cancelled when the caller gives up on the call (its
    /// future is dropped, the client cancels, or the timeout passes). A tool doing long work
    /// checks it, or selects on [`CancellationToken::cancelled`].
    pub fn cancellation(&self) -> &CancellationToken {
        self.cancellation
            .as_ref()
            .unwrap_or_else(|| never_cancelled())
    }

    /// Whether the call has been cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.cancellation
            .as_ref()
            .is_some_and(CancellationToken::is_cancelled)
    }

    /// The call's metadata (MCP's `_meta` of the request), if the caller sent any.
    pub fn meta(&self) -> Option<&Map<String, Value>> {
        self.meta.as_deref()
    }

    /// Who calls, as the access token the request carried describes them: the subject,
    /// the scopes and every claim. `None` when the server checks no OAuth tokens, or the
    /// call did not come through HTTP.
    pub fn auth(&self) -> Option<&crate::auth::AuthInfo> {
        self.reports.auth.as_deref()
    }

    /// Reports progress to the caller, if it asked for reports; otherwise does nothing.
    pub fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        if let Some(sink) = &self.reports.progress {
            sink(Progress {
                progress,
                total,
                message: message.map(str::to_owned),
            });
        }
    }

    /// Whether the caller asked for progress reports.
    pub fn wants_progress(&self) -> bool {
        self.reports.progress.is_some()
    }

    /// Sends the client a log message at `level`, if it asked for messages at that level
    /// or above (`logging/setLevel` on the handshake's revisions, the request's
    /// `io.modelcontextprotocol/logLevel` at 2026-07-28); otherwise does nothing. `data`
    /// is a string or any JSON value; the tool's name is the message's `logger`.
    ///
    /// ```
    /// use mcp_runtime::{LoggingLevel, ToolContext, mcp_tool};
    ///
    /// /// Counts the lines of a text.
    /// #[mcp_tool(namespace = "demo")]
    /// async fn lines(ctx: &ToolContext, text: String) -> usize {
    ///     let count = text.lines().count();
    ///     ctx.info(format!("{count} lines"));
    ///     ctx.log(LoggingLevel::Debug, serde_json::json!({ "bytes": text.len() }));
    ///     count
    /// }
    /// ```
    pub fn log(&self, level: LoggingLevel, data: impl Into<Value>) {
        if let Some((least, sink)) = &self.reports.log {
            if level >= *least {
                sink(LogMessage {
                    level,
                    logger: Some(self.tool_name.to_string()),
                    data: data.into(),
                });
            }
        }
    }

    /// Whether a message at `level` would reach the client: to skip building one that
    /// would not.
    pub fn logs_at(&self, level: LoggingLevel) -> bool {
        self.reports
            .log
            .as_ref()
            .is_some_and(|(least, _)| level >= *least)
    }

    /// The least severe log messages the caller wants, if it wants any.
    #[cfg(feature = "client")]
    pub(crate) fn log_level(&self) -> Option<LoggingLevel> {
        self.reports.log.as_ref().map(|(least, _)| *least)
    }

    /// Sends the client `message` as it is, logger and all, if it asked for messages at its
    /// level or above: a message of another server's, passed on by a gateway.
    #[cfg(feature = "client")]
    pub(crate) fn pass_log(&self, message: LogMessage) {
        if let Some((least, sink)) = &self.reports.log {
            if message.level >= *least {
                sink(message);
            }
        }
    }

    /// Asks the client `request` under `key`, and waits for its answer (the result of the
    /// request, as JSON); see [`Asker::ask`] for how the two wire models carry it.
    pub async fn ask(&self, key: &str, request: InputRequest) -> Result<Value, AskError> {
        self.asker().ask(key, request).await
    }

    /// Asks the user to fill in a form of `T`'s fields, with `message` saying why; see
    /// [`Asker::elicit`].
    ///
    /// ```
    /// use mcp_runtime::talk::{Elicitation, Form};
    /// use mcp_runtime::{ToolContext, ToolError, mcp_tool};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema, Form)]
    /// struct Confirm {
    ///     /// Go ahead?
    ///     confirm: bool,
    /// }
    ///
    /// /// Deletes everything, once the user agrees.
    /// #[mcp_tool(namespace = "demo")]
    /// async fn wipe(ctx: &ToolContext) -> Result<String, ToolError> {
    ///     match ctx.elicit::<Confirm>("confirm", "Delete everything?").await? {
    ///         Elicitation::Accept(Confirm { confirm: true }) => Ok("deleted".to_owned()),
    ///         _ => Ok("kept".to_owned()),
    ///     }
    /// }
    /// ```
    pub fn elicit<'a, T>(&self, key: &'a str, message: &'a str) -> Elicit<'a, T> {
        self.asker().elicit(key, message)
    }

    crate::talk::asks_built_on_ask!();

    /// Starts the call's task now, when the call runs as one (a tool marked `task`, called by
    /// a client that supports tasks); otherwise does nothing.
    ///
    /// The task's handle is sent at the tool's first wait after this, and what the tool asks
    /// from then on waits in the task (`input_required`) for the client's `tasks/update`.
    /// Without it, a task starts at the tool's first wait that is not an ask: what a tool
    /// asks before it has anything else to wait for is asked before the task exists (at
    /// 2026-07-28, over rounds of the call), so that a task starts with its input gathered.
    pub fn start_task(&self) {
        if let Some(asks) = &self.reports.asks {
            asks.task
                .wanted
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// What asks the client on this call's behalf: to hand to code that asks for the tool.
    pub fn asker(&self) -> Asker {
        self.reports
            .asks
            .as_ref()
            .map_or_else(Asker::default, Asks::asker)
    }

    /// [`ToolContext::log`] at `debug`.
    pub fn debug(&self, data: impl Into<Value>) {
        self.log(LoggingLevel::Debug, data);
    }

    /// [`ToolContext::log`] at `info`.
    pub fn info(&self, data: impl Into<Value>) {
        self.log(LoggingLevel::Info, data);
    }

    /// [`ToolContext::log`] at `notice`.
    pub fn notice(&self, data: impl Into<Value>) {
        self.log(LoggingLevel::Notice, data);
    }

    /// [`ToolContext::log`] at `warning`.
    pub fn warning(&self, data: impl Into<Value>) {
        self.log(LoggingLevel::Warning, data);
    }

    /// [`ToolContext::log`] at `error`.
    pub fn error(&self, data: impl Into<Value>) {
        self.log(LoggingLevel::Error, data);
    }

    /// Tells every client subscribed to `uri` that the resource changed
    /// (`notifications/resources/updated`), as
    /// [`Server::notify_resource_updated`](crate::server::Server::notify_resource_updated)
    /// does: for a tool that changes what a resource reads. Outside a server (a plain Rust
    /// call, a sandboxed tool's worker) it does nothing.
    ///
    /// ```
    /// use mcp_runtime::{ToolContext, ToolError, mcp_tool};
    ///
    /// /// Replaces the notes.
    /// #[mcp_tool(namespace = "notes")]
    /// fn write(ctx: &ToolContext, text: String) -> Result<usize, ToolError> {
    ///     std::fs::write("notes.txt", &text)?;
    ///     ctx.notify_resource_updated("app://notes");
    ///     Ok(text.len())
    /// }
    /// ```
    pub fn notify_resource_updated(&self, uri: &str) {
        if let Some(updates) = &self.reports.updates {
            updates(uri);
        }
    }

    /// Ends the SSE stream this call's answer would be sent on, while the call goes on: the
    /// client reconnects (`GET` with `Last-Event-ID`, after the `retry` the stream named)
    /// and reads from the stream's log what came after, the answer among it. A
    /// long-running call so holds no connection open (polling, SEP-1699), and a balancer
    /// may move the client to another replica.
    ///
    /// It acts only where the client can resume: a call answered as SSE in an HTTP session
    /// of revision 2025-11-25 or later, whose stream opened with an event id. Anywhere
    /// else (stdio, a JSON answer, a registry called from code) it does nothing, and the
    /// answer comes as it would have.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// use mcp_runtime::{ToolContext, mcp_tool};
    ///
    /// /// Builds the report, which takes a while.
    /// #[mcp_tool(namespace = "reports")]
    /// async fn build(ctx: &ToolContext) -> String {
    ///     // The client is not kept waiting on an open connection meanwhile.
    ///     ctx.close_sse_stream();
    ///     tokio::time::sleep(Duration::from_millis(10)).await;
    ///     "built".to_owned()
    /// }
    /// ```
    pub fn close_sse_stream(&self) {
        if let Some(close) = &self.reports.stream_close {
            close.cancel();
        }
    }

    /// The call's tracing span; events a tool emits inside it carry the tool's name.
    pub fn span(&self) -> &tracing::Span {
        &self.span
    }
}

/// What a tool's invoke function receives besides its arguments: the makings of the call's
/// [`ToolContext`], which it builds only when the tool takes one.
#[derive(Clone, Copy)]
pub struct Invocation<'a> {
    tool_name: &'a Arc<ToolName>,
    cancellation: Option<&'a CancellationToken>,
    meta: Option<&'a Arc<Map<String, Value>>>,
    reports: &'a Reports,
    span: &'a tracing::Span,
    pub(crate) states: &'a States,
}

impl<'a> Invocation<'a> {
    pub(crate) fn new(
        tool_name: &'a Arc<ToolName>,
        cancellation: Option<&'a CancellationToken>,
        meta: Option<&'a Arc<Map<String, Value>>>,
        reports: &'a Reports,
        span: &'a tracing::Span,
        states: &'a States,
    ) -> Self {
        Self {
            tool_name,
            cancellation,
            meta,
            reports,
            span,
            states,
        }
    }

    /// The call's context.
    pub fn context(&self) -> ToolContext {
        ToolContext {
            tool_name: Arc::clone(self.tool_name),
            cancellation: self.cancellation.cloned(),
            meta: self.meta.cloned(),
            reports: self.reports.clone(),
            span: self.span.clone(),
            states: self.states.clone(),
        }
    }
}

impl fmt::Debug for Invocation<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Invocation")
            .field("tool_name", self.tool_name)
            .finish_non_exhaustive()
    }
}

/// The token of inline tools: they run to their end within one poll, so nothing can cancel
/// them midway.
fn never_cancelled() -> &'static CancellationToken {
    static NEVER: OnceLock<CancellationToken> = OnceLock::new();
    NEVER.get_or_init(CancellationToken::new)
}

impl fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext")
            .field("tool_name", &self.tool_name)
            .field("cancelled", &self.is_cancelled())
            .field("meta", &self.meta)
            .field("wants_progress", &self.reports.progress.is_some())
            .field(
                "log_level",
                &self.reports.log.as_ref().map(|(level, _)| *level),
            )
            .field("states", &self.states)
            .finish()
    }
}
