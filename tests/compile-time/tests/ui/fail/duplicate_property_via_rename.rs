use mcp_runtime::mcp_tool;

/// Joins two words.
#[mcp_tool(namespace = "ui")]
fn join(first: String, #[serde(rename = "first")] second: String) -> String {
    format!("{first} {second}")
}

fn main() {}
