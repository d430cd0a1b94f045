//! Plain Rust functions as MCP tools.
//!
//! Put `#[mcp_tool]` on a function; it stays an ordinary function, and it is also a tool
//! with a JSON Schema for its input and output, registered at start-up. The [`Registry`]
//! runs [`MCPToolCall`]s and answers with [`MCPToolResult`]s; [`cli::run`] gives the
//! application a command line.
//!
//! ```
//! use mcp_runtime::{MCPToolCall, Registry, ToolError, mcp_tool};
//! use serde::Serialize;
//!
//! #[derive(Serialize, schemars::JsonSchema)]
//! struct Quotient {
//!     value: i64,
//! }
//!
//! /// Divides `a` by `b`.
//! #[mcp_tool(namespace = "math")]
//! fn divide(
//!     /// The dividend.
//!     a: i64,
//!     /// The divisor; not zero.
//!     b: i64,
//! ) -> Result<Quotient, ToolError> {
//!     a.checked_div(b)
//!         .map(|value| Quotient { value })
//!         .ok_or_else(|| ToolError::validation("`b` must not be zero"))
//! }
//!
//! // Still a plain function:
//! assert_eq!(divide(7, 2)?.value, 3);
//!
//! // And a tool:
//! let registry = Registry::global();
//! let call = MCPToolCall::new("math.divide", serde_json::json!({ "a": 7, "b": 0 }))?;
//! let result = registry.call_blocking(call);
//! assert_eq!(result.error().unwrap().error_message, "`b` must not be zero");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod auth;
pub mod cli;
#[cfg(feature = "client")]
pub mod client;
mod context;
mod execute;
pub mod listing;
mod policy;
mod registration;
mod registry;
pub mod server;
pub mod spec;
pub mod talk;
pub mod tasks;
#[cfg(feature = "client")]
pub mod testing;
mod tool;
mod validate;

#[doc(hidden)]
pub mod __private;

#[doc = include_str!("mcp_tool.md")]
pub use mcp_runtime_macros::mcp_tool;

#[doc = include_str!("mcp_resource.md")]
pub use mcp_runtime_macros::mcp_resource;

#[doc = include_str!("mcp_prompt.md")]
pub use mcp_runtime_macros::mcp_prompt;

pub use auth::AuthInfo;
pub use context::{LogSink, Progress, ProgressSink, ToolContext};
pub use execute::{AUDIT_TARGET, CallOptions, DEFAULT_TIMEOUT};
pub use mcp_runtime_core::{
    ContentBlock, DefinitionError, EmbeddedResource, ErrorDetails, ErrorType, HeaderError,
    HeaderParam, LogMessage, LoggingLevel, MCPErrorDetail, MCPToolCall, MCPToolResult,
    MessageError, PromptArgument, PromptDefinition, PromptMessage, PromptResult,
    ResourceAnnotations, ResourceBody, ResourceContents, ResourceDefinition, ResourceInfo,
    ResourceTemplateDefinition, Role, TaskSupport, ToolAnnotations, ToolDefinition, ToolError,
    ToolName, ToolNameError, ToolStatus, missing_client_capabilities, schema,
};
pub use policy::{Confirm, DangerousPolicy};
pub use registration::{Arguments, CompletionContext, LastModifiedFn, Location, ReadRequest};
pub use registry::{
    CompletionRef, ConflictKind, EMPTY_REGISTRY_HINT, PromptError, ReadError, RegisteredPrompt,
    RegisteredResource, RegisteredTemplate, RegisteredTool, Registry, RegistryBuilder,
    RegistryError, RegistryProblem, ToolConflict, VARIABLES_META,
};
/// The crates tool types are derived with, for applications that do not name them
/// themselves (derives then need `#[serde(crate = "mcp_runtime::serde")]` and
/// `#[schemars(crate = "mcp_runtime::schemars")]`).
pub use tokio_util::sync::CancellationToken;
pub use {schemars, serde, serde_json};

/// The README's example, compiled as a doc test so that it stays true.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeExample;
