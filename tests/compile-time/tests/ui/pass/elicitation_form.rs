use mcp_runtime::talk::{Elicitation, Form, form_schema};
use mcp_runtime::{ToolContext, ToolError, mcp_tool};
use serde::Deserialize;
use serde_json::json;

#[derive(Deserialize, schemars::JsonSchema, Form)]
#[serde(rename_all = "lowercase")]
#[form(crate = ::mcp_runtime)]
enum Size {
    /// Small
    Small,
    /// Large
    Large,
}

fn two() -> u8 {
    2
}

#[derive(Deserialize, schemars::JsonSchema, Form)]
struct Order {
    /// How many.
    #[serde(default = "two")]
    count: u8,
    size: Size,
    /// Anything else?
    note: Option<String>,
    #[serde(default)]
    extras: Vec<Size>,
    gift: bool,
    #[serde(skip)]
    #[allow(dead_code)]
    seen: Vec<String>,
    #[schemars(with = "String")]
    #[serde(deserialize_with = "initial")]
    initial: char,
}

fn initial<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<char, D::Error> {
    let text = String::deserialize(deserializer)?;
    text.chars().next().ok_or_else(|| serde::de::Error::custom("empty"))
}

#[derive(Deserialize, schemars::JsonSchema, Form)]
struct Wrapped<T> {
    value: T,
}

/// Takes an order, asking the user what it is.
#[mcp_tool(namespace = "ui")]
async fn order(ctx: &ToolContext) -> Result<String, ToolError> {
    match ctx.elicit::<Order>("order", "What would you like?").await? {
        Elicitation::Accept(order) => Ok(format!("{} {}", order.count, order.gift)),
        _ => Ok("nothing".to_owned()),
    }
}

fn main() {
    let form = form_schema::<Order>().expect("a form");
    assert_eq!(form["properties"]["count"]["default"], json!(2));
    assert_eq!(form["properties"]["size"]["type"], "string");
    assert_eq!(form["properties"]["extras"]["type"], "array");
    assert_eq!(form["properties"]["initial"]["type"], "string");
    assert!(form["properties"].get("seen").is_none());
    assert_eq!(form["required"], json!(["size", "gift", "initial"]));
    let wrapped = form_schema::<Wrapped<bool>>().expect("a form");
    assert_eq!(wrapped["properties"]["value"]["type"], "boolean");
    mcp_runtime::Registry::global();
}
