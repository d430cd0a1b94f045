use mcp_runtime::mcp_tool;

#[derive(schemars::JsonSchema)]
struct Point {
    x: i64,
    y: i64,
}

/// The Manhattan length of a point.
#[mcp_tool(namespace = "ui")]
fn manhattan(point: Point) -> i64 {
    point.x.abs() + point.y.abs()
}

fn main() {}
