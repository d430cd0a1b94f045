use mcp_runtime::mcp_tool;

/// Lists a directory.
#[mcp_tool(namespace = "ui", requires_sandbox(read = ["/srv/data", "srv/images"]))]
fn list(dir: String) -> Vec<String> {
    vec![dir]
}

/// Writes a report, its directory named as a shell would.
#[mcp_tool(namespace = "ui", requires_sandbox(write = ["${OUT}/reports"]))]
fn report(text: String) -> usize {
    text.len()
}

/// Reads a note from the home directory.
#[mcp_tool(namespace = "ui", requires_sandbox(read = ["~/notes"]))]
fn note(name: String) -> String {
    name
}

fn main() {}
