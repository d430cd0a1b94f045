//! JSON-RPC 2.0 framing: reading one message, writing responses and errors.

use std::fmt;

use serde::de::{self, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

/// Invalid JSON was received.
pub const PARSE_ERROR: i64 = -32700;
/// The JSON sent is not a valid request object.
pub const INVALID_REQUEST: i64 = -32600;
/// The method does not exist.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// Invalid method parameters, including an unknown tool name.
pub const INVALID_PARAMS: i64 = -32602;
/// An internal error.
pub const INTERNAL_ERROR: i64 = -32603;

/// A request's id: a string or a number, kept as the client wrote it, so that it comes back
/// exactly (an integer past 64 bits would otherwise come back rounded, and the client would
/// never find its answer); or none, when it could not be read.
#[derive(Debug, Clone, Default)]
pub(crate) struct Id(Option<Box<RawValue>>);

impl Id {
    /// No id: the answer to a message whose id could not be read carries none.
    pub(crate) const NONE: Self = Self(None);

    /// The id `raw`, when it is a string or a number.
    fn of(raw: &RawValue) -> Option<Self> {
        let text = raw.get();
        let number_or_string =
            text.starts_with(['"', '-']) || text.starts_with(|c: char| c.is_ascii_digit());
        number_or_string.then(|| Self(Some(raw.to_owned())))
    }

    /// The id of `value`, when it is a string or a number (as the general reader has it).
    fn of_value(value: &Value) -> Option<Self> {
        match value {
            Value::String(_) | Value::Number(_) => serde_json::value::to_raw_value(value)
                .ok()
                .map(|raw| Self(Some(raw))),
            _ => None,
        }
    }

    /// Whether there is no id.
    pub(crate) fn is_none(&self) -> bool {
        self.0.is_none()
    }

    /// A key naming the request while it runs, equal to [`Id::key_of`] the same id
    /// however it is spelled (`100`, `1e2`; escapes in strings): both read it as a
    /// `serde_json::Value` and write that back.
    pub(crate) fn key(&self) -> String {
        match &self.0 {
            None => String::new(),
            Some(raw) => serde_json::from_str::<Value>(raw.get())
                .map_or_else(|_| raw.get().to_owned(), |value| Self::key_of(&value)),
        }
    }

    /// The key of the request `id` names, as a `requestId` in `notifications/cancelled`.
    pub(crate) fn key_of(id: &Value) -> String {
        id.to_string()
    }
}

impl PartialEq for Id {
    fn eq(&self, other: &Self) -> bool {
        self.0.as_ref().map(|raw| raw.get()) == other.0.as_ref().map(|raw| raw.get())
    }
}

impl Serialize for Id {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Some(raw) => raw.serialize(serializer),
            None => serializer.serialize_none(),
        }
    }
}

/// One message received.
#[derive(Debug, PartialEq)]
pub(crate) enum Incoming {
    /// A `tools/call` request, its parameters read into their fields.
    Call { id: Id, params: CallParams },
    /// Any other request, to be answered.
    Request {
        id: Id,
        method: String,
        params: Map<String, Value>,
    },
    /// A notification, never answered.
    Notification {
        method: String,
        params: Map<String, Value>,
    },
    /// A response from the client; this server sends no requests, so it is ignored.
    Response,
}

/// The parameters of `tools/call`, each as sent; anything else in them is ignored.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct CallParams {
    pub(crate) name: Option<Value>,
    pub(crate) arguments: Option<Value>,
    pub(crate) meta: Option<Value>,
}

impl<'de> Deserialize<'de> for CallParams {
    /// Reads an object only (a derived struct would take an array too); a repeated field
    /// is an error, left to the general reader.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Fields;
        impl<'de> Visitor<'de> for Fields {
            type Value = CallParams;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("the parameters of tools/call")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<CallParams, A::Error> {
                let mut params = CallParams::default();
                while let Some(key) = map.next_key::<&'de str>()? {
                    let field = match key {
                        "name" => &mut params.name,
                        "arguments" => &mut params.arguments,
                        "_meta" => &mut params.meta,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                            continue;
                        }
                    };
                    if field.is_some() {
                        return Err(de::Error::duplicate_field("tools/call parameter"));
                    }
                    *field = map.next_value::<Option<Value>>()?;
                }
                Ok(params)
            }
        }
        deserializer.deserialize_map(Fields)
    }
}

