use mcp_runtime::mcp_tool;

fn my_layer() -> tower::timeout::TimeoutLayer {
    tower::timeout::TimeoutLayer::new(std::time::Duration::from_secs(1))
}

/// Adds one.
#[mcp_tool(namespace = "ui", layer = my_layer())]
fn increment(n: i64) -> i64 {
    n + 1
}

fn main() {
    let _ = my_layer();
}
