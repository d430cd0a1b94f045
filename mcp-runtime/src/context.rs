//! What a tool may know about the call it serves.

use std::sync::Arc;

use mcp_core::ToolName;

/// The context of one call, injected into a tool that asks for it with a parameter of type
/// `&ToolContext` or `ToolContext` (anywhere in its parameter list). It never appears in
/// the tool's input schema.
///
/// ```
/// use mcp_runtime::{ToolContext, mcp_tool};
///
/// /// Says which tool is running.
/// #[mcp_tool(namespace = "demo")]
/// fn whoami(ctx: &ToolContext) -> String {
///     ctx.tool_name().to_string()
/// }
///
/// let result = mcp_runtime::Registry::global()
///     .call_blocking(mcp_runtime::MCPToolCall::new("demo.whoami", serde_json::json!({}))?);
/// assert_eq!(result.data().unwrap()["result"], "demo.whoami");
/// # Ok::<(), mcp_runtime::MessageError>(())
/// ```
#[derive(Debug, Clone)]
pub struct ToolContext {
    tool_name: Arc<ToolName>,
}

impl ToolContext {
    /// The context of a call of the tool named `tool_name`.
    pub fn new(tool_name: Arc<ToolName>) -> Self {
        Self { tool_name }
    }

    /// The name of the tool being called.
    pub fn tool_name(&self) -> &ToolName {
        &self.tool_name
    }
}
