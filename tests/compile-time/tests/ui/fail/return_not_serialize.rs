use mcp_runtime::mcp_tool;

#[derive(schemars::JsonSchema)]
struct Report {
    lines: u32,
}

/// Counts lines.
#[mcp_tool(namespace = "ui")]
fn count_lines(text: String) -> Report {
    Report {
        lines: text.lines().count() as u32,
    }
}

fn main() {}
