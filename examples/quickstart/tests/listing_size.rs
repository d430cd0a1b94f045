//! What every model pays for: the quickstart's `tools/list`, whose bytes land in a model's
//! context on every conversation. Each tool's entry is pinned to its size in bytes, as the
//! server writes it, so that a change making the listing larger fails here: growth is then
//! a decision, taken by updating the figure below in the same change and saying why. And
//! what every client reads: the listing holds no `format` JSON Schema 2020-12 does not
//! define (schemars' `uint`, `int64`), which say nothing the Rust type does not guarantee
//! and of which the TypeScript SDK's Ajv warns (`unknown format "uint" ignored`).

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::Value;

/// Each tool's `tools/list` entry and its size in bytes, in the listing's order. The
/// schemas are served without schemars' own formats (`"format":"int64"`,
/// `"format":"uint"`: 14 to 17 bytes each).
const ENTRY_BYTES: [(&str, usize); 7] = [
    ("calculator.add", 749),
    ("file_utility.read_file_content", 1036),
    ("file_utility.write_file_content", 1046),
    // An output of a list of structs: its `$defs`, which the portable form inlines.
    ("text.grep", 1230),
    ("text.slow_count", 1205),
    ("text.summarize", 897),
    ("text.word_count", 775),
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

/// The formats JSON Schema 2020-12 defines (Validation, section 7.3), written out here
/// rather than taken from the code under test.
const JSON_SCHEMA_FORMATS: [&str; 19] = [
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Every `(pointer, value)` of the keyword `keyword` in `value`, at any depth.
fn keywords<'a>(value: &'a Value, keyword: &str, at: String, found: &mut Vec<(String, &'a Value)>) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                let here = format!("{at}/{key}");
                if key == keyword {
                    found.push((here.clone(), inner));
                }
                keywords(inner, keyword, here, found);
            }
        }
        Value::Array(items) => {
            for (index, inner) in items.iter().enumerate() {
                keywords(inner, keyword, format!("{at}/{index}"), found);
            }
        }
        _ => {}
    }
}

#[test]
fn the_listing_has_no_format_json_schema_does_not_define() {
    let tools = listed_tools();
    assert_eq!(tools.len(), ENTRY_BYTES.len());
    let schemas: Vec<(String, &Value)> = tools
        .iter()
        .flat_map(|tool| {
            ["inputSchema", "outputSchema"]
                .into_iter()
                .filter_map(move |key| Some((format!("{}/{key}", tool["name"]), tool.get(key)?)))
        })
        .collect();
    // Every tool of the quickstart has both, and its integers had schemars' formats.
    assert_eq!(schemas.len(), 2 * tools.len());
    let mut formats = Vec::new();
    for (at, schema) in &schemas {
        keywords(schema, "format", at.clone(), &mut formats);
    }
    let unknown: Vec<&(String, &Value)> = formats
        .iter()
        .filter(|(_, format)| {
            !format
                .as_str()
                .is_some_and(|format| JSON_SCHEMA_FORMATS.contains(&format))
        })
        .collect();
    assert!(unknown.is_empty(), "{unknown:?}");
    // The integers are still bounded where their type is: `minimum` says what `uint` said.
    let words = schemas
        .iter()
        .find(|(at, _)| at.contains("text.word_count") && at.ends_with("outputSchema"))
        .map(|(_, schema)| schema["properties"]["words"].clone());
    assert_eq!(
        words,
        Some(serde_json::json!({
            "description": "Words, separated by white space.",
            "type": "integer",
            "minimum": 0,
        }))
    );
    // What JSON Schema 2020-12 has stays as generated, `$defs` among it: MCP's conformance
    // suite checks that a server keeps it.
    let grep = schemas
        .iter()
        .find(|(at, _)| at.contains("text.grep") && at.ends_with("outputSchema"))
        .map(|(_, schema)| schema["$defs"]["Match"]["properties"]["line"].clone());
    assert_eq!(
        grep,
        Some(serde_json::json!({
            "description": "Its number, from 1.",
            "type": "integer",
            "minimum": 0,
        }))
    );
}
