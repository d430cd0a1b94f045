//! `decode_dispatch`: any bytes, as one message, to `Server::handle`.
//!
//! The invariants, checked against a reading of the input that owes nothing to the server's
//! own reader (JSON here is RFC 8259: UTF-8 text in the JSON grammar, with no limit of depth
//! or number range, and strings that may hold lone surrogate escapes):
//!
//! 1. An answer is JSON: an object of distinct members, `jsonrpc` (`"2.0"`), `id`, and
//!    exactly one of `result` and `error`, nothing else.
//! 2. An `error` is an object with an integer `code`, a string `message`, and at most
//!    `data` besides.
//! 3. A `result` is an object, and answers a request, so it carries an id; a `tools/call`
//!    result has a `content` array and an `isError` boolean.
//! 4. An answer carries an id only when the input had one: the input is JSON, an object
//!    with an `id` member, and the answer's id is that id exactly (a string the same
//!    string, escapes decoded; a number the same decimal value).
//! 5. An input that is not JSON, or no JSON object, and a request (an object with a
//!    `method` and an `id`), are answered.
//! 6. A notification (an object read by serde_json with `"jsonrpc": "2.0"`, a string
//!    `method`, no `id`, and `params` absent, null, an object or an array) is not.
//!
//! And no panic: the dispatcher catches the tools' panics, and has none of its own.

use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use bigdecimal::BigDecimal;
use bigdecimal::num_bigint::BigInt;
use mcp_runtime::server::Server;
use mcp_runtime_core::json_type;
use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use super::{Finding, KnownBug};

/// The bugs of mcp-runtime this target has found that are not fixed yet.
pub const KNOWN_BUGS: &[KnownBug] = &[];

/// The server every input goes to, made once, over [`super::registry`].
pub fn server() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    SERVER.get_or_init(|| Server::new(super::registry()).with_info("mcp-runtime-fuzz", "0.0.0"))
}

/// Hands `input` to the server and checks its answer.
pub fn run(input: &[u8]) -> Result<(), Finding> {
    let answer = super::runtime().block_on(server().handle(input, None));
    check(input, answer.as_deref())
}

/// Checks `answer`, the server's answer to `input`, against the invariants.
pub fn check(input: &[u8], answer: Option<&str>) -> Result<(), Finding> {
    let sent = Sent::read(input);
    let Some(answer) = answer else {
        return check_silence(&sent);
    };
    if let Some(params) = sent.notification_params() {
        let finding = Finding::new(
            "a notification was answered",
            format!("params {}, answer {}", json_type(params), clip(answer)),
        );
        return Err(finding);
    }
    let not_a_response = |why: String| {
        Err(Finding::new(
            "the answer is not a JSON-RPC response object",
            format!("{why}: {}", clip(answer)),
        ))
    };
    if serde_json::from_str::<IgnoredAny>(answer).is_err() {
        return Err(Finding::new("the answer is not JSON", clip(answer)));
    }
    let Ok(Members(members)) = serde_json::from_str::<Members>(answer) else {
        return not_a_response("not an object".to_owned());
    };
    let mut seen = Vec::new();
    for (key, _) in &members {
        if !matches!(key.as_str(), "jsonrpc" | "id" | "result" | "error") {
            return not_a_response(format!("member `{key}`"));
        }
        if seen.contains(&key) {
            return not_a_response(format!("member `{key}` twice"));
        }
        seen.push(key);
    }
    let member = |name: &str| {
        members
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, raw)| raw.as_ref())
    };
    let jsonrpc = member("jsonrpc").map(|raw| serde_json::from_str::<Value>(raw.get()));
    if !matches!(jsonrpc, Some(Ok(Value::String(version))) if version == "2.0") {
        return not_a_response("no `jsonrpc: \"2.0\"`".to_owned());
    }
    // `null` is no id, as JSON-RPC has it for an id that could not be read.
    let id = member("id").filter(|raw| raw.get() != "null");
    match (member("result"), member("error")) {
        (Some(_), Some(_)) => not_a_response("both `result` and `error`".to_owned()),
        (None, None) => not_a_response("neither `result` nor `error`".to_owned()),
        (Some(result), None) => {
            let result = serde_json::from_str::<Value>(result.get());
            let Ok(result @ Value::Object(_)) = result else {
                return Err(Finding::new("a result is not an object", clip(answer)));
            };
            if id.is_none() {
                return Err(Finding::new("a result carries no id", clip(answer)));
            }
            if sent.method() == Some("tools/call")
                && !(result.get("content").is_some_and(Value::is_array)
                    && result.get("isError").is_some_and(Value::is_boolean))
            {
                return Err(Finding::new(
                    "a tools/call result has no `content` array or `isError` boolean",
                    clip(answer),
                ));
            }
            check_id(&sent, id, answer)
        }
        (None, Some(error)) => {
            let error = serde_json::from_str::<Value>(error.get());
            let malformed = |why: &str| {
                Err(Finding::new(
                    "an error is malformed",
                    format!("{why}: {}", clip(answer)),
                ))
            };
            let Ok(Value::Object(error)) = error else {
                return malformed("not an object");
            };
            if !error
                .get("code")
                .is_some_and(|code| code.is_i64() || code.is_u64())
            {
                return malformed("no integer `code`");
            }
            if !error.get("message").is_some_and(Value::is_string) {
                return malformed("no string `message`");
            }
            if error
                .keys()
                .any(|key| !matches!(key.as_str(), "code" | "message" | "data"))
            {
                return malformed("a member besides `code`, `message` and `data`");
            }
            check_id(&sent, id, answer)
        }
    }
}

