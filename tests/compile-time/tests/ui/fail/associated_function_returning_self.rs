use mcp_runtime::mcp_tool;

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Point {
    x: i64,
}

impl Point {
    /// A point on the axis.
    #[mcp_tool]
    fn at(x: i64) -> Self {
        Point { x }
    }
}

fn main() {}
