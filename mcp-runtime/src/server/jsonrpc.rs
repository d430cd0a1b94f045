//! JSON-RPC 2.0 framing: reading one message, writing responses and errors.

use std::fmt;
use std::fmt::Write as _;

use mcp_runtime_core::method::Method;
use serde::de::{self, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

mod strict;

use strict::{Strict, StrictMap, arguments_refusal, read_strictly};

pub use mcp_runtime_core::wire::{
    INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR,
};

/// A request's id: a string or an integer, kept as the client wrote it, so that it comes
/// back exactly (an integer past 64 bits would otherwise come back rounded, and the client
/// would never find its answer); or none, when it could not be read.
#[derive(Debug, Clone, Default)]
pub(crate) struct Id(Option<(Box<RawValue>, Spelling)>);

/// How the key of an id is spelled, worked out when the id is read: a string with escapes
/// is decoded then, once; a plain string or an integer costs no allocation until its key
/// is asked for, which most ids never are.
#[derive(Debug, Clone)]
enum Spelling {
    /// A string without escapes: the key is its text between the quotes.
    Plain,
    /// An integer: the key is its one spelling, made when asked.
    Integer,
    /// A string with escapes: the key itself, the string decoded.
    Key(Box<str>),
}

impl Id {
    /// No id: the answer to a message whose id could not be read carries none.
    pub(crate) const NONE: Self = Self(None);

    /// The id `raw`, when it is a string or an integer (MCP's `RequestId`). An integer may
    /// be written as JSON allows any number, `100`, `1e2` or `100.0`; `1.5` is no id.
    pub(crate) fn of(raw: &RawValue) -> Option<Self> {
        let text = raw.get();
        let spelling = match text.strip_prefix('"') {
            Some(quoted) => match quoted.strip_suffix('"') {
                Some(plain) if !plain.contains('\\') => Spelling::Plain,
                _ => Spelling::Key(
                    serde_json::from_str::<String>(text)
                        .map_or_else(|_| format!("r{text}"), |decoded| format!("s{decoded}"))
                        .into(),
                ),
            },
            None if is_integer(text) => Spelling::Integer,
            None => return None,
        };
        Some(Self(Some((raw.to_owned(), spelling))))
    }

    /// The id as a JSON value, if there is one.
    pub(crate) fn to_value(&self) -> Option<Value> {
        serde_json::from_str(self.written()?).ok()
    }

    /// Whether there is no id.
    pub(crate) fn is_none(&self) -> bool {
        self.0.is_none()
    }

    /// The id as the client wrote it.
    pub(crate) fn written(&self) -> Option<&str> {
        self.0.as_ref().map(|(raw, _)| raw.get())
    }

    /// The id, when it is a string.
    pub(crate) fn as_string(&self) -> Option<String> {
        match &self.0 {
            // A string with nothing escaped: itself, between its quotes.
            Some((raw, Spelling::Plain)) => {
                let text = raw.get();
                Some(text[1..text.len() - 1].to_owned())
            }
            Some((raw, _)) if raw.get().starts_with('"') => serde_json::from_str(raw.get()).ok(),
            _ => None,
        }
    }

    /// A key naming the request while it runs. Two ids get one key exactly when JSON reads
    /// them as the same value: a string whatever its escapes (`"ab"`, `"a\u0062"`), an
    /// integer however it is written (`100`, `1e2`, `100.0`), at any size, and a string
    /// never as a number (`"1"` is not `1`).
    #[cfg(test)]
    pub(crate) fn key(&self) -> String {
        let mut key = String::new();
        self.push_key(&mut key);
        key
    }

    /// Appends [`Id::key`] to `out`.
    pub(crate) fn push_key(&self, out: &mut String) {
        match &self.0 {
            None => {}
            Some((raw, Spelling::Plain)) => {
                let text = raw.get();
                out.push('s');
                out.push_str(&text[1..text.len() - 1]);
            }
            Some((raw, Spelling::Integer)) => {
                let text = raw.get();
                if let Some((sign, significant, zeros)) = plain_integer(text) {
                    // The usual spelling, read where it is: `integer_key` spells it alike.
                    out.push('n');
                    out.push_str(sign);
                    out.push_str(significant);
                    if significant != "0" {
                        // Writing to a `String` cannot fail.
                        let _ = write!(out, "e{zeros}");
                    }
                } else if let Some(key) = integer_key(text) {
                    out.push('n');
                    out.push_str(&key);
                }
            }
            Some((_, Spelling::Key(key))) => out.push_str(key),
        }
    }
}

/// An integer in the usual spelling (`-`, then digits, the first not `0` unless it is
/// the only one), as [`integer_key`] spells it: the sign, the significant digits and the
/// number of zeros after them. `None` for any other spelling.
fn plain_integer(text: &str) -> Option<(&str, &str, usize)> {
    let (sign, digits) = match text.strip_prefix('-') {
        Some(digits) => ("-", digits),
        None => ("", text),
    };
    if text == "0" {
        return Some(("", "0", 0));
    }
    let plain = !digits.is_empty()
        && !digits.starts_with('0')
        && digits.bytes().all(|b| b.is_ascii_digit());
    plain.then(|| {
        let significant = digits.trim_end_matches('0');
        (sign, significant, digits.len() - significant.len())
    })
}

/// Whether the JSON value `text` is an integer: at once for the usual spelling, digits
/// alone, and as [`integer_key`] reads it otherwise.
fn is_integer(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        || integer_key(text).is_some()
}

/// The integer the JSON value `text` stands for, in one spelling for each value:
/// its significant digits and a power of ten (`12300`, `123e2` and `1.23e4` are all
/// `123e2`; zero is `0`). `None` when the number is not an integer, or its exponent is past
/// 64 bits. Exact at any size: no digit goes through a float.
fn integer_key(text: &str) -> Option<String> {
    let (negative, unsigned) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = match unsigned.split_once(['e', 'E']) {
        Some((mantissa, exponent)) => (mantissa, exponent.parse::<i64>().ok()?),
        None => (unsigned, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    // Anything but a number (`true`, `null`, an object) stops here.
    if whole.is_empty()
        || !whole
            .bytes()
            .chain(fraction.bytes())
            .all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let digits = format!("{whole}{fraction}");
    let exponent = exponent.checked_sub(i64::try_from(fraction.len()).ok()?)?;
    let leading = digits.trim_start_matches('0');
    if leading.is_empty() {
        return Some("0".to_owned());
    }
    let significant = leading.trim_end_matches('0');
    let zeros = i64::try_from(leading.len() - significant.len()).ok()?;
    let exponent = exponent.checked_add(zeros)?;
    if exponent < 0 {
        return None;
    }
    let sign = if negative { "-" } else { "" };
    Some(format!("{sign}{significant}e{exponent}"))
}

impl PartialEq for Id {
    fn eq(&self, other: &Self) -> bool {
        self.written() == other.written()
    }
}

impl Serialize for Id {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Some((raw, _)) => raw.serialize(serializer),
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
        method: Method,
        params: Map<String, Value>,
    },
    /// `notifications/cancelled`, naming the request to stop when it names one that could
    /// be a request's id. Never answered.
    Cancelled { request_id: Option<Id> },
    /// Any other notification, never answered.
    Notification {
        method: Method,
        params: Map<String, Value>,
    },
    /// A response from the client to a request of this server's (a tool's ask): its id,
    /// when it is one, and its result or its error object.
    Response {
        id: Option<Id>,
        outcome: Result<Value, Value>,
    },
}

/// The parameters of `tools/call`, each as sent; anything else in them is ignored.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct CallParams {
    pub(crate) name: Option<Value>,
    pub(crate) arguments: Option<CallArguments>,
    pub(crate) meta: Option<Value>,
    /// A 2026-07-28 retry's answers and state; boxed, as few calls have them.
    pub(crate) retry: Option<Box<Retry>>,
}

/// A call's `arguments`, as read.
#[derive(Debug)]
pub(crate) enum CallArguments {
    /// Read into a JSON value: by the general reader, or because they are no object.
    Value(Value),
    /// An object as written, skipped by the direct reader, not yet read: the text a tool
    /// that reads its parameters straight from it is given, with no JSON tree built
    /// ([`crate::registration::Handler::InlineText`]). What the tool does not read is not
    /// read, as any member the server does not use.
    Text(Box<RawValue>),
}

impl CallArguments {
    /// An object as written, `raw`, kept as its text; any other value read as [`Strict`]
    /// reads it (`None` for `null`).
    fn read(raw: &RawValue) -> Result<Option<Self>, serde_json::Error> {
        if raw.get().starts_with('{') {
            return Ok(Some(Self::Text(raw.to_owned())));
        }
        let Strict(value) = serde_json::from_str(raw.get())?;
        Ok((!value.is_null()).then_some(Self::Value(value)))
    }

    /// The arguments as a JSON value, read as [`read_strictly`] reads a message; the
    /// refusal it would have given the call's message, under its `id`, otherwise.
    pub(crate) fn into_value(self, id: &Id) -> Result<Value, Refusal> {
        let text = match self {
            Self::Value(value) => return Ok(value),
            Self::Text(text) => text,
        };
        serde_json::from_str(text.get())
            .map(|Strict(value)| value)
            .map_err(|err| {
                arguments_refusal(text.get(), id).unwrap_or_else(|| Refusal {
                    id: id.clone(),
                    code: INVALID_PARAMS,
                    message: format!("`params.arguments` cannot be read: {err}"),
                })
            })
    }
}

impl PartialEq for CallArguments {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Value(one), Self::Value(other)) => one == other,
            (Self::Text(one), Self::Text(other)) => one.get() == other.get(),
            _ => false,
        }
    }
}

