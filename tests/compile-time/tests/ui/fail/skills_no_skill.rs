// No folder holds a SKILL.md.

mcp_runtime::skills!("$MCP_UI_SKILLS/no_skill");

fn main() {}
