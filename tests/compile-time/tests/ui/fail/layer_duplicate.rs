use mcp_runtime::mcp_tool;

fn first() -> tower::timeout::TimeoutLayer {
    tower::timeout::TimeoutLayer::new(std::time::Duration::from_secs(1))
}

fn second() -> tower::limit::ConcurrencyLimitLayer {
    tower::limit::ConcurrencyLimitLayer::new(1)
}

/// Adds one.
#[mcp_tool(namespace = "ui", layer = first, layer = second)]
fn increment(n: i64) -> i64 {
    n + 1
}

fn main() {
    let _ = (first(), second());
}
