// Two skills, in two grouping folders, with one name.

mcp_runtime::skills!("$MCP_UI_SKILLS/duplicate");

fn main() {}
