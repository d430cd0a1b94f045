use mcp_runtime::talk::Form;

#[derive(serde::Deserialize, schemars::JsonSchema, Form)]
struct Tags {
    tags: Vec<String>,
}

fn main() {}
