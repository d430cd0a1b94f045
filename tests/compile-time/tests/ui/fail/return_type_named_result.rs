use mcp_runtime::mcp_tool;

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Result {
    total: i64,
}

/// Adds two numbers.
#[mcp_tool(namespace = "ui")]
fn add(a: i64, b: i64) -> Result {
    Result { total: a + b }
}

fn main() {}
