//! Every kind of error type a tool, a resource or a prompt may return: `anyhow`'s, a
//! `std::error::Error` of the user's own, a type with `Display` alone, and what converts
//! into `ToolError`.

use std::fmt;

use mcp_runtime::{ToolError, mcp_prompt, mcp_resource, mcp_tool};

/// Reads a port number.
#[mcp_tool(namespace = "ui")]
fn port(text: String) -> anyhow::Result<u16> {
    use anyhow::Context as _;
    text.trim().parse().context("not a port number")
}

/// Reads a port number, with `anyhow::Error` written out, on the async path.
#[mcp_tool(namespace = "ui")]
async fn port_async(text: String) -> Result<u16, anyhow::Error> {
    Ok(text.trim().parse()?)
}

/// An error of the application's own.
#[derive(Debug)]
enum LookupError {
    Missing(String),
}

impl fmt::Display for LookupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Missing(key) => write!(f, "no entry `{key}`"),
        }
    }
}

impl std::error::Error for LookupError {}

/// Looks a key up.
#[mcp_tool(namespace = "ui")]
fn lookup(key: String) -> Result<String, LookupError> {
    Err(LookupError::Missing(key))
}

/// A message and nothing else.
struct Refusal(&'static str);

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// Refuses.
#[mcp_tool(namespace = "ui")]
fn refuse() -> Result<(), Refusal> {
    Err(Refusal("not today"))
}

/// Fails with a `ToolError`, a `String` and an I/O error.
#[mcp_tool(namespace = "ui")]
fn tool_error(which: u8) -> Result<u8, ToolError> {
    match which {
        0 => Err(ToolError::not_found("no such order")),
        1 => Err(String::from("a plain message").into()),
        _ => Err(std::io::Error::other("disk full").into()),
    }
}

/// Fails with a `String`.
#[mcp_tool(namespace = "ui")]
fn string_error() -> Result<u8, String> {
    Err("a plain message".to_owned())
}

/// The settings, from a resource: `anyhow`.
#[mcp_resource(uri = "ui://settings")]
fn settings() -> anyhow::Result<String> {
    Ok(std::fs::read_to_string("settings.toml")?)
}

/// A page, from a template, on the async path: an error of the application's own.
#[mcp_resource(uri_template = "ui://pages/{key}")]
async fn page(key: String) -> Result<String, LookupError> {
    Err(LookupError::Missing(key))
}

/// A greeting, from a prompt: `Display` alone.
#[mcp_prompt]
fn greet(name: String) -> Result<String, Refusal> {
    if name.is_empty() { Err(Refusal("no name")) } else { Ok(format!("Hello, {name}.")) }
}

/// A review, from an async prompt: a boxed error, and a `ToolError`.
#[mcp_prompt]
async fn review(code: String) -> Result<String, Box<dyn std::error::Error + Send + Sync>> {
    Ok(format!("Review {} lines.", code.trim().parse::<usize>()?))
}

/// A summary: what converts into `ToolError`, as before.
#[mcp_prompt]
fn summary(text: String) -> Result<String, ToolError> {
    if text.is_empty() { Err(ToolError::validation("nothing to summarise")) } else { Ok(text) }
}

fn main() {}
