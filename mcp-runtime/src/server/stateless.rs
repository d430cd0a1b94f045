//! Admission of a request at the stateless revision (2026-07-28), in the order the
//! specification gives: its `_meta`, then the transport's mirrored headers against the
//! body, then the protocol version, then (for a call) the tool's name, its mirrored
//! parameters and the client capabilities it needs. Transport-independent: stdio has no
//! headers, and streamable HTTP hands in the ones it received ([`Mirrored`]).

use mcp_runtime_core::method::{Method, Revision};
use mcp_runtime_core::{LoggingLevel, ToolDefinition};
use serde_json::{Map, Value};

use super::fault::{Fault, Refusal, Status};
use super::{PROTOCOL_VERSIONS, STATELESS_VERSION, unsupported_version};

/// The `_meta` key of a request's protocol version.
pub(crate) const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
/// The `_meta` key of the capabilities a client declares with each request.
pub(crate) const CLIENT_CAPABILITIES_KEY: &str = mcp_runtime_core::wire::CLIENT_CAPABILITIES_META;
/// The `_meta` key of a client's name and version; optional.
const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";
/// The `_meta` key of the least severe log messages a request wants.
pub(crate) const LOG_LEVEL_KEY: &str = "io.modelcontextprotocol/logLevel";

pub use mcp_runtime_core::wire::{HEADER_MISMATCH, MISSING_CLIENT_CAPABILITY};

/// The values a streamable HTTP request mirrors from its body into headers.
#[derive(Debug, Default)]
pub(crate) struct Mirrored<'a> {
    /// `MCP-Protocol-Version`.
    pub(crate) version: Option<&'a str>,
    /// `Mcp-Method`.
    pub(crate) method: Option<&'a str>,
    /// `Mcp-Name`, as sent (possibly Base64 in the sentinel form).
    pub(crate) name: Option<&'a str>,
    /// Every `Mcp-Param-{Name}` header: the name (after the prefix), and the value, `None`
    /// when it holds bytes other than visible ASCII, space and tab.
    pub(crate) params: Vec<(&'a str, Option<&'a str>)>,
}

/// Whether a request speaks the stateless revision: `server/discover`, a 2026-07-28
/// `MCP-Protocol-Version` header, or a protocol version in `_meta` that the handshake does
/// not negotiate (an unknown one too, so that it is refused as the stateless revision
/// refuses it).
pub(crate) fn is_stateless(
    method: &Method,
    meta: Option<&Value>,
    mirrored: Option<&Mirrored<'_>>,
) -> bool {
    matches!(method, Method::ServerDiscover)
        || mirrored.is_some_and(|headers| headers.version == Some(STATELESS_VERSION))
        || meta
            .and_then(|meta| meta.get(PROTOCOL_VERSION_KEY))
            .is_some_and(|version| {
                !version
                    .as_str()
                    .is_some_and(|version| super::HANDSHAKE_VERSIONS.contains(&version))
            })
}

