use mcp_runtime::mcp_resource;

/// About.
#[mcp_resource(uri = "app://about", audience("user", "asistant"))]
fn about() -> String {
    String::new()
}

fn main() {}
