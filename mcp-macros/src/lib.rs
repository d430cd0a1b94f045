//! `#[mcp_tool]`: turns a plain Rust function into an MCP tool.
//!
//! Use it through `mcp_runtime`, which re-exports it and documents it with examples. This
//! crate holds the attribute only: `attr.rs` parses its arguments, `model.rs` reads the
//! function, `valid.rs` checks what cannot work, `expand.rs` writes the code.

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
