//! A server of tools that misbehave on purpose: they panic, hang, print to standard
//! output, sleep, hold until released, or answer at length. The fault tests serve them and
//! check that the server keeps answering every other request. Tools that wait say on
//! standard error when they start and how they stop, so that the tests wait for that
//! rather than for a fixed time.

use std::time::Duration;

use mcp_runtime::{ToolContext, mcp_tool};

/// Adds two integers.
#[mcp_tool(namespace = "fault", inline)]
fn add(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}

/// Panics, with its argument in the message, as a careless tool would.
#[mcp_tool(namespace = "fault", inline)]
fn panic(
    /// Anything; the panic's message holds it.
    secret: Option<String>,
) -> i64 {
    panic!(
        "this tool always panics, holding {}",
        secret.unwrap_or_default()
    )
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

/// Waits until cancelled. Says on standard error when it starts waiting, and when it
/// stops, how: `stopped: cancelled` when its call was cancelled, `stopped: dropped` when
/// the call was dropped otherwise (its timeout, the server shutting down).
#[mcp_tool(namespace = "fault", timeout = "60s")]
async fn wait_for_cancel(ctx: ToolContext) -> i64 {
    struct Stopped(ToolContext);
    impl Drop for Stopped {
        fn drop(&mut self) {
            // A timeout drops the call before it cancels its token; a cancellation
            // cancels the token first.
            let how = if self.0.is_cancelled() {
                "cancelled"
            } else {
                "dropped"
            };
            eprintln!("fault.wait_for_cancel: stopped: {how}");
        }
    }
    let stopped = Stopped(ctx);
    eprintln!("fault.wait_for_cancel: started");
    stopped.0.cancellation().cancelled().await;
    0
}

/// What lets every `fault.hold` call in flight go.
static RELEASE: tokio::sync::Notify = tokio::sync::Notify::const_new();

/// Holds until `fault.release`, then answers `n`. Says on standard error when it starts
/// holding (`fault.hold: started N`) and when it stops, how: `released`, or `dropped` when
/// the server gave up on the call first.
#[mcp_tool(namespace = "fault", timeout = "60s")]
async fn hold(n: i64) -> i64 {
    struct Stopped {
        n: i64,
        released: bool,
    }
    impl Drop for Stopped {
        fn drop(&mut self) {
            let how = if self.released { "released" } else { "dropped" };
            eprintln!("fault.hold: stopped {}: {how}", self.n);
        }
    }
    let mut stopped = Stopped { n, released: false };
    let released = RELEASE.notified();
    tokio::pin!(released);
    // Waiting from here: a release after the line below reaches this call.
    released.as_mut().enable();
    eprintln!("fault.hold: started {n}");
    released.await;
    stopped.released = true;
    n
}

/// Lets every `fault.hold` call in flight go.
#[mcp_tool(namespace = "fault", inline)]
fn release() -> i64 {
    RELEASE.notify_waiters();
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
    mcp_runtime::cli::run!()
}
