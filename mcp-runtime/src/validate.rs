//! Arguments checked against the advertised input schema, data against the output schema.
//!
//! The input schema is the contract: every constraint it states is enforced before the
//! function runs, and each violation is reported with its JSON pointer, its keyword and a
//! message that never repeats the submitted value. Validators are compiled once per tool,
//! on first use. A tool whose schema states nothing beyond what deserialization checks
//! anyway (types, required properties, enum variants, integer ranges) skips the schema on
//! the way in, unless deserialization fails, when the schema is asked for the complete list
//! of what is wrong.
//!
//! Property names are the exception: serde reads a field under its `#[serde(alias)]`
//! names too, which the schema does not list, so an object the schema closes
//! (`additionalProperties: false`) may hold a name deserialization accepts and the schema
//! refuses. A tool whose arguments struct could read such a name (the macro says which:
//! an alias, `flatten`, a rename for deserializing alone, a `#[schemars]` attribute) has
//! the names of its arguments checked against the root's `properties` on every call (a
//! look per argument); the others refuse it in deserialization. A schema that closes an
//! object below the root is checked in full on every call. An alias is never advertised,
//! so it is refused, whatever else the schema states.
//!
//! JSON Schema counts a number with a zero fractional part as an integer (`1.0`, `1e2`,
//! `-0.0`), and so does the contract: where the input schema admits integers only, such a
//! number is rewritten as the integer before anyone reads the arguments, so that a Rust
//! integer receives it, and a dynamic tool sees an integer where its schema says one. A
//! place where the schema admits any number keeps its float. So does a float of ±2^53 or
//! more, which may not be the number written (`-9223372036854775809`, past `i64`, reads as
//! the float of `i64::MIN`): deserialization refuses it where an integer is expected, rather
//! than take a number out of range, or another number, for the one sent.

use std::fmt::Write as _;
use std::sync::OnceLock;

use jsonschema::Validator;
use mcp_runtime_core::{ErrorType, ToolDefinition, ToolError};
use serde_json::{Map, Value, json};

mod branches;
mod lenient;

pub(crate) use lenient::Lenience;
use lenient::{Wanted, looks_like_json};

/// One violation of a schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Violation {
    /// JSON pointer of the value at fault (`""` for the arguments object itself).
    pub(crate) path: String,
    /// The schema keyword violated, e.g. `minimum` or `required`.
    pub(crate) keyword: String,
    /// What is wrong, without the value itself.
    pub(crate) message: String,
}

impl Violation {
    fn to_json(&self) -> Value {
        json!({ "path": self.path, "keyword": self.keyword, "message": self.message })
    }
}

/// How a tool reads its arguments, which decides what is checked before it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reading {
    /// By the input schema alone: a dynamic tool, or one whose definition failed.
    Schema,
    /// Deserialized into a Rust type, which may accept a name the schema does not list (a
    /// `#[serde(alias)]`).
    Typed,
    /// Deserialized into a Rust type that refuses every name the schema does not list.
    TypedExact,
}

impl Reading {
    /// How `handler` reads, given whether its arguments struct has exactly the names of its
    /// schema.
    pub(crate) fn of(handler: &crate::registration::Handler, exact_names: bool) -> Self {
        match (handler.is_typed(), exact_names) {
            (false, _) => Self::Schema,
            (true, false) => Self::Typed,
            (true, true) => Self::TypedExact,
        }
    }
}

/// The validation state of one tool.
#[derive(Debug)]
pub(crate) struct Validation {
    /// Whether the input schema states constraints deserialization does not check.
    input_beyond_serde: bool,
    /// The names the root of the input schema admits, when it lists every one of them
    /// (`additionalProperties: false`) and the tool could read another: then the
    /// arguments' names are checked on every call.
    input_names: Option<ClosedNames>,
    /// Whether the input schema types anything as an integer: only then may arguments hold
    /// an integral float to rewrite.
    input_integers: bool,
    input: OnceLock<Result<Validator, String>>,
    output: OnceLock<Option<Result<Validator, String>>>,
}

impl Validation {
    /// The state for `definition`, whose tool reads its arguments as `reading` says.
    pub(crate) fn new(definition: &ToolDefinition, reading: Reading) -> Self {
        let schema = definition.input_schema().as_value();
        Self {
            input_beyond_serde: reading == Reading::Schema || beyond_serde(schema),
            // A struct that refuses what the schema does not list checks the names itself.
            input_names: match reading {
                Reading::TypedExact => None,
                Reading::Schema | Reading::Typed => ClosedNames::of(schema),
            },
            input_integers: mentions_integer(schema),
            input: OnceLock::new(),
            output: OnceLock::new(),
        }
    }

