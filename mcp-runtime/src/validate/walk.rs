//! A walk of the arguments and the input schema together: at each place of the arguments,
//! the subschemas that apply there, with their references, `allOf`s and chosen branches
//! followed. What the walk does at the places it visits is its [`Task`]'s: integral floats
//! rewritten as integers ([`Integers`](super::integers::Integers)), strings of JSON read
//! ([`Lenience`](super::lenient::Lenience)).

use std::fmt::Write as _;

use serde_json::{Map, Value};

/// What a walk of the arguments does at the places it visits that hold no container.
pub(super) trait Task: Sized {
    /// Whether the walk keeps the JSON pointer of the place visited (what a note names).
    const NAMES_PLACES: bool;

    /// Whether `value`, which is no object nor array, is one this task looks at.
    fn visits(&self, value: &Value) -> bool;

    /// Does the task at `value`, a value it [`visits`](Task::visits), where `schemas` apply.
    fn at<'s>(
        walk: &mut Walk<'s, Self>,
        schemas: Vec<Vec<Pending<'s>>>,
        value: &mut Value,
        depth: usize,
    );
}

/// The names a `type` keyword lists.
pub(super) fn type_names(types: &Value) -> impl Iterator<Item = &str> {
    let (one, many) = match types {
        Value::String(name) => (Some(name.as_str()), None),
        Value::Array(names) => (None, Some(names.iter().filter_map(Value::as_str))),
        _ => (None, None),
    };
    one.into_iter().chain(many.into_iter().flatten())
}

/// What a value is, as far as the `type` keyword tells it apart here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Object,
    Array,
    Number,
    String,
}

/// Whether a schema's `type`, if it has one, admits a value of `kind`.
fn admits_kind(schema: &Map<String, Value>, kind: Kind) -> bool {
    let Some(types) = schema.get("type") else {
        return true;
    };
    if !(types.is_string() || types.is_array()) {
        // Not a valid `type`: assume it admits anything.
        return true;
    }
    type_names(types).any(|name| match kind {
        Kind::Object => name == "object",
        Kind::Array => name == "array",
        Kind::Number => name == "number" || name == "integer",
        Kind::String => name == "string",
    })
}

/// The subschemas that apply together to one place of the arguments, under one choice of
/// branch for each `anyOf` and `oneOf` met: one alternative. Keywords this walk does not
/// follow (`not`, `if`, `patternProperties`, remote references, …) only ever add
/// constraints, and leaving a constraint out only makes an alternative admit more: a float
/// is rewritten only where every alternative that admits a number admits integers only,
/// which stays true of the complete schema.
pub(super) type Alternative<'s> = Vec<&'s Map<String, Value>>;

/// Where a value sits in its container.
#[derive(Clone, Copy)]
enum Step<'k> {
    Key(&'k str),
    Index(usize),
}

/// A schema still to expand into an alternative: a subschema, or a choice among branches.
#[derive(Clone, Copy)]
pub(super) enum Pending<'s> {
    Schema(&'s Value),
    Choice(&'s [Value]),
}

/// Steps one place's expansion may take, and alternatives it may have, before the walk
/// gives up on it (and leaves what lies there as it is).
const STEPS: usize = 4096;
const ALTERNATIVES: usize = 64;
/// How deep into the arguments the walk goes.
pub(super) const DEPTH: usize = 128;

/// A walk of the arguments and the input schema together.
pub(super) struct Walk<'s, T> {
    root: &'s Value,
    /// What the walk does.
    pub(super) task: T,
    /// The JSON pointer of the place visited, when the task [names places](Task::NAMES_PLACES).
    pub(super) pointer: String,
}

impl<'s, T: Task> Walk<'s, T> {
    pub(super) fn new(root: &'s Value, task: T) -> Self {
        Self {
            root,
            task,
            pointer: String::new(),
        }
    }

    /// Walks the arguments object, which the root schema describes.
    pub(super) fn arguments(&mut self, arguments: &mut Map<String, Value>) {
        self.object(vec![vec![Pending::Schema(self.root)]], arguments, 0);
    }

