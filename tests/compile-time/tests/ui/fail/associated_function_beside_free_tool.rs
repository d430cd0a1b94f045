use mcp_runtime::mcp_tool;

struct Calc;

impl Calc {
    /// Adds two numbers.
    #[mcp_tool(namespace = "calc")]
    fn add(a: i64, b: i64) -> i64 {
        a + b
    }
}

/// Adds two numbers.
#[mcp_tool(namespace = "calc")]
fn add(a: i64, b: i64) -> i64 {
    Calc::add(a, b)
}

fn main() {}
