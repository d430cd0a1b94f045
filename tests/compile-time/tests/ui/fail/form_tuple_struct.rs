use mcp_runtime::talk::Form;

#[derive(serde::Deserialize, schemars::JsonSchema, Form)]
struct Pair(String, u32);

fn main() {}
