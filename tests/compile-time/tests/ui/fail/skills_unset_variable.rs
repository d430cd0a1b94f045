// `$NAME` at the start is read from the environment.

mcp_runtime::skills!("$MCP_NO_SUCH_VARIABLE/skills");

fn main() {}
