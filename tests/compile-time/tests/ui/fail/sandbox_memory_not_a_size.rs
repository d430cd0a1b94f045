use mcp_runtime::mcp_tool;

/// Resizes an image.
#[mcp_tool(namespace = "ui", requires_sandbox(memory = "a lot"))]
fn resize(image: String) -> String {
    image
}

/// Resizes an image, the size not a string.
#[mcp_tool(namespace = "ui", requires_sandbox(memory = 536870912))]
fn resize_large(image: String) -> String {
    image
}

fn main() {}
