//! OAuth scopes of the items a server offers besides tools: resources, resource templates
//! and prompts carry them in their `_meta`, under [`SCOPES_META`], as a list of names.
//! (A tool's are part of its definition: [`ToolDefinition::scopes`](crate::ToolDefinition::scopes).)

use serde_json::{Map, Value};

/// The `_meta` key under which the OAuth scopes a caller needs to read a resource (or a
/// template's resources) or get a prompt travel: `["notes:read"]`.
pub const SCOPES_META: &str = "mcp-runtime/scopes";

/// The scopes under [`SCOPES_META`] in `meta`. What is not a list of names is read so that
/// it cannot open anything: a name in a string separated by spaces, any other value as its
/// JSON text, which no token grants.
pub(crate) fn scopes_in(meta: &Map<String, Value>) -> Vec<String> {
    match meta.get(SCOPES_META) {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                Value::String(scope) => scope.clone(),
                other => other.to_string(),
            })
            .collect(),
        Some(Value::String(scopes)) => scopes.split_whitespace().map(str::to_owned).collect(),
        Some(other) => vec![other.to_string()],
    }
}

/// `meta` with `scopes` under [`SCOPES_META`]; none removes the key.
pub(crate) fn set_scopes<I, S>(meta: &mut Map<String, Value>, scopes: I)
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    let scopes: Vec<Value> = scopes
        .into_iter()
        .map(|scope| Value::String(scope.into()))
        .collect();
    if scopes.is_empty() {
        meta.remove(SCOPES_META);
    } else {
        meta.insert(SCOPES_META.to_owned(), Value::Array(scopes));
    }
}

/// `with_scopes` and `scopes` for an item whose scopes a caller needs to do `$what` ("read it").
macro_rules! scoped {
    ($type:ty, $what:literal) => {
        impl $type {
            #[doc = concat!("With the OAuth scopes a caller needs to ", $what, ": a server that")]
            /// takes access tokens answers a caller without every one 403 naming them. They
            /// travel in `_meta` under [`SCOPES_META`](crate::SCOPES_META).
            #[must_use]
            pub fn with_scopes<I, S>(mut self, scopes: I) -> Self
            where
                I: IntoIterator<Item = S>,
                S: Into<String>,
            {
                crate::scope::set_scopes(&mut self.meta, scopes);
                self
            }

            #[doc = concat!("The OAuth scopes a caller needs to ", $what, ", if any.")]
            pub fn scopes(&self) -> Vec<String> {
                crate::scope::scopes_in(&self.meta)
            }
        }
    };
}

pub(crate) use scoped;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn scopes_round_trip_and_what_is_not_a_list_of_names_opens_nothing() {
        let mut meta = Map::new();
        assert!(scopes_in(&meta).is_empty());
        set_scopes(&mut meta, ["notes:read", "notes:write"]);
        assert_eq!(meta[SCOPES_META], json!(["notes:read", "notes:write"]));
        assert_eq!(scopes_in(&meta), ["notes:read", "notes:write"]);
        set_scopes(&mut meta, Vec::<String>::new());
        assert!(!meta.contains_key(SCOPES_META));

        meta.insert(SCOPES_META.to_owned(), json!("a  b"));
        assert_eq!(scopes_in(&meta), ["a", "b"]);
        meta.insert(SCOPES_META.to_owned(), json!(["a", 7]));
        assert_eq!(scopes_in(&meta), ["a", "7"]);
        meta.insert(SCOPES_META.to_owned(), json!({ "a": true }));
        assert_eq!(scopes_in(&meta), [r#"{"a":true}"#]);
        meta.insert(SCOPES_META.to_owned(), json!(false));
        assert_eq!(scopes_in(&meta), ["false"]);
    }
}
