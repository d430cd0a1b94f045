use mcp_runtime::{ToolContext, ToolError, mcp_tool};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    confirm: bool,
}

/// Asks for a confirmation of a type that is no `Form`.
#[mcp_tool(namespace = "ui")]
async fn sure(ctx: &ToolContext) -> Result<String, ToolError> {
    let answer = ctx.elicit::<Confirm>("confirm", "Sure?").await?;
    Ok(answer.action().to_owned())
}

fn main() {}
