// The name breaks the Agent Skills naming rules.

mcp_runtime::skills!("$MCP_UI_SKILLS/bad_name");

fn main() {}
