use mcp_runtime::{ErrorType, MCPToolCall, Registry, mcp_tool};
use serde_json::json;

/// Reads a file, failing with an `std::io::Error`.
#[mcp_tool(namespace = "ui")]
fn read_text(path: String) -> Result<String, std::io::Error> {
    std::fs::read_to_string(path)
}

/// The size of a file, through the `std::io::Result` alias.
#[mcp_tool(namespace = "ui")]
fn file_size(path: String) -> std::io::Result<u64> {
    Ok(std::fs::metadata(path)?.len())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::global();
    let file = std::env::temp_dir().join(format!("mcp-ui-io-{}.txt", std::process::id()));
    std::fs::write(&file, "hello")?;
    let path = file.to_str().expect("a UTF-8 path");

    let result = registry.call_blocking(MCPToolCall::new("ui.read_text", json!({ "path": path }))?);
    assert_eq!(result.data(), json!({ "result": "hello" }).as_object());
    let result = registry.call_blocking(MCPToolCall::new("ui.file_size", json!({ "path": path }))?);
    assert_eq!(result.data(), json!({ "result": 5 }).as_object());
    std::fs::remove_file(&file)?;

    for name in ["ui.read_text", "ui.file_size"] {
        let result = registry.call_blocking(MCPToolCall::new(name, json!({ "path": path }))?);
        let error = result.error().expect("a failure");
        assert_eq!(error.error_type, ErrorType::FileNotFoundError, "{name}");
    }

    // The output schema is the `Ok` type's, wrapped.
    for (name, ty) in [("ui.read_text", "string"), ("ui.file_size", "integer")] {
        let tool = registry.get(name).expect("registered");
        let output = serde_json::to_value(tool.definition().output_schema().expect("an output"))?;
        assert_eq!(output["properties"]["result"]["type"], ty, "{name}");
    }
    Ok(())
}
