//! A server of tools that misbehave on purpose: they panic, hang, print to standard
//! output, sleep, or answer at length. The fault tests serve them and check that the
//! server keeps answering every other request.

use std::time::Duration;

use mcp_runtime::{ToolContext, mcp_tool};

/// Adds two integers.
#[mcp_tool(namespace = "fault", inline)]
fn add(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}

/// Panics.
#[mcp_tool(namespace = "fault", inline)]
fn panic() -> i64 {
    panic!("this tool always panics")
}

/// Panics on the blocking pool.
#[mcp_tool(namespace = "fault")]
fn panic_blocking() -> i64 {
    panic!("this blocking tool always panics")
}

/// Never returns on its own; its timeout is one second.
#[mcp_tool(namespace = "fault", timeout = "1s")]
async fn hang() -> i64 {
    std::future::pending::<()>().await;
    0
}

/// Waits until cancelled; says on standard error when it stops, however it stops.
#[mcp_tool(namespace = "fault", timeout = "60s")]
async fn wait_for_cancel(ctx: ToolContext) -> i64 {
    struct Stopped;
    impl Drop for Stopped {
        fn drop(&mut self) {
            eprintln!("fault.wait_for_cancel: stopped");
        }
    }
    let _stopped = Stopped;
    ctx.cancellation().cancelled().await;
    0
}

/// Writes to standard output, as careless code does, then answers.
#[mcp_tool(namespace = "fault")]
#[allow(clippy::print_stdout)]
fn print(text: String) -> String {
    println!("{text}");
    print!("no newline here ");
    text
}

/// Sleeps `ms` milliseconds, then answers `n`.
#[mcp_tool(namespace = "fault", timeout = "60s")]
async fn sleep(ms: u64, n: i64) -> i64 {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    n
}

/// Answers `n`, padded with `size` bytes of text.
#[mcp_tool(namespace = "fault", inline)]
fn large(n: i64, size: usize) -> Large {
    Large {
        n,
        padding: "x".repeat(size),
    }
}

/// A number and its padding.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Large {
    n: i64,
    padding: String,
}

fn main() {
    mcp_runtime::cli::run()
}
