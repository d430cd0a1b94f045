use mcp_runtime::mcp_tool;

/// The answer.
#[mcp_tool(namespace = "ui")]
const ANSWER: i64 = 42;

fn main() {}
