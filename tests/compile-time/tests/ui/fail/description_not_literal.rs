use mcp_runtime::mcp_tool;

#[mcp_tool(namespace = "ui", description = concat!("Adds ", "one."))]
fn increment(n: i64) -> i64 {
    n + 1
}

fn main() {}