impl CallParams {
    fn from_map(mut params: Map<String, Value>) -> Self {
        let mut take = |key| params.remove(key).filter(|value| !value.is_null());
        Self {
            name: take("name"),
            arguments: take("arguments"),
            meta: take("_meta"),
        }
    }
}

/// An error to answer with, and the id to answer it under (`null` when unknown).
#[derive(Debug)]
pub(crate) struct Refusal {
    pub(crate) id: Id,
    pub(crate) code: i64,
    pub(crate) message: String,
}

impl Refusal {
    pub(crate) fn into_response(self) -> String {
        error_response(&self.id, self.code, &self.message, None)
    }
}

/// Reads one message from `bytes`.
pub(crate) fn parse(bytes: &[u8]) -> Result<Incoming, Refusal> {
    // Most messages are well-formed requests: read those straight into their fields, and
    // leave everything else (and every error message) to the general reader below.
    // Text first: the direct reader skips what it does not need, and every byte must be
    // UTF-8 all the same.
    let Ok(text) = std::str::from_utf8(bytes) else {
        return parse_value(bytes);
    };
    match parse_request(text) {
        Some(incoming) => Ok(incoming),
        None => parse_value(bytes),
    }
}

/// A well-formed request or notification, read in one pass: the envelope's fields, then
/// its parameters straight into what the method takes. Anything unusual (a repeated or
/// escaped key, a wrong type, a response, `params` before `method`) is an error here, and
/// the message goes to the general reader, which names the mistake.
struct Direct(Incoming);

impl<'de> Deserialize<'de> for Direct {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Envelope;
        impl<'de> Visitor<'de> for Envelope {
            type Value = Direct;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON-RPC request or notification")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Direct, A::Error> {
                let unusual = || de::Error::custom("left to the general reader");
                let (mut version, mut id, mut method) = (false, None, None::<String>);
                let mut params = None;
                while let Some(key) = map.next_key::<&'de str>()? {
                    match key {
                        "jsonrpc" if !version => {
                            if map.next_value::<&'de str>()? != "2.0" {
                                return Err(unusual());
                            }
                            version = true;
                        }
                        "id" if id.is_none() => {
                            let raw = map.next_value::<&'de RawValue>()?;
                            id = Some(Id::of(raw).ok_or_else(unusual)?);
                        }
                        "method" if method.is_none() => method = Some(map.next_value()?),
                        "params" if params.is_none() => {
                            params = Some(match method.as_deref() {
                                None => return Err(unusual()),
                                Some("tools/call") => Params::Call(
                                    map.next_value::<Option<CallParams>>()?.unwrap_or_default(),
                                ),
                                Some(_) => Params::Map(
                                    map.next_value::<Option<Map<String, Value>>>()?
                                        .unwrap_or_default(),
                                ),
                            });
                        }
                        "jsonrpc" | "id" | "method" | "params" => return Err(unusual()),
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                let (true, Some(method)) = (version, method) else {
                    return Err(unusual());
                };
                Ok(Direct(match (id, params) {
                    (Some(id), Some(Params::Call(params))) => Incoming::Call { id, params },
                    (Some(id), None) if method == "tools/call" => Incoming::Call {
                        id,
                        params: CallParams::default(),
                    },
                    (id, params) => {
                        let params = match params {
                            Some(Params::Map(params)) => params,
                            // Parameters read as a call's belong to a request.
                            Some(Params::Call(_)) => return Err(unusual()),
                            None => Map::new(),
                        };
                        match id {
                            Some(id) => Incoming::Request { id, method, params },
                            None => Incoming::Notification { method, params },
                        }
                    }
                }))
            }
        }
        deserializer.deserialize_map(Envelope)
    }
}

/// Parameters, read as the method takes them.
enum Params {
    Call(CallParams),
    Map(Map<String, Value>),
}

/// A well-formed request or notification read without building a JSON tree for it; `None`
/// for anything else.
fn parse_request(text: &str) -> Option<Incoming> {
    serde_json::from_str::<Direct>(text)
        .ok()
        .map(|Direct(incoming)| incoming)
}

