//! The client capabilities a tool needs, as MCP's `ClientCapabilities` objects, and what a
//! client's declared capabilities lack of them.

use serde_json::{Map, Value};

/// The top-level capabilities of MCP's `ClientCapabilities` (revision 2026-07-28). The set
/// is open: clients may declare others, and a tool built at run time may require them.
pub const CLIENT_CAPABILITIES: [&str; 5] = [
    "elicitation",
    "experimental",
    "extensions",
    "roots",
    "sampling",
];

/// The part of `required` that `declared` lacks, as a `ClientCapabilities` object: empty
/// when the client declared everything required. This is the `requiredCapabilities` of
/// MCP's `MissingRequiredClientCapabilityError`.
///
/// A capability counts as declared when `declared` has its key with an object value. What
/// a required capability holds is required in turn, in the same way: `{"elicitation":
/// {"url": {}}}` needs `url` in the client's `elicitation`, and when that is what lacks,
/// the answer is `{"elicitation": {"url": {}}}`. A required value that is not an object
/// must be declared equal.
///
/// ```
/// use mcp_runtime_core::missing_client_capabilities;
/// use serde_json::json;
///
/// let required = json!({ "sampling": {}, "elicitation": {} });
/// let required = required.as_object().unwrap();
/// let declared = json!({ "elicitation": { "form": {} }, "roots": {} });
/// assert_eq!(
///     serde_json::Value::Object(missing_client_capabilities(required, &declared)),
///     json!({ "sampling": {} })
/// );
/// ```
pub fn missing_client_capabilities(
    required: &Map<String, Value>,
    declared: &Value,
) -> Map<String, Value> {
    let mut missing = Map::new();
    for (key, wanted) in required {
        let have = declared.get(key);
        let lacking = match (wanted, have) {
            (Value::Object(wanted), Some(have @ Value::Object(_))) => {
                let lacking = missing_client_capabilities(wanted, have);
                (!lacking.is_empty()).then_some(Value::Object(lacking))
            }
            (Value::Object(_), _) => Some(wanted.clone()),
            (wanted, have) => (have != Some(wanted)).then(|| wanted.clone()),
        };
        if let Some(lacking) = lacking {
            missing.insert(key.clone(), lacking);
        }
    }
    missing
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn missing(required: Value, declared: Value) -> Value {
        let required = required.as_object().expect("an object").clone();
        Value::Object(missing_client_capabilities(&required, &declared))
    }

    #[test]
    fn nothing_required_means_nothing_missing() {
        assert_eq!(missing(json!({}), json!({})), json!({}));
        assert_eq!(missing(json!({}), json!(null)), json!({}));
    }

    #[test]
    fn a_capability_declared_as_an_object_is_present() {
        assert_eq!(
            missing(json!({"sampling": {}}), json!({"sampling": {}})),
            json!({})
        );
        assert_eq!(
            missing(
                json!({"sampling": {}}),
                json!({"sampling": {"tools": {}}, "roots": {}})
            ),
            json!({})
        );
    }

    #[test]
    fn an_absent_capability_is_missing_and_only_it() {
        assert_eq!(
            missing(
                json!({"sampling": {}, "elicitation": {}, "roots": {}}),
                json!({"elicitation": {}})
            ),
            json!({"sampling": {}, "roots": {}})
        );
    }

    #[test]
    fn a_capability_declared_as_no_object_is_missing() {
        for declared in [json!(null), json!(true), json!("yes"), json!([]), json!(1)] {
            assert_eq!(
                missing(json!({"sampling": {}}), json!({ "sampling": declared })),
                json!({"sampling": {}}),
                "{declared}"
            );
        }
    }

    #[test]
    fn declared_capabilities_that_are_no_object_lack_everything() {
        for declared in [json!(null), json!([]), json!("sampling")] {
            assert_eq!(
                missing(json!({"sampling": {}}), declared.clone()),
                json!({"sampling": {}}),
                "{declared}"
            );
        }
    }

    #[test]
    fn what_a_capability_holds_is_required_in_turn() {
        let required = json!({"elicitation": {"url": {}, "form": {}}});
        assert_eq!(
            missing(required.clone(), json!({"elicitation": {"form": {}}})),
            json!({"elicitation": {"url": {}}})
        );
        assert_eq!(
            missing(
                required.clone(),
                json!({"elicitation": {"form": {}, "url": {}}})
            ),
            json!({})
        );
        assert_eq!(
            missing(required.clone(), json!({})),
            required,
            "absent: all of it"
        );
        assert_eq!(
            missing(
                json!({"extensions": {"io.example/ext": {"level": 2}}}),
                json!({"extensions": {"io.example/ext": {"level": 1}}})
            ),
            json!({"extensions": {"io.example/ext": {"level": 2}}}),
            "a value that is no object must be equal"
        );
        assert_eq!(
            missing(
                json!({"extensions": {"io.example/ext": {"level": 2}}}),
                json!({"extensions": {"io.example/ext": {"level": 2}}})
            ),
            json!({})
        );
    }

    #[test]
    fn the_known_capabilities_are_those_of_mcp_2026_07_28() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../spec/mcp/2026-07-28/schema.json"
        );
        let text = std::fs::read_to_string(path).expect("the MCP schema is in spec/mcp");
        let schema: Value = serde_json::from_str(&text).expect("the MCP schema is JSON");
        let properties = schema["$defs"]["ClientCapabilities"]["properties"]
            .as_object()
            .expect("ClientCapabilities has properties");
        let mut names: Vec<&str> = properties.keys().map(String::as_str).collect();
        names.sort_unstable();
        assert_eq!(names, CLIENT_CAPABILITIES);
    }
}
