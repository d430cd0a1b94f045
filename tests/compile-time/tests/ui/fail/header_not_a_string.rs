use mcp_runtime::mcp_tool;

/// Runs in a region.
#[mcp_tool(namespace = "ui")]
fn run(#[mcp(header = Region)] region: String) -> String {
    region
}

fn main() {}
