//! The future of [`Registry::call`]: written by hand, because an `async fn` keeps its
//! arguments apart from the locals it holds across an await, and so twice the call. This
//! one is the call and the registry until polled, then the boxed future of a tool that
//! does not finish at once: small enough to move without `memcpy`.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use mcp_runtime_core::{MCPToolCall, MCPToolResult, ToolError, ToolName};
use serde_json::{Map, Value};

use super::Registry;
use crate::context::options::{CallOptions, Options};
use crate::execute;
use crate::registration::Handler;
use crate::service::{Admitted, Wrapping};
use crate::service::{Item, Kind, Request, Response, Running};
use crate::tool::RegisteredTool;

/// A call of [`Registry::call`] or [`Registry::call_with`], lazy like any future: nothing
/// runs before the first poll, and dropping it cancels the call.
pub(super) enum Dispatch<'r, O> {
    /// Not yet polled, or finished (`None`).
    Start(Option<Start<'r, O>>),
    /// A tool that awaits, on its own future.
    Running(Pin<Box<dyn Future<Output = MCPToolResult> + Send + 'r>>),
}

/// The call, as the first poll finds it: its arguments already the JSON value a tool
/// reads, so that an inline tool reads them where they are, with no move.
pub(super) struct Start<'r, O> {
    registry: &'r Registry,
    name: ToolName,
    arguments: Value,
    options: O,
}

impl<'r, O> Dispatch<'r, O> {
    pub(super) fn new(registry: &'r Registry, call: MCPToolCall, options: O) -> Self {
        Self::Start(Some(Start {
            registry,
            name: call.tool_name,
            arguments: Value::Object(call.arguments),
            options,
        }))
    }
}

/// What the first poll found: the result, or the future that makes it.
enum Begun<'r> {
    Finished(MCPToolResult),
    Running(Pin<Box<dyn Future<Output = MCPToolResult> + Send + 'r>>),
}

impl<'r, O: Options + Default + Unpin + 'r> Future for Dispatch<'r, O> {
    type Output = MCPToolResult;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<MCPToolResult> {
        match &mut *self {
            Self::Running(future) => future.as_mut().poll(cx),
            Self::Start(slot) => {
                let start = slot
                    .as_mut()
                    .expect("the future of `Registry::call` was polled after it finished");
                match start.begin() {
                    Begun::Finished(result) => {
                        *slot = None;
                        Poll::Ready(result)
                    }
                    Begun::Running(mut future) => {
                        let poll = future.as_mut().poll(cx);
                        *self = Self::Running(future);
                        poll
                    }
                }
            }
        }
    }
}

impl<'r, O: Options + Default + 'r> Start<'r, O> {
    /// Finds the tool and runs it if it finishes at once; otherwise, its future, which
    /// takes the arguments and options.
    fn begin(&mut self) -> Begun<'r> {
        let registry = self.registry;
        match first_step(
            registry,
            &self.name,
            &mut self.arguments,
            self.options.borrowed(),
            None,
        ) {
            First::Done(result) => Begun::Finished(result),
            First::Rest(tool, None) => Begun::Running(self.running(tool)),
            First::Rest(tool, Some((wrapping, admitted))) => {
                Begun::Running(self.layered(tool, wrapping, admitted))
            }
        }
    }

    /// The future of a call through the layers of `wrapping`, the first of them already
    /// passed as `admitted` says, taking the arguments and options; at the bottom, the
    /// tool runs as it does with no layers.
    #[inline(never)]
    fn layered(
        &mut self,
        tool: &'r RegisteredTool,
        wrapping: Arc<Wrapping>,
        admitted: Admitted,
    ) -> Pin<Box<dyn Future<Output = MCPToolResult> + Send + 'r>> {
        let (arguments, options) = self.take();
        Box::pin(rest(
            self.registry,
            tool,
            wrapping,
            admitted,
            arguments,
            options,
        ))
    }

    /// The arguments and options, taken for a future that owns them.
    fn take(&mut self) -> (Map<String, Value>, CallOptions) {
        let arguments = match std::mem::take(&mut self.arguments) {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        (arguments, std::mem::take(&mut self.options).owned())
    }

    /// The future of a tool that awaits, taking the arguments and options: out of line, so
    /// that its state, built here before it is boxed, does not weigh on an inline call.
    #[inline(never)]
    fn running(
        &mut self,
        tool: &'r RegisteredTool,
    ) -> Pin<Box<dyn Future<Output = MCPToolResult> + Send + 'r>> {
        let (arguments, options) = self.take();
        Box::pin(execute::run(
            tool,
            arguments,
            options,
            &self.registry.settings,
        ))
    }
}