/// Invariant 4.
fn check_id(sent: &Sent, id: Option<&RawValue>, answer: &str) -> Result<(), Finding> {
    let Some(id) = id else {
        return Ok(());
    };
    let Some(answered) = Id::read(id) else {
        return Err(Finding::new(
            "an answer's id is neither a string nor a number",
            clip(answer),
        ));
    };
    if sent.json && sent.ids().any(|sent| *sent == answered) {
        return Ok(());
    }
    let had: Vec<&str> = sent.ids().map(|id| id.text.as_str()).collect();
    let finding = Finding::new(
        "an answer carries an id the input did not have",
        format!(
            "answered {}, the input {}: {}",
            answered.text,
            match (sent.json, had.is_empty()) {
                (false, _) => "is no JSON".to_owned(),
                (true, true) => "had none".to_owned(),
                (true, false) => format!("had {}", had.join(", ")),
            },
            clip(answer)
        ),
    );
    Err(finding)
}

/// Invariant 5: what must be answered was.
fn check_silence(sent: &Sent) -> Result<(), Finding> {
    let unanswered = |what: &str| Err(Finding::new("an input was not answered", what));
    if !sent.json {
        return unanswered("it is not JSON");
    }
    match &sent.envelope {
        Envelope::NoObject => unanswered("it is no JSON object"),
        Envelope::Object {
            id: true,
            method: true,
            ..
        } => unanswered("a request"),
        Envelope::Object { .. } | Envelope::Unread => Ok(()),
    }
}

// ---------------------------------------------------------------------------------------
// The input, read independently of the server

/// What the input was.
struct Sent {
    /// Whether it is JSON: UTF-8, in the JSON grammar (as serde_json skips a value: without
    /// limits of depth or number range, lone surrogate escapes allowed).
    json: bool,
    /// Its top-level members, when it is JSON.
    envelope: Envelope,
    /// The input as serde_json reads it into a tree, when it can.
    strict: Option<Value>,
}

impl Sent {
    fn read(input: &[u8]) -> Self {
        let json = std::str::from_utf8(input).is_ok()
            && serde_json::from_slice::<IgnoredAny>(input).is_ok();
        let envelope = match json {
            false => Envelope::Unread,
            true => match input.iter().find(|byte| !byte.is_ascii_whitespace()) {
                Some(b'{') => serde_json::from_slice(input).unwrap_or(Envelope::Unread),
                _ => Envelope::NoObject,
            },
        };
        Self {
            json,
            envelope,
            strict: serde_json::from_slice::<Value>(input).ok(),
        }
    }

    /// Every id the input had (more than one when the member is repeated).
    fn ids(&self) -> impl Iterator<Item = &Id> {
        match &self.envelope {
            Envelope::Object { ids, .. } => ids.iter(),
            _ => [].iter(),
        }
    }

    /// The method, as serde_json reads the input.
    fn method(&self) -> Option<&str> {
        self.strict.as_ref()?.get("method")?.as_str()
    }

    /// The parameters of a notification (null when absent); `None` when the input is none.
    fn notification_params(&self) -> Option<&Value> {
        let Some(Value::Object(object)) = &self.strict else {
            return None;
        };
        let params = object.get("params").unwrap_or(&Value::Null);
        let notification = !object.contains_key("id")
            && object.get("jsonrpc").and_then(Value::as_str) == Some("2.0")
            && object.get("method").is_some_and(Value::is_string)
            && matches!(params, Value::Null | Value::Object(_) | Value::Array(_));
        notification.then_some(params)
    }
}

/// The top-level members of the input that matter here.
enum Envelope {
    /// An object.
    Object {
        /// Each `id` member that is a string or a number.
        ids: Vec<Id>,
        /// Whether there is an `id` member at all.
        id: bool,
        /// Whether there is a `method` member.
        method: bool,
    },
    /// JSON, but no object.
    NoObject,
    /// Not JSON, or an object whose keys serde_json cannot decode (lone surrogates).
    Unread,
}

impl<'de> Deserialize<'de> for Envelope {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Object;
        impl<'de> Visitor<'de> for Object {
            type Value = Envelope;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Envelope, A::Error> {
                let (mut ids, mut id, mut method) = (Vec::new(), false, false);
                // Keys decoded, escapes and all: `"\u0069d"` is `"id"`.
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "id" => {
                            id = true;
                            let raw = map.next_value::<Box<RawValue>>()?;
                            ids.extend(Id::read(&raw));
                        }
                        "method" => {
                            method = true;
                            map.next_value::<IgnoredAny>()?;
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(Envelope::Object { ids, id, method })
            }
        }
        deserializer.deserialize_map(Object)
    }
}