/// Reads one message of any shape, naming what is wrong with it.
fn parse_value(bytes: &[u8]) -> Result<Incoming, Refusal> {
    let refuse = |id: &Id, code, message: &str| Refusal {
        id: id.clone(),
        code,
        message: message.to_owned(),
    };
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|err| refuse(&Id::NONE, PARSE_ERROR, &format!("parse error: {err}")))?;
    let mut object = match value {
        Value::Object(object) => object,
        Value::Array(_) => {
            return Err(refuse(
                &Id::NONE,
                INVALID_REQUEST,
                "batches are not supported: send one JSON-RPC message at a time",
            ));
        }
        _ => {
            return Err(refuse(
                &Id::NONE,
                INVALID_REQUEST,
                "a JSON-RPC message must be an object",
            ));
        }
    };
    let id = object.remove("id");
    let answer_id = match &id {
        // The id as written: a number read into a `Value` may have been rounded.
        Some(value @ (Value::String(_) | Value::Number(_))) => written_id(bytes)
            .or_else(|| Id::of_value(value))
            .unwrap_or_default(),
        _ => Id::NONE,
    };
    // A response (this server sends no requests) is never answered, however malformed.
    if !object.contains_key("method")
        && (object.contains_key("result") || object.contains_key("error"))
    {
        return Ok(Incoming::Response);
    }
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(refuse(
            &answer_id,
            INVALID_REQUEST,
            "`jsonrpc` must be \"2.0\"",
        ));
    }
    let method = match object.remove("method") {
        Some(Value::String(method)) => method,
        Some(_) => {
            return Err(refuse(
                &answer_id,
                INVALID_REQUEST,
                "`method` must be a string",
            ));
        }
        None => return Err(refuse(&answer_id, INVALID_REQUEST, "`method` is missing")),
    };
    let params = match object.remove("params") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(params)) => params,
        // By-position parameters are JSON-RPC, but no MCP method takes them; a
        // notification is never answered, whatever its parameters.
        Some(Value::Array(_)) if id.is_none() => Map::new(),
        Some(Value::Array(_)) => {
            return Err(refuse(
                &answer_id,
                INVALID_PARAMS,
                "`params` must be an object: MCP methods take named parameters",
            ));
        }
        // Neither an object nor an array: not a valid request object.
        Some(_) => {
            return Err(refuse(
                &answer_id,
                INVALID_REQUEST,
                "`params` must be an object",
            ));
        }
    };
    match id {
        None => Ok(Incoming::Notification { method, params }),
        Some(Value::String(_) | Value::Number(_)) if method == "tools/call" => Ok(Incoming::Call {
            id: answer_id,
            params: CallParams::from_map(params),
        }),
        Some(Value::String(_) | Value::Number(_)) => Ok(Incoming::Request {
            id: answer_id,
            method,
            params,
        }),
        Some(_) => Err(refuse(
            &Id::NONE,
            INVALID_REQUEST,
            "`id` must be a string or a number",
        )),
    }
}

/// The `id` of a message as written, when it can be read on its own: the last one, as the
/// general reader takes the last of a repeated member.
fn written_id(bytes: &[u8]) -> Option<Id> {
    let members: std::collections::HashMap<String, &RawValue> =
        serde_json::from_slice(bytes).ok()?;
    Id::of(members.get("id")?)
}

/// A success response.
pub(crate) fn result_response<T: Serialize>(id: &Id, result: &T) -> String {
    #[derive(Serialize)]
    struct Success<'a, T> {
        jsonrpc: &'static str,
        id: &'a Id,
        result: &'a T,
    }
    let success = Success {
        jsonrpc: "2.0",
        id,
        result,
    };
    serde_json::to_string(&success).unwrap_or_else(|err| {
        error_response(
            id,
            INTERNAL_ERROR,
            &format!("the result could not be written: {err}"),
            None,
        )
    })
}

/// An error response. An id that could not be read is left out, as MCP's schema has it
/// (JSON-RPC itself would send `null`, which MCP's `RequestId` does not allow).
pub(crate) fn error_response(id: &Id, code: i64, message: &str, data: Option<Value>) -> String {
    #[derive(Serialize)]
    struct Failure<'a> {
        jsonrpc: &'static str,
        #[serde(skip_serializing_if = "Id::is_none")]
        id: &'a Id,
        error: Error<'a>,
    }
    #[derive(Serialize)]
    struct Error<'a> {
        code: i64,
        message: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        data: Option<Value>,
    }
    let failure = Failure {
        jsonrpc: "2.0",
        id,
        error: Error {
            code,
            message,
            data,
        },
    };
    // Strings, integers and JSON values always serialize.
    serde_json::to_string(&failure).unwrap_or_default()
}

