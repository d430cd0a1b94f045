// The front matter has no description.

mcp_runtime::skills!("$MCP_UI_SKILLS/missing_description");

fn main() {}
