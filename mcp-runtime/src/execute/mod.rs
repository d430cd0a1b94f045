//! Runs one call: the arguments in, an `MCPToolResult` out, whatever the tool does.
//!
//! In order: the dangerous-tool policy, the input schema, then the tool itself, with its
//! panics caught, its timeout enforced and its cancellation token cancelled when the caller
//! gives up; then its data checked against the output schema (when enabled). Every call
//! ends with one `tracing` event on the `mcp_runtime::audit` target.

use std::any::Any;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use futures_util::FutureExt;
use mcp_runtime_core::{
    ErrorType, LoggingLevel, MCPToolResult, ToolDefinition, ToolError, ToolStatus,
};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::context::{Invocation, LogSink, Reports};
use crate::isolation::Placement;
use crate::panics;
use crate::policy::DangerousPolicy;
use crate::registration::{Failure, Handler, Outcome, Output, ToolFuture};
use crate::state::States;
use crate::talk::log::{Scoped, scoped};
use crate::tool::{Built, RegisteredTool};
use crate::validate::Lenience;

/// The `tracing` target of the event every call emits.
pub const AUDIT_TARGET: &str = "mcp_runtime::audit";

/// How a registry runs its tools.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    /// The timeout of tools that do not set their own.
    pub(crate) default_timeout: Option<Duration>,
    /// Whether data is checked against the output schema.
    pub(crate) validate_output: bool,
    /// Which dangerous tools may run.
    pub(crate) dangerous: DangerousPolicy,
    /// Whether a string holding JSON is read as the object or array the input schema
    /// wants there.
    pub(crate) lenient_arguments: bool,
    /// Whether a tool's panic message reaches the client.
    pub(crate) expose_panics: bool,
    /// The values the tools share, by type.
    pub(crate) states: States,
    /// How sandboxed tools run.
    pub(crate) sandbox: crate::isolation::Sandboxing,
    /// The slots of the synchronous tools that run at once.
    pub(crate) blocking: BlockingSlots,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            default_timeout: Some(DEFAULT_TIMEOUT),
            validate_output: cfg!(debug_assertions),
            dangerous: DangerousPolicy::Deny,
            lenient_arguments: false,
            expose_panics: false,
            states: States::default(),
            sandbox: crate::isolation::Sandboxing::default(),
            blocking: BlockingSlots::default(),
        }
    }
}

mod confirm;
mod limit;
mod pool;
mod result;

use limit::{Limit, cancelled, limited};
use result::finish;

use crate::context::options::CallOptions;
use confirm::confirm;
pub(crate) use pool::BlockingSlots;
pub use pool::DEFAULT_BLOCKING_THREADS;

