use mcp_runtime::talk::Form;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Name {
    first: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema, Form)]
struct Person {
    #[serde(flatten)]
    name: Name,
}

fn main() {}