/// What a 2026-07-28 call carries into a round after the first.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Retry {
    /// The answers to the asks of the round before.
    pub(crate) input_responses: Option<Value>,
    /// The sealed state of the rounds before.
    pub(crate) request_state: Option<Value>,
}

impl<'de> Deserialize<'de> for CallParams {
    /// Reads an object only (a derived struct would take an array too); a repeated field
    /// is an error, left to the general reader.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Fields;
        impl<'de> Visitor<'de> for Fields {
            type Value = CallParams;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("the parameters of a call")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<CallParams, A::Error> {
                let mut params = CallParams::default();
                while let Some(key) = map.next_key::<&'de str>()? {
                    let field = match key {
                        "name" => &mut params.name,
                        "arguments" if params.arguments.is_none() => {
                            let raw = map.next_value::<&'de RawValue>()?;
                            params.arguments =
                                CallArguments::read(raw).map_err(de::Error::custom)?;
                            continue;
                        }
                        "arguments" => {
                            return Err(de::Error::duplicate_field("a call's parameter"));
                        }
                        "_meta" => &mut params.meta,
                        "inputResponses" => {
                            &mut params.retry.get_or_insert_default().input_responses
                        }
                        "requestState" => &mut params.retry.get_or_insert_default().request_state,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                            continue;
                        }
                    };
                    if field.is_some() {
                        return Err(de::Error::duplicate_field("a call's parameter"));
                    }
                    *field = map
                        .next_value::<Option<Strict>>()?
                        .map(|Strict(value)| value);
                }
                Ok(params)
            }
        }
        deserializer.deserialize_map(Fields)
    }
}

