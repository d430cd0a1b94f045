// The argument is a string literal, not a path expression.

mcp_runtime::skills!(skills);

fn main() {}
