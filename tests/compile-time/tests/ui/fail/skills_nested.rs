// A skill inside another skill's folder.

mcp_runtime::skills!("$MCP_UI_SKILLS/nested");

fn main() {}
