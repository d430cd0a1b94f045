//! Tools in a library crate: they are registered in any binary that uses this crate.

use mcp_runtime::mcp_tool;

/// A tool whose name the other test library uses too.
#[mcp_tool(namespace = "shared", name = "same")]
pub fn same_a() -> String {
    "a".to_owned()
}

/// A tool only this library has.
#[mcp_tool(namespace = "tools_a")]
pub fn only_a(n: u32) -> u32 {
    n + 1
}

/// A resource whose URI the other test library uses too.
#[mcp_runtime::mcp_resource(uri = "shared://same")]
pub fn same_resource_a() -> String {
    "a".to_owned()
}

/// A prompt whose name the other test library uses too.
#[mcp_runtime::mcp_prompt(name = "shared_same")]
pub fn same_prompt_a() -> String {
    "a".to_owned()
}

/// A resource template the other test library uses too.
#[mcp_runtime::mcp_resource(uri_template = "shared://same/{id}")]
pub fn same_template_a(id: String) -> String {
    format!("a{id}")
}

// A skill only this library has.
mcp_runtime::skills!("skills");
