//! The three tools both framework servers serve: `bench.add` (inline), `bench.add_blocking`
//! (a sync tool on the blocking pool, the default) and `bench.add_async` (an `async fn`);
//! and `bench.add_slow`, a sync tool that sleeps 10 ms first, for `mcp-bench burst`.
//! All three take `{a, b}` and answer `{"sum": a + b}`, so the driver can check any of them.
//! Beside them, a fixed text resource, `bench://about`, and a one-message prompt,
//! `bench_greeting`, for `resources/read` and `prompts/get` against `tools/call`.

use mcp_runtime::schemars::JsonSchema;
use mcp_runtime::serde::Serialize;
use mcp_runtime::{ToolError, mcp_prompt, mcp_resource, mcp_tool};

/// The sum of two integers.
#[derive(Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(crate = "mcp_runtime::serde")]
#[schemars(crate = "mcp_runtime::schemars")]
pub(crate) struct Sum {
    /// `a + b`.
    pub(crate) sum: i64,
}

fn checked_sum(a: i64, b: i64) -> Result<Sum, ToolError> {
    a.checked_add(b)
        .map(|sum| Sum { sum })
        .ok_or_else(|| ToolError::validation(format!("{a} + {b} does not fit in a 64-bit integer")))
}

/// Add two integers.
///
/// Fails, rather than wrapping around, when the sum does not fit in 64 bits.
#[mcp_tool(namespace = "bench", inline, read_only, idempotent, open_world = false)]
pub(crate) fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> Result<Sum, ToolError> {
    checked_sum(a, b)
}

/// Add two integers, in a sandbox.
///
/// The same as `bench.add`, run in an isolated worker process: what `mcp-bench sandbox`
/// measures against `bench.add`.
#[mcp_tool(
    namespace = "bench",
    inline,
    read_only,
    idempotent,
    open_world = false,
    requires_sandbox
)]
pub(crate) fn add_sandboxed(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> Result<Sum, ToolError> {
    checked_sum(a, b)
}

/// Add two integers, on the blocking thread pool.
///
/// The same as `bench.add`, run the way a sync tool runs unless it says `inline`.
#[mcp_tool(namespace = "bench", read_only, idempotent, open_world = false)]
pub(crate) fn add_blocking(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> Result<Sum, ToolError> {
    checked_sum(a, b)
}

/// Add two integers, slowly, on the blocking thread pool.
///
/// The same as `bench.add_blocking`, after 10 ms asleep: a synchronous tool that holds its
/// thread, as one waiting on a file or a blocking client does; what `mcp-bench burst`
/// calls 10,000 times at once. Its own timeout, 5 s, bounds how long a call waits for a
/// thread.
#[mcp_tool(
    namespace = "bench",
    read_only,
    idempotent,
    open_world = false,
    timeout = "5s"
)]
pub(crate) fn add_slow(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> Result<Sum, ToolError> {
    std::thread::sleep(std::time::Duration::from_millis(10));
    checked_sum(a, b)
}

/// Add two integers, as an `async fn`.
///
/// The same as `bench.add`, run on the caller's task.
#[mcp_tool(namespace = "bench", read_only, idempotent, open_world = false)]
pub(crate) async fn add_async(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> Result<Sum, ToolError> {
    checked_sum(a, b)
}

/// What `bench://about` reads as; the driver checks every read against it.
const ABOUT: &str = "mcp-bench: a fixed text resource";

/// A fixed text resource.
#[mcp_resource(uri = "bench://about", mime_type = "text/plain")]
pub(crate) fn about() -> &'static str {
    ABOUT
}

/// A prompt of one message, `n=<n>`.
#[mcp_prompt(name = "bench_greeting")]
pub(crate) fn greeting(
    /// Any number; the message repeats it.
    n: u32,
) -> String {
    format!("n={n}")
}

/// Keeps the tools linked, and checks they are still plain functions.
pub(crate) fn self_check() {
    debug_assert_eq!(about(), ABOUT);
    debug_assert_eq!(greeting(7), "n=7");
    debug_assert_eq!(add(1, 2).ok(), Some(Sum { sum: 3 }));
    debug_assert_eq!(add_blocking(1, 2).ok(), Some(Sum { sum: 3 }));
    let _ = (add_async, add_slow);
}
