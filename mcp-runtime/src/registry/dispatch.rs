//! The future of [`Registry::call`]: written by hand, because an `async fn` keeps its
//! arguments apart from the locals it holds across an await, and so twice the call. This
//! one is the call and the registry until polled, then the boxed future of a tool that
//! does not finish at once: small enough to move without `memcpy`.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use mcp_runtime_core::{MCPToolCall, MCPToolResult, ToolError};

use super::Registry;
use crate::execute::{self, Options};
use crate::registration::Handler;

/// A call of [`Registry::call`] or [`Registry::call_with`], lazy like any future: nothing
/// runs before the first poll, and dropping it cancels the call.
pub(super) enum Dispatch<'r, O> {
    /// Not yet polled, or finished (`None`).
    Start(Option<Start<'r, O>>),
    /// A tool that awaits, on its own future.
    Running(Pin<Box<dyn Future<Output = MCPToolResult> + Send + 'r>>),
}

pub(super) struct Start<'r, O> {
    registry: &'r Registry,
    call: MCPToolCall,
    options: O,
}

impl<'r, O> Dispatch<'r, O> {
    pub(super) fn new(registry: &'r Registry, call: MCPToolCall, options: O) -> Self {
        Self::Start(Some(Start {
            registry,
            call,
            options,
        }))
    }
}

/// What the first poll found: the result, or the future that makes it.
enum Begun<'r> {
    Finished(MCPToolResult),
    Running(Pin<Box<dyn Future<Output = MCPToolResult> + Send + 'r>>),
}

impl<'r, O: Options + Unpin + 'r> Future for Dispatch<'r, O> {
    type Output = MCPToolResult;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<MCPToolResult> {
        match &mut *self {
            Self::Running(future) => future.as_mut().poll(cx),
            Self::Start(start) => {
                let start = start
                    .take()
                    .expect("the future of `Registry::call` was polled after it finished");
                match start.begin() {
                    Begun::Finished(result) => Poll::Ready(result),
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

impl<'r, O: Options + 'r> Start<'r, O> {
    /// Finds the tool and runs it if it finishes at once; otherwise, its future.
    fn begin(self) -> Begun<'r> {
        let Self {
            registry,
            call,
            options,
        } = self;
        let Some(tool) = registry
            .tools
            .get(call.tool_name.as_str())
            .filter(|tool| tool.enabled)
        else {
            return Begun::Finished(registry.unknown_tool(&call.tool_name));
        };
        let built = tool.built();
        if let Some(error) = &built.error {
            return Begun::Finished(MCPToolResult::failure(ToolError::execution(format!(
                "tool `{}` cannot run: its definition could not be built: {error}",
                tool.name
            ))));
        }
        let settings = &registry.settings;
        match tool.handler {
            // An inline tool runs right here, with no future of its own. Unless its user
            // must confirm it first, which takes an await.
            Handler::Inline(invoke) if !registry.asks_user_before(built) => {
                Begun::Finished(execute::run_inline(
                    tool,
                    built,
                    invoke,
                    call.arguments,
                    options.borrowed(),
                    settings,
                ))
            }
            _ => Begun::Running(Box::pin(execute::run(
                tool,
                call.arguments,
                options.owned(),
                settings,
            ))),
        }
    }
}
