use std::rc::Rc;

use mcp_runtime::mcp_resource;

/// A counter.
#[mcp_resource(uri = "app://count")]
async fn count() -> String {
    let shared = Rc::new(1);
    std::future::ready(()).await;
    shared.to_string()
}

fn main() {}
