use mcp_runtime::talk::Form;

#[derive(serde::Deserialize, schemars::JsonSchema, Form)]
#[serde(untagged)]
enum Answer {
    Yes,
    No,
}

fn main() {}
