//! What a 2026-07-28 request over HTTP mirrors into headers: `Mcp-Name`, and each argument
//! a tool's input schema marks with `x-mcp-header` (`Mcp-Param-{Name}`). A value that is not
//! plain visible ASCII goes in the Base64 sentinel form, `=?base64?…?=`.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value};

/// The schema keyword that marks an argument to mirror.
const KEYWORD: &str = "x-mcp-header";

/// An argument to mirror: the path of property names to it, and its header's name (after
/// `Mcp-Param-`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mirror {
    pub(crate) path: Vec<String>,
    pub(crate) header: String,
}

/// Why a schema's `x-mcp-header` marks are invalid, and the tool must not be called.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum MarkError {
    /// Marks not reached through `properties` alone: how many.
    #[error(
        "`x-mcp-header` may mark only properties reached through `properties`; {0} mark(s) are elsewhere"
    )]
    Elsewhere(usize),
    /// A header name used twice, ignoring case: its second use.
    #[error("`x-mcp-header` names `{0}` twice")]
    Twice(String),
    /// A mark that is not a string, on the property at `at`.
    #[error("`x-mcp-header` of `{at}` is not a string")]
    NotAString {
        /// The property's path, its names joined with `.`.
        at: String,
    },
    /// An empty mark.
    #[error("`x-mcp-header` of `{at}` is empty")]
    Empty {
        /// The property's path.
        at: String,
    },
    /// A mark that is not an HTTP token.
    #[error(
        "`x-mcp-header` of `{at}` is `{header}`, not a header name (letters, digits and !#$%&'*+-.^_`|~)"
    )]
    NotAName {
        /// The property's path.
        at: String,
        /// The mark.
        header: String,
    },
    /// A mark on a property that is not a string, integer or boolean.
    #[error("`x-mcp-header` of `{at}` marks a {kind}, not a string, integer or boolean")]
    NotScalar {
        /// The property's path.
        at: String,
        /// The property's type.
        kind: String,
    },
}

/// The arguments `schema` marks to mirror, or why its marks are invalid (and the tool must
/// not be called): a name that is empty, not a token, or used twice (ignoring case); a mark
/// on a type other than string, integer or boolean; or one not reached through
/// `properties` alone.
pub(crate) fn mirrors(schema: &Value) -> Result<Vec<Mirror>, MarkError> {
    let mut found = Vec::new();
    collect(schema, &mut Vec::new(), &mut found)?;
    let everywhere = count_marks(schema);
    if everywhere != found.len() {
        return Err(MarkError::Elsewhere(everywhere - found.len()));
    }
    let mut seen: Vec<String> = Vec::new();
    for mirror in &found {
        let folded = mirror.header.to_ascii_lowercase();
        if seen.contains(&folded) {
            return Err(MarkError::Twice(mirror.header.clone()));
        }
        seen.push(folded);
    }
    Ok(found)
}

fn collect(
    schema: &Value,
    path: &mut Vec<String>,
    found: &mut Vec<Mirror>,
) -> Result<(), MarkError> {
    let Some(schema) = schema.as_object() else {
        return Ok(());
    };
    if let Some(mark) = schema.get(KEYWORD) {
        let at = path.join(".");
        let header = mark
            .as_str()
            .ok_or_else(|| MarkError::NotAString { at: at.clone() })?;
        if header.is_empty() {
            return Err(MarkError::Empty { at });
        }
        if !header.bytes().all(is_tchar) {
            let header = header.to_owned();
            return Err(MarkError::NotAName { at, header });
        }
        match schema.get("type").and_then(Value::as_str) {
            Some("string" | "integer" | "boolean") => {}
            other => {
                let kind = other.unwrap_or("value of no single type").to_owned();
                return Err(MarkError::NotScalar { at, kind });
            }
        }
        found.push(Mirror {
            path: path.clone(),
            header: header.to_owned(),
        });
    }
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (name, property) in properties {
            path.push(name.clone());
            collect(property, path, found)?;
            path.pop();
        }
    }
    Ok(())
}

/// Every `x-mcp-header` key anywhere in `schema`.
fn count_marks(schema: &Value) -> usize {
    match schema {
        Value::Object(map) => {
            usize::from(map.contains_key(KEYWORD))
                + map
                    .iter()
                    .filter(|(key, _)| *key != KEYWORD)
                    .map(|(_, value)| count_marks(value))
                    .sum::<usize>()
        }
        Value::Array(items) => items.iter().map(count_marks).sum(),
        _ => 0,
    }
}

/// RFC 9110's `tchar`.
fn is_tchar(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte)
}

