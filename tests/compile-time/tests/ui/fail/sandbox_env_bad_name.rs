use mcp_runtime::mcp_tool;

/// Formats a date.
#[mcp_tool(namespace = "ui", requires_sandbox(env = ["LANG", "LC-ALL"]))]
fn format_date(date: String) -> String {
    date
}

/// Formats a time, the variable given with its value.
#[mcp_tool(namespace = "ui", requires_sandbox(env = ["TZ=UTC"]))]
fn format_time(time: String) -> String {
    time
}

fn main() {}