/// The timeout of a tool that sets none, unless the registry is built with another.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The signature of a synchronous tool's invoke function.
pub(crate) type SyncInvoke = fn(&Value, Invocation<'_>) -> Outcome;

/// Runs an inline tool on the caller's thread, to its end: no future, nothing to cancel.
pub(crate) fn run_inline(
    tool: &RegisteredTool,
    built: &Built,
    invoke: SyncInvoke,
    arguments: &mut Value,
    options: &CallOptions,
    settings: &Settings,
) -> MCPToolResult {
    let started = audit_clock();
    let span = call_span(tool);
    let lenience = match arguments {
        Value::Object(map) => read_leniently(&built.definition, map, settings),
        _ => None,
    };
    let mut result = {
        let _entered = span.enter();
        match admit(built, arguments, settings, Integers::WhenUnread) {
            Err(refused) => MCPToolResult::failure(refused),
            // A caller that gave up before the tool began: it does not run, as on the
            // ordinary path. Once begun, an inline tool runs to its end within one poll.
            Ok(_)
                if options
                    .cancellation
                    .as_ref()
                    .is_some_and(CancellationToken::is_cancelled) =>
            {
                MCPToolResult::failure(cancelled(&built.definition))
            }
            Ok(()) => {
                let invocation = inline_invocation(tool, options, settings, &span);
                let log = options.reports.log.as_ref();
                let on_panic = OnPanic::new(None, settings);
                let mut outcome = catch(&built.definition, on_panic, || {
                    scoped(log, || invoke(arguments, invocation))
                });
                if let Err(Failure::Arguments(_)) = outcome {
                    reread(
                        built,
                        arguments,
                        invoke,
                        invocation,
                        log,
                        on_panic,
                        &mut outcome,
                    );
                }
                finish(built, settings, outcome, Some(arguments))
            }
        }
    };
    if let Some(lenience) = lenience {
        result = lenience.explain(result);
    }
    audit(tool, started, &result);
    result
}

/// The signature of an inline tool's function that reads its arguments from their JSON
/// text.
pub(crate) type TextInvoke = fn(&str, Invocation<'_>) -> Outcome;

/// Runs an inline tool on the caller's thread, its arguments read straight from `text`,
/// their JSON text: `None`, the tool not run, when they do not read into its parameters,
/// or the caller gave up before it began. [`run_inline`] then runs the call as any other,
/// and explains what is wrong. Only for a tool with no check to pass first, and lenient
/// arguments off: nothing then reads the arguments but the tool.
pub(crate) fn run_inline_text(
    tool: &RegisteredTool,
    built: &Built,
    invoke: TextInvoke,
    text: &str,
    options: &CallOptions,
    settings: &Settings,
) -> Option<Ran> {
    if options
        .cancellation
        .as_ref()
        .is_some_and(CancellationToken::is_cancelled)
    {
        return None;
    }
    let started = audit_clock();
    let span = call_span(tool);
    let result = {
        let _entered = span.enter();
        let invocation = inline_invocation(tool, options, settings, &span);
        let log = options.reports.log.as_ref();
        let on_panic = OnPanic::new(None, settings);
        let outcome = catch(&built.definition, on_panic, || {
            scoped(log, || invoke(text, invocation))
        });
        match outcome {
            Err(Failure::Arguments(_)) => return None,
            // An object, its data: nothing to wrap it in, nor to check it against.
            Ok(Output::Text(data))
                if data.starts_with('{')
                    && !settings.validate_output
                    && !built.definition.wraps_output() =>
            {
                Ran::Data(data)
            }
            outcome => Ran::Result(finish(built, settings, outcome, None)),
        }
    };
    match &result {
        Ran::Data(_) => audit_status(tool, started, ToolStatus::Success, None),
        Ran::Result(result) => audit(tool, started, result),
    }
    Some(result)
}

/// What a call of [`run_inline_text`] gave.
pub(crate) enum Ran {
    /// The tool's data, an object written as JSON text: a success with nothing else.
    Data(String),
    /// Any other result.
    Result(MCPToolResult),
}

/// What an inline tool is told of its call.
fn inline_invocation<'a>(
    tool: &'a RegisteredTool,
    options: &'a CallOptions,
    settings: &'a Settings,
    span: &'a tracing::Span,
) -> Invocation<'a> {
    Invocation::new(
        tool.name_arc(),
        None,
        options.meta.as_ref(),
        &options.reports,
        span,
        &settings.states,
    )
}

/// Runs an inline tool again when its `arguments` did not read, once their integral floats
/// are integers where the schema wants integers, its new outcome written over `outcome`;
/// if they hold no such float, `outcome` stays. The tool's body has not run: reading is the
/// first thing it does. `outcome` is changed where it is, which spares the common call a
/// copy of it.
#[cold]
#[inline(never)]
fn reread(
    built: &Built,
    arguments: &mut Value,
    invoke: SyncInvoke,
    invocation: Invocation<'_>,
    log: Option<&(LoggingLevel, LogSink)>,
    on_panic: OnPanic<'_>,
    outcome: &mut Outcome,
) {
    let Value::Object(map) = arguments else {
        return;
    };
    if built.validation.normalize_integers(&built.definition, map) {
        *outcome = catch(&built.definition, on_panic, || {
            scoped(log, || invoke(arguments, invocation))
        });
    }
}

/// Runs `tool` with `arguments` and answers with a result, whatever happens.
pub(crate) async fn run(
    tool: &RegisteredTool,
    mut arguments: Map<String, Value>,
    options: CallOptions,
    settings: &Settings,
) -> MCPToolResult {
    let started = audit_clock();
    let span = call_span(tool);
    let lenience = read_leniently(tool.definition(), &mut arguments, settings);
    let mut result = run_checked(tool, arguments, options, settings, span.clone())
        .instrument(span)
        .await;
    if let Some(lenience) = lenience {
        result = lenience.explain(result);
    }
    audit(tool, started, &result);
    result
}

