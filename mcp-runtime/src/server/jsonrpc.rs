//! JSON-RPC 2.0 framing: reading one message, writing responses and errors.

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

/// A request's id: a string or a number, kept as sent.
pub(crate) type Id = Value;

/// One message received.
#[derive(Debug)]
pub(crate) enum Incoming {
    /// A request, to be answered.
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
    let refuse = |id: &Value, code, message: &str| Refusal {
        id: id.clone(),
        code,
        message: message.to_owned(),
    };
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|err| refuse(&Value::Null, PARSE_ERROR, &format!("parse error: {err}")))?;
    let mut object = match value {
        Value::Object(object) => object,
        Value::Array(_) => {
            return Err(refuse(
                &Value::Null,
                INVALID_REQUEST,
                "batches are not supported: send one JSON-RPC message at a time",
            ));
        }
        _ => {
            return Err(refuse(
                &Value::Null,
                INVALID_REQUEST,
                "a JSON-RPC message must be an object",
            ));
        }
    };
    let id = object.remove("id");
    let answer_id = match &id {
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        _ => Value::Null,
    };
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
        None if object.contains_key("result") || object.contains_key("error") => {
            return Ok(Incoming::Response);
        }
        None => return Err(refuse(&answer_id, INVALID_REQUEST, "`method` is missing")),
    };
    let params = match object.remove("params") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(params)) => params,
        Some(_) => {
            return Err(refuse(
                &answer_id,
                INVALID_PARAMS,
                "`params` must be an object",
            ));
        }
    };
    match id {
        None => Ok(Incoming::Notification { method, params }),
        Some(Value::String(_) | Value::Number(_)) => Ok(Incoming::Request {
            id: answer_id,
            method,
            params,
        }),
        Some(_) => Err(refuse(
            &Value::Null,
            INVALID_REQUEST,
            "`id` must be a string or a number",
        )),
    }
}

/// A success response.
pub(crate) fn result_response(id: &Id, result: &Value) -> String {
    json!({ "jsonrpc": "2.0", "id": id, "result": result }).to_string()
}

/// An error response. An id that could not be read is left out, as MCP's schema has it
/// (JSON-RPC itself would send `null`, which MCP's `RequestId` does not allow).
pub(crate) fn error_response(id: &Id, code: i64, message: &str, data: Option<Value>) -> String {
    let mut error = json!({ "code": code, "message": message });
    if let Some(data) = data {
        error["data"] = data;
    }
    if id.is_null() {
        json!({ "jsonrpc": "2.0", "error": error }).to_string()
    } else {
        json!({ "jsonrpc": "2.0", "id": id, "error": error }).to_string()
    }
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
            (INVALID_REQUEST, json!(1))
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
}
