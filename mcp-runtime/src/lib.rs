#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
// The README shows `main` whole, as an application writes it.
#![allow(clippy::needless_doctest_main)]

mod auth;
mod base;
#[cfg(feature = "cli")]
pub mod cli;
#[cfg(feature = "client")]
pub mod client;
mod context;
mod execute;
mod isolation;
pub mod layers;
pub mod listing;
mod outbound;
mod panics;
mod policy;
mod registration;
mod registry;
pub mod sandbox;
pub mod server;
mod service;
pub mod skills;
pub mod spec;
mod state;
pub mod talk;
pub mod tasks;
pub mod telemetry;
#[cfg(feature = "client")]
pub mod testing;
mod tool;
mod validate;
mod worker;

#[doc(hidden)]
pub mod __private;

#[doc = include_str!("mcp_tool.md")]
pub use mcp_runtime_macros::mcp_tool;

#[doc = include_str!("mcp_resource.md")]
pub use mcp_runtime_macros::mcp_resource;

#[doc = include_str!("mcp_prompt.md")]
pub use mcp_runtime_macros::mcp_prompt;

pub use auth::AuthInfo;
pub use context::options::CallOptions;
pub use context::{Progress, ProgressSink, ToolContext};
pub use execute::{AUDIT_TARGET, DEFAULT_BLOCKING_THREADS, DEFAULT_TIMEOUT};
pub use mcp_runtime_core::wire::ERROR_META;
pub use mcp_runtime_core::{
    ContentBlock, DefinitionError, EmbeddedResource, ErrorDetails, ErrorType, HeaderError,
    HeaderParam, LogMessage, LoggingLevel, MCPErrorDetail, MCPToolCall, MCPToolResult,
    MessageError, PromptArgument, PromptDefinition, PromptMessage, PromptResult,
    ResourceAnnotations, ResourceBody, ResourceContents, ResourceDefinition, ResourceInfo,
    ResourceTemplateDefinition, Role, TaskSupport, ToolAnnotations, ToolDefinition, ToolError,
    ToolName, ToolNameError, ToolStatus, missing_client_capabilities, schema,
};
pub use panics::PANIC_TARGET;
pub use policy::{Confirm, DangerousPolicy};
pub use registration::{Arguments, CompletionContext, LastModifiedFn, Location, ReadRequest};
pub use registry::{
    CompletionRef, ConflictKind, EMPTY_REGISTRY_HINT, PromptError, ReadError, RegisteredPrompt,
    RegisteredResource, RegisteredTemplate, RegisteredTool, Registry, RegistryBuilder,
    RegistryError, RegistryProblem, ToolConflict, VARIABLES_META,
};
pub use state::State;
pub use talk::log::LogSink;
/// The crates tool types are derived with, for applications that do not name them
/// themselves (derives then need `#[serde(crate = "mcp_runtime::serde")]` and
/// `#[schemars(crate = "mcp_runtime::schemars")]`).
pub use tokio_util::sync::CancellationToken;
pub use {schemars, serde, serde_json, tower};