    /// Walks the value at `step` of a container whose alternatives are `parent`. Only
    /// containers, and the values the task changes, are looked at.
    fn child(
        &mut self,
        parent: &[Alternative<'s>],
        step: Step<'_>,
        value: &mut Value,
        depth: usize,
    ) {
        let visited = match &*value {
            Value::Object(_) | Value::Array(_) => true,
            other => self.task.visits(other),
        };
        if !visited {
            return;
        }
        let schemas: Vec<Vec<Pending<'s>>> = parent
            .iter()
            .map(|alternative| {
                alternative
                    .iter()
                    .filter_map(|schema| match step {
                        Step::Key(key) => property_schema(schema, key),
                        Step::Index(index) => item_schema(schema, index),
                    })
                    .map(Pending::Schema)
                    .collect()
            })
            .collect();
        let mark = self.pointer.len();
        if T::NAMES_PLACES {
            self.pointer.push('/');
            match step {
                Step::Key(key) => self.pointer.push_str(&mcp_runtime_core::pointer_token(key)),
                Step::Index(index) => {
                    // Writing to a `String` does not fail.
                    let _ = write!(self.pointer, "{index}");
                }
            }
        }
        match value {
            Value::Object(map) => self.object(schemas, map, depth + 1),
            Value::Array(items) => self.array(schemas, items, depth + 1),
            _ => T::at(self, schemas, value, depth),
        }
        self.pointer.truncate(mark);
    }

    /// Walks the members of `map`, an object where `schemas` apply.
    pub(super) fn object(
        &mut self,
        schemas: Vec<Vec<Pending<'s>>>,
        map: &mut Map<String, Value>,
        depth: usize,
    ) {
        if depth >= DEPTH {
            return;
        }
        let Some(alternatives) = self.expand(schemas, Kind::Object) else {
            return;
        };
        for (key, value) in map.iter_mut() {
            self.child(&alternatives, Step::Key(key), value, depth);
        }
    }

    /// Walks the items of an array where `schemas` apply.
    pub(super) fn array(
        &mut self,
        schemas: Vec<Vec<Pending<'s>>>,
        items: &mut [Value],
        depth: usize,
    ) {
        if depth >= DEPTH {
            return;
        }
        let Some(alternatives) = self.expand(schemas, Kind::Array) else {
            return;
        };
        for (index, item) in items.iter_mut().enumerate() {
            self.child(&alternatives, Step::Index(index), item, depth);
        }
    }

    /// The alternatives at a place holding a value of `kind`, each of the schemas that
    /// apply there with their references, `allOf`s and chosen branches followed; those
    /// whose `type` refuses the value are dropped. `None` when the expansion is too large
    /// to follow.
    pub(super) fn expand(
        &self,
        schemas: Vec<Vec<Pending<'s>>>,
        kind: Kind,
    ) -> Option<Vec<Alternative<'s>>> {
        let mut steps = STEPS;
        let mut found = Vec::new();
        for pending in schemas {
            self.expand_one(pending, Vec::new(), kind, &mut steps, &mut found)?;
        }
        for alternative in &mut found {
            alternative.sort_by_key(|schema| std::ptr::from_ref(*schema));
        }
        // Alike alternatives, which unions over recursive schemas multiply, are one.
        let addresses = |alternative: &Alternative<'s>| {
            alternative
                .iter()
                .map(|schema| std::ptr::from_ref(*schema))
                .collect::<Vec<_>>()
        };
        found.sort_by_cached_key(addresses);
        found.dedup_by(|a, b| {
            a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| std::ptr::eq(*x, *y))
        });
        Some(found)
    }

    fn expand_one(
        &self,
        mut pending: Vec<Pending<'s>>,
        mut alternative: Alternative<'s>,
        kind: Kind,
        steps: &mut usize,
        found: &mut Vec<Alternative<'s>>,
    ) -> Option<()> {
        while let Some(next) = pending.pop() {
            *steps = steps.checked_sub(1)?;
            let schema = match next {
                Pending::Choice(branches) => {
                    for branch in branches {
                        let mut rest = pending.clone();
                        rest.push(Pending::Schema(branch));
                        self.expand_one(rest, alternative.clone(), kind, steps, found)?;
                    }
                    return Some(());
                }
                Pending::Schema(Value::Object(schema)) => schema,
                // `false` admits nothing: no alternative.
                Pending::Schema(Value::Bool(false)) => return Some(()),
                // `true`, or not a schema: admits anything.
                Pending::Schema(_) => continue,
            };
            if alternative.iter().any(|seen| std::ptr::eq(*seen, schema)) {
                continue;
            }
            if !admits_kind(schema, kind) {
                return Some(());
            }
            alternative.push(schema);
            if let Some(target) = schema
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|reference| self.resolve(reference))
            {
                pending.push(Pending::Schema(target));
            }
            if let Some(Value::Array(all)) = schema.get("allOf") {
                pending.extend(all.iter().map(Pending::Schema));
            }
            for keyword in ["anyOf", "oneOf"] {
                if let Some(Value::Array(branches)) = schema.get(keyword) {
                    pending.push(Pending::Choice(branches));
                }
            }
        }
        found.push(alternative);
        (found.len() <= ALTERNATIVES).then_some(())
    }

    /// The schema a local reference (`#/$defs/Point`, `#`) points at.
    fn resolve(&self, reference: &str) -> Option<&'s Value> {
        self.root.pointer(reference.strip_prefix('#')?)
    }
}

/// The subschema an object schema applies to its property `key`, as far as this walk tells:
/// `properties`, else `additionalProperties` when no `patternProperties` might apply.
fn property_schema<'s>(schema: &'s Map<String, Value>, key: &str) -> Option<&'s Value> {
    if let Some(property) = schema
        .get("properties")
        .and_then(Value::as_object)
        .and_then(|properties| properties.get(key))
    {
        return Some(property);
    }
    if schema.contains_key("patternProperties") {
        return None;
    }
    schema.get("additionalProperties")
}

/// The subschema an array schema applies to its item at `index`: `prefixItems` or `items`
/// (and the older `items` array with `additionalItems`).
fn item_schema(schema: &Map<String, Value>, index: usize) -> Option<&Value> {
    if let Some(Value::Array(tuple)) = schema.get("items") {
        return tuple.get(index).or_else(|| schema.get("additionalItems"));
    }
    let prefix = schema.get("prefixItems").and_then(Value::as_array);
    match prefix.and_then(|prefix| prefix.get(index)) {
        Some(item) => Some(item),
        None => schema.get("items"),
    }
}
