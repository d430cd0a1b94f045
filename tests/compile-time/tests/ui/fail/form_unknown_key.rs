use mcp_runtime::talk::Form;

#[derive(serde::Deserialize, schemars::JsonSchema, Form)]
#[form(krate = mcp_runtime)]
struct Confirm {
    confirm: bool,
}

fn main() {}
