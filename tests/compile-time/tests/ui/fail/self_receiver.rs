use mcp_runtime::mcp_tool;

struct Counter {
    count: u32,
}

impl Counter {
    /// Reads the counter.
    #[mcp_tool(namespace = "ui")]
    fn read(&self) -> u32 {
        self.count
    }
}

fn main() {}
