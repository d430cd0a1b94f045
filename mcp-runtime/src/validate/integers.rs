//! Integral floats where the input schema admits integers only, rewritten as the integers
//! they stand for.
//!
//! JSON Schema counts a number with a zero fractional part as an integer (`1.0`, `1e2`,
//! `-0.0`), and so does the contract: where the input schema admits integers only, such a
//! number is rewritten as the integer before anyone reads the arguments, so that a Rust
//! integer receives it, and a dynamic tool sees an integer where its schema says one. A
//! place where the schema admits any number keeps its float. So does a float of ±2^53 or
//! more, which may not be the number written (`-9223372036854775809`, past `i64`, reads as
//! the float of `i64::MIN`): deserialization refuses it where an integer is expected, rather
//! than take a number out of range, or another number, for the one sent.

use serde_json::{Map, Value};

use super::walk::{Kind, Pending, Task, Walk, type_names};

/// Rewrites each integral float of `arguments` that sits where `schema`, the input schema,
/// admits integers only, as that integer.
pub(super) fn normalize(schema: &Value, arguments: &mut Map<String, Value>) {
    Walk::new(schema, Integers).arguments(arguments);
}

/// Whether `arguments` may hold a float to rewrite. A scalar is settled here, without a
/// call: most arguments are scalars.
pub(super) fn may_hold_integral_float(arguments: &Map<String, Value>) -> bool {
    arguments.values().any(|value| match value {
        Value::Number(n) => n.is_f64() && has_integral_float(value),
        Value::Array(_) | Value::Object(_) => has_integral_float(value),
        _ => false,
    })
}

/// The walk's task: rewrites each integral float where every alternative admitting a
/// number admits integers only.
pub(super) struct Integers;

impl Task for Integers {
    const NAMES_PLACES: bool = false;

    fn visits(&self, value: &Value) -> bool {
        matches!(value, Value::Number(number) if number.is_f64())
    }

    fn at<'s>(
        walk: &mut Walk<'s, Self>,
        schemas: Vec<Vec<Pending<'s>>>,
        value: &mut Value,
        _depth: usize,
    ) {
        let Value::Number(number) = value else {
            return;
        };
        if let Some(integer) = number.as_f64().and_then(integer_of) {
            if admits_integers_only(walk, schemas) {
                *number = integer;
            }
        }
    }
}

/// Whether every alternative admitting a number, of which there is one at least, admits
/// integers only.
fn admits_integers_only<'s>(walk: &Walk<'s, Integers>, schemas: Vec<Vec<Pending<'s>>>) -> bool {
    walk.expand(schemas, Kind::Number)
        .is_some_and(|alternatives| {
            !alternatives.is_empty()
                && alternatives
                    .iter()
                    .all(|alternative| alternative.iter().any(|schema| integer_only(schema)))
        })
}

/// The integer an integral float stands for, if it surely is the integer that was sent:
/// `1.0` is 1, `-0.0` is 0, `1.5` has none. Nor has a float of ±2^53 or more: from there
/// on floats skip integers, and the float read may not be the number written: the JSON
/// `-9223372036854775809`, past the range of `i64`, reads as the float -2^63, which is
/// `i64::MIN`, and `9007199254740993.0` as 2^53. Taking those as integers would put a
/// number out of range in range, or change it, silently.
pub(super) fn integer_of(float: f64) -> Option<serde_json::Number> {
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
pub(super) fn has_integral_float(value: &Value) -> bool {
    match value {
        Value::Number(n) => n.is_f64() && n.as_f64().is_some_and(|f| f.fract() == 0.0),
        Value::Array(items) => items.iter().any(has_integral_float),
        Value::Object(map) => map.values().any(has_integral_float),
        _ => false,
    }
}

/// Whether `schema` types anything as an integer.
pub(super) fn mentions_integer(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => map.iter().any(|(keyword, value)| {
            (keyword == "type" && type_names(value).any(|name| name == "integer"))
                || mentions_integer(value)
        }),
        Value::Array(items) => items.iter().any(mentions_integer),
        _ => false,
    }
}

/// Whether a schema's `type` admits integers but no other number.
fn integer_only(schema: &Map<String, Value>) -> bool {
    schema.get("type").is_some_and(|types| {
        type_names(types).any(|name| name == "integer")
            && !type_names(types).any(|name| name == "number")
    })
}
