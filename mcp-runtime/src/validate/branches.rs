//! What a value that fits no branch of a `oneOf`/`anyOf` (a Rust enum, an `Option`) is told.
//!
//! JSON Schema only says that the value "is not valid under any of the schemas". The branches
//! of a serde enum carry their variant's name, which tells which branch the sender meant:
//! - internally and adjacently tagged (`#[serde(tag = "kind")]`, `#[serde(tag, content)]`):
//!   each branch is an object whose tag property is a `const`;
//! - externally tagged (serde's default): a unit variant is a string (`const`/`enum`), any
//!   other an object whose only property is the variant's name;
//! - an `Option`: one branch is `null`.
//!
//! A value that names a branch is told what that branch wanted, the branch named
//! (`` `/shape/radius`: the value is not of type "number" (branch `circle`) ``); one that
//! names none is told the names there are (`` `/shape/kind`: expected one of "circle",
//! "square" ``). Without names (`#[serde(untagged)]`), the branch that came closest speaks:
//! the one that took the value's type and got furthest into it.

use jsonschema::ValidationError;
use jsonschema::error::ValidationErrorKind;
use serde_json::{Map, Value};

use super::Violation;

/// The violations `err` stands for, reported against the schema `root` and the `instance`
/// validated; `branch` names the branch of an enclosing union they were found in.
pub(super) fn explain(
    err: &ValidationError<'_>,
    root: &Value,
    instance: &Value,
    branch: Option<&str>,
    out: &mut Vec<Violation>,
) {
    let context = match err.kind() {
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            context
        }
        _ => return out.push(violation(err, branch)),
    };
    let branches = root
        .pointer(err.schema_path().as_str())
        .and_then(Value::as_array);
    let at = err.instance_path().as_str();
    let value = instance.pointer(at);
    let (Some(branches), Some(value)) = (branches, value) else {
        return out.push(violation(err, branch));
    };
    if branches.len() != context.len() {
        return out.push(violation(err, branch));
    }
    let names: Vec<Name> = branches
        .iter()
        .map(|schema| Name::of(schema, root))
        .collect();
    match choose(&names, context, value, at) {
        Choice::Branch(index, label) => {
            let label = label.as_deref().or(branch);
            for inner in &context[index] {
                explain(inner, root, instance, label, out);
            }
        }
        Choice::Names { path, message } => out.push(Violation {
            path,
            keyword: err.kind().keyword().to_owned(),
            message,
        }),
        Choice::Unknown => out.push(violation(err, branch)),
    }
}

/// The violation `err` states, in the branch `branch`.
fn violation(err: &ValidationError<'_>, branch: Option<&str>) -> Violation {
    let mut message = err.masked_with("the value").to_string();
    if let Some(branch) = branch {
        message.push_str(&format!(" (branch `{branch}`)"));
    }
    Violation {
        path: err.instance_path().as_str().to_owned(),
        keyword: err.kind().keyword().to_owned(),
        message,
    }
}

/// How a branch is told apart from the others.
#[derive(Debug, Clone, PartialEq)]
enum Name {
    /// An object whose property `property` holds `value` (a tagged enum's variant).
    Tag { property: String, value: String },
    /// An object whose only property is `key` (an externally tagged variant with data).
    Key(String),
    /// One of these strings (externally tagged unit variants).
    Strings(Vec<String>),
    /// `null` (the `None` of an `Option`).
    Null,
    /// Nothing tells it apart; the branch's title, or the definition it refers to, if any.
    Unnamed(Option<String>),
}

impl Name {
    fn of(schema: &Value, root: &Value) -> Self {
        let mut schema = schema;
        let mut referred = None;
        // A branch that is a reference alone is told apart by what it refers to.
        for _ in 0..8 {
            let Some(map) = schema.as_object() else {
                return Self::Unnamed(None);
            };
            if let Some(name) = Self::of_object(map) {
                return name;
            }
            let reference = map.get("$ref").and_then(Value::as_str);
            match reference.and_then(|r| root.pointer(r.strip_prefix('#')?)) {
                Some(target) => {
                    referred = reference.and_then(|r| r.rsplit('/').next());
                    schema = target;
                }
                None => break,
            }
        }
        let title = schema.get("title").and_then(Value::as_str);
        Self::Unnamed(title.or(referred).map(str::to_owned))
    }

    fn of_object(map: &Map<String, Value>) -> Option<Self> {
        if map.get("type").and_then(Value::as_str) == Some("null") {
            return Some(Self::Null);
        }
        if let Some(Value::String(value)) = map.get("const") {
            return Some(Self::Strings(vec![value.clone()]));
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            let strings: Vec<String> = values
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect();
            if !strings.is_empty() && strings.len() == values.len() {
                return Some(Self::Strings(strings));
            }
        }
        let properties = map.get("properties").and_then(Value::as_object)?;
        let required: Vec<&str> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for property in &required {
            let tag = properties
                .get(*property)
                .and_then(|schema| schema.get("const"))
                .and_then(Value::as_str);
            if let Some(tag) = tag {
                return Some(Self::Tag {
                    property: (*property).to_owned(),
                    value: tag.to_owned(),
                });
            }
        }
        let closed = map.get("additionalProperties") == Some(&Value::Bool(false));
        match (required.as_slice(), properties.len()) {
            ([key], 1) if closed => Some(Self::Key((*key).to_owned())),
            _ => None,
        }
    }
}

