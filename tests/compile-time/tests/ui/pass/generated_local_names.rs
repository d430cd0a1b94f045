//! A tool's, a resource's or a prompt's parameters and body may use any name, those of the
//! generated code's locals among them, and the module around it may hold constants of those
//! names: the generated locals are hygienic.

use mcp_runtime::{
    MCPToolCall, Registry, ToolContext, ToolError, mcp_prompt, mcp_resource, mcp_tool,
};
use serde_json::json;

/// Adds its arguments, named as the generated code names its locals.
#[mcp_tool(namespace = "ui")]
fn add_all(
    arguments: i64,
    parsed: i64,
    value: i64,
    invocation: i64,
    err: i64,
    definition: i64,
    ctx: &ToolContext,
) -> Result<i64, ToolError> {
    let value = value + arguments + parsed + invocation + err + definition;
    if value < 0 {
        let err = ToolError::validation(format!("{} adds up to {value}", ctx.tool_name()));
        return Err(err);
    }
    Ok(value)
}

/// The same, asynchronous, with the names the generated locals once had.
#[mcp_tool(namespace = "ui")]
async fn add_all_later(
    __mcp_arguments: i64,
    __mcp_parsed: i64,
    __mcp_value: i64,
    __mcp_invocation: i64,
    __mcp_err: i64,
    __mcp_ctx: ToolContext,
) -> String {
    std::future::ready(()).await;
    let __mcp_definition =
        __mcp_arguments + __mcp_parsed + __mcp_value + __mcp_invocation + __mcp_err;
    format!("{}: {__mcp_definition}", __mcp_ctx.tool_name())
}

/// The parts of a URI, named as the generated code names its locals.
#[mcp_resource(uri_template = "app://parts/{uri}/{request}/{value}/{failed}")]
fn parts(uri: String, request: String, value: u32, failed: bool) -> String {
    let uri = format!("{uri} {request} {value} {failed}");
    uri
}

/// Joins its arguments, named as the generated code names its locals.
#[mcp_prompt]
fn joined(arguments: String, value: String, input_0: String, __mcp_value: String) -> String {
    let value = [arguments, value, input_0, __mcp_value].join(" ");
    value
}

/// Constants named like the generated locals, beside a tool, a resource and a prompt.
mod beside_constants {
    #![allow(dead_code, non_upper_case_globals)]

    use mcp_runtime::{ToolContext, mcp_prompt, mcp_resource, mcp_tool};

    const arguments: () = ();
    const parsed: () = ();
    const value: () = ();
    const invocation: () = ();
    const ctx: () = ();
    const err: () = ();
    const definition: () = ();
    const request: () = ();
    const uri: () = ();
    const failed: () = ();
    const input_0: () = ();

    /// Doubles a number.
    #[mcp_tool(namespace = "ui")]
    async fn double_later(n: i64, context: &ToolContext) -> String {
        std::future::ready(()).await;
        format!("{}: {}", context.tool_name(), n * 2)
    }

    /// A number, as a resource.
    #[mcp_resource(uri_template = "app://numbers/{n}")]
    fn number(n: u32) -> String {
        n.to_string()
    }

    /// Repeats a word.
    #[mcp_prompt]
    fn repeated(word: String) -> String {
        format!("{word} {word}")
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::global();
    let result = registry.call_blocking(MCPToolCall::new(
        "ui.add_all",
        json!({ "arguments": 1, "parsed": 2, "value": 3, "invocation": 4, "err": 5, "definition": 6 }),
    )?);
    assert_eq!(result.data(), json!({ "result": 21 }).as_object());
    let result = registry.call_blocking(MCPToolCall::new(
        "ui.add_all",
        json!({ "arguments": -1, "parsed": 0, "value": 0, "invocation": 0, "err": 0, "definition": 0 }),
    )?);
    assert_eq!(
        result.error().expect("a failure").error_message,
        "ui.add_all adds up to -1"
    );
    let result = registry.call_blocking(MCPToolCall::new(
        "ui.add_all_later",
        json!({ "__mcp_arguments": 1, "__mcp_parsed": 2, "__mcp_value": 3, "__mcp_invocation": 4, "__mcp_err": 5 }),
    )?);
    assert_eq!(
        result.data(),
        json!({ "result": "ui.add_all_later: 15" }).as_object()
    );

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let read = runtime.block_on(registry.read_resource("app://parts/a/b/7/true"))?;
    assert_eq!(
        serde_json::to_value(read)?[0]["text"],
        "a b 7 true"
    );
    let result = registry.call_blocking(MCPToolCall::new("ui.double_later", json!({ "n": 4 }))?);
    assert_eq!(
        result.data(),
        json!({ "result": "ui.double_later: 8" }).as_object()
    );
    let read = runtime.block_on(registry.read_resource("app://numbers/12"))?;
    assert_eq!(serde_json::to_value(read)?[0]["text"], "12");
    let arguments = json!({ "word": "hey" });
    let rendered = runtime.block_on(registry.get_prompt(
        "repeated",
        arguments.as_object().cloned().unwrap_or_default(),
    ))?;
    assert_eq!(
        serde_json::to_value(&rendered.messages)?[0]["content"]["text"],
        "hey hey"
    );
    let arguments = json!({ "arguments": "a", "value": "b", "input_0": "c", "__mcp_value": "d" });
    let rendered = runtime.block_on(registry.get_prompt(
        "joined",
        arguments.as_object().cloned().unwrap_or_default(),
    ))?;
    assert_eq!(
        serde_json::to_value(&rendered.messages)?[0]["content"]["text"],
        "a b c d"
    );
    Ok(())
}
