use mcp_runtime::mcp_tool;

/// Moves a job between regions.
#[mcp_tool(namespace = "ui")]
fn move_job(
    #[mcp(header = "Region")] from: String,
    #[mcp(header = "REGION")] to: String,
) -> String {
    format!("{from} -> {to}")
}

fn main() {}
