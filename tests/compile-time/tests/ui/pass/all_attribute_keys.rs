use mcp_runtime::{MCPToolCall, Registry, mcp_tool};
use serde_json::json;

/// Ignored: `description` wins over the doc comment.
#[mcp_tool(
    name = "read_all",
    namespace = "ui.files",
    title = "Read every file",
    description = "Reads every file under a directory.",
    version = "1.2.3-beta.1",
    category = "filesystem",
    tags("fs", "read"),
    read_only,
    destructive = false,
    idempotent,
    open_world = true,
    dangerous,
    requires_sandbox,
    timeout = "30s",
    deprecated = "use `ui.files.read` instead",
    errors(FileNotFoundError, PermissionError),
    scopes("files:read", "files.all")
)]
fn read_everything(dir: String) -> Vec<String> {
    vec![dir]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The tool is marked `requires_sandbox`: a call runs it in a worker, this program run
    // again, which serves its call here.
    mcp_runtime::sandbox::dispatch();
    assert_eq!(read_everything("d".into()), ["d"]);
    let registry = Registry::global();
    assert!(registry.get("ui.read_everything").is_none());
    let tool = registry
        .get("ui.files.read_all")
        .expect("registered under `name`");
    let wire = serde_json::to_value(tool.definition())?;
    assert_eq!(wire["name"], "ui.files.read_all");
    assert_eq!(wire["title"], "Read every file");
    assert_eq!(wire["description"], "Reads every file under a directory.");
    assert_eq!(
        wire["annotations"],
        json!({
            "readOnlyHint": true,
            "destructiveHint": false,
            "idempotentHint": true,
            "openWorldHint": true,
        })
    );
    assert_eq!(
        wire["_meta"]["mcp-runtime/tool"],
        json!({
            "version": "1.2.3-beta.1",
            "category": "filesystem",
            "tags": ["fs", "read"],
            "timeoutMs": 30000,
            "deprecated": "use `ui.files.read` instead",
            "errors": ["FileNotFoundError", "PermissionError"],
            "scopes": ["files:read", "files.all"],
            "dangerous": true,
            "requiresSandbox": true,
        })
    );
    assert_eq!(
        tool.definition().timeout(),
        Some(std::time::Duration::from_secs(30))
    );
    assert_eq!(wire["inputSchema"]["required"], json!(["dir"]));
    assert_eq!(
        wire["outputSchema"]["properties"]["result"]["type"],
        "array"
    );

    // `dangerous`: refused unless the registry's policy allows it.
    let call = MCPToolCall::new("ui.files.read_all", json!({ "dir": "x" }))?;
    let refused = registry.call_blocking(call.clone());
    assert_eq!(refused.error().unwrap().error_type.as_str(), "PermissionError");
    let allowing = Registry::builder()
        .inventory()
        .allow_dangerous(["ui.files.read_all"])
        .build()?;
    let result = allowing.call_blocking(call);
    assert_eq!(result.data(), json!({ "result": ["x"] }).as_object());
    Ok(())
}