impl CallParams {
    /// The parameters of a call read as a whole, by the general reader.
    pub(crate) fn from_map(mut params: Map<String, Value>) -> Self {
        let mut take = |key| params.remove(key).filter(|value| !value.is_null());
        Self {
            name: take("name"),
            arguments: take("arguments").map(CallArguments::Value),
            meta: take("_meta"),
            retry: {
                let retry = Retry {
                    input_responses: take("inputResponses"),
                    request_state: take("requestState"),
                };
                (retry != Retry::default()).then(|| Box::new(retry))
            },
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
    let incoming = match std::str::from_utf8(bytes).ok().and_then(parse_request) {
        Some(incoming) => incoming,
        None => parse_value(bytes)?,
    };
    Ok(match incoming {
        Incoming::Notification {
            method: Method::Cancelled,
            ..
        } => Incoming::Cancelled {
            request_id: cancelled_id(bytes),
        },
        other => other,
    })
}

/// The `requestId` of `notifications/cancelled` as written: read into a `Value`, an integer
/// past 64 bits would be rounded, and could name another request.
fn cancelled_id(bytes: &[u8]) -> Option<Id> {
    #[derive(Deserialize)]
    struct Cancellation<'a> {
        #[serde(borrow)]
        params: Named<'a>,
    }
    #[derive(Deserialize)]
    struct Named<'a> {
        #[serde(rename = "requestId", borrow)]
        request_id: &'a RawValue,
    }
    let cancellation: Cancellation<'_> = serde_json::from_slice(bytes).ok()?;
    Id::of(cancellation.params.request_id)
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
                // The method read once, from its borrowed name: a method MCP defines costs
                // no allocation. One with escapes is unusual.
                let (mut version, mut id, mut method) = (false, None, None::<Method>);
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
                        "method" if method.is_none() => {
                            method = Some(Method::parse(map.next_value::<&'de str>()?));
                        }
                        "params" if params.is_none() => {
                            params = Some(match method {
                                None => return Err(unusual()),
                                Some(Method::ToolsCall) => Params::Call(
                                    map.next_value::<Option<CallParams>>()?.unwrap_or_default(),
                                ),
                                Some(_) => Params::Map(
                                    map.next_value::<Option<StrictMap>>()?
                                        .map(|StrictMap(params)| params)
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
                    (Some(id), None) if method == Method::ToolsCall => Incoming::Call {
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
    let (message, written) = read_strictly(bytes)?;
    let mut object = match message {
        Value::Object(object) => object,
        Value::Array(_) => {
            let message = "batches are not supported: send one JSON-RPC message at a time";
            return Err(refuse(&Id::NONE, INVALID_REQUEST, message));
        }
        _ => {
            let message = "a JSON-RPC message must be an object";
            return Err(refuse(&Id::NONE, INVALID_REQUEST, message));
        }
    };
    let id = object.remove("id");
    // The id as written, when it is one: a number read into a `Value` may have been rounded.
    let valid_id = id.as_ref().and(written);
    let answer_id = valid_id.clone().unwrap_or_default();
    // A response is never answered, however malformed.
    if !object.contains_key("method")
        && (object.contains_key("result") || object.contains_key("error"))
    {
        let outcome = match object.remove("result") {
            Some(result) => Ok(result),
            None => Err(object.remove("error").unwrap_or_default()),
        };
        return Ok(Incoming::Response {
            id: valid_id,
            outcome,
        });
    }
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(refuse(
            &answer_id,
            INVALID_REQUEST,
            "`jsonrpc` must be \"2.0\"",
        ));
    }
    let method = match object.remove("method") {
        Some(Value::String(method)) => Method::from(method),
        Some(_) => {
            return Err(refuse(
                &answer_id,
                INVALID_REQUEST,
                "`method` must be a string",
            ));
        }
        None => return Err(refuse(&answer_id, INVALID_REQUEST, "`method` is missing")),
    };
    let params = params_of(object.remove("params"), id.is_none(), &answer_id)?;
    match (id, valid_id) {
        (None, _) => Ok(Incoming::Notification { method, params }),
        (Some(_), Some(id)) if method == Method::ToolsCall => Ok(Incoming::Call {
            id,
            params: CallParams::from_map(params),
        }),
        (Some(_), Some(id)) => Ok(Incoming::Request { id, method, params }),
        (Some(_), None) => Err(refuse(
            &Id::NONE,
            INVALID_REQUEST,
            "`id` must be a string or an integer",
        )),
    }
}

/// The named parameters of a message read by the general reader, or the refusal of them,
/// under `id`.
fn params_of(
    params: Option<Value>,
    notification: bool,
    id: &Id,
) -> Result<Map<String, Value>, Refusal> {
    let refuse = |code, message: &str| {
        Err(Refusal {
            id: id.clone(),
            code,
            message: message.to_owned(),
        })
    };
    match params {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(params)) => Ok(params),
        // By-position parameters are JSON-RPC, but no MCP method takes them; a
        // notification is never answered, whatever its parameters.
        Some(Value::Array(_)) if notification => Ok(Map::new()),
        Some(Value::Array(_)) => refuse(
            INVALID_PARAMS,
            "`params` must be an object: MCP methods take named parameters",
        ),
        // Neither an object nor an array: not a valid request object.
        Some(_) => refuse(INVALID_REQUEST, "`params` must be an object"),
    }
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

/// The success response to a `tools/call` whose result is data alone, the common one:
/// `structuredContent` and the text block that repeats it, written straight out. The data
/// is serialized once; the text is those bytes escaped. The bytes are those of
/// [`result_response`] of the result's [`CallToolResult`](mcp_runtime_core::wire::CallToolResult),
/// and, with `complete`, of the 2026-07-28 form that adds `resultType` and the server's
/// name and version. `None` for an id that could not be read.
pub(crate) fn data_call_response(
    id: &Id,
    data: &Map<String, Value>,
    complete: Option<(&str, &str)>,
) -> Option<String> {
    // A map of JSON values always serializes.
    let text = serde_json::to_string(data).ok()?;
    data_text_response(id, &text, complete)
}

/// [`data_call_response`] of the data an object's JSON `text` holds, as written.
pub(crate) fn data_text_response(
    id: &Id,
    text: &str,
    complete: Option<(&str, &str)>,
) -> Option<String> {
    let id = id.written()?;
    let mut out = Vec::with_capacity(2 * text.len() + id.len() + 120);
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    out.extend_from_slice(id.as_bytes());
    out.extend_from_slice(br#","result":{"structuredContent":"#);
    out.extend_from_slice(text.as_bytes());
    out.extend_from_slice(br#","content":[{"type":"text","text":"#);
    serde_json::to_writer(&mut out, text).ok()?;
    out.extend_from_slice(br#"}],"isError":false"#);
    if let Some((name, version)) = complete {
        out.extend_from_slice(
            br#","resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"#,
        );
        serde_json::to_writer(&mut out, name).ok()?;
        out.extend_from_slice(br#","version":"#);
        serde_json::to_writer(&mut out, version).ok()?;
        out.extend_from_slice(b"}}");
    }
    out.extend_from_slice(b"}}");
    String::from_utf8(out).ok()
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
pub(crate) fn notification(method: &Method, params: Value) -> String {
    json!({ "jsonrpc": "2.0", "method": method.as_str(), "params": params }).to_string()
}

#[cfg(test)]
mod tests;
