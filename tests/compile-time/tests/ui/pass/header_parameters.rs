use mcp_runtime::{HeaderParam, MCPToolCall, Registry, mcp_tool};
use serde_json::json;

/// Runs a query in a region, for a tenant.
#[mcp_tool(namespace = "ui")]
fn run_query(
    /// Where the query runs.
    #[mcp(header = "Region")]
    region: String,
    /// The tenant, by number.
    #[serde(rename = "tenantId")]
    #[mcp(header = "Tenant-Id")]
    tenant: i64,
    #[mcp(header = "Dry-Run")] dry_run: bool,
    #[mcp(header = "Trace")] trace: Option<String>,
    /// The query itself, in the body only.
    query: String,
) -> String {
    format!("{region} {tenant} {dry_run} {trace:?} {query}")
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Still a plain function, its `#[mcp]` attributes gone.
    assert_eq!(
        run_query("eu".into(), 7, true, None, "q".into()),
        "eu 7 true None q"
    );

    let tool = Registry::global().get("ui.run_query").expect("registered");
    let definition = tool.definition();
    assert_eq!(
        definition.header_params(),
        [
            HeaderParam::new("region", "Region"),
            HeaderParam::new("tenantId", "Tenant-Id"),
            HeaderParam::new("dry_run", "Dry-Run"),
            HeaderParam::new("trace", "Trace"),
        ]
    );
    let schema = serde_json::to_value(definition.input_schema())?;
    let properties = &schema["properties"];
    assert_eq!(properties["region"]["x-mcp-header"], "Region");
    assert_eq!(properties["region"]["description"], "Where the query runs.");
    assert_eq!(properties["trace"]["type"], json!(["string", "null"]));
    assert!(properties["query"].get("x-mcp-header").is_none());
    // A mirrored integer is one a double holds exactly.
    assert_eq!(properties["tenantId"]["maximum"], json!(9_007_199_254_740_991_i64));
    assert_eq!(properties["tenantId"]["minimum"], json!(-9_007_199_254_740_991_i64));

    let registry = Registry::global();
    let call = |arguments| MCPToolCall::new("ui.run_query", arguments);
    let result = registry.call_blocking(call(json!({
        "region": "eu", "tenantId": 7, "dry_run": false, "query": "q"
    }))?);
    assert_eq!(
        result.data(),
        json!({ "result": "eu 7 false None q" }).as_object()
    );
    let refused = registry.call_blocking(call(json!({
        "region": "eu", "tenantId": 9_007_199_254_740_992_i64, "dry_run": false, "query": "q"
    }))?);
    assert_eq!(
        refused.error().expect("refused").error_type.as_str(),
        "ValidationError"
    );
    Ok(())
}
