//! `#[mcp_tool]`, `#[mcp_resource]` and `#[mcp_prompt]`: turn a plain Rust function into an
//! MCP tool, resource (or resource template) or prompt; `skills!` embeds a folder of Agent
//! Skills.
//!
//! Use them through `mcp_runtime`, which re-exports them and documents them with examples.
//! `attr.rs` parses the attributes' arguments, `model.rs` reads the function, `valid/`
//! checks what cannot work, `expand/` writes the code, each of the last two with a file per
//! kind. `form.rs` is `#[derive(Form)]`, for the forms a tool asks the user to fill in.
//! `skills.rs` is `skills!`, which reads a folder rather than an item.

mod attr;
mod expand;
mod form;
mod model;
mod skills;
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

/// Makes a struct a form the user can be asked to fill in, or a unit-variant enum a choice a
/// form's field can hold. See `mcp_runtime::talk::Form`.
#[proc_macro_derive(Form, attributes(form))]
pub fn derive_form(item: TokenStream) -> TokenStream {
    form::derive(item.into()).into()
}

/// Embeds a folder of Agent Skills at compile time, each registered at start-up. See
/// `mcp_runtime::skills`.
#[proc_macro]
pub fn skills(input: TokenStream) -> TokenStream {
    skills::skills(input.into()).into()
}
