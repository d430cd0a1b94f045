use mcp_runtime::mcp_tool;

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Result<T, E> {
    value: T,
    note: E,
}

/// Adds two numbers.
#[mcp_tool(namespace = "ui")]
fn add(a: i64, b: i64) -> Result<i64, String> {
    Result {
        value: a + b,
        note: String::new(),
    }
}

fn main() {}
