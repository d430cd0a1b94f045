//! The pinned schema settings: JSON Schema 2020-12 (the dialect MCP assumes), input schemas
//! from the deserialize contract, output schemas from the serialize contract, object roots.

use schemars::generate::SchemaSettings;
use schemars::transform::ReplaceBoolSchemas;
use schemars::{JsonSchema, Schema};
use serde_json::{Map, Value};

mod closed;

/// The settings every schema of this project is generated with. Boolean subschemas (what
/// schemars makes for `serde_json::Value`) become objects, `true` as `{}`: the 2025 MCP
/// revisions require every property's schema to be an object.
pub fn settings() -> SchemaSettings {
    let mut replace_bools = ReplaceBoolSchemas::default();
    replace_bools.skip_additional_properties = true;
    SchemaSettings::draft2020_12().with_transform(replace_bools)
}

/// The input schema of an arguments type: what the tool accepts (deserialize contract).
/// Every struct in it is closed (`additionalProperties: false`), as serde would otherwise
/// drop a field it does not know without a word; a map, a `#[serde(flatten)]`ed map or enum,
/// and a struct that says `#[schemars(extend("additionalProperties" = true))]` stay open.
///
/// ```
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Args { a: i64 }
///
/// let schema = mcp_runtime_core::schema::input_schema::<Args>();
/// assert_eq!(schema.get("type"), Some(&serde_json::json!("object")));
/// ```
pub fn input_schema<T: JsonSchema>() -> Schema {
    let mut schema = settings()
        .for_deserialize()
        .into_generator()
        .into_root_schema_for::<T>();
    if let Some(root) = schema.as_object_mut() {
        closed::close_objects(root);
    }
    schema
}

/// A tool's output schema and whether it wraps a non-object type as `{"result": …}`.
#[derive(Debug, Clone, PartialEq)]
pub struct OutputSchema {
    /// The schema, always with an object root.
    pub schema: Schema,
    /// Whether a value of the type is sent as `{"result": value}`.
    pub wrapped: bool,
}

/// The property a non-object output is wrapped in.
pub const RESULT_PROPERTY: &str = "result";

/// The output schema of a tool's success type (serialize contract). A root that is not an
/// object is wrapped as `{"result": …}`. The root is not titled with the Rust type's name,
/// which tells a client nothing; a title of the type's own (`#[schemars(title = "…")]`,
/// a `# Heading` in its doc comment) stays.
///
/// ```
/// let output = mcp_runtime_core::schema::output_schema::<u32>();
/// assert!(output.wrapped);
/// assert_eq!(output.schema.get("required"), Some(&serde_json::json!(["result"])));
/// assert_eq!(output.schema.get("title"), None);
/// ```
pub fn output_schema<T: JsonSchema>() -> OutputSchema {
    let mut schema = settings()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>();
    untitle::<T>(&mut schema);
    if has_object_root(&schema) {
        OutputSchema {
            schema,
            wrapped: false,
        }
    } else {
        OutputSchema {
            schema: wrap_in_result(schema),
            wrapped: true,
        }
    }
}

/// Removes the title a root schema is given by default, the name of the Rust type `T`
/// (`Out`, `Array_of_Item`): a title equal to it is not told apart from one the type gives
/// itself, and goes too.
fn untitle<T: JsonSchema>(schema: &mut Schema) {
    if schema.get("title").and_then(Value::as_str) == Some(&*T::schema_name()) {
        schema.remove("title");
    }
}

/// Whether `schema`'s root says `"type": "object"`.
pub fn has_object_root(schema: &Schema) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

/// Wraps `value` as the data of a tool whose output is `wrapped`: `{"result": value}`.
/// An unwrapped value must be an object; `null` is no data.
#[inline]
pub fn output_data(value: Value, wrapped: bool) -> Option<Map<String, Value>> {
    match value {
        _ if wrapped => Some(Map::from_iter([(RESULT_PROPERTY.to_owned(), value)])),
        Value::Object(map) => Some(map),
        Value::Null => None,
        other => Some(Map::from_iter([(RESULT_PROPERTY.to_owned(), other)])),
    }
}

