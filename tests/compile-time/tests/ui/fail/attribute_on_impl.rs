use mcp_runtime::mcp_tool;

struct Counter;

#[mcp_tool(namespace = "ui")]
impl Counter {
    /// Adds one.
    fn increment(n: i64) -> i64 {
        n + 1
    }
}

fn main() {}