/// With lenient arguments on, the strings of JSON in `arguments` read as the objects and
/// arrays the input schema wants, before anything checks them; what was done, if anything.
fn read_leniently(
    definition: &ToolDefinition,
    arguments: &mut Map<String, Value>,
    settings: &Settings,
) -> Option<Lenience> {
    if settings.lenient_arguments {
        Lenience::read_arguments(definition, arguments)
    } else {
        None
    }
}

/// The clock at the start of a call, read only when someone listens for the audit event.
fn audit_clock() -> Option<Instant> {
    tracing::enabled!(target: AUDIT_TARGET, tracing::Level::INFO).then(Instant::now)
}

/// The span of a call, around what the tool logs: at `debug`, so that a log at `info`, the
/// command line's default for `serve`, costs a call nothing.
fn call_span(tool: &RegisteredTool) -> tracing::Span {
    tracing::debug_span!("mcp_tool", tool = %tool.name())
}

fn audit(tool: &RegisteredTool, started: Option<Instant>, result: &MCPToolResult) {
    let error_type = result.error().map(|error| error.error_type.as_str());
    audit_status(tool, started, result.status(), error_type);
}

fn audit_status(
    tool: &RegisteredTool,
    started: Option<Instant>,
    status: ToolStatus,
    error_type: Option<&str>,
) {
    if let Some(started) = started {
        let duration_us = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        tracing::info!(
            target: AUDIT_TARGET,
            tool = %tool.name(),
            duration_us,
            status = %status,
            error_type,
            "tool call",
        );
    }
}

/// When the integral floats (`1.0`, `1e2`) where the schema admits integers only become
/// integers, as JSON Schema counts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Integers {
    /// Before anything reads the arguments.
    First,
    /// Before the checks, if any; otherwise when the tool's arguments did not read, which
    /// spares the common call a look at its numbers. Only an inline tool, whose caller
    /// reads again, takes this.
    WhenUnread,
}

/// The checks before a tool runs: the dangerous-tool policy and the input schema; and the
/// integral floats made integers, so that the policy and the tool see what the schema
/// accepted.
#[inline]
fn admit(
    built: &Built,
    arguments: &mut Value,
    settings: &Settings,
    integers: Integers,
) -> Result<(), ToolError> {
    if built.is_guarded() || integers == Integers::First {
        admit_checked(built, arguments, settings)
    } else {
        Ok(())
    }
}

/// [`admit`] of a tool that has checks to pass, or whose integers are rewritten first.
#[inline(never)]
fn admit_checked(
    built: &Built,
    arguments: &mut Value,
    settings: &Settings,
) -> Result<(), ToolError> {
    let (definition, validation) = (&built.definition, &built.validation);
    let Value::Object(map) = arguments else {
        return Err(ToolError::validation("the arguments are not a JSON object"));
    };
    validation.normalize_integers(definition, map);
    if !built.is_guarded() {
        return Ok(());
    }
    if !settings.dangerous.permits(definition, map) {
        return Err(ToolError::new(
            ErrorType::PermissionError,
            format!(
                "tool `{}` is marked dangerous and this registry's policy does not allow it to run; \
                 a server started with `--allow-dangerous {}` allows it, as does a registry built \
                 with `allow_dangerous`",
                definition.name(),
                definition.name()
            ),
        ));
    }
    validation.check_input(definition, arguments)
}

