//! The floor's JSON-RPC: the least a server must do to answer an MCP client, written by
//! hand. A message is read into a small serde struct; the answer is written straight into
//! the output, byte for byte what the framework sends for the same request.
//!
//! It serves one tool, `bench.add`, with arguments `{a, b}`.

use std::io::{self, Write};

use serde::Deserialize;
use serde_json::Value;

/// The one tool the floor serves.
pub(crate) const TOOL: &str = "bench.add";

/// The version the framework reports in `serverInfo` (that of `mcp-runtime`).
const SERVER_VERSION: &str = "0.1.0";

/// The revisions `initialize` negotiates, newest first, as the framework does.
const HANDSHAKE_VERSIONS: [&str; 2] = ["2025-11-25", "2025-06-18"];

/// `bench.add` as `tools/list` shows it.
const TOOL_DEFINITION: &str = concat!(
    r#"{"name":"bench.add","#,
    r#""description":"Add two integers.\n\nFails, rather than wrapping around, when the sum does not fit in 64 bits.","#,
    r#""inputSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"#,
    r#""a":{"description":"The first addend.","type":"integer"},"#,
    r#""b":{"description":"The second addend.","type":"integer"}},"#,
    r#""required":["a","b"],"additionalProperties":false},"#,
    r#""outputSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema","#,
    r#""description":"The sum of two integers.","type":"object","properties":{"#,
    r#""sum":{"description":"`a + b`.","type":"integer"}},"required":["sum"]},"#,
    r#""annotations":{"readOnlyHint":true,"idempotentHint":true,"openWorldHint":false}}"#,
);

/// One JSON-RPC message, as far as the floor reads it.
#[derive(Deserialize)]
pub(crate) struct Message {
    jsonrpc: String,
    id: Option<Value>,
    method: Option<String>,
    #[serde(default)]
    params: Option<Params>,
}

/// The parameters of the methods the floor answers.
#[derive(Deserialize)]
struct Params {
    #[serde(rename = "protocolVersion")]
    protocol_version: Option<String>,
    name: Option<String>,
    arguments: Option<AddArguments>,
}

/// `bench.add`'s arguments.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AddArguments {
    a: i64,
    b: i64,
}

/// Answers one message into `out`; `false` when nothing is to be sent (a notification or a
/// response).
pub(crate) fn answer(message: &[u8], server_name: &str, out: &mut impl Write) -> io::Result<bool> {
    let message: Message = match serde_json::from_slice(message) {
        Ok(message) => message,
        Err(err) => {
            write_error(out, None, -32700, &format!("parse error: {err}"))?;
            return Ok(true);
        }
    };
    let id = match message.id {
        Some(id @ (Value::Number(_) | Value::String(_))) => id,
        Some(_) => {
            write_error(out, None, -32600, "`id` must be a string or a number")?;
            return Ok(true);
        }
        // A notification, or a response: never answered.
        None => return Ok(false),
    };
    if message.jsonrpc != "2.0" {
        write_error(out, Some(&id), -32600, "`jsonrpc` must be \"2.0\"")?;
        return Ok(true);
    }
    let Some(method) = message.method else {
        return Ok(false);
    };
    let params = message.params;
    match method.as_str() {
        "tools/call" => {
            let (name, arguments) = match params {
                Some(Params {
                    name: Some(name),
                    arguments,
                    ..
                }) => (name, arguments),
                _ => {
                    write_error(out, Some(&id), -32602, "`name` must be the tool's name")?;
                    return Ok(true);
                }
            };
            if name != TOOL {
                write_error(out, Some(&id), -32602, &format!("Unknown tool: {name}"))?;
                return Ok(true);
            }
            match arguments {
                Some(AddArguments { a, b }) => write_sum(out, &id, a, b)?,
                None => write_error(out, Some(&id), -32602, "`arguments` must be `{a, b}`")?,
            }
        }
        "initialize" => {
            let requested = params.and_then(|params| params.protocol_version);
            let version = match requested.as_deref() {
                Some(requested) if HANDSHAKE_VERSIONS.contains(&requested) => requested,
                _ => HANDSHAKE_VERSIONS[0],
            };
            write_head(out, &id)?;
            write!(
                out,
                r#""result":{{"protocolVersion":"{version}","capabilities":{{"logging":{{}},"tools":{{"listChanged":true}},"resources":{{"subscribe":true,"listChanged":true}},"prompts":{{"listChanged":true}},"completions":{{}}}},"serverInfo":{{"name":"{server_name}","version":"{SERVER_VERSION}"}}}}}}"#
            )?;
        }
        "tools/list" => {
            write_head(out, &id)?;
            write!(out, r#""result":{{"tools":[{TOOL_DEFINITION}]}}}}"#)?;
        }
        "ping" => {
            write_head(out, &id)?;
            out.write_all(br#""result":{}}"#)?;
        }
        _ => write_error(
            out,
            Some(&id),
            -32601,
            &format!("method `{method}` is not supported by this server"),
        )?,
    }
    Ok(true)
}

fn write_head(out: &mut impl Write, id: &Value) -> io::Result<()> {
    out.write_all(br#"{"jsonrpc":"2.0","id":"#)?;
    serde_json::to_writer(&mut *out, id)?;
    out.write_all(b",")
}

/// The framework's `CallToolResult` for `bench.add`: the data in `structuredContent` and as
/// text, or, when the sum overflows, the failure's text and its error detail in `_meta`.
fn write_sum(out: &mut impl Write, id: &Value, a: i64, b: i64) -> io::Result<()> {
    write_head(out, id)?;
    match a.checked_add(b) {
        Some(sum) => write!(
            out,
            r#""result":{{"structuredContent":{{"sum":{sum}}},"content":[{{"type":"text","text":"{{\"sum\":{sum}}}"}}],"isError":false}}}}"#
        ),
        None => {
            let message = format!("{a} + {b} does not fit in a 64-bit integer");
            write!(
                out,
                r#""result":{{"content":[{{"type":"text","text":"[FAIL] Tool execution failed:\nError: ValidationError: {message}"}}],"isError":true,"_meta":{{"io.github.mcp-runtime/error":{{"error_type":"ValidationError","error_message":"{message}","error_details":null}}}}}}}}"#
            )
        }
    }
}

fn write_error(
    out: &mut impl Write,
    id: Option<&Value>,
    code: i64,
    message: &str,
) -> io::Result<()> {
    out.write_all(br#"{"jsonrpc":"2.0","#)?;
    if let Some(id) = id {
        out.write_all(br#""id":"#)?;
        serde_json::to_writer(&mut *out, id)?;
        out.write_all(b",")?;
    }
    write!(out, r#""error":{{"code":{code},"message":"#)?;
    serde_json::to_writer(&mut *out, message)?;
    out.write_all(b"}}")
}