/// A notification.
pub(crate) fn notification(method: &str, params: Value) -> String {
    json!({ "jsonrpc": "2.0", "method": method, "params": params }).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(text: &str) -> Refusal {
        parse(text.as_bytes()).expect_err("refused")
    }

    #[test]
    fn malformed_messages_get_the_right_codes() {
        assert_eq!(refusal("{").code, PARSE_ERROR);
        assert_eq!(refusal("[]").code, INVALID_REQUEST);
        assert_eq!(refusal("3").code, INVALID_REQUEST);
        let wrong_version = refusal(r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#);
        assert_eq!(
            (wrong_version.code, wrong_version.id),
            (INVALID_REQUEST, Id::of_value(&json!(1)).unwrap())
        );
        assert_eq!(refusal(r#"{"jsonrpc":"2.0","id":1}"#).code, INVALID_REQUEST);
        assert_eq!(
            refusal(r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#).code,
            INVALID_REQUEST
        );
        assert_eq!(
            refusal(r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}"#).code,
            INVALID_PARAMS
        );
        assert_eq!(
            refusal(r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":"x"}"#).code,
            INVALID_REQUEST
        );
        for silent in [
            r#"{"jsonrpc":"2.0","method":"notifications/initialized","params":[1]}"#,
            r#"{"jsonrpc":"1.0","id":1,"result":{}}"#,
        ] {
            assert!(parse(silent.as_bytes()).is_ok(), "{silent}");
        }
    }

    #[test]
    fn requests_notifications_and_responses_are_told_apart() {
        assert!(matches!(
            parse(br#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#),
            Ok(Incoming::Request { .. })
        ));
        assert!(matches!(
            parse(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Ok(Incoming::Notification { .. })
        ));
        assert!(matches!(
            parse(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            Ok(Incoming::Response)
        ));
    }

    #[test]
    fn an_id_and_a_cancellation_naming_it_agree_however_it_is_spelled() {
        for (written, named) in [
            ("1e2", json!(1e2)),
            ("1.50", json!(1.5)),
            ("7", json!(7)),
            (r#""a\u0062""#, json!("ab")),
            (
                "123456789012345678901234567890",
                serde_json::from_str("123456789012345678901234567890").unwrap(),
            ),
        ] {
            let message = format!(r#"{{"jsonrpc":"2.0","id":{written},"method":"ping"}}"#);
            let Ok(Incoming::Request { id, .. }) = parse(message.as_bytes()) else {
                panic!("{message}")
            };
            assert_eq!(id.key(), Id::key_of(&named), "{written}");
        }
    }

    #[test]
    fn requests_read_directly_are_read_as_the_general_reader_reads_them() {
        let messages = [
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":"x","method":"tools/list","params":{"cursor":"61"}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a.b","arguments":{"x":[1,{"y":null}]},"_meta":{"progressToken":7},"extra":1}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":null,"arguments":null}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call"}"#,
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":null}"#,
            r#"{"id":6,"method":"initialize","params":{},"jsonrpc":"2.0","other":true}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#,
        ];
        for message in messages {
            let direct = parse_request(message);
            assert!(direct.is_some(), "{message} is read directly");
            assert_eq!(
                direct.ok_or(()),
                parse_value(message.as_bytes()).map_err(drop),
                "{message}"
            );
        }
        // Ids come back exactly as written, however large.
        for (message, id) in [
            (
                r#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}"#,
                "123456789012345678901234567890",
            ),
            (
                r#"{"jsonrpc":"2.0","params":{},"id":-18446744073709551617,"method":"ping"}"#,
                "-18446744073709551617",
            ),
            (
                r#"{"jsonrpc":"1.0","id":18446744073709551616,"method":"ping"}"#,
                "18446744073709551616",
            ),
        ] {
            let read = match parse(message.as_bytes()) {
                Ok(Incoming::Request { id, .. }) => id,
                Err(refusal) => refusal.id,
                Ok(other) => panic!("{other:?}"),
            };
            let key_of_value = Id::key_of(&serde_json::from_str::<Value>(id).unwrap());
            assert_eq!(read.key(), key_of_value, "{message}");
            let answer = error_response(&read, -1, "m", None);
            assert!(answer.contains(&format!(r#""id":{id},"#)), "{answer}");
        }
        // Everything else is left to the general reader, which names the mistake.
        for message in [
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[]}"#,
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            // Well-formed, but `params` before `method`: read the general way.
            r#"{"jsonrpc":"2.0","id":1,"params":{},"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"a.b"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","name":"b"}}"#,
        ] {
            assert!(parse_request(message).is_none(), "{message}");
        }
    }
}
