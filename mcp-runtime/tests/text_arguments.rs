//! Calls of inline tools read from their arguments' JSON text ([`Handler::InlineText`]):
//! the server runs a call whose arguments that text reads into the tool's parameters with
//! no JSON tree built for them, and writes the data the tool returns as it was serialized.
//! Every answer must be the one the ordinary way gives, byte for byte, whatever the
//! arguments hold; a call the text does not serve goes the ordinary way.

use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_runtime::__private::{
    Failure, Handler, Invocation, Location, Outcome, Output, ToolRegistration, inventory,
    parse_arguments, parse_text,
};
use mcp_runtime::layers::BoxLayer;
use mcp_runtime::server::Server;
use mcp_runtime::{DefinitionError, Registry, ToolDefinition, mcp_tool};
use serde_json::{Value, json};

/// A sum.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Sum {
    /// The sum.
    sum: i64,
    /// Said of it.
    note: String,
}

/// Adds two integers.
#[mcp_tool(namespace = "text", inline)]
fn add(a: i64, b: i64) -> Sum {
    Sum {
        sum: a + b,
        note: format!("{a} + {b} \"quoted\" \u{e9}\n"),
    }
}

/// A point.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Point {
    /// Across.
    x: i64,
    /// Down.
    y: i64,
}

/// Adds a point's coordinates: an object in the arguments, whose keys deserialization
/// alone does not check for repeats.
#[mcp_tool(namespace = "text", inline)]
fn across(point: Point, label: Option<String>) -> Result<Sum, mcp_runtime::ToolError> {
    Ok(Sum {
        sum: point.x + point.y,
        note: label.unwrap_or_default(),
    })
}

/// Halves an integer: data that is no object, wrapped as `{"result": …}`.
#[mcp_tool(namespace = "text", inline)]
fn halve(n: i64) -> i64 {
    n / 2
}

