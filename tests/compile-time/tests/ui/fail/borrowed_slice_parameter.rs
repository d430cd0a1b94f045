use mcp_runtime::mcp_tool;

/// Adds numbers.
#[mcp_tool(namespace = "ui")]
fn sum(numbers: &[i64]) -> i64 {
    numbers.iter().sum()
}

fn main() {}
