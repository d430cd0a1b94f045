use mcp_runtime::talk::Form;

#[derive(serde::Deserialize, schemars::JsonSchema)]
enum Color {
    Red,
    Green,
}

#[derive(serde::Deserialize, schemars::JsonSchema, Form)]
struct Paint {
    color: Color,
}

fn main() {}