/// [`run`]'s call once its arguments read leniently: checked, confirmed, placed, then run
/// in a worker or here.
async fn run_checked(
    tool: &RegisteredTool,
    arguments: Map<String, Value>,
    options: CallOptions,
    settings: &Settings,
    span: tracing::Span,
) -> MCPToolResult {
    let built = tool.built();
    let definition = &built.definition;
    let mut arguments = Value::Object(arguments);
    if let Err(refused) = admit(built, &mut arguments, settings, Integers::First) {
        return MCPToolResult::failure(refused);
    }
    if settings.dangerous.asks_user(definition) {
        if let Err(refused) = confirm(definition, &arguments, options.reports.asks.as_deref()).await
        {
            return finish(built, settings, Err(refused), None);
        }
    }
    let parent = options.cancellation;
    let token = parent
        .as_ref()
        .map_or_else(CancellationToken::new, CancellationToken::child_token);
    // Cancels the tool's token when this future completes or is dropped mid-call.
    let _cancel_on_drop = token.clone().drop_guard();
    let timeout = definition.timeout().or(settings.default_timeout);
    let placement = crate::isolation::placement(tool, &settings.sandbox);
    let sandboxed = match placement {
        Placement::Refused(refused) => return MCPToolResult::failure(refused),
        Placement::Worker(_) => true,
        Placement::Here => false,
    };
    if let Some(refused) = without_runtime(tool, sandboxed, timeout) {
        return MCPToolResult::failure(refused);
    }
    let running = Running {
        tool,
        settings,
        timeout,
        parent: parent.as_ref(),
        token: &token,
        meta: options.meta.as_ref(),
        reports: &options.reports,
        span: &span,
        on_panic: OnPanic::new(options.reports.panicked.as_deref(), settings),
    };
    if let Placement::Worker(policy) = placement {
        match running.in_worker(&policy, arguments).await {
            Ok(result) => return result,
            // The sandbox is unavailable and the tool may run unsandboxed: here, then.
            Err(returned) => arguments = returned,
        }
    }
    let (outcome, kept_arguments) = running.here(arguments).await;
    finish(built, settings, outcome, kept_arguments.as_ref())
}

/// The failure of a call made outside a Tokio runtime that needs one: to wait for its
/// worker, or to enforce its timeout. An inline tool runs to completion on the caller's
/// task, where no timer can interrupt it.
fn without_runtime(
    tool: &RegisteredTool,
    sandboxed: bool,
    timeout: Option<Duration>,
) -> Option<ToolError> {
    let needs_runtime = sandboxed
        || match tool.handler() {
            Handler::Inline(_) | Handler::InlineText(..) => false,
            Handler::Blocking(_) => true,
            Handler::Async(_) | Handler::Dynamic(_) => timeout.is_some(),
        };
    (needs_runtime && tokio::runtime::Handle::try_current().is_err()).then(|| {
        ToolError::execution(format!(
            "tool `{}` must run inside a Tokio runtime (with its time driver) to enforce its timeout: call `Registry::call` from one, or use `Registry::call_blocking`",
            tool.built().definition.name()
        ))
    })
}

/// One admitted call of a tool, about to run: its limits, its token and what it reports.
struct Running<'a> {
    tool: &'a RegisteredTool,
    settings: &'a Settings,
    timeout: Option<Duration>,
    /// The caller's token, if the caller can cancel.
    parent: Option<&'a CancellationToken>,
    /// The tool's token, cancelled when the call ends.
    token: &'a CancellationToken,
    meta: Option<&'a std::sync::Arc<Map<String, Value>>>,
    reports: &'a Reports,
    span: &'a tracing::Span,
    on_panic: OnPanic<'a>,
}