fn wrap_in_result(schema: Schema) -> Schema {
    let mut inner = match schema.to_value() {
        Value::Object(map) => map,
        other => Map::from_iter([("const".to_owned(), other)]),
    };
    let mut root = Map::new();
    for key in ["$schema", "$defs"] {
        if let Some(value) = inner.remove(key) {
            root.insert(key.to_owned(), value);
        }
    }
    let title = inner.remove("title");
    root.insert("type".to_owned(), "object".into());
    if let Some(title) = title {
        root.insert("title".to_owned(), title);
    }
    root.insert(
        "properties".to_owned(),
        Value::Object(Map::from_iter([(
            RESULT_PROPERTY.to_owned(),
            Value::Object(inner),
        )])),
    );
    root.insert("required".to_owned(), serde_json::json!([RESULT_PROPERTY]));
    root.insert("additionalProperties".to_owned(), false.into());
    Schema::from(root)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_values_get_object_subschemas() {
        #[derive(schemars::JsonSchema, serde::Deserialize)]
        #[allow(dead_code)]
        struct Args {
            payload: Value,
            maybe: Option<Value>,
        }
        let schema = input_schema::<Args>().to_value();
        assert_eq!(schema["properties"]["payload"], json!({}));
        assert!(schema["properties"]["maybe"].is_object(), "{schema}");
    }

    #[test]
    fn a_json_value_is_wrapped_and_a_json_map_is_not() {
        // A `Value`'s schema admits any value, so an object it holds is wrapped too; a
        // `Map`'s says it is an object, so it is the data itself.
        let value = output_schema::<Value>();
        assert!(value.wrapped);
        assert_eq!(value.schema.get("required"), Some(&json!(["result"])));
        let map = output_schema::<Map<String, Value>>();
        assert!(!map.wrapped);
        assert_eq!(
            map.schema.to_value(),
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "additionalProperties": true,
            })
        );
    }

    #[test]
    fn wrapped_schema_keeps_defs_at_the_root() {
        #[derive(schemars::JsonSchema, serde::Serialize)]
        #[allow(dead_code)]
        struct Item {
            id: u32,
        }
        let output = output_schema::<Vec<Item>>();
        assert!(output.wrapped);
        let schema = output.schema.to_value();
        assert_eq!(schema["type"], "object");
        assert!(schema["$defs"]["Item"].is_object());
        assert_eq!(schema["properties"]["result"]["type"], "array");
        assert_eq!(
            schema["properties"]["result"]["items"]["$ref"],
            "#/$defs/Item"
        );
    }

    #[test]
    fn output_schemas_are_not_titled_with_rust_type_names() {
        /// The sum of two integers.
        #[derive(schemars::JsonSchema, serde::Serialize)]
        #[allow(dead_code)]
        struct Sum {
            sum: i64,
            part: Part,
        }
        /// A part.
        #[derive(schemars::JsonSchema, serde::Serialize)]
        #[allow(dead_code)]
        struct Part {
            value: i64,
        }
        /// # Totals
        ///
        /// What the tool counted.
        #[derive(schemars::JsonSchema, serde::Serialize)]
        #[allow(dead_code)]
        struct Counted {
            total: u32,
        }
        #[derive(schemars::JsonSchema, serde::Serialize)]
        #[schemars(title = "Word count")]
        #[allow(dead_code)]
        struct Words {
            words: u32,
        }

        let sum = output_schema::<Sum>().schema.to_value();
        assert_eq!(sum.get("title"), None, "{sum}");
        assert_eq!(sum["description"], "The sum of two integers.");
        assert_eq!(sum["$defs"]["Part"].get("title"), None, "{sum}");
        let parts = output_schema::<Vec<Part>>().schema.to_value();
        assert_eq!(parts.get("title"), None, "{parts}");
        assert!(parts["$defs"]["Part"].is_object(), "{parts}");
        // Titles the type gives itself are kept.
        let counted = output_schema::<Counted>().schema.to_value();
        assert_eq!(counted["title"], "Totals");
        let words = output_schema::<Words>().schema.to_value();
        assert_eq!(words["title"], "Word count");
    }

    #[test]
    fn output_data_wraps_by_the_schema_not_the_value() {
        assert_eq!(
            output_data(json!({"a": 1}), true),
            Some(json!({"result": {"a": 1}}).as_object().cloned().unwrap())
        );
        assert_eq!(
            output_data(json!({"a": 1}), false),
            Some(json!({"a": 1}).as_object().cloned().unwrap())
        );
        assert_eq!(
            output_data(json!(3), true),
            Some(json!({"result": 3}).as_object().cloned().unwrap())
        );
        assert_eq!(output_data(Value::Null, false), None);
    }
}
