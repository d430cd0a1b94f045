// Every skill's errors are reported together.

mcp_runtime::skills!("$MCP_UI_SKILLS/several");

fn main() {}
