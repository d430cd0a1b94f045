use mcp_runtime::mcp_resource;

/// The report, built in the background.
#[mcp_resource(uri = "app://report", task = "optional")]
fn report() -> String {
    String::new()
}

fn main() {}
