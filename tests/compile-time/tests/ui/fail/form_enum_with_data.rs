use mcp_runtime::talk::Form;

#[derive(serde::Deserialize, schemars::JsonSchema, Form)]
enum Shape {
    Dot,
    Circle { radius: f64 },
}

fn main() {}