/// Which branch the value meant, or what it should have named.
enum Choice {
    /// The branch at this index, and its name when it has one.
    Branch(usize, Option<String>),
    /// The value names no branch: where the name goes, and the names there are.
    Names { path: String, message: String },
    /// Nothing better to say than the schema says.
    Unknown,
}

fn choose(
    names: &[Name],
    context: &[Vec<ValidationError<'static>>],
    value: &Value,
    at: &str,
) -> Choice {
    // `null` was not sent (it would have been valid), so an `Option`'s `None` is no candidate.
    let candidates: Vec<usize> = (0..names.len())
        .filter(|index| names[*index] != Name::Null)
        .collect();
    if let [only] = candidates.as_slice() {
        return Choice::Branch(*only, None);
    }
    if candidates.is_empty() {
        return Choice::Unknown;
    }
    if let Some(choice) = by_tag(names, &candidates, value, at) {
        return choice;
    }
    if let Some(choice) = by_variant_name(names, &candidates, value, at) {
        return choice;
    }
    closest(names, &candidates, context, at)
}

/// Internally and adjacently tagged: every candidate has a tag in the same property.
fn by_tag(names: &[Name], candidates: &[usize], value: &Value, at: &str) -> Option<Choice> {
    let mut property = None;
    let mut tags = Vec::new();
    for index in candidates {
        match &names[*index] {
            Name::Tag { property: p, value } if property.is_none_or(|seen| seen == p) => {
                property = Some(p);
                tags.push(value.as_str());
            }
            _ => return None,
        }
    }
    let property = property?;
    let object = value.as_object()?;
    let sent = object.get(property).and_then(Value::as_str);
    if let Some(position) = tags.iter().position(|tag| Some(*tag) == sent) {
        let index = candidates[position];
        return Some(Choice::Branch(index, Some(tags[position].to_owned())));
    }
    let listed = quoted(&tags);
    Some(match object.get(property) {
        None => Choice::Names {
            path: at.to_owned(),
            message: format!("missing the tag `{property}`: expected one of {listed}"),
        },
        Some(_) => Choice::Names {
            path: format!("{at}/{}", mcp_runtime_core::pointer_token(property)),
            message: format!("expected one of {listed}"),
        },
    })
}

/// Externally tagged: unit variants as strings, the others as an object with the variant's
/// name as its only key.
fn by_variant_name(
    names: &[Name],
    candidates: &[usize],
    value: &Value,
    at: &str,
) -> Option<Choice> {
    let mut strings = Vec::new();
    let mut keys = Vec::new();
    for index in candidates {
        match &names[*index] {
            Name::Strings(values) => strings.extend(values.iter().map(String::as_str)),
            Name::Key(key) => keys.push((*index, key.as_str())),
            _ => return None,
        }
    }
    if let Value::Object(object) = value {
        if let [(key, _)] = object.iter().collect::<Vec<_>>().as_slice() {
            if let Some((index, name)) = keys.iter().find(|(_, name)| name == key) {
                return Some(Choice::Branch(*index, Some((*name).to_owned())));
            }
        }
    }
    let key_names: Vec<&str> = keys.iter().map(|(_, name)| *name).collect();
    let message = match (strings.is_empty(), key_names.is_empty()) {
        (false, true) => format!("expected one of {}", quoted(&strings)),
        (true, false) => format!(
            "expected an object with one key, one of {}",
            quoted(&key_names)
        ),
        _ => format!(
            "expected one of {}, or an object with one key, one of {}",
            quoted(&strings),
            quoted(&key_names)
        ),
    };
    Some(Choice::Names {
        path: at.to_owned(),
        message,
    })
}

/// Untagged: the branch that took the value's type and got furthest into it before it
/// found something wrong.
fn closest(
    names: &[Name],
    candidates: &[usize],
    context: &[Vec<ValidationError<'static>>],
    at: &str,
) -> Choice {
    let depth = |path: &str| path.matches('/').count();
    let here = depth(at);
    let score = |errors: &[ValidationError<'static>]| {
        let refuses_type = errors
            .iter()
            .any(|err| err.instance_path().as_str() == at && err.kind().keyword() == "type");
        let shallowest = errors
            .iter()
            .map(|err| depth(err.instance_path().as_str()))
            .min()
            .unwrap_or(here);
        let at_the_value = errors
            .iter()
            .filter(|err| depth(err.instance_path().as_str()) == here)
            .count();
        (
            !refuses_type,
            shallowest,
            std::cmp::Reverse(at_the_value),
            std::cmp::Reverse(errors.len()),
        )
    };
    // The first of the best, as `max_by_key` would give the last.
    let Some(best) = candidates
        .iter()
        .copied()
        .rev()
        .max_by_key(|index| score(&context[*index]))
    else {
        return Choice::Unknown;
    };
    let label = match &names[best] {
        Name::Tag { value, .. } => value.clone(),
        Name::Key(key) => key.clone(),
        Name::Unnamed(Some(title)) => title.clone(),
        _ => format!("{} of {}", best + 1, names.len()),
    };
    Choice::Branch(best, Some(label))
}

/// `"a", "b"`.
fn quoted(names: &[&str]) -> String {
    names
        .iter()
        .map(|name| Value::String((*name).to_owned()).to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