impl Running<'_> {
    fn definition(&self) -> &ToolDefinition {
        &self.tool.built().definition
    }

    /// Runs the call in a sandbox worker under `policy`; `arguments` back when the sandbox
    /// is unavailable and the tool may run unsandboxed.
    async fn in_worker(
        &self,
        policy: &mcp_runtime_core::sandbox::SandboxPolicy,
        arguments: Value,
    ) -> Result<MCPToolResult, Value> {
        let runs = crate::isolation::Runs {
            tool: self.tool,
            policy,
            sandboxing: &self.settings.sandbox,
            timeout: self.timeout,
            expose_panics: self.settings.expose_panics,
        };
        let meta = self.meta.map(|meta| Map::clone(meta));
        // Boxed: its future, some 3 KiB, would otherwise be part of every call's, sandboxed or
        // not, and a call waiting for a thread or a slot holds its whole future.
        Box::pin(crate::isolation::run_sandboxed(
            runs,
            arguments,
            meta,
            self.reports,
            self.token,
        ))
        .await
    }

    /// Runs the tool in this process, as its handler does: the outcome, and the arguments,
    /// kept to list what in them breaks the input schema if they did not read.
    async fn here(&self, arguments: Value) -> (Outcome, Option<Value>) {
        let invocation = Invocation::new(
            self.tool.name_arc(),
            Some(self.token),
            self.meta,
            self.reports,
            self.span,
            &self.settings.states,
        );
        let (definition, log) = (self.definition(), self.reports.log.as_ref());
        match self.tool.handler() {
            Handler::Inline(invoke) | Handler::InlineText(invoke, _) => {
                let outcome = catch(definition, self.on_panic, || {
                    scoped(log, || invoke(&arguments, invocation))
                });
                (outcome, Some(arguments))
            }
            Handler::Blocking(invoke) => self.blocking(*invoke, arguments).await,
            Handler::Async(invoke) => {
                let future = catch(definition, self.on_panic, || {
                    Ok(scoped(log, || invoke(&arguments, invocation)))
                });
                (self.awaited(future).await, Some(arguments))
            }
            Handler::Dynamic(invoke) => {
                let map = match arguments {
                    Value::Object(map) => map,
                    _ => Map::new(),
                };
                let future = catch(definition, self.on_panic, || {
                    Ok(scoped(log, || invoke(map, invocation.context())))
                });
                (self.awaited(future).await, None)
            }
        }
    }

    /// A tool's future, awaited with the call's log, rounds, panic guard and limits.
    async fn awaited(&self, future: Result<ToolFuture, Failure>) -> Outcome {
        let future = with_round(with_log(future, self.reports.log.as_ref()), self.reports);
        let definition = self.definition();
        run_future(
            definition,
            self.timeout,
            self.parent,
            self.token,
            self.on_panic,
            future,
        )
        .await
    }

    /// Runs a blocking tool on the blocking thread pool, within the call's limits, once one
    /// of the registry's slots of synchronous tools is free (the wait counts against the
    /// timeout): the outcome, and the arguments if the tool finished.
    async fn blocking(&self, invoke: SyncInvoke, arguments: Value) -> (Outcome, Option<Value>) {
        let definition = self.definition();
        let waiting = Instant::now();
        let slot = match (self.settings.blocking)
            .acquire(definition, self.timeout, self.parent)
            .await
        {
            Ok(slot) => slot,
            Err(refused) => return (Err(refused.into()), None),
        };
        let waited = waiting.elapsed();
        let timeout = match self.timeout {
            // The slot came as the timeout ran out: the tool is not started for a call that
            // has already failed.
            Some(timeout) if timeout <= waited => {
                let refused = (self.settings.blocking).overloaded(definition, timeout);
                return (Err(refused.into()), None);
            }
            timeout => timeout.map(|timeout| timeout - waited),
        };
        let name = self.tool.shared_name();
        let parts = (
            self.token.clone(),
            self.meta.cloned(),
            self.reports.clone(),
            self.span.clone(),
            self.settings.states.clone(),
        );
        let expose = self.on_panic.expose;
        let task = tokio::task::spawn_blocking(move || {
            // Held until the tool returns, though its call timed out or was cancelled.
            let _slot = slot;
            let (token, meta, reports, span, states) = &parts;
            let invocation =
                Invocation::new(&name, Some(token), meta.as_ref(), reports, span, states);
            let outcome =
                panics::caught(|| scoped(reports.log.as_ref(), || invoke(&arguments, invocation)))
                    .unwrap_or_else(|panic| {
                        let on_panic = OnPanic {
                            flag: reports.panicked.as_deref(),
                            expose,
                        };
                        Err(panicked(&name, on_panic, panic).into())
                    });
            (outcome, arguments)
        });
        let mut kept_arguments = None;
        let work = async {
            match task.await {
                Ok((outcome, arguments)) => {
                    kept_arguments = Some(arguments);
                    outcome
                }
                Err(err) => Err(Failure::from(ToolError::execution(format!(
                    "tool `{}` did not finish: {err}",
                    definition.name()
                )))),
            }
        };
        let limit = Limit { timeout, waited };
        let outcome = limited(definition, limit, self.parent, self.token, work).await;
        (outcome, kept_arguments)
    }
}

/// A tool's future, polled with the call's log sink as the thread's current one when the
/// client asked for log messages ([`crate::talk::ClientLogLayer`]).
fn with_log(
    future: Result<ToolFuture, Failure>,
    log: Option<&(LoggingLevel, LogSink)>,
) -> Result<ToolFuture, Failure> {
    match log {
        Some(log) => {
            future.map(|future| -> ToolFuture { Box::pin(Scoped::new(future, log.clone())) })
        }
        None => future,
    }
}

