use mcp_runtime::{State, mcp_tool};

/// The server's configuration.
struct Config {
    root: String,
}

/// Lists the server's root directory.
#[mcp_tool(namespace = "ui", requires_sandbox)]
fn list_root(config: State<Config>, depth: u32) -> String {
    format!("{}:{depth}", config.root)
}

/// Reads a file under the server's root directory.
#[mcp_tool(namespace = "ui", requires_sandbox(read = ["/srv/data"]))]
fn read_file(path: String, config: &State<Config>) -> String {
    format!("{}/{path}", config.root)
}

/// Runs in the server's process: it may take state.
#[mcp_tool(namespace = "ui", requires_sandbox = false)]
fn root(config: State<Config>) -> String {
    config.root.clone()
}

fn main() {}
