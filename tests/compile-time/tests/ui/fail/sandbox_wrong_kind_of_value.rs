use mcp_runtime::mcp_tool;

/// Lists a directory, its paths not in brackets.
#[mcp_tool(namespace = "ui", requires_sandbox(read = "/srv/data"))]
fn list(dir: String) -> Vec<String> {
    vec![dir]
}

/// Lists a directory, a path not a string.
#[mcp_tool(namespace = "ui", requires_sandbox(read = [DATA]))]
fn list_data(dir: String) -> Vec<String> {
    vec![dir]
}

/// Builds a project, with no process at all.
#[mcp_tool(namespace = "ui", requires_sandbox(processes = 0))]
fn build(project: String) -> String {
    project
}

/// Builds a project, the count a string.
#[mcp_tool(namespace = "ui", requires_sandbox(processes = "8"))]
fn build_all(project: String) -> String {
    project
}

/// Formats a file, the flag given a string.
#[mcp_tool(namespace = "ui", requires_sandbox = "strict")]
fn format(file: String) -> String {
    file
}

fn main() {}
