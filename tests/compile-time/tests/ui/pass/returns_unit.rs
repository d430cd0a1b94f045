use std::sync::atomic::{AtomicU32, Ordering};

use mcp_runtime::{MCPToolCall, Registry, ToolStatus, mcp_tool};
use serde_json::json;

static COUNTER: AtomicU32 = AtomicU32::new(0);

/// Adds to a counter; returns nothing.
#[mcp_tool(namespace = "ui")]
fn bump(by: u32) {
    COUNTER.fetch_add(by, Ordering::SeqCst);
}

/// Returns `()` written out.
#[mcp_tool(namespace = "ui")]
fn reset() -> () {
    COUNTER.store(0, Ordering::SeqCst);
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::global();
    let result = registry.call_blocking(MCPToolCall::new("ui.bump", json!({ "by": 3 }))?);
    assert_eq!(result.status(), ToolStatus::Success);
    assert!(result.data().is_none(), "{result:?}");
    assert_eq!(COUNTER.load(Ordering::SeqCst), 3);
    let result = registry.call_blocking(MCPToolCall::new("ui.reset", json!({}))?);
    assert_eq!(result.status(), ToolStatus::Success);
    assert!(result.data().is_none(), "{result:?}");
    assert_eq!(COUNTER.load(Ordering::SeqCst), 0);
    for name in ["ui.bump", "ui.reset"] {
        let tool = registry.get(name).expect("registered");
        assert!(tool.definition().output_schema().is_none(), "{name}");
    }
    Ok(())
}
