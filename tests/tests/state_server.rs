//! An application whose tool takes state, run as a process: given with
//! `cli::app!().state(…)`, the state reaches every call; forgotten, every command stops
//! before it runs, `check` and `serve` among them, with exit code 1 and a message naming
//! the tool and the type. `serve` answers nothing.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

const SERVER: &str = env!("CARGO_BIN_EXE_state-server");

/// The message for the forgotten state, as the process prints it.
const MISSING: &str = "error: the registry has 1 problem(s):\n  - tool `state.count` needs state \
`state_server::Calls`, which was never provided; add it with `Registry::builder().state(…)`, or \
`cli::app!().state(…)` for the command line (the tool is defined at tests/bin/state_server.rs:15:4 \
(state_server))\n";

/// Runs the server with `args`, `stdin` as its input, the state given or not.
fn run(gives_state: bool, args: &[&str], stdin: &str) -> Output {
    let mut command = Command::new(SERVER);
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env_remove("RUST_LOG");
    if gives_state {
        command.env_remove("STATE_SERVER_GIVES_NOTHING");
    } else {
        command.env("STATE_SERVER_GIVES_NOTHING", "1");
    }
    let mut child = command.spawn().expect("the server starts");
    let mut input = child.stdin.take().expect("stdin");
    // A server that stops before reading closes its input: the write may fail, and the
    // test looks at what it answered instead.
    let _ = input.write_all(stdin.as_bytes());
    drop(input);
    child.wait_with_output().expect("the server ends")
}

fn text(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).expect("UTF-8")
}

/// An initialize request, then `calls` calls of `state.count`, one JSON-RPC message a line.
fn session(calls: usize) -> String {
    let mut lines = vec![
        json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": { "protocolVersion": "2025-11-25", "capabilities": {},
                        "clientInfo": { "name": "state", "version": "1" } }
        }),
        json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
    ];
    for id in 1..=calls {
        lines.push(json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": { "name": "state.count", "arguments": {} }
        }));
    }
    lines.iter().map(|line| format!("{line}\n")).collect()
}

#[test]
fn the_state_the_application_gives_reaches_every_call_it_serves() {
    let check = run(true, &["check"], "");
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stderr));

    let call = run(true, &["call", "state.count", "{}"], "");
    assert_eq!(call.status.code(), Some(0), "{}", text(&call.stderr));
    let result: Value = serde_json::from_slice(&call.stdout).expect("the result as JSON");
    assert_eq!(result["data"], json!({ "result": 1 }), "{result}");

    let names = run(true, &["call", "state.names", "{}"], "");
    let result: Value = serde_json::from_slice(&names.stdout).expect("the result as JSON");
    assert_eq!(
        result["data"],
        json!({ "result": ["state.count", "state.names"] }),
        "`Registry::global()` is the registry served, with the state: {result}"
    );

    let served = run(true, &["serve", "--stdio"], &session(2));
    assert_eq!(served.status.code(), Some(0), "{}", text(&served.stderr));
    let counts: Vec<Value> = text(&served.stdout)
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).expect("a JSON-RPC message"))
        .filter(|message| message["id"] != 0)
        .map(|message| message["result"]["structuredContent"]["result"].clone())
        .collect();
    assert_eq!(counts, [json!(1), json!(2)], "one counter for the process");
}

#[test]
fn a_forgotten_state_stops_check_and_serve_before_they_run_naming_the_tool_and_the_type() {
    let check = run(false, &["check"], "");
    assert_eq!(check.status.code(), Some(1));
    assert_eq!(text(&check.stderr), MISSING);
    assert_eq!(text(&check.stdout), "");

    let served = run(false, &["serve", "--stdio"], &session(1));
    assert_eq!(served.status.code(), Some(1));
    assert_eq!(text(&served.stderr), MISSING);
    assert_eq!(text(&served.stdout), "", "nothing is answered");

    let call = run(false, &["call", "state.count", "{}"], "");
    assert_eq!(call.status.code(), Some(1), "not at the tool's first call");
    assert_eq!(text(&call.stderr), MISSING);
    assert_eq!(text(&call.stdout), "");
}
