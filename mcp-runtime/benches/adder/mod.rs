//! The tool the in-process benches call, `bench.add`: inline, answering an object, as a
//! tool on the hot path does. `benches/call.rs` and `benches/oauth.rs` both include it.

use mcp_runtime::mcp_tool;
use schemars::JsonSchema;
use serde::Serialize;

/// The sum of two integers.
#[derive(Serialize, JsonSchema)]
pub(crate) struct Sum {
    sum: i64,
}

/// Adds two integers, on the caller's task; the result is an object, as MCP wants it.
#[mcp_tool(namespace = "bench", inline)]
pub(crate) fn add(a: i64, b: i64) -> Sum {
    Sum {
        sum: a.wrapping_add(b),
    }
}
