//! What `#[mcp_tool]` registers: a tool's definition, how to run it, and where it was written.

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use mcp_core::{DefinitionError, MCPToolResult, ToolDefinition, ToolError};

use crate::context::ToolContext;
use serde_json::{Map, Value};

/// A tool's arguments: the `arguments` object of the call.
pub type Arguments = Map<String, Value>;

/// What a tool produced: its value, serialized, or a whole result it built itself.
#[derive(Debug)]
pub enum Output {
    /// The serialized return value; `null` for a tool returning `()`.
    Value(Value),
    /// A result the tool built itself (it returned `MCPToolResult`).
    Result(MCPToolResult),
}

/// A tool's outcome before it becomes an `MCPToolResult`.
pub type Outcome = Result<Output, ToolError>;

/// The future an async tool returns.
pub type ToolFuture = Pin<Box<dyn Future<Output = Outcome> + Send + 'static>>;

/// How to run a tool.
#[derive(Clone, Copy)]
pub enum Handler {
    /// A synchronous function.
    Sync(fn(Arguments, ToolContext) -> Outcome),
    /// An `async fn`.
    Async(fn(Arguments, ToolContext) -> ToolFuture),
}

impl fmt::Debug for Handler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Sync(_) => "Handler::Sync",
            Self::Async(_) => "Handler::Async",
        })
    }
}

/// Where a tool was defined, for messages about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    /// Source file.
    pub file: &'static str,
    /// Line of the function's name.
    pub line: u32,
    /// Column of the function's name.
    pub column: u32,
    /// Module path of the function.
    pub module_path: &'static str,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{} ({})",
            self.file, self.line, self.column, self.module_path
        )
    }
}

/// One tool as `#[mcp_tool]` registers it with `inventory`.
#[derive(Debug)]
pub struct ToolRegistration {
    pub(crate) definition: fn() -> Result<ToolDefinition, DefinitionError>,
    pub(crate) handler: Handler,
    pub(crate) location: Location,
}

impl ToolRegistration {
    /// A registration; generated code calls this in a static.
    pub const fn new(
        definition: fn() -> Result<ToolDefinition, DefinitionError>,
        handler: Handler,
        location: Location,
    ) -> Self {
        Self {
            definition,
            handler,
            location,
        }
    }
}

inventory::collect!(ToolRegistration);
