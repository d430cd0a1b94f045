// A symbolic link whose target is outside the skill's folder.

mcp_runtime::skills!("$MCP_UI_SKILLS/link_out");

fn main() {}
