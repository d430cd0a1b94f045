use mcp_runtime::mcp_resource;

struct Files;

impl Files {
    /// A file by its name.
    #[mcp_resource(uri_template = "file:///{name}")]
    fn file(name: String) -> String {
        name
    }
}

fn main() {}
