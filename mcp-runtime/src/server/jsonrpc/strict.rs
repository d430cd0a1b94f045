//! The general reader's strictness: a message read whole into a JSON value, a key
//! written twice refused wherever it is, and what does not read named by its place.

use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::map::Entry;
use serde_json::value::RawValue;
use serde_json::{Map, Number, Value};

use super::{INVALID_PARAMS, INVALID_REQUEST, Id, PARSE_ERROR, Refusal};

/// Reads `bytes` as one JSON value, or refuses it:
/// - text that is no JSON: -32700, without an id;
/// - a key repeated in an object: -32600. Parsers disagree on which of the two counts, and
///   that is how a request is smuggled past a proxy that read the other one;
/// - valid JSON that cannot be held as a value (nested past 128 levels, a string with a
///   lone surrogate, a number past the range of `f64`): -32602 inside `params`, -32600
///   elsewhere.
///
/// The last two are answered under the message's id, when it can be read. With the value
/// comes the message's `id` as written, when it is a string or an integer.
pub(super) fn read_strictly(bytes: &[u8]) -> Result<(Value, Option<Id>), Refusal> {
    // Syntax first, with nothing built: skipping a value takes no stack, however deep, but
    // it does not look inside strings, so the text is checked first.
    let syntax = match std::str::from_utf8(bytes) {
        Ok(text) => serde_json::from_str::<IgnoredAny>(text).map_err(|err| err.to_string()),
        Err(err) => Err(format!("the message is not UTF-8 text: {err}")),
    };
    if let Err(err) = syntax {
        return Err(Refusal {
            id: Id::NONE,
            code: PARSE_ERROR,
            message: format!("parse error: {err}"),
        });
    }
    // Most messages read at once, their id kept as written on the way. Anything else (an
    // error, an id that is neither a string nor an integer) is read again, with the path
    // tracked to name the place.
    let written = Cell::new(None);
    let seed = StrictSeed {
        repeated: None,
        id: Some(&written),
    };
    if let Ok(value) = seed.deserialize(&mut serde_json::Deserializer::from_slice(bytes)) {
        return Ok((value, written.take()));
    }
    match read_tracked(bytes, "") {
        Ok(value) => Ok((value, written_id(bytes))),
        // Which of two ids would the client look for?
        Err(unread) if unread.is_repeated_id() => Err(unread.refusal(Id::NONE)),
        Err(unread) => Err(unread.refusal(written_id(bytes).unwrap_or_default())),
    }
}

/// The refusal of a call whose `arguments`, an object written as `text`, do not read as
/// [`read_strictly`] reads a message: as it would have refused the whole message, under
/// the call's `id`. `None` when they read.
pub(super) fn arguments_refusal(text: &str, id: &Id) -> Option<Refusal> {
    read_tracked(text.as_bytes(), "params.arguments")
        .err()
        .map(|unread| unread.refusal(id.clone()))
}

/// What did not read, and where.
struct Unread {
    /// The path of the value at fault: `.` for the whole message.
    path: String,
    /// The key written twice, if that is what did not read.
    repeated: Option<String>,
    /// serde's message.
    error: String,
}

impl Unread {
    fn is_repeated_id(&self) -> bool {
        self.path == "." && self.repeated.as_deref() == Some("id")
    }

    fn refusal(self, id: Id) -> Refusal {
        let place = match self.path.as_str() {
            "." => "the message".to_owned(),
            path => format!("`{}`", shortened(path)),
        };
        match self.repeated {
            Some(key) => Refusal {
                id,
                code: INVALID_REQUEST,
                message: format!("the key `{key}` appears twice in {place}: send each key once"),
            },
            None => Refusal {
                id,
                code: if self.path == "params" || self.path.starts_with("params.") {
                    INVALID_PARAMS
                } else {
                    INVALID_REQUEST
                },
                message: format!("{place} is valid JSON, but cannot be read: {}", self.error),
            },
        }
    }
}

