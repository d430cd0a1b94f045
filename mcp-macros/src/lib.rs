//! `#[mcp_tool]`, `#[mcp_resource]` and `#[mcp_prompt]`: turn a plain Rust function into an
//! MCP tool, resource (or resource template) or prompt.
//!
//! Use them through `mcp_runtime`, which re-exports them and documents them with examples.
//! This crate holds the attributes only: `attr.rs` parses their arguments, `model.rs` reads
//! the function, `valid.rs` checks what cannot work, `expand.rs` writes the code.

mod attr;
mod expand;
mod model;
mod valid;

use proc_macro::TokenStream;

/// Turns a plain function into an MCP tool, registered at start-up. See `mcp_runtime::mcp_tool`.
#[proc_macro_attribute]
pub fn mcp_tool(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::mcp_tool(args.into(), item.into()).into()
}

/// Turns a plain function into an MCP resource (`uri = "…"`) or resource template
/// (`uri_template = "…/{name}"`), registered at start-up. See `mcp_runtime::mcp_resource`.
#[proc_macro_attribute]
pub fn mcp_resource(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::mcp_resource(args.into(), item.into()).into()
}

/// Turns a plain function into an MCP prompt whose parameters are its arguments,
/// registered at start-up. See `mcp_runtime::mcp_prompt`.
#[proc_macro_attribute]
pub fn mcp_prompt(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::mcp_prompt(args.into(), item.into()).into()
}
