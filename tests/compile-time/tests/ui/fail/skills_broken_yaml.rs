// The front matter is not valid YAML: the error names the line in SKILL.md.

mcp_runtime::skills!("$MCP_UI_SKILLS/broken_yaml");

fn main() {}
