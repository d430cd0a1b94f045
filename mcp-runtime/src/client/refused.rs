//! What a server's JSON-RPC error says of a request that named a resource, a prompt or a
//! tool: that there is no such one, or that the request's parameters are invalid for
//! another reason. Told by the error's code and structured `data`, never by its message,
//! which is the server's to word.
//!
//! A missing resource is `-32002` at the handshake's revisions, and `-32602` (invalid
//! params) since 2026-07-28 (SEP-2164); either way the specification's example names the
//! URI in `data.uri`, which is what tells it apart from other invalid params. A missing
//! prompt or tool is `-32602` in every revision, with no data the specification defines:
//! this crate's server names it in `data.name`, which other servers may not do.

use mcp_runtime_core::wire::{INVALID_PARAMS, RESOURCE_NOT_FOUND};
use serde_json::Value;

use super::{ClientError, RpcError};

/// What a request looks up by a URI or a name, which a server may not have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Lookup {
    /// A resource, by its URI (`resources/read`, `resources/subscribe`).
    Resource,
    /// A prompt, by its name (`prompts/get`).
    Prompt,
    /// A tool, by its name (`tools/call`).
    Tool,
}

impl Lookup {
    /// The member of an error's `data` that names what was not found.
    fn key(self) -> &'static str {
        match self {
            Self::Resource => "uri",
            Self::Prompt | Self::Tool => "name",
        }
    }
}

/// What a JSON-RPC error answering a request of a [`Lookup`] says, by its code and data.
///
/// ```
/// use mcp_runtime::client::{Lookup, Refused, RpcError};
///
/// let missing = RpcError {
///     code: -32602,
///     message: "Unknown resource: notes://7".to_owned(),
///     data: Some(serde_json::json!({ "uri": "notes://7" })),
/// };
/// assert_eq!(missing.refused(Lookup::Resource), Refused::NotFound { key: Some("notes://7") });
///
/// let invalid = RpcError {
///     code: -32602,
///     message: "template variable `id`: not found in the URI".to_owned(),
///     data: Some(serde_json::json!({ "argument": "id" })),
/// };
/// assert_eq!(invalid.refused(Lookup::Resource), Refused::InvalidParams);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refused<'a> {
    /// There is no such resource, prompt or tool: `key` is the URI or name the error's data
    /// gives, when it gives one (a `-32002` may not).
    NotFound {
        /// The URI or name the server said it does not have.
        key: Option<&'a str>,
    },
    /// Invalid params (`-32602`) for another reason: an argument or a template variable
    /// that does not parse, a missing argument.
    InvalidParams,
    /// Any other error.
    Other,
}

impl RpcError {
    /// What this error says of a request that looked up `of`: `-32002`, or `-32602` naming
    /// the URI in `data.uri`, is a missing resource; `-32602` naming it in `data.name` a
    /// missing prompt or tool; any other `-32602` invalid params.
    pub fn refused(&self, of: Lookup) -> Refused<'_> {
        let key = self
            .data
            .as_ref()
            .and_then(|data| data.get(of.key()))
            .and_then(Value::as_str);
        match self.code {
            RESOURCE_NOT_FOUND if of == Lookup::Resource => Refused::NotFound { key },
            INVALID_PARAMS if key.is_some() => Refused::NotFound { key },
            INVALID_PARAMS => Refused::InvalidParams,
            _ => Refused::Other,
        }
    }

    /// Whether this error says the server has no such resource, prompt or tool as `of`
    /// names (see [`RpcError::refused`]).
    pub fn is_not_found(&self, of: Lookup) -> bool {
        matches!(self.refused(of), Refused::NotFound { .. })
    }
}

impl ClientError {
    /// Whether the server answered that it has no such resource, prompt or tool as `of`
    /// names (see [`RpcError::refused`]); `false` for any error but a JSON-RPC one.
    pub fn is_not_found(&self, of: Lookup) -> bool {
        matches!(self, Self::Rpc(error) if error.is_not_found(of))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn error(code: i64, message: &str, data: Option<Value>) -> RpcError {
        RpcError {
            code,
            message: message.to_owned(),
            data,
        }
    }

    #[test]
    fn a_missing_resource_is_told_by_its_code_or_its_uri_never_by_its_message() {
        let legacy = error(-32002, "Resource not found", None);
        assert_eq!(
            legacy.refused(Lookup::Resource),
            Refused::NotFound { key: None }
        );
        let named = error(-32002, "gone", Some(json!({ "uri": "a://b" })));
        assert_eq!(
            named.refused(Lookup::Resource),
            Refused::NotFound { key: Some("a://b") }
        );
        // SEP-2164's -32602, whatever its message says.
        let current = error(
            -32602,
            "Unknown resource: a://b",
            Some(json!({ "uri": "a://b" })),
        );
        assert!(current.is_not_found(Lookup::Resource));
        // Invalid params that say "not found" but name no URI are invalid params.
        let worded = error(
            -32602,
            "check digit not found",
            Some(json!({ "argument": "id" })),
        );
        assert_eq!(worded.refused(Lookup::Resource), Refused::InvalidParams);
        let bare = error(-32602, "Resource a://b not found", None);
        assert_eq!(bare.refused(Lookup::Resource), Refused::InvalidParams);
        // A URI that is no string names nothing.
        let odd = error(-32602, "bad", Some(json!({ "uri": 7 })));
        assert_eq!(odd.refused(Lookup::Resource), Refused::InvalidParams);
    }

    #[test]
    fn a_missing_prompt_or_tool_is_invalid_params_naming_it() {
        for of in [Lookup::Prompt, Lookup::Tool] {
            let missing = error(-32602, "unknown prompt `x`", Some(json!({ "name": "x" })));
            assert_eq!(missing.refused(of), Refused::NotFound { key: Some("x") });
            let invalid = error(-32602, "missing `a`", Some(json!({ "argument": "a" })));
            assert_eq!(invalid.refused(of), Refused::InvalidParams);
            // -32002 is a resource's code only, and a URI names no prompt or tool.
            assert_eq!(error(-32002, "x", None).refused(of), Refused::Other);
            let uri = error(-32602, "x", Some(json!({ "uri": "a://b" })));
            assert_eq!(uri.refused(of), Refused::InvalidParams);
        }
        // A name names no resource.
        let named = error(-32602, "x", Some(json!({ "name": "x" })));
        assert_eq!(named.refused(Lookup::Resource), Refused::InvalidParams);
    }

    #[test]
    fn other_errors_are_neither() {
        let internal = error(-32603, "not found", Some(json!({ "uri": "a://b" })));
        assert_eq!(internal.refused(Lookup::Resource), Refused::Other);
        let closed = ClientError::closed("gone");
        assert!(!closed.is_not_found(Lookup::Resource));
        let rpc = ClientError::Rpc(error(-32002, "x", None));
        assert!(rpc.is_not_found(Lookup::Resource));
        assert!(!rpc.is_not_found(Lookup::Tool));
    }
}
