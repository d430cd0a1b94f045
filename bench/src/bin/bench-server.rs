//! The framework under test: three tools written with `#[mcp_tool]`, served by
//! `mcp_runtime::cli::run()`.
//!
//! ```text
//! bench-server serve --stdio
//! bench-server serve --http 127.0.0.1:0
//! ```

#[path = "../tools.rs"]
mod tools;

fn main() {
    tools::self_check();
    mcp_runtime::cli::run()
}