/// What the layers asked directly gave a call that [`Registry::call_text_at_once`] or
/// [`Registry::call_at_once`] could not finish: the layers it has passed, and the tickets
/// it holds. None when no layer was asked.
#[derive(Debug, Default)]
pub(crate) struct Passed(Option<(Arc<Wrapping>, Admitted)>);

impl Registry {
    /// Runs `call` with `options` if that takes no wait: an inline tool, every layer around
    /// it admitting the call at once (the crate's limits). The layers `passed` names are
    /// not asked again. Otherwise `call` is left as it was, for [`Registry::call_passed`],
    /// with what those layers gave it.
    pub(crate) fn call_at_once(
        &self,
        call: &mut MCPToolCall,
        options: &CallOptions,
        passed: Passed,
    ) -> Result<MCPToolResult, Passed> {
        let mut arguments = Value::Object(std::mem::take(&mut call.arguments));
        match first_step(self, &call.tool_name, &mut arguments, options, passed.0) {
            First::Done(result) => Ok(result),
            First::Rest(_, passed) => {
                if let Value::Object(map) = arguments {
                    call.arguments = map;
                }
                Err(Passed(passed))
            }
        }
    }

    /// Runs a call [`Registry::call_at_once`] left, past the layers it has `passed`.
    pub(crate) async fn call_passed(
        &self,
        call: MCPToolCall,
        options: CallOptions,
        passed: Passed,
    ) -> MCPToolResult {
        let Passed(Some((wrapping, admitted))) = passed else {
            return self.call_with(call, options).await;
        };
        // The tool was found when the call was deferred, in this same registry.
        let Some(tool) = self.tools.get(call.tool_name.as_str()) else {
            return self.unknown_tool(&call.tool_name);
        };
        rest(self, tool, wrapping, admitted, call.arguments, options).await
    }
}

impl Registry {
    /// Runs the call of the tool `name` with the arguments whose JSON text (an object) is
    /// `text`, if its tool reads them straight from it ([`Handler::InlineText`]) and
    /// nothing else must: an inline tool that needs no check nor confirmation first, and
    /// whose layers, if any, are the crate's limits and admit it at once (or refuse it: a
    /// failure), in a registry with lenient arguments off. For any other call, or when the
    /// text does not read into the tool's parameters, or writes a key twice, what the
    /// layers gave it: the call then goes the ordinary way ([`Registry::call_at_once`]),
    /// which names what is wrong and asks no layer twice.
    pub(crate) fn call_text_at_once(
        &self,
        name: &ToolName,
        text: &str,
        options: &CallOptions,
    ) -> Result<execute::Ran, Passed> {
        let declined = || Err(Passed::default());
        if self.settings.lenient_arguments {
            return declined();
        }
        let Some(tool) = self.tools.get(name.as_str()).filter(|tool| tool.enabled) else {
            return declined();
        };
        let Handler::InlineText(_, invoke) = tool.handler else {
            return declined();
        };
        let built = tool.built();
        if built.error.is_some() || built.is_guarded() || self.awaits_before(built) {
            return declined();
        }
        // A key written twice is refused, wherever it is: the ordinary way names it.
        if !built.validation.keys_once(text) {
            return declined();
        }
        let Some(wrapping) = self.layers.for_tool(tool) else {
            return execute::run_inline_text(tool, built, invoke, text, options, &self.settings)
                .ok_or_else(Passed::default);
        };
        let mut admitted = Admitted::default();
        if wrapping.tower.is_none() {
            match self.admit_now(tool, &wrapping, options, &mut admitted) {
                Err(refused) => return Ok(execute::Ran::Result(MCPToolResult::failure(refused))),
                Ok(true) => {
                    // Admitted: the tool runs as with no layer, the tickets held until it ends.
                    if let Some(ran) =
                        execute::run_inline_text(tool, built, invoke, text, options, &self.settings)
                    {
                        return Ok(ran);
                    }
                }
                Ok(false) => {}
            }
        }
        Err(Passed(Some((wrapping, admitted))))
    }
}

impl Registry {
    /// Asks the layers of `wrapping` that decide at once about a call of `tool` with
    /// `options`, from the next one `admitted` names ([`Wrapping::admit_now`]).
    fn admit_now(
        &self,
        tool: &RegisteredTool,
        wrapping: &Wrapping,
        options: &CallOptions,
        admitted: &mut Admitted,
    ) -> Result<bool, ToolError> {
        let caller = options.caller();
        let item = Item {
            name: &wrapping.name,
            caller: &caller,
            timeout: self.timeout_of(tool),
            cancellation: options.cancellation(),
        };
        wrapping.admit_now(&item, admitted)
    }
}

