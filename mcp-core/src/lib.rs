//! The message and tool model of mcp-runtime.
//!
//! The message model is the seeds' (`MCPToolCall`, `MCPToolResult`, `MCPErrorDetail`); the
//! tool model (`ToolDefinition`) serializes to MCP's `Tool` object. Every rule of the seeds
//! holds for a value built in Rust and for one deserialized from JSON; a violation is a
//! [`MessageError`] naming the field.
//!
//! ```
//! use mcp_runtime_core::{MCPToolCall, MCPToolResult, ToolStatus};
//!
//! let call: MCPToolCall = serde_json::from_str(
//!     r#"{"tool_name": "text.word_count", "arguments": {"text": "hello world"}}"#,
//! )?;
//! assert_eq!(call.tool_name.namespace(), "text");
//!
//! let err = serde_json::from_str::<MCPToolResult>(r#"{"status": "failure"}"#).unwrap_err();
//! assert!(err.to_string().contains("`error` is required"));
//! # Ok::<(), serde_json::Error>(())
//! ```

mod capabilities;
mod content;
mod error;
mod header;
mod logging;
mod message;
mod name;
mod prompt;
mod resource;
pub mod schema;
mod scope;
mod text;
mod tool;
pub mod wire;

pub use capabilities::{CLIENT_CAPABILITIES, missing_client_capabilities};
pub use content::{ContentBlock, EmbeddedResource};
pub use error::{MessageError, ToolError};
// For mcp-runtime's messages; not part of the API.
#[doc(hidden)]
pub use error::json_type;
pub use header::{
    HEADER_ANNOTATION, HEADER_PREFIX, HeaderError, HeaderParam, MAX_HEADER_INTEGER,
    is_valid_header_name,
};
pub use logging::{LogMessage, LoggingLevel, UnknownLevel};
pub use message::{
    ErrorDetails, ErrorType, MCPErrorDetail, MCPToolCall, MCPToolResult, ToolStatus,
};
pub use name::{MAX_TOOL_NAME_LEN, TOOL_NAME_PATTERN, ToolName, ToolNameError};
pub use prompt::{PromptArgument, PromptDefinition, PromptMessage, PromptResult};
pub use resource::{
    ResourceAnnotations, ResourceBody, ResourceContents, ResourceDefinition, ResourceInfo,
    ResourceTemplateDefinition, Role,
};
pub use scope::SCOPES_META;
pub use tool::{DefinitionError, META_KEY, TaskSupport, ToolAnnotations, ToolDefinition};
