//! The framework under test: the tools of `tools.rs`, written with `#[mcp_tool]`,
//! `bench.task_add`, an optional task, and `bench.add_reported`, which reports progress and
//! logs, served by `mcp_runtime::cli::run!()`.
//!
//! ```text
//! bench-server serve --stdio
//! bench-server serve --http 127.0.0.1:0 [--task-store memory|redis://HOST:PORT]
//! ```

#[path = "../tools.rs"]
mod tools;

use mcp_runtime::{ToolContext, ToolError, mcp_tool};

/// Add two integers, as a task when the client supports tasks.
///
/// The same as `bench.add`, but a client that declares the tasks extension gets a task
/// handle and polls `tasks/get` for the sum, which is there at once: what `mcp-bench tasks`
/// measures.
#[mcp_tool(
    namespace = "bench",
    read_only,
    idempotent,
    open_world = false,
    task = "optional"
)]
async fn task_add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> Result<tools::Sum, ToolError> {
    tools::add(a, b)
}

/// Add two integers, reporting as it goes.
///
/// The same as `bench.add`, after one progress report (1 of 1) and one log message at
/// `info`, each sent only when the caller asked for it: what `mcp-bench soak` checks
/// arrives before the answer.
#[mcp_tool(namespace = "bench", read_only, idempotent, open_world = false)]
async fn add_reported(
    ctx: &ToolContext,
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> Result<tools::Sum, ToolError> {
    ctx.progress(1.0, Some(1.0), Some("added"));
    ctx.info(format!("{a} + {b}"));
    tools::add(a, b)
}

fn main() {
    tools::self_check();
    let _ = (task_add, add_reported);
    mcp_runtime::cli::run!()
}
