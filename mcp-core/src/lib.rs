//! The message and tool model of mcp-runtime.
//!
//! The message model is the tool-call model (`MCPToolCall`, `MCPToolResult`,
//! `MCPErrorDetail`); the tool model (`ToolDefinition`) serializes to MCP's `Tool` object.
//! Every rule of the message model holds for a value built in Rust and for one
//! deserialized from JSON; a violation is a [`MessageError`] naming the field.
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

/// A builder method that sets a text field, `with_title(…)` and the like: every definition
/// has a few, and they differ in their names alone. `method => field` sets an optional
/// text; `method => [field]` a list of texts.
macro_rules! text_setter {
    ($(#[$doc:meta])* $method:ident => $($field:ident).+) => {
        $(#[$doc])*
        #[must_use]
        pub fn $method(mut self, text: impl Into<String>) -> Self {
            self.$($field).+ = Some(text.into());
            self
        }
    };
    ($(#[$doc:meta])* $method:ident => [$field:ident]) => {
        $(#[$doc])*
        #[must_use]
        pub fn $method<I, S>(mut self, texts: I) -> Self
        where
            I: IntoIterator<Item = S>,
            S: Into<String>,
        {
            self.$field = texts.into_iter().map(Into::into).collect();
            self
        }
    };
}

mod capabilities;
mod content;
mod error;
mod header;
mod logging;
mod message;
pub mod method;
mod name;
mod prompt;
mod resource;
pub mod sandbox;
pub mod schema;
mod scope;
pub mod skill;
mod text;
mod tool;
mod tool_error;
pub mod wire;

pub use capabilities::{CLIENT_CAPABILITIES, missing_client_capabilities};
pub use content::{ContentBlock, EmbeddedResource};
pub use error::MessageError;
// For mcp-runtime's messages; not part of the API.
#[doc(hidden)]
pub use error::{json_type, pointer_token};
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
pub use tool_error::ToolError;
