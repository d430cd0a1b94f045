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
use crate::context::options::Options;
use crate::execute;
use crate::registration::Handler;
use crate::service::{Kind, Request, Response, Running, Stack};
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
        let Some(tool) = registry
            .tools
            .get(self.name.as_str())
            .filter(|tool| tool.enabled)
        else {
            return Begun::Finished(registry.unknown_tool(&self.name));
        };
        let built = tool.built();
        if let Some(error) = &built.error {
            return Begun::Finished(MCPToolResult::failure(ToolError::execution(format!(
                "tool `{}` cannot run: its definition could not be built: {error}",
                tool.name
            ))));
        }
        if let Some(stack) = registry.layers.for_tool(tool) {
            return Begun::Running(self.layered(tool, stack));
        }
        let settings = &registry.settings;
        match tool.handler {
            // An inline tool runs right here, with no future of its own. Unless its user
            // must confirm it first, which takes an await.
            Handler::Inline(invoke) if !registry.awaits_before(built) => {
                Begun::Finished(execute::run_inline(
                    tool,
                    built,
                    invoke,
                    &mut self.arguments,
                    self.options.borrowed(),
                    settings,
                ))
            }
            _ => Begun::Running(self.running(tool)),
        }
    }

    /// The future of a call through the layers of `stack`, taking the arguments and
    /// options; at the bottom of the stack, the tool runs as it does with no layers.
    #[inline(never)]
    fn layered(
        &mut self,
        tool: &'r RegisteredTool,
        stack: Stack,
    ) -> Pin<Box<dyn Future<Output = MCPToolResult> + Send + 'r>> {
        let arguments = match std::mem::take(&mut self.arguments) {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        let options = std::mem::take(&mut self.options).owned();
        let (owned, settings) = (tool.clone(), Arc::clone(&self.registry.settings));
        let run = move |arguments, options| -> Running {
            Box::pin(async move {
                Response::Tool(execute::run(&owned, arguments, options, &settings).await)
            })
        };
        let timeout = tool
            .definition()
            .timeout()
            .or(self.registry.settings.default_timeout);
        let request = Request::new(
            Kind::Tool,
            tool.name.as_str().into(),
            arguments,
            options,
            run,
        )
        .with_timeout(timeout);
        Box::pin(async move {
            match crate::service::through(&stack, request).await {
                Response::Tool(result) => result,
                _ => MCPToolResult::failure(ToolError::execution(
                    "a layer answered a tool call with another kind's response",
                )),
            }
        })
    }

    /// The future of a tool that awaits, taking the arguments and options: out of line, so
    /// that its state, built here before it is boxed, does not weigh on an inline call.
    #[inline(never)]
    fn running(
        &mut self,
        tool: &'r RegisteredTool,
    ) -> Pin<Box<dyn Future<Output = MCPToolResult> + Send + 'r>> {
        let arguments = match std::mem::take(&mut self.arguments) {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        let options = std::mem::take(&mut self.options).owned();
        Box::pin(execute::run(
            tool,
            arguments,
            options,
            &self.registry.settings,
        ))
    }
}
