use mcp_runtime::talk::Form;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Point {
    x: i32,
    y: i32,
}

#[derive(serde::Deserialize, schemars::JsonSchema, Form)]
struct Placement {
    /// Where.
    at: Point,
    /// Why.
    reason: String,
}

fn main() {}