/// The checks of a stateless request that come before its method is looked at: its
/// `_meta` (an object with the protocol version and the client's capabilities), the
/// `MCP-Protocol-Version` header against it, the version, and the `Mcp-Method` header.
pub(crate) fn admit(
    method: &Method,
    meta: Option<&Value>,
    mirrored: Option<&Mirrored<'_>>,
) -> Result<(), Refusal> {
    let refuse = |code: i64, message: String| Err(Refusal::bad_request(Fault::new(code, message)));
    let invalid = |message: String| Err(Refusal::bad_request(Fault::invalid_params(message)));
    let meta = match meta {
        Some(Value::Object(meta)) => meta,
        Some(_) => return invalid("`_meta` must be an object".to_owned()),
        None => {
            return invalid(format!(
                "a {STATELESS_VERSION} request carries `_meta` with `{PROTOCOL_VERSION_KEY}` and `{CLIENT_CAPABILITIES_KEY}`"
            ));
        }
    };
    let version = match meta.get(PROTOCOL_VERSION_KEY) {
        Some(Value::String(version)) => version.as_str(),
        Some(_) => return invalid(format!("`_meta.{PROTOCOL_VERSION_KEY}` must be a string")),
        None => return invalid(format!("`_meta.{PROTOCOL_VERSION_KEY}` is missing")),
    };
    match meta.get(CLIENT_CAPABILITIES_KEY) {
        Some(Value::Object(_)) => {}
        Some(_) => {
            return invalid(format!(
                "`_meta.{CLIENT_CAPABILITIES_KEY}` must be an object"
            ));
        }
        None => return invalid(format!("`_meta.{CLIENT_CAPABILITIES_KEY}` is missing")),
    }
    if meta
        .get(CLIENT_INFO_KEY)
        .is_some_and(|info| !info.is_object())
    {
        return invalid(format!("`_meta.{CLIENT_INFO_KEY}` must be an object"));
    }
    if let Some(level) = meta.get(LOG_LEVEL_KEY) {
        let read = level.as_str().map(str::parse::<LoggingLevel>);
        match read {
            Some(Ok(_)) => {}
            Some(Err(err)) => return invalid(format!("`_meta.{LOG_LEVEL_KEY}`: {err}")),
            None => return invalid(format!("`_meta.{LOG_LEVEL_KEY}` must be a string")),
        }
    }
    if mirrored.is_some_and(|headers| headers.version != Some(version)) {
        return refuse(
            HEADER_MISMATCH,
            format!(
                "the `MCP-Protocol-Version` header must be present and say `{version}`, as `_meta` does"
            ),
        );
    }
    if !PROTOCOL_VERSIONS.contains(&version) || super::HANDSHAKE_VERSIONS.contains(&version) {
        let fault = unsupported_version(&Value::String(version.to_owned()));
        return Err(Refusal::bad_request(fault));
    }
    if mirrored.is_some_and(|headers| headers.method != Some(method.as_str())) {
        return refuse(
            HEADER_MISMATCH,
            format!("the `Mcp-Method` header must be present and say `{method}`, as the body does"),
        );
    }
    Ok(())
}

/// The least severe log messages a request's `_meta` asks for; checked by [`admit`].
pub(crate) fn log_level(meta: &Map<String, Value>) -> Option<LoggingLevel> {
    meta.get(LOG_LEVEL_KEY)?.as_str()?.parse().ok()
}

/// Whether the stateless revision has `method`, as far as admission goes: it did not remove
/// it ([`Method::removed_at`]). A request for a removed one is answered with -32601 and,
/// over HTTP, 404, as for any method the server does not have.
pub(crate) fn has_method(method: &Method) -> bool {
    !method.removed_at(Revision::V2026_07_28)
}

/// The 404 refusal of a method the stateless revision does not have.
pub(crate) fn no_such_method(method: &Method) -> Refusal {
    let message = if !has_method(method) {
        format!("method `{method}` does not exist at protocol version {STATELESS_VERSION}")
    } else {
        format!("method `{method}` is not supported by this server")
    };
    Refusal::new(Fault::method_not_found(message), Status::NotFound)
}

/// The check of a stateless request that names a tool, prompt or resource: its `Mcp-Name`
/// header, decoded, is the `name` its body gives.
pub(crate) fn admit_name(name: &str, mirrored: Option<&Mirrored<'_>>) -> Result<(), Refusal> {
    let Some(headers) = mirrored else {
        return Ok(());
    };
    let why = match headers.name.map(decode_header_value) {
        Some(Ok(sent)) if sent == name => return Ok(()),
        Some(Err(why)) => format!("the `Mcp-Name` header {why}"),
        _ => format!("the `Mcp-Name` header must be present and say `{name}`, as the body does"),
    };
    Err(Refusal::bad_request(Fault::new(HEADER_MISMATCH, why)))
}

