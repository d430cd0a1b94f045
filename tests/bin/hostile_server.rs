//! A stdio server that answers the handshake properly and then misbehaves on `tools/call`,
//! as its one argument says, so that the client tests can check that each misbehaviour is
//! a typed error for the caller, promptly:
//! - `malformed`: a line that is not JSON, then a response with neither result nor error;
//! - `not-object`: a result that is a string;
//! - `oversized`: a message longer than the client reads;
//! - `wrong-id`: a response to a request never made, then silence;
//! - `die`: says why on standard error and exits;
//! - `silent`: never answers the call;
//! - `deaf`: at the first call, stops reading its input (and never answers);
//! - `slow-echo`: answers each call with its `text` argument after a pause (half a second
//!   for the first), so that its input pipe fills and drains while it works;
//! - `die-once FILE`: lists `poke` as read-only; the first process to be called creates
//!   FILE and exits, every later one answers.
//!
//! Written by hand on purpose: the framework's own server would never do any of this.

use std::io::{BufRead, Write};

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_default();
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();
    let mut echoed = false;
    for line in stdin.lock().lines() {
        let Ok(line) = line else { return };
        let Ok(message) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        let id = message.get("id").cloned();
        let method = message.get("method").and_then(|m| m.as_str()).unwrap_or("");
        let reply = |result: serde_json::Value| {
            serde_json::json!({ "jsonrpc": "2.0", "id": id, "result": result }).to_string()
        };
        let answer = match method {
            "server/discover" => serde_json::json!({
                "jsonrpc": "2.0", "id": id,
                "error": { "code": -32601, "message": "no such method" },
            })
            .to_string(),
            "initialize" => reply(serde_json::json!({
                "protocolVersion": "2025-11-25",
                "capabilities": { "tools": {} },
                "serverInfo": { "name": "hostile", "version": "1" },
            })),
            "tools/list" => reply(serde_json::json!({ "tools": [
                {
                    "name": "poke",
                    "inputSchema": { "type": "object" },
                    "annotations": { "readOnlyHint": mode == "die-once" },
                },
            ] })),
            "tools/call" => match mode.as_str() {
                "malformed" => format!(
                    "this is not json\n{}",
                    serde_json::json!({ "jsonrpc": "2.0", "id": id })
                ),
                "not-object" => reply(serde_json::json!("a string")),
                "oversized" => format!(
                    "{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{{\"pad\":\"{}\"}}}}",
                    id.unwrap_or_default(),
                    "x".repeat(17 * 1024 * 1024)
                ),
                "wrong-id" => {
                    serde_json::json!({ "jsonrpc": "2.0", "id": 9999, "result": {} }).to_string()
                }
                "die" => {
                    eprintln!("hostile: giving up on purpose");
                    std::process::exit(3);
                }
                "slow-echo" => {
                    // A long pause first, for the calls behind to fill the pipe.
                    let first = !std::mem::replace(&mut echoed, true);
                    std::thread::sleep(std::time::Duration::from_micros(if first {
                        500_000
                    } else {
                        300
                    }));
                    let text = message["params"]["arguments"]["text"].clone();
                    reply(serde_json::json!({
                        "content": [{ "type": "text", "text": text }],
                        "structuredContent": { "text": text },
                    }))
                }
                "deaf" => {
                    // Its input pipe fills; whoever writes to it must not wait for room.
                    std::thread::sleep(std::time::Duration::from_secs(60));
                    return;
                }
                "die-once" => {
                    let marker = std::env::args().nth(2).unwrap_or_default();
                    if std::fs::OpenOptions::new()
                        .write(true)
                        .create_new(true)
                        .open(&marker)
                        .is_ok()
                    {
                        eprintln!("hostile: dying once");
                        std::process::exit(3);
                    }
                    reply(serde_json::json!({ "content": [{ "type": "text", "text": "poked" }] }))
                }
                _ => continue,
            },
            _ if id.is_none() => continue,
            _ => reply(serde_json::json!({})),
        };
        if writeln!(out, "{answer}")
            .and_then(|()| out.flush())
            .is_err()
        {
            return;
        }
    }
}