/// The calls to compare, each with a mistake or a turn of its own.
fn messages() -> Vec<String> {
    let call = |id: usize, name: &str, arguments: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}","arguments":{arguments}}}}}"#
        )
    };
    let deep = format!(r#"{{"a":1,"b":{}2{}}}"#, "[".repeat(200), "]".repeat(200));
    let cases = [
        ("text.add", r#"{"a":1,"b":2}"#),
        ("text.add", r#"{ "b" : 2 , "a" : -7 }"#),
        ("text.add", r#"{"a":1.0,"b":1e2}"#),
        ("text.add", r#"{"a":1,"a":2,"b":2}"#),
        ("text.add", r#"{"a":1,"b":2,"c":3}"#),
        ("text.add", r#"{"a":1,"b":2,"c":3,"c":4}"#),
        ("text.add", r#"{"\u0061":1,"b":2}"#),
        ("text.add", r#"{"a":"1","b":2}"#),
        ("text.add", r#"{"a":1e400,"b":2}"#),
        ("text.add", r#"{"a":1,"b":2,"c":"\ud800"}"#),
        ("text.add", &deep),
        ("text.add", r#"{}"#),
        ("text.add", r#"{"a":9223372036854775807,"b":0}"#),
        ("text.across", r#"{"point":{"x":1,"y":2},"label":"here"}"#),
        ("text.across", r#"{"point":{"x":1,"y":2,"y":3}}"#),
        ("text.across", r#"{"point":{"x":1,"y":2,"z":3}}"#),
        ("text.across", r#"{"point":{"x":1,"y":2},"label":null}"#),
        ("text.halve", r#"{"n":9}"#),
        ("text.none", r#"{"n":9}"#),
        ("text.add", r#"[1,2]"#),
        ("text.add", r#"null"#),
    ];
    cases
        .iter()
        .enumerate()
        .map(|(id, (name, arguments))| call(id, name, arguments))
        .collect()
}

/// A server of this file's tools; with `layered`, a layer that does nothing around the
/// tools it selects (`*` for all): a call of a tool a layer wraps goes the ordinary way.
fn server(validate_output: bool, layered: Option<&str>) -> Server {
    let mut builder = Registry::builder()
        .inventory()
        .validate_output(validate_output);
    if let Some(selector) = layered {
        let identity = tower::layer::util::Identity::new();
        builder = match selector {
            "*" => builder.layer(identity),
            selector => {
                let selector = selector.parse().expect("a selector");
                builder.layer_for(selector, BoxLayer::new(identity))
            }
        };
    }
    Server::new(builder.build().expect("a valid registry")).with_info("text-test", "0.1.0")
}

async fn answers(server: &Server) -> Vec<String> {
    let mut answers = Vec::new();
    for message in messages() {
        let answer = server.handle(message.as_bytes(), None).await;
        answers.push(answer.unwrap_or_else(|| panic!("no answer to {message}")));
    }
    answers
}

#[tokio::test]
async fn a_call_read_from_its_text_is_answered_as_the_ordinary_way_answers_it() {
    let ordinary = answers(&server(false, Some("*"))).await;
    for validate_output in [false, true] {
        let read = answers(&server(validate_output, None)).await;
        for ((message, ordinary), read) in messages().iter().zip(&ordinary).zip(&read) {
            assert_eq!(
                read, ordinary,
                "{message} (output checked: {validate_output})"
            );
        }
    }
    // What the answers say, so that the comparison is of answers that mean something.
    let said: Vec<Value> = ordinary
        .iter()
        .map(|answer| serde_json::from_str(answer).expect("an answer is JSON"))
        .collect();
    assert_eq!(said[0]["result"]["structuredContent"]["sum"], 3);
    assert_eq!(said[1]["result"]["structuredContent"]["sum"], -5);
    assert_eq!(said[2]["result"]["structuredContent"]["sum"], 101);
    for repeated in [3, 14] {
        assert_eq!(
            said[repeated]["error"]["code"], -32600,
            "{}",
            ordinary[repeated]
        );
    }
    assert_eq!(said[5]["error"]["code"], -32600, "{}", ordinary[5]);
    for refused in [4, 7, 15] {
        assert_eq!(
            said[refused]["result"]["isError"], true,
            "{}",
            ordinary[refused]
        );
    }
    assert_eq!(said[6]["result"]["structuredContent"]["sum"], 3);
    for unread in [8, 9, 10] {
        assert_eq!(
            said[unread]["error"]["code"], -32602,
            "{}",
            ordinary[unread]
        );
    }
    assert_eq!(said[13]["result"]["structuredContent"]["note"], "here");
    assert_eq!(said[17]["result"]["structuredContent"]["result"], 4);
    assert_eq!(said[19]["error"]["code"], -32602, "{}", ordinary[19]);
    assert_eq!(said[20]["result"]["isError"], true, "{}", ordinary[20]);
    let text = said[0]["result"]["content"][0]["text"]
        .as_str()
        .expect("text");
    assert_eq!(
        serde_json::from_str::<Value>(text).expect("JSON text"),
        said[0]["result"]["structuredContent"]
    );
}

// A registration as `#[mcp_tool(inline)]` makes one, its two functions counting their
// calls: which of them ran says which way a call went.

static FROM_VALUE: AtomicUsize = AtomicUsize::new(0);
static FROM_TEXT: AtomicUsize = AtomicUsize::new(0);

fn counted_definition() -> Result<ToolDefinition, DefinitionError> {
    let schema = schemars::json_schema!({
        "type": "object",
        "properties": { "n": { "type": "integer" } },
        "required": ["n"],
    });
    ToolDefinition::new("count.n", schema)
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Counted {
    n: i64,
}

fn counted(read: Result<Counted, Failure>, text: bool) -> Outcome {
    let data = json!({ "twice": 2 * read?.n });
    Ok(if text {
        Output::Text(data.to_string())
    } else {
        Output::Value(data)
    })
}

fn counted_from_value(arguments: &Value, _: Invocation<'_>) -> Outcome {
    FROM_VALUE.fetch_add(1, Ordering::SeqCst);
    counted(parse_arguments(arguments), false)
}

fn counted_from_text(arguments: &str, _: Invocation<'_>) -> Outcome {
    FROM_TEXT.fetch_add(1, Ordering::SeqCst);
    counted(parse_text(arguments), true)
}

inventory::submit! {
    ToolRegistration::new(
        "count.n",
        counted_definition,
        Handler::InlineText(counted_from_value, counted_from_text),
        Location { file: file!(), line: line!(), column: column!(), module_path: module_path!() },
    )
    .with_exact_names()
}

#[tokio::test]
async fn only_a_call_its_text_serves_is_run_from_it() {
    let server = server(false, None);
    let call = |arguments: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"count.n","arguments":{arguments}}}}}"#
        )
    };
    let counts = || {
        (
            FROM_TEXT.load(Ordering::SeqCst),
            FROM_VALUE.load(Ordering::SeqCst),
        )
    };
    let answer = server.handle(call(r#"{"n":4}"#).as_bytes(), None).await;
    assert_eq!(counts(), (1, 0));
    let answer: Value = serde_json::from_str(&answer.expect("an answer")).expect("JSON");
    assert_eq!(answer["result"]["structuredContent"], json!({ "twice": 8 }));
    // A key written twice: the text does not read, and the ordinary way refuses the
    // call before the tool runs.
    let answer = server
        .handle(call(r#"{"n":4,"n":5}"#).as_bytes(), None)
        .await;
    assert_eq!(counts(), (2, 0));
    assert!(answer.expect("an answer").contains("-32600"));
    // An integral float: the text does not read, the ordinary way reads it as an integer.
    let answer = server.handle(call(r#"{"n":4.0}"#).as_bytes(), None).await;
    assert_eq!(counts(), (3, 2));
    assert!(answer.expect("an answer").contains(r#""twice":8"#));
    // Arguments that are no object are never text.
    let _ = server.handle(call("[4]").as_bytes(), None).await;
    assert_eq!(counts(), (3, 2));
    // A layer around the tool: the ordinary way. A layer around other tools only: the
    // text.
    let layered = self::server(false, Some("count.n"));
    let _ = layered.handle(call(r#"{"n":4}"#).as_bytes(), None).await;
    assert_eq!(counts(), (3, 3));
    let others_layered = self::server(false, Some("text.*"));
    let _ = others_layered
        .handle(call(r#"{"n":4}"#).as_bytes(), None)
        .await;
    assert_eq!(counts(), (4, 3));
}
