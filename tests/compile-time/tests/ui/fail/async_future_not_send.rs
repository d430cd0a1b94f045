use std::rc::Rc;

use mcp_runtime::mcp_tool;

/// Counts, holding an `Rc` across an await.
#[mcp_tool(namespace = "ui")]
async fn count(n: u32) -> u32 {
    let shared = Rc::new(n);
    std::future::ready(()).await;
    *shared
}

fn main() {}
