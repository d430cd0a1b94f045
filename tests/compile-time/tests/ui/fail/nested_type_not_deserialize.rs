use mcp_runtime::mcp_tool;

#[derive(schemars::JsonSchema)]
struct Point {
    x: i64,
}

/// Sums the x of points.
#[mcp_tool(namespace = "ui")]
fn sum_x(points: Vec<Point>) -> i64 {
    points.iter().map(|point| point.x).sum()
}

fn main() {}