/// The checks of a stateless `tools/call` once its tool is known: each mirrored
/// parameter's `Mcp-Param-{Name}` header holds the argument's value, and the request
/// declares every client capability the tool needs.
pub(crate) fn admit_call(
    tool: &ToolDefinition,
    arguments: &Map<String, Value>,
    meta: Option<&Value>,
    mirrored: Option<&Mirrored<'_>>,
) -> Result<(), Refusal> {
    let mismatch =
        |message: String| Err(Refusal::bad_request(Fault::new(HEADER_MISMATCH, message)));
    if let Some(headers) = mirrored {
        for param in tool.header_params() {
            let (property, header) = (&param.property, &param.header);
            let sent = headers
                .params
                .iter()
                .find(|(sent, _)| sent.eq_ignore_ascii_case(header))
                .map(|(_, value)| *value);
            let header = format!("Mcp-Param-{header}");
            match (arguments.get(property), sent) {
                (None | Some(Value::Null), None) => {}
                (None | Some(Value::Null), Some(_)) => {
                    return mismatch(format!(
                        "the `{header}` header is sent, but the argument `{}` is not",
                        property
                    ));
                }
                (Some(_), None) => {
                    return mismatch(format!(
                        "the `{header}` header is missing; it must carry the argument `{}`",
                        property
                    ));
                }
                (Some(value), Some(sent)) => match sent
                    .ok_or("holds characters a header value may not")
                    .and_then(decode_header_value)
                {
                    Err(why) => return mismatch(format!("the `{header}` header {why}")),
                    Ok(sent) if same_value(value, &sent) => {}
                    Ok(_) => {
                        return mismatch(format!(
                            "the `{header}` header does not match the argument `{}`",
                            property
                        ));
                    }
                },
            }
        }
    }
    let declared = meta
        .and_then(|meta| meta.get(CLIENT_CAPABILITIES_KEY))
        .unwrap_or(&Value::Null);
    let missing = mcp_runtime_core::missing_client_capabilities(
        tool.required_client_capabilities(),
        declared,
    );
    if !missing.is_empty() {
        let names: Vec<&str> = missing.keys().map(String::as_str).collect();
        let fault = Fault::new(
            MISSING_CLIENT_CAPABILITY,
            format!(
                "tool `{}` needs the client capabilities {}, which this request does not declare in `_meta.{CLIENT_CAPABILITIES_KEY}`",
                tool.name(),
                names.join(", ")
            ),
        )
        .with_data(serde_json::json!({ "requiredCapabilities": missing }));
        return Err(Refusal::bad_request(fault));
    }
    Ok(())
}

/// The refusal of a call of `tool` from a handshake client that declared `declared` at
/// `initialize`, when the tool needs a capability it lacks: -32021, as at 2026-07-28.
pub(crate) fn requires(tool: &ToolDefinition, declared: &Map<String, Value>) -> Result<(), Fault> {
    // Most tools need nothing: no copy of what the client declared is made for them.
    if tool.required_client_capabilities().is_empty() {
        return Ok(());
    }
    let missing = mcp_runtime_core::missing_client_capabilities(
        tool.required_client_capabilities(),
        &Value::Object(declared.clone()),
    );
    if missing.is_empty() {
        return Ok(());
    }
    let names: Vec<&str> = missing.keys().map(String::as_str).collect();
    Err(Fault::new(
        MISSING_CLIENT_CAPABILITY,
        format!(
            "tool `{}` needs the client capabilities {}, which this client did not declare at `{}`",
            tool.name(),
            names.join(", "),
            Method::Initialize,
        ),
    )
    .with_data(serde_json::json!({ "requiredCapabilities": missing })))
}

/// A mirrored header's value as text: the value itself with the surrounding whitespace
/// HTTP allows taken off, or the UTF-8 text of the Base64 inside `=?base64?…?=`.
fn decode_header_value(sent: &str) -> Result<String, &'static str> {
    use base64::Engine as _;
    let sent = sent.trim_matches([' ', '\t']);
    match sent
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    {
        None => Ok(sent.to_owned()),
        Some(encoded) => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(encoded)
                .map_err(|_| "holds Base64 that is not valid (padded, standard alphabet)")?;
            String::from_utf8(bytes).map_err(|_| "holds Base64 of bytes that are not UTF-8")
        }
    }
}

/// Whether an argument's value is what a header says, by the specification's conversion:
/// a string as it is, an integer in decimal (compared as a number), a boolean as
/// `true`/`false`.
fn same_value(value: &Value, sent: &str) -> bool {
    match value {
        Value::String(text) => text == sent,
        Value::Bool(flag) => sent == if *flag { "true" } else { "false" },
        // Integers within the range the specification allows are exact as floats, so
        // `42`, `42.0` and `4.2e1` compare equal, as a number.
        Value::Number(number) => number
            .as_f64()
            .is_some_and(|number| sent.parse::<f64>().is_ok_and(|sent| sent == number)),
        _ => false,
    }
}
