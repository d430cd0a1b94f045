//! What every model pays for: the quickstart's `tools/list`, whose bytes land in a model's
//! context on every conversation. Each tool's entry is pinned to its size in bytes, as the
//! server writes it, so that a change making the listing larger fails here: growth is then
//! a decision, taken by updating the figure below in the same change and saying why.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::Value;

/// Each tool's `tools/list` entry and its size in bytes, in the listing's order.
const ENTRY_BYTES: [(&str, usize); 7] = [
    ("calculator.add", 800),
    ("file_utility.read_file_content", 1052),
    ("file_utility.write_file_content", 1062),
    // An output of a list of structs: its `$defs`.
    ("text.grep", 1246),
    ("text.slow_count", 1255),
    ("text.summarize", 897),
    ("text.word_count", 807),
];

/// The `tools` of the quickstart's answer to `tools/list`, over stdio after the handshake.
fn listed_tools() -> Vec<Value> {
    let mut server = Command::new(env!("CARGO_BIN_EXE_quickstart"))
        .args(["serve", "--stdio"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("quickstart serves");
    let mut stdin = server.stdin.take().expect("piped");
    for message in [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"listing-size","version":"1.0.0"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    ] {
        writeln!(stdin, "{message}").expect("the server reads");
    }
    // The server stops when its input ends.
    drop(stdin);
    let output = server.wait_with_output().expect("the server stops");
    assert!(output.status.success(), "{:?}", output.status);
    let answer = String::from_utf8(output.stdout)
        .expect("UTF-8")
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).expect("one JSON message a line"))
        .find(|message| message["id"] == 2)
        .expect("an answer to tools/list");
    let result = &answer["result"];
    assert!(
        result.get("nextCursor").is_none(),
        "the listing fits one page: {result}"
    );
    result["tools"].as_array().expect("a list of tools").clone()
}

#[test]
fn each_tools_list_entry_keeps_its_pinned_size_in_bytes() {
    let sizes: Vec<(String, usize)> = listed_tools()
        .iter()
        .map(|tool| {
            let name = tool["name"].as_str().expect("a name").to_owned();
            // The server writes compact JSON, which serde_json writes back byte for byte.
            let bytes = serde_json::to_string(tool).expect("JSON").len();
            (name, bytes)
        })
        .collect();
    let expected: Vec<(String, usize)> = ENTRY_BYTES
        .iter()
        .map(|(name, bytes)| ((*name).to_owned(), *bytes))
        .collect();
    let total: usize = sizes.iter().map(|(_, bytes)| bytes).sum();
    assert_eq!(
        sizes,
        expected,
        "the listing's entries changed size ({total} bytes in all, {} per tool): \
         if that is intended, update `ENTRY_BYTES` and say why in the change",
        total / sizes.len().max(1)
    );
}
