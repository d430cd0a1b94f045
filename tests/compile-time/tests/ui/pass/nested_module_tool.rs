use mcp_runtime::{MCPToolCall, Registry};
use serde_json::json;

mod outer {
    pub mod inner {
        use mcp_runtime::mcp_tool;

        /// Reverses a text.
        #[mcp_tool(namespace = "ui")]
        pub(crate) fn reverse(text: String) -> String {
            text.chars().rev().collect()
        }

        pub mod deepest {
            /// Private to its module, and still a tool.
            #[mcp_runtime::mcp_tool(namespace = "ui")]
            fn secret() -> u8 {
                7
            }
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    assert_eq!(outer::inner::reverse("abc".into()), "cba");
    let registry = Registry::global();
    let result = registry.call_blocking(MCPToolCall::new("ui.reverse", json!({ "text": "abc" }))?);
    assert_eq!(result.data(), json!({ "result": "cba" }).as_object());
    let result = registry.call_blocking(MCPToolCall::new("ui.secret", json!({}))?);
    assert_eq!(result.data(), json!({ "result": 7 }).as_object());
    let tool = registry.get("ui.reverse").expect("registered");
    assert!(
        tool.location().module_path.ends_with("::outer::inner"),
        "{}",
        tool.location().module_path
    );
    Ok(())
}