/// `bytes` read as [`Strict`] reads them, the path tracked to name what does not read;
/// `under` is where in a message they are, empty for a whole message.
fn read_tracked(bytes: &[u8], under: &str) -> Result<Value, Unread> {
    let repeated = Cell::new(None);
    let mut track = serde_path_to_error::Track::new();
    let mut reader = serde_json::Deserializer::from_slice(bytes);
    let seed = StrictSeed {
        repeated: Some(&repeated),
        id: None,
    };
    let read = seed.deserialize(serde_path_to_error::Deserializer::new(
        &mut reader,
        &mut track,
    ));
    let err = match read {
        Ok(value) => return Ok(value),
        Err(err) => err,
    };
    let path = match (track.path().to_string(), under) {
        (path, "") => path,
        (path, under) if path == "." => under.to_owned(),
        (path, under) => format!("{under}.{path}"),
    };
    Err(Unread {
        path,
        repeated: repeated.take(),
        error: err.to_string(),
    })
}

/// `path`, cut to its first 100 characters: a value nested 128 deep has a long one.
fn shortened(path: &str) -> String {
    match path.char_indices().nth(100) {
        Some((end, _)) => format!("{}…", &path[..end]),
        None => path.to_owned(),
    }
}

/// A JSON value read as `serde_json::Value` reads one, except that a key repeated in an
/// object is an error (see [`read_strictly`]).
pub(super) struct Strict(pub(super) Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        StrictSeed::default().deserialize(deserializer).map(Strict)
    }
}

/// A JSON object read as [`Strict`] reads one.
pub(super) struct StrictMap(pub(super) Map<String, Value>);

impl<'de> Deserialize<'de> for StrictMap {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match StrictSeed::default().deserialize(deserializer)? {
            Value::Object(object) => Ok(Self(object)),
            _ => Err(de::Error::custom("expected an object")),
        }
    }
}

/// Reads a [`Strict`] value.
#[derive(Clone, Copy, Default)]
struct StrictSeed<'a> {
    /// Where to name a repeated key, if anywhere.
    repeated: Option<&'a Cell<Option<String>>>,
    /// At the top of a message: where to keep its `id` as written. An `id` that is not a
    /// string or an integer is an error here.
    id: Option<&'a Cell<Option<Id>>>,
}

impl StrictSeed<'_> {
    /// The seed of a value inside this one.
    fn inner(self) -> Self {
        Self { id: None, ..self }
    }
}

impl<'de> DeserializeSeed<'de> for StrictSeed<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for StrictSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(value.into())
    }

    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(value.into())
    }

    fn visit_f64<E>(self, value: f64) -> Result<Value, E> {
        // JSON has no NaN nor infinity: every number it reads is finite.
        Ok(Number::from_f64(value).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_owned()))
    }

    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self.inner())? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = match self.id {
                Some(written) if key == "id" => {
                    let raw = map.next_value::<&'de RawValue>()?;
                    let id = Id::of(raw).ok_or_else(|| de::Error::custom("not an id"))?;
                    let value = Self::default()
                        .deserialize(&mut serde_json::Deserializer::from_str(raw.get()))
                        .map_err(de::Error::custom)?;
                    written.set(Some(id));
                    value
                }
                _ => map.next_value_seed(self.inner())?,
            };
            match object.entry(key) {
                Entry::Vacant(entry) => {
                    entry.insert(value);
                }
                Entry::Occupied(entry) => {
                    if let Some(repeated) = self.repeated {
                        repeated.set(Some(entry.key().clone()));
                    }
                    return Err(de::Error::custom(format_args!(
                        "the key `{}` appears twice",
                        entry.key()
                    )));
                }
            }
        }
        Ok(Value::Object(object))
    }
}

/// The `id` of a message as written, when it can be read on its own: the last one, as the
/// general reader takes the last of a repeated member.
fn written_id(bytes: &[u8]) -> Option<Id> {
    let members: std::collections::HashMap<String, &RawValue> =
        serde_json::from_slice(bytes).ok()?;
    Id::of(members.get("id")?)
}
