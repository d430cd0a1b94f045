use mcp_runtime::{Registry, mcp_tool, missing_client_capabilities};
use serde_json::json;

/// Summarizes a text with the client's model, asking the user first.
#[mcp_tool(namespace = "ui", requires_client(sampling, elicitation))]
fn summarize(text: String) -> String {
    text
}

/// Needs nothing of the client.
#[mcp_tool(namespace = "ui")]
fn echo(text: String) -> String {
    text
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::global();
    let summarize = registry.get("ui.summarize").expect("registered");
    let required = summarize.definition().required_client_capabilities();
    assert_eq!(
        serde_json::Value::Object(required.clone()),
        json!({ "sampling": {}, "elicitation": {} })
    );
    let wire = serde_json::to_value(summarize.definition())?;
    assert_eq!(
        wire["_meta"]["mcp-runtime/tool"]["requiredClientCapabilities"],
        json!({ "sampling": {}, "elicitation": {} })
    );
    assert_eq!(
        serde_json::Value::Object(missing_client_capabilities(
            required,
            &json!({ "elicitation": {} })
        )),
        json!({ "sampling": {} })
    );

    let echo = registry.get("ui.echo").expect("registered");
    assert!(echo.definition().required_client_capabilities().is_empty());
    let wire = serde_json::to_value(echo.definition())?;
    assert!(wire["_meta"]["mcp-runtime/tool"]
        .get("requiredClientCapabilities")
        .is_none());
    Ok(())
}