/// The members of an answer, in order, repeated ones included.
struct Members(Vec<(String, Box<RawValue>)>);

impl<'de> Deserialize<'de> for Members {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Object;
        impl<'de> Visitor<'de> for Object {
            type Value = Members;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members, A::Error> {
                let mut members = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    members.push((key, map.next_value()?));
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(Object)
    }
}

/// An id: its text, and what it means.
#[derive(Debug, Clone)]
struct Id {
    text: String,
    value: IdValue,
}

impl PartialEq for Id {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

#[derive(Debug, Clone)]
enum IdValue {
    /// The UTF-16 code units of the string, lone surrogates and all.
    String(Vec<u16>),
    /// A number: its text, and its exact decimal value (sign, digits without leading or
    /// trailing zeros, exponent) unless the exponent is past 64 bits.
    Number(String, Option<(BigInt, i64)>),
}

impl PartialEq for IdValue {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::String(a), Self::String(b)) => a == b,
            (Self::Number(_, Some(a)), Self::Number(_, Some(b))) => a == b,
            // Past 64 bits of exponent, the same text is the same number.
            (Self::Number(a, _), Self::Number(b, _)) => a == b,
            _ => false,
        }
    }
}

impl Id {
    /// `raw` (a JSON value, in the grammar) as an id, when it is a string or a number.
    fn read(raw: &RawValue) -> Option<Self> {
        let text = raw.get();
        let value = if text.starts_with('"') {
            IdValue::String(utf16_of(text)?)
        } else if text.starts_with(|c: char| c == '-' || c.is_ascii_digit()) {
            IdValue::Number(text.to_owned(), decimal(text))
        } else {
            return None;
        };
        Some(Self {
            text: text.to_owned(),
            value,
        })
    }
}

/// The code units of a JSON string literal, escapes decoded.
fn utf16_of(literal: &str) -> Option<Vec<u16>> {
    let inner = literal.strip_prefix('"')?.strip_suffix('"')?;
    let mut units = Vec::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            let mut buffer = [0; 2];
            units.extend_from_slice(c.encode_utf16(&mut buffer));
            continue;
        }
        let unit = match chars.next()? {
            '"' => 0x22,
            '\\' => 0x5c,
            '/' => 0x2f,
            'b' => 0x08,
            'f' => 0x0c,
            'n' => 0x0a,
            'r' => 0x0d,
            't' => 0x09,
            'u' => {
                let hex: String = chars.by_ref().take(4).collect();
                if hex.len() != 4 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return None;
                }
                u16::from_str_radix(&hex, 16).ok()?
            }
            _ => return None,
        };
        units.push(unit);
    }
    Some(units)
}

/// The exact value of a JSON number's text, as `bigdecimal` reads it, apart from the
/// server's own reading: its digits and power of ten with no trailing zero, so that equal
/// values have equal parts (and two of them are compared without bringing their exponents
/// to one, which for `1e999999999` would be a billion digits). None past 64 bits of
/// exponent.
fn decimal(text: &str) -> Option<(BigInt, i64)> {
    let value = BigDecimal::from_str(text).ok()?;
    Some(value.normalized().into_bigint_and_exponent())
}

/// The start of a long text, for messages.
fn clip(text: &str) -> String {
    match text.char_indices().nth(400) {
        Some((at, _)) => format!("{}… ({} bytes)", &text[..at], text.len()),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::{decimal, utf16_of};

    #[test]
    fn numbers_compare_by_exact_value() {
        assert_eq!(decimal("1"), decimal("1.0"));
        assert_eq!(decimal("100"), decimal("1e2"));
        assert_eq!(decimal("-0"), decimal("0"));
        assert_eq!(decimal("0.5"), decimal("5E-1"));
        assert_ne!(
            decimal("123456789012345678901234567890"),
            decimal("1.2345678901234568e+29")
        );
        assert_eq!(decimal("0e999999999"), decimal("0"));
        assert_eq!(decimal("10e999999998"), decimal("1e999999999"));
        assert_ne!(decimal("1e999999999"), decimal("1e999999998"));
        assert_ne!(decimal("-1"), decimal("1"));
        // An exponent past 64 bits has no exact value here; such ids compare by their text.
        assert_eq!(decimal("1e4006789012345678901234567890"), None);
        assert!(decimal("1e-9223372036854775808").is_none_or(|(digits, _)| digits == 1.into()));
    }

    #[test]
    fn strings_compare_by_code_units() {
        assert_eq!(utf16_of(r#""A\u00e9""#), utf16_of(r#""Aé""#));
        assert_eq!(utf16_of(r#""\ud800""#), Some(vec![0xd800]));
        assert_ne!(utf16_of(r#""\ud800""#), utf16_of(r#""\udc00""#));
    }
}