    /// Whether arguments go through the schema even when they deserialize.
    pub(crate) fn validates_input(&self) -> bool {
        self.input_beyond_serde
    }

    /// Whether [`Validation::check_input`] has anything to check: the whole schema, or the
    /// arguments' names.
    pub(crate) fn checks_input(&self) -> bool {
        self.input_beyond_serde || self.input_names.is_some()
    }

    /// Rewrites each integral float of `arguments` (`1.0`, `1e2`) that sits where the input
    /// schema admits integers only as that integer. Costs a look at the arguments' numbers
    /// when the schema has integers; nothing otherwise. Whether there was any to rewrite.
    pub(crate) fn normalize_integers(
        &self,
        definition: &ToolDefinition,
        arguments: &mut Map<String, Value>,
    ) -> bool {
        let may_rewrite = self.may_rewrite(arguments);
        if may_rewrite {
            Walk::new(definition.input_schema().as_value(), Task::Integers).arguments(arguments);
        }
        may_rewrite
    }

    /// Whether `arguments` may hold a float to rewrite: the walk's gate, which keeps calls
    /// without integral floats, and tools without integers, from paying for it.
    fn may_rewrite(&self, arguments: &Map<String, Value>) -> bool {
        // A scalar is settled here, without a call: most arguments are scalars.
        self.input_integers
            && arguments.values().any(|value| match value {
                Value::Number(n) => n.is_f64() && has_integral_float(value),
                Value::Array(_) | Value::Object(_) => has_integral_float(value),
                _ => false,
            })
    }

    /// Checks `arguments` against the schema when it states more than deserialization
    /// checks, or when they hold a name its closed root does not list (an alias, which
    /// deserialization would accept).
    pub(crate) fn check_input(
        &self,
        definition: &ToolDefinition,
        arguments: &Value,
    ) -> Result<(), ToolError> {
        let names_admitted = || {
            self.input_names
                .as_ref()
                .is_none_or(|names| names.admit(arguments))
        };
        if !self.input_beyond_serde && names_admitted() {
            return Ok(());
        }
        match self.input_violations(definition, arguments) {
            Ok(violations) if violations.is_empty() => Ok(()),
            Ok(violations) => Err(invalid_arguments(definition, &violations)),
            Err(err) => Err(err),
        }
    }

    /// Every violation of the input schema by `arguments`.
    pub(crate) fn input_violations(
        &self,
        definition: &ToolDefinition,
        arguments: &Value,
    ) -> Result<Vec<Violation>, ToolError> {
        let validator = self
            .input
            .get_or_init(|| compile(definition.input_schema().as_value()));
        match validator {
            Ok(validator) => Ok(violations(
                validator,
                definition.input_schema().as_value(),
                arguments,
            )),
            Err(err) => Err(ToolError::execution(format!(
                "the input schema of tool `{}` does not compile: {err}",
                definition.name()
            ))),
        }
    }

    /// Checks a tool's `data` against its output schema, if it has one.
    pub(crate) fn check_output(
        &self,
        definition: &ToolDefinition,
        data: &Map<String, Value>,
    ) -> Result<(), ToolError> {
        let validator = self.output.get_or_init(|| {
            definition
                .output_schema()
                .map(|schema| compile(schema.as_value()))
        });
        let (validator, schema) = match (validator, definition.output_schema()) {
            (Some(Ok(validator)), Some(schema)) => (validator, schema.as_value()),
            (None, _) | (_, None) => return Ok(()),
            (Some(Err(err)), Some(_)) => {
                return Err(ToolError::execution(format!(
                    "the output schema of tool `{}` does not compile: {err}",
                    definition.name()
                )));
            }
        };
        // Validating needs a JSON value; the data is small next to the work that made it.
        let data = Value::Object(data.clone());
        let found = violations(validator, schema, &data);
        if found.is_empty() {
            return Ok(());
        }
        Err(ToolError::execution(format!(
            "tool `{}` returned data that does not match its output schema: {}",
            definition.name(),
            summary(&found)
        ))
        .with_details(
            json!({ "errors": found.iter().map(Violation::to_json).collect::<Vec<_>>() }),
        ))
    }
}

/// The `ValidationError` for `violations` of `definition`'s input schema.
pub(crate) fn invalid_arguments(
    definition: &ToolDefinition,
    violations: &[Violation],
) -> ToolError {
    ToolError::new(
        ErrorType::ValidationError,
        format!(
            "invalid arguments for tool `{}`: {}",
            definition.name(),
            summary(violations)
        ),
    )
    .with_details(
        json!({ "errors": violations.iter().map(Violation::to_json).collect::<Vec<_>>() }),
    )
}