/// A tool's future that ends when it waits on an ask of its round still open: the call is
/// then answered with the asks, not with the tool's result (2026-07-28).
fn with_round(
    future: Result<ToolFuture, Failure>,
    reports: &Reports,
) -> Result<ToolFuture, Failure> {
    let asks = reports.asks.clone();
    future.map(|future| {
        crate::outbound::ends_round(future, asks, || {
            Err(Failure::from(ToolError::execution(
                "the tool waits for the client's input",
            )))
        })
    })
}

/// Awaits a tool's future (if making it did not already fail), its panics caught, within
/// the limits of [`limited`].
async fn run_future(
    definition: &ToolDefinition,
    timeout: Option<Duration>,
    parent: Option<&CancellationToken>,
    token: &CancellationToken,
    on_panic: OnPanic<'_>,
    future: Result<ToolFuture, Failure>,
) -> Outcome {
    let work = AssertUnwindSafe(panics::Caught(future?))
        .catch_unwind()
        .map(|caught| {
            caught.unwrap_or_else(|panic| Err(panicked(definition.name(), on_panic, panic).into()))
        });
    let limit = Limit {
        timeout,
        waited: Duration::ZERO,
    };
    limited(definition, limit, parent, token, work).await
}

/// What a tool's panic is told to, besides its log: a flag the caller keeps (a task reports
/// a panic as a protocol-level failure), and whether its message reaches the client.
#[derive(Clone, Copy)]
struct OnPanic<'a> {
    flag: Option<&'a AtomicBool>,
    expose: bool,
}

impl<'a> OnPanic<'a> {
    fn new(flag: Option<&'a AtomicBool>, settings: &Settings) -> Self {
        Self {
            flag,
            expose: settings.expose_panics,
        }
    }
}

/// Runs `f`, turning a panic into a failure.
fn catch<T>(
    definition: &ToolDefinition,
    on_panic: OnPanic<'_>,
    f: impl FnOnce() -> Result<T, Failure>,
) -> Result<T, Failure> {
    panics::caught(f)
        .unwrap_or_else(|panic| Err(panicked(definition.name(), on_panic, panic).into()))
}

/// The failure of a tool that panicked ([`panics::report`]), told to the flag too.
fn panicked(
    name: &mcp_runtime_core::ToolName,
    on_panic: OnPanic<'_>,
    panic: Box<dyn Any + Send>,
) -> ToolError {
    if let Some(flag) = on_panic.flag {
        flag.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    panics::report(&format!("tool `{name}`"), &*panic, on_panic.expose)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::{MCPToolCall, Registry};

    /// Adds: a schema of types alone, so its calls skip the input schema.
    #[crate::mcp_tool(crate = crate, namespace = "unit", inline)]
    fn add(a: i64, b: i64) -> i64 {
        a + b
    }

    #[test]
    fn integral_floats_are_admitted_as_integers_without_the_schema() {
        let tool = Registry::global().get("unit.add").expect("registered");
        assert!(!tool.validates_arguments());
        let floats = || json!({ "a": 1.0, "b": 1e2 });
        let mut admitted = floats();
        admit(
            tool.built(),
            &mut admitted,
            &Settings::default(),
            Integers::First,
        )
        .expect("admitted");
        assert!(
            admitted["a"].is_u64() && admitted["b"].is_u64(),
            "{admitted}"
        );
        assert_eq!(admitted, json!({ "a": 1, "b": 100 }));
        // An inline tool with nothing to check rewrites only when its arguments do not read.
        let mut admitted = floats();
        admit(
            tool.built(),
            &mut admitted,
            &Settings::default(),
            Integers::WhenUnread,
        )
        .expect("admitted");
        assert!(admitted["a"].is_f64(), "{admitted}");
        let call = MCPToolCall::new("unit.add", json!({ "a": -0.0, "b": 1e2 })).unwrap();
        let result = Registry::global().call_blocking(call);
        assert_eq!(result.data(), json!({ "result": 100 }).as_object());
        let call = MCPToolCall::new("unit.add", json!({ "a": 1.5, "b": 1 })).unwrap();
        let result = Registry::global().call_blocking(call);
        let error = result.error().expect("refused");
        assert_eq!(error.error_type, ErrorType::ValidationError);
        assert!(
            error.error_message.contains("`/a`"),
            "{}",
            error.error_message
        );
    }
}
