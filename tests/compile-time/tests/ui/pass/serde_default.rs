use mcp_runtime::{MCPToolCall, Registry, mcp_tool};
use serde_json::json;

/// Repeats a word.
#[mcp_tool(namespace = "ui")]
fn repeat(
    word: String,
    /// How often; zero times when absent.
    #[serde(default)]
    times: u32,
    /// Words to put between; none when absent.
    #[serde(default)]
    separators: Vec<String>,
) -> String {
    let separator = separators.first().map_or("", String::as_str);
    vec![word; times as usize].join(separator)
}

fn main() {
    let tool = Registry::global().get("ui.repeat").expect("registered");
    let schema = serde_json::to_value(tool.definition().input_schema()).unwrap();
    // Only `word` is required; the defaults appear in the schema.
    assert_eq!(schema["required"], json!(["word"]), "{schema}");
    assert_eq!(schema["properties"]["times"]["default"], 0, "{schema}");
    assert_eq!(
        schema["properties"]["separators"]["default"],
        json!([]),
        "{schema}"
    );

    let call = |arguments| {
        let result =
            Registry::global().call_blocking(MCPToolCall::new("ui.repeat", arguments).unwrap());
        result.data().map(|data| data["result"].clone())
    };
    assert_eq!(call(json!({ "word": "ab" })), Some(json!("")));
    assert_eq!(
        call(json!({ "word": "ab", "times": 2 })),
        Some(json!("abab"))
    );
    assert_eq!(
        call(json!({ "word": "ab", "times": 2, "separators": ["-"] })),
        Some(json!("ab-ab"))
    );
}