fn summary(violations: &[Violation]) -> String {
    violations
        .iter()
        .map(|v| {
            if v.path.is_empty() {
                v.message.clone()
            } else {
                format!("`{}`: {}", v.path, v.message)
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn compile(schema: &Value) -> Result<Validator, String> {
    jsonschema::validator_for(schema).map_err(|err| err.masked().to_string())
}

/// Every violation of `schema`, compiled as `validator`, by `instance`; a value that fits
/// no branch of an enum is told about the branch it meant (see [`branches`]).
fn violations(validator: &Validator, schema: &Value, instance: &Value) -> Vec<Violation> {
    let mut found = Vec::new();
    for err in validator.iter_errors(instance) {
        branches::explain(&err, schema, instance, None, &mut found);
    }
    found
}

/// The violation a deserialization error describes, its message rid of the value: serde's
/// `invalid type: string "secret", expected i64` becomes `invalid type: expected i64, found
/// a string`.
pub(crate) fn deserialize_violation(path: String, message: &str, arguments: &Value) -> Violation {
    let found = arguments.pointer(&path).map(json_type).unwrap_or("nothing");
    let message = match message.split_once(", expected ") {
        Some((head, expected)) if head.starts_with("invalid type") => {
            format!("invalid type: expected {expected}, found {found}")
        }
        Some((head, expected)) if head.starts_with("invalid value") => {
            format!("invalid value: expected {expected}")
        }
        Some((head, expected)) if head.starts_with("unknown variant") => {
            format!("unknown variant: expected {expected}")
        }
        Some((head, expected)) if head.starts_with("invalid length") => {
            format!("invalid length: expected {expected}")
        }
        _ => message.to_owned(),
    };
    Violation {
        path,
        keyword: "deserialize".to_owned(),
        message,
    }
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => match n.as_f64() {
            // What an integral float left as it is stands for where an integer was expected.
            Some(f) if f.fract() == 0.0 && integer_of(f).is_none() => {
                "an integral number beyond ±2^53, which a float does not hold exactly"
            }
            _ => "a number",
        },
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

// ----- Integral floats where the schema admits integers only -----

/// The integer an integral float stands for, if it surely is the integer that was sent:
/// `1.0` is 1, `-0.0` is 0, `1.5` has none. Nor has a float of ±2^53 or more: from there
/// on floats skip integers, and the float read may not be the number written: the JSON
/// `-9223372036854775809`, past the range of `i64`, reads as the float -2^63, which is
/// `i64::MIN`, and `9007199254740993.0` as 2^53. Taking those as integers would put a
/// number out of range in range, or change it, silently.
fn integer_of(float: f64) -> Option<serde_json::Number> {
    /// 2^53: below it in magnitude, every integer is a float, and no other number is read
    /// as the same float unless it differs by less than a float tells apart.
    const EXACT: f64 = 9_007_199_254_740_992.0;
    // NaN and the infinities have a NaN fractional part.
    if float.fract() != 0.0 || float.abs() >= EXACT {
        return None;
    }
    // Exact, as the float is integral and in range (`-0.0` is 0).
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let integer = if float >= 0.0 {
        (float as u64).into()
    } else {
        (float as i64).into()
    };
    Some(integer)
}

/// Whether `value` is, or holds, a float with a zero fractional part.
fn has_integral_float(value: &Value) -> bool {
    match value {
        Value::Number(n) => n.is_f64() && n.as_f64().is_some_and(|f| f.fract() == 0.0),
        Value::Array(items) => items.iter().any(has_integral_float),
        Value::Object(map) => map.values().any(has_integral_float),
        _ => false,
    }
}

/// Whether `schema` types anything as an integer.
fn mentions_integer(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => map.iter().any(|(keyword, value)| {
            (keyword == "type" && type_names(value).any(|name| name == "integer"))
                || mentions_integer(value)
        }),
        Value::Array(items) => items.iter().any(mentions_integer),
        _ => false,
    }
}

/// The names a `type` keyword lists.
fn type_names(types: &Value) -> impl Iterator<Item = &str> {
    let (one, many) = match types {
        Value::String(name) => (Some(name.as_str()), None),
        Value::Array(names) => (None, Some(names.iter().filter_map(Value::as_str))),
        _ => (None, None),
    };
    one.into_iter().chain(many.into_iter().flatten())
}

/// What a value is, as far as the `type` keyword tells it apart here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
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

/// Whether a schema's `type` admits integers but no other number.
fn integer_only(schema: &Map<String, Value>) -> bool {
    schema.get("type").is_some_and(|types| {
        type_names(types).any(|name| name == "integer")
            && !type_names(types).any(|name| name == "number")
    })
}

/// The subschemas that apply together to one place of the arguments, under one choice of
/// branch for each `anyOf` and `oneOf` met: one alternative. Keywords this walk does not
/// follow (`not`, `if`, `patternProperties`, remote references, …) only ever add
/// constraints, and leaving a constraint out only makes an alternative admit more: a float
/// is rewritten only where every alternative that admits a number admits integers only,
/// which stays true of the complete schema.
type Alternative<'s> = Vec<&'s Map<String, Value>>;

/// Where a value sits in its container.
#[derive(Clone, Copy)]
enum Step<'k> {
    Key(&'k str),
    Index(usize),
}

/// A schema still to expand into an alternative: a subschema, or a choice among branches.
#[derive(Clone, Copy)]
enum Pending<'s> {
    Schema(&'s Value),
    Choice(&'s [Value]),
}

/// Steps one place's expansion may take, and alternatives it may have, before the walk
/// gives up on it (and leaves what lies there as it is).
const STEPS: usize = 4096;
const ALTERNATIVES: usize = 64;
/// How deep into the arguments the walk goes.
const DEPTH: usize = 128;

/// What a walk of the arguments does at the places it visits.
enum Task {
    /// Rewrites each integral float where every alternative admitting a number admits
    /// integers only.
    Integers,
    /// Reads each string holding JSON where no alternative admits a string and some admit
    /// the object or array it holds, and notes what it read and what it could not.
    Strings(Lenience),
}

/// A walk of the arguments and the input schema together.
struct Walk<'s> {
    root: &'s Value,
    task: Task,
    /// The JSON pointer of the place visited.
    pointer: String,
}

impl<'s> Walk<'s> {
    fn new(root: &'s Value, task: Task) -> Self {
        Self {
            root,
            task,
            pointer: String::new(),
        }
    }

    /// Walks the arguments object, which the root schema describes.
    fn arguments(&mut self, arguments: &mut Map<String, Value>) {
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
        let visited = match (&self.task, &*value) {
            (_, Value::Object(_) | Value::Array(_)) => true,
            (Task::Integers, Value::Number(number)) => number.is_f64(),
            (Task::Strings(_), Value::String(text)) => looks_like_json(text),
            _ => false,
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
        // Only lenient reading's notes name the place.
        if let Task::Strings(_) = self.task {
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
            Value::Number(number) => {
                if let Some(integer) = number.as_f64().and_then(integer_of) {
                    if self.admits_integers_only(schemas) {
                        *number = integer;
                    }
                }
            }
            Value::String(_) => self.string(schemas, value, depth),
            Value::Object(map) => self.object(schemas, map, depth + 1),
            Value::Array(items) => self.array(schemas, items, depth + 1),
            _ => {}
        }
        self.pointer.truncate(mark);
    }

    /// Whether every alternative admitting a number, of which there is one at least,
    /// admits integers only.
    fn admits_integers_only(&self, schemas: Vec<Vec<Pending<'s>>>) -> bool {
        self.expand(schemas, Kind::Number)
            .is_some_and(|alternatives| {
                !alternatives.is_empty()
                    && alternatives
                        .iter()
                        .all(|alternative| alternative.iter().any(|schema| integer_only(schema)))
            })
    }

    /// Reads the JSON a string holds where the schemas want an object or an array and
    /// refuse a string; notes why not where it cannot.
    fn string(&mut self, schemas: Vec<Vec<Pending<'s>>>, value: &mut Value, depth: usize) {
        let Value::String(text) = &*value else {
            return;
        };
        if self
            .expand(schemas.clone(), Kind::String)
            .is_none_or(|alternatives| !alternatives.is_empty())
        {
            return;
        }
        let admits = |kind| {
            self.expand(schemas.clone(), kind)
                .is_some_and(|alternatives| !alternatives.is_empty())
        };
        let wanted = match (admits(Kind::Object), admits(Kind::Array)) {
            (true, true) => Wanted::Either,
            (true, false) => Wanted::Object,
            (false, true) => Wanted::Array,
            (false, false) => return,
        };
        let read = serde_json::from_str::<Value>(text);
        let Task::Strings(lenience) = &mut self.task else {
            return;
        };
        let pointer = self.pointer.clone();
        let decoded = match read {
            Err(err) => return lenience.not_json(pointer, wanted, &err),
            Ok(decoded @ Value::Object(_)) if wanted != Wanted::Array => decoded,
            Ok(decoded @ Value::Array(_)) if wanted != Wanted::Object => decoded,
            Ok(other) => return lenience.wrong_type(pointer, wanted, &other),
        };
        lenience.read(pointer, &decoded);
        *value = decoded;
        // What it held may hold strings of JSON itself.
        match value {
            Value::Object(map) => self.object(schemas, map, depth + 1),
            Value::Array(items) => self.array(schemas, items, depth + 1),
            _ => {}
        }
    }

    fn object(
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

    fn array(&mut self, schemas: Vec<Vec<Pending<'s>>>, items: &mut [Value], depth: usize) {
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
    fn expand(&self, schemas: Vec<Vec<Pending<'s>>>, kind: Kind) -> Option<Vec<Alternative<'s>>> {
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

/// The property names of a closed root schema (`additionalProperties: false`, no
/// `patternProperties`), so that a call's names are looked up without hashing.
#[derive(Debug)]
pub(crate) struct ClosedNames(Box<[Box<str>]>);

impl ClosedNames {
    /// The names `root` admits, if it is closed.
    fn of(root: &Value) -> Option<Self> {
        if root.get("additionalProperties") != Some(&Value::Bool(false))
            || root.get("patternProperties").is_some()
        {
            return None;
        }
        let names = match root.get("properties") {
            None => Box::default(),
            Some(Value::Object(properties)) => {
                properties.keys().map(|name| name.as_str().into()).collect()
            }
            Some(_) => return None,
        };
        Some(Self(names))
    }

    /// Whether every name of `arguments` is one of these. A tool has a few parameters: a
    /// scan that compares lengths first beats hashing or a binary search.
    fn admit(&self, arguments: &Value) -> bool {
        arguments.as_object().is_some_and(|arguments| {
            arguments.len() <= self.0.len()
                && arguments.keys().all(|name| {
                    self.0
                        .iter()
                        .any(|listed| listed.len() == name.len() && **listed == **name)
                })
        })
    }
}

/// Whether the root schema `schema` states something deserialization does not check. Its
/// own `additionalProperties: false` is not: the names of the arguments are checked apart.
fn beyond_serde(schema: &Value) -> bool {
    states_beyond_serde(schema, true)
}

/// Whether `schema`, the root or below it, states something deserialization does not check.
fn states_beyond_serde(schema: &Value, root: bool) -> bool {
    let beyond_serde = |schema: &Value| states_beyond_serde(schema, false);
    match schema {
        Value::Object(map) => {
            let format = map.get("format").and_then(Value::as_str);
            map.iter().any(|(keyword, value)| match keyword.as_str() {
                // Annotations (`x-mcp-header` names the HTTP header an argument is mirrored
                // into), and what serde checks itself.
                "$schema" | "$id" | "$comment" | "title" | "description" | "default"
                | "examples" | "deprecated" | "readOnly" | "writeOnly" | "x-mcp-header"
                | "format" | "type" | "required" | "enum" | "const" | "$ref" => false,
                "minimum" | "maximum" => !implied_by_format(keyword, value, format),
                // Applicators: beyond serde if what they apply is.
                "properties" | "$defs" | "definitions" | "patternProperties" => value
                    .as_object()
                    .is_some_and(|schemas| schemas.values().any(beyond_serde)),
                // Below the root, a closed object may hold a name serde reads as an alias.
                "additionalProperties" if *value == Value::Bool(false) => !root,
                "additionalProperties" | "items" | "not" => {
                    !value.is_boolean() && beyond_serde(value)
                }
                "anyOf" | "oneOf" | "allOf" | "prefixItems" => value
                    .as_array()
                    .is_some_and(|schemas| schemas.iter().any(beyond_serde)),
                _ => true,
            })
        }
        _ => false,
    }
}

/// Whether a bound is the range of the integer type its `format` names, which serde checks.
fn implied_by_format(keyword: &str, bound: &Value, format: Option<&str>) -> bool {
    let Some(bound) = bound.as_f64() else {
        return false;
    };
    let range = match format {
        Some("uint8") => (0.0, f64::from(u8::MAX)),
        Some("uint16") => (0.0, f64::from(u16::MAX)),
        Some("uint32") => (0.0, f64::from(u32::MAX)),
        Some("uint64" | "uint" | "uint128") => (0.0, f64::MAX),
        Some("int8") => (f64::from(i8::MIN), f64::from(i8::MAX)),
        Some("int16") => (f64::from(i16::MIN), f64::from(i16::MAX)),
        Some("int32") => (f64::from(i32::MIN), f64::from(i32::MAX)),
        _ => return false,
    };
    match keyword {
        "minimum" => bound == range.0,
        _ => bound == range.1,
    }
}

#[cfg(test)]
mod tests;
