//! Runs one tool: the arguments in, an `MCPToolResult` out, whatever the tool does.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};

use futures_util::FutureExt;
use mcp_core::schema::output_data;
use mcp_core::{MCPToolResult, ToolDefinition, ToolError};

use crate::context::ToolContext;
use crate::registration::{Arguments, Handler, Outcome, Output};

/// The signature of a synchronous tool's invoke function.
type SyncInvoke = fn(Arguments, ToolContext) -> Outcome;

/// Runs `handler` with `arguments`. A panic becomes a `ToolExecutionError` failure.
pub(crate) async fn run(
    definition: &ToolDefinition,
    handler: Handler,
    arguments: Arguments,
    context: ToolContext,
) -> MCPToolResult {
    let outcome = match handler {
        Handler::Sync(invoke) => run_sync_outcome(definition, invoke, arguments, context),
        Handler::Async(invoke) => {
            match catch_unwind(AssertUnwindSafe(|| invoke(arguments, context))) {
                Ok(future) => AssertUnwindSafe(future)
                    .catch_unwind()
                    .await
                    .unwrap_or_else(|panic| Err(panicked(definition, panic))),
                Err(panic) => Err(panicked(definition, panic)),
            }
        }
    };
    finish(definition, outcome)
}

/// Runs a synchronous tool on the calling thread.
pub(crate) fn run_sync(
    definition: &ToolDefinition,
    invoke: SyncInvoke,
    arguments: Arguments,
    context: ToolContext,
) -> MCPToolResult {
    finish(
        definition,
        run_sync_outcome(definition, invoke, arguments, context),
    )
}

fn run_sync_outcome(
    definition: &ToolDefinition,
    invoke: SyncInvoke,
    arguments: Arguments,
    context: ToolContext,
) -> Outcome {
    catch_unwind(AssertUnwindSafe(|| invoke(arguments, context)))
        .unwrap_or_else(|panic| Err(panicked(definition, panic)))
}

fn finish(definition: &ToolDefinition, outcome: Outcome) -> MCPToolResult {
    match outcome {
        Ok(Output::Value(value)) => {
            MCPToolResult::success(match output_data(value, definition.wraps_output()) {
                Some(data) => serde_json::Value::Object(data),
                None => serde_json::Value::Null,
            })
        }
        Ok(Output::Result(result)) => result,
        Err(err) => MCPToolResult::failure(err),
    }
}

fn panicked(definition: &ToolDefinition, panic: Box<dyn Any + Send>) -> ToolError {
    let message = panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic with a non-string payload".to_owned());
    ToolError::execution(format!("tool `{}` panicked: {message}", definition.name()))
}
