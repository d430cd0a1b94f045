// The front matter names the skill otherwise than its folder.

mcp_runtime::skills!("$MCP_UI_SKILLS/name_mismatch");

fn main() {}