/// What the first step of a call found.
pub(super) enum First<'r> {
    /// The call's result: an inline tool ran, or the call failed before it could.
    Done(MCPToolResult),
    /// The tool, to run on a future of its own; with what wraps it, and what the layers
    /// asked directly have admitted so far, when it is layered.
    Rest(&'r RegisteredTool, Option<(Arc<Wrapping>, Admitted)>),
}

/// A call's first step, which takes no wait: the tool found, and run right here if it is
/// inline and every layer around it admits the call at once.
pub(super) fn first_step<'r>(
    registry: &'r Registry,
    name: &ToolName,
    arguments: &mut Value,
    options: &CallOptions,
    passed: Option<(Arc<Wrapping>, Admitted)>,
) -> First<'r> {
    let Some(tool) = registry
        .tools
        .get(name.as_str())
        .filter(|tool| tool.enabled)
    else {
        return First::Done(registry.unknown_tool(name));
    };
    let built = tool.built();
    if let Some(error) = &built.error {
        return First::Done(MCPToolResult::failure(ToolError::execution(format!(
            "tool `{}` cannot run: its definition could not be built: {error}",
            tool.name
        ))));
    }
    // An inline tool runs right here, with no future of its own. Unless its user must
    // confirm it first, which takes an await.
    let inline = inline_invoke(registry, tool);
    let mut wrapped = None;
    let wrapping = match passed {
        Some(passed) => Some(passed),
        None => registry
            .layers
            .for_tool(tool)
            .map(|wrapping| (wrapping, Admitted::default())),
    };
    if let Some((wrapping, mut admitted)) = wrapping {
        match registry.admit_now(tool, &wrapping, options, &mut admitted) {
            Err(refused) => return First::Done(MCPToolResult::failure(refused)),
            Ok(true) if wrapping.tower.is_none() && inline.is_some() => {
                // Admitted: the tool runs as with no layer, the tickets held until it ends.
                wrapped = Some(admitted);
            }
            Ok(_) => return First::Rest(tool, Some((wrapping, admitted))),
        }
    }
    let Some(invoke) = inline else {
        return First::Rest(tool, None);
    };
    let result = execute::run_inline(tool, built, invoke, arguments, options, &registry.settings);
    drop(wrapped);
    First::Done(result)
}

/// The function of `tool` when it runs inline, right where it is called: a synchronous
/// `inline` tool whose user need not confirm it first, which takes an await.
fn inline_invoke(registry: &Registry, tool: &RegisteredTool) -> Option<execute::SyncInvoke> {
    match tool.handler {
        Handler::Inline(invoke) | Handler::InlineText(invoke, _)
            if !registry.awaits_before(tool.built()) =>
        {
            Some(invoke)
        }
        _ => None,
    }
}

/// The rest of a layered call: the layers asked directly that are left, then the tower
/// stack, if any, then the tool.
async fn rest(
    registry: &Registry,
    tool: &RegisteredTool,
    wrapping: Arc<Wrapping>,
    mut admitted: Admitted,
    arguments: Map<String, Value>,
    options: CallOptions,
) -> MCPToolResult {
    let timeout = registry.timeout_of(tool);
    let caller = options.caller();
    let item = Item {
        name: &wrapping.name,
        caller: &caller,
        timeout,
        cancellation: options.cancellation(),
    };
    if let Err(refused) = wrapping.admit_all(item, &mut admitted).await {
        return MCPToolResult::failure(refused);
    }
    let Some(stack) = &wrapping.tower else {
        // Admitted: the tool runs as with no layer, an inline one at once.
        return match inline_invoke(registry, tool) {
            Some(invoke) => {
                let mut arguments = Value::Object(arguments);
                let settings = &registry.settings;
                execute::run_inline(
                    tool,
                    tool.built(),
                    invoke,
                    &mut arguments,
                    &options,
                    settings,
                )
            }
            None => execute::run(tool, arguments, options, &registry.settings).await,
        };
    };
    let (owned, settings) = (tool.clone(), Arc::clone(&registry.settings));
    let run = move |arguments, options| -> Running {
        Box::pin(async move {
            Response::Tool(execute::run(&owned, arguments, options, &settings).await)
        })
    };
    let request = Request::new(
        Kind::Tool,
        Arc::clone(&wrapping.name),
        arguments,
        options,
        run,
    )
    .with_timeout(timeout);
    let response = crate::service::through(stack, request).await;
    drop(admitted);
    match response {
        Response::Tool(result) => result,
        _ => MCPToolResult::failure(ToolError::execution(
            "a layer answered a tool call with another kind's response",
        )),
    }
}