/// The `Mcp-Param-*` headers of a call of a tool with `mirrors`, for `arguments`: an
/// argument absent or `null` has none.
pub(crate) fn param_headers(
    mirrors: &[Mirror],
    arguments: &Map<String, Value>,
) -> Vec<(String, String)> {
    let mut headers = Vec::new();
    for mirror in mirrors {
        let mut value = None;
        let mut at: Option<&Map<String, Value>> = Some(arguments);
        for (depth, name) in mirror.path.iter().enumerate() {
            let next = at.and_then(|map| map.get(name));
            if depth + 1 == mirror.path.len() {
                value = next;
            } else {
                at = next.and_then(Value::as_object);
            }
        }
        let text = match value {
            Some(Value::String(text)) => header_safe(text),
            Some(Value::Bool(flag)) => flag.to_string(),
            Some(Value::Number(number)) if number.is_i64() || number.is_u64() => number.to_string(),
            _ => continue,
        };
        headers.push((format!("Mcp-Param-{}", mirror.header), text));
    }
    headers
}

/// `text` as a header value: as is when it is visible ASCII (spaces inside), otherwise in
/// the Base64 sentinel form.
pub(crate) fn header_safe(text: &str) -> String {
    let visible = text.bytes().all(|byte| (0x20..=0x7e).contains(&byte));
    let padded = text.starts_with(' ') || text.ends_with(' ');
    let sentinel = text.starts_with("=?base64?") && text.ends_with("?=");
    if visible && !padded && !sentinel {
        text.to_owned()
    } else {
        format!("=?base64?{}?=", STANDARD.encode(text.as_bytes()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn marked_properties_are_mirrored_encoded_and_nulls_left_out() {
        let schema = json!({
            "type": "object",
            "properties": {
                "region": { "type": "string", "x-mcp-header": "Region" },
                "priority": { "type": "integer", "x-mcp-header": "Priority" },
                "verbose": { "type": "boolean", "x-mcp-header": "Verbose" },
                "where": { "type": "object", "properties": {
                    "zone": { "type": "string", "x-mcp-header": "Zone" },
                } },
                "query": { "type": "string" },
            },
        });
        let mirrors = mirrors(&schema).expect("valid");
        let arguments = json!({
            "region": "Hello, 世界",
            "priority": 42,
            "verbose": null,
            "where": { "zone": "a b" },
            "query": "q",
        });
        let headers = param_headers(&mirrors, arguments.as_object().unwrap());
        assert_eq!(
            headers,
            vec![
                (
                    "Mcp-Param-Region".to_owned(),
                    "=?base64?SGVsbG8sIOS4lueVjA==?=".to_owned()
                ),
                ("Mcp-Param-Priority".to_owned(), "42".to_owned()),
                ("Mcp-Param-Zone".to_owned(), "a b".to_owned()),
            ]
        );
    }

    #[test]
    fn unsafe_values_take_the_sentinel_form() {
        assert_eq!(header_safe("us-west1"), "us-west1");
        assert_eq!(header_safe(""), "");
        assert_eq!(header_safe(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(header_safe("line1\r\nline2"), "=?base64?bGluZTENCmxpbmUy?=");
        assert_eq!(header_safe("\tindented"), "=?base64?CWluZGVudGVk?=");
        assert!(header_safe("=?base64?abc?=").starts_with("=?base64?PT9iYXNl"));
    }

    #[test]
    fn invalid_marks_are_refused_with_the_reason() {
        let refused = |property: Value| {
            mirrors(&json!({ "type": "object", "properties": { "p": property } }))
                .unwrap_err()
                .to_string()
        };
        assert!(refused(json!({ "type": "string", "x-mcp-header": "" })).contains("empty"));
        assert!(
            refused(json!({ "type": "string", "x-mcp-header": "My Region" }))
                .contains("not a header name")
        );
        assert!(
            refused(json!({ "type": "string", "x-mcp-header": "Région" }))
                .contains("not a header name")
        );
        assert!(refused(json!({ "type": "number", "x-mcp-header": "N" })).contains("number"));
        assert!(
            refused(json!({ "type": "array", "items": { "type": "string", "x-mcp-header": "I" } }))
                .contains("elsewhere")
        );
        let twice = mirrors(&json!({ "type": "object", "properties": {
            "a": { "type": "string", "x-mcp-header": "MyField" },
            "b": { "type": "string", "x-mcp-header": "myfield" },
        } }))
        .unwrap_err();
        assert_eq!(twice, MarkError::Twice("myfield".to_owned()));
        assert!(twice.to_string().contains("twice"), "{twice}");
    }
}
