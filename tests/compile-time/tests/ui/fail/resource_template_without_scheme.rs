use mcp_runtime::mcp_resource;

/// A user.
#[mcp_resource(uri_template = "{scheme}://users")]
fn users(scheme: String) -> String {
    scheme
}

fn main() {}
