use mcp_runtime::{MCPToolCall, Registry, mcp_tool};
use serde_json::{Value, json};

fn default_greeting() -> String {
    "Hello".to_owned()
}

/// Greets someone.
#[mcp_tool(namespace = "ui")]
fn greet(
    /// Who to greet.
    #[serde(rename = "userName")]
    user_name: String,
    /// The greeting word.
    #[serde(default = "default_greeting")]
    greeting: String,
    /// Whether to shout. The alias is not advertised, so it is refused.
    #[serde(alias = "loud")]
    shout: Option<bool>,
) -> String {
    let line = format!("{greeting}, {user_name}!");
    if shout == Some(true) {
        line.to_uppercase()
    } else {
        line
    }
}

fn call(arguments: Value) -> Result<Value, String> {
    let call = MCPToolCall::new("ui.greet", arguments).map_err(|err| err.to_string())?;
    let result = Registry::global().call_blocking(call);
    match result.data() {
        Some(data) => Ok(data["result"].clone()),
        None => Err(format!("{result:?}")),
    }
}

fn main() {
    // Still a plain function, with its Rust parameter names.
    assert_eq!(greet("Ann".into(), "Hi".into(), None), "Hi, Ann!");

    let tool = Registry::global().get("ui.greet").expect("registered");
    let schema = serde_json::to_value(tool.definition().input_schema()).unwrap();
    let properties = schema["properties"].as_object().expect("properties");
    // rename: the property is `userName`, not `user_name`.
    assert!(properties.contains_key("userName"), "{schema}");
    assert!(!properties.contains_key("user_name"), "{schema}");
    assert_eq!(properties["userName"]["description"], "Who to greet.");
    // default = "path": not required, and the schema shows the default value.
    assert_eq!(schema["required"], json!(["userName"]), "{schema}");
    assert_eq!(properties["greeting"]["default"], "Hello", "{schema}");
    // alias: the property keeps its own name, the only one the schema admits.
    assert!(properties.contains_key("shout"), "{schema}");
    assert!(!properties.contains_key("loud"), "{schema}");
    assert_eq!(schema["additionalProperties"], false, "{schema}");

    // Deserialization follows the same attributes.
    assert_eq!(call(json!({ "userName": "Bo" })), Ok(json!("Hello, Bo!")));
    assert_eq!(
        call(json!({ "userName": "Bo", "greeting": "Hey" })),
        Ok(json!("Hey, Bo!"))
    );
    assert_eq!(
        call(json!({ "userName": "Bo", "shout": true })),
        Ok(json!("HELLO, BO!"))
    );
    // The alias is refused as the unknown argument the advertised schema says it is,
    // though this tool's schema states nothing beyond its types.
    let refused = call(json!({ "userName": "Bo", "loud": true })).unwrap_err();
    assert!(refused.contains("ValidationError"), "{refused}");
    assert!(refused.contains("additionalProperties"), "{refused}");
    // The Rust name of a renamed parameter is not accepted.
    assert!(call(json!({ "user_name": "Bo" })).is_err());
}
