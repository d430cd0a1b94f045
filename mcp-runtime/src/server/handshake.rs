//! The handshake and what a server declares: `initialize` (2025-06-18, 2025-11-25), the
//! revision it settles on, `server/discover` (2026-07-28), the capabilities both answer
//! with, and the error for a revision the server does not speak.

use mcp_runtime_core::method::Method;
use serde_json::{Map, Value, json};

use super::fault::Fault;
use super::{
    Answer, HANDSHAKE_VERSIONS, PROTOCOL_VERSIONS, Peer, Request, Server,
    UNSUPPORTED_PROTOCOL_VERSION,
};

impl Server {
    /// The answer to `initialize`, which opens a session where its transport has them
    /// (streamable HTTP) once it succeeds.
    pub(super) fn handshake(&self, request: &Request<'_>) -> Answer {
        let result = self.initialize(request.params);
        let opens_session = result.is_ok();
        Answer {
            opens_session,
            ..self.answered(request, result)
        }
    }

    /// Whether the registry served now serves skills, which the capabilities then declare.
    pub(super) fn serves_skills(&self) -> bool {
        self.served.load().registry.skills().serves()
    }

    /// `server/discover` (2026-07-28): the versions and capabilities, without a handshake.
    pub(super) fn discover(&self, peer: &Peer<'_>) -> Value {
        json!({
            "supportedVersions": PROTOCOL_VERSIONS,
            "capabilities": capabilities(self.serves_skills()),
            "ttlMs": self.cache.ttl_ms(),
            "cacheScope": self.cache_scope(peer),
        })
    }

    /// `initialize`: the version both speak, offered the newest this server has when it
    /// does not speak the client's. The parameters MCP requires are checked, each named when
    /// it is missing or of the wrong type.
    fn initialize(&self, params: &Map<String, Value>) -> Result<Value, Fault> {
        let wrong: Vec<&str> = [
            (
                "`protocolVersion` (a string)",
                params.get("protocolVersion").is_some_and(Value::is_string),
            ),
            (
                "`capabilities` (an object)",
                params.get("capabilities").is_some_and(Value::is_object),
            ),
            (
                "`clientInfo` (an object)",
                params.get("clientInfo").is_some_and(Value::is_object),
            ),
        ]
        .into_iter()
        .filter_map(|(field, present)| (!present).then_some(field))
        .collect();
        if !wrong.is_empty() {
            return Err(Fault::invalid_params(format!(
                "{} needs {}",
                Method::Initialize,
                wrong.join(", ")
            )));
        }
        let version = negotiated(params.get("protocolVersion").and_then(Value::as_str));
        Ok(json!({
            "protocolVersion": version,
            "capabilities": capabilities(self.serves_skills()),
            "serverInfo": { "name": self.name, "version": self.version },
        }))
    }
}

/// The revision `initialize` answers a client that asked for `requested` with: the one it
/// asked for, when the server speaks it, else the newest the server has.
pub(crate) fn negotiated(requested: Option<&str>) -> &'static str {
    HANDSHAKE_VERSIONS
        .iter()
        .find(|version| Some(**version) == requested)
        .copied()
        .unwrap_or(HANDSHAKE_VERSIONS[0])
}

/// What every server offers: tools, resources (with subscriptions), prompts and
/// completion, each list telling of its changes, and log messages; the tasks extension,
/// and the skills extension where `skills` are served.
fn capabilities(skills: bool) -> Value {
    let mut extensions = Map::new();
    extensions.insert(crate::tasks::EXTENSION.to_owned(), json!({}));
    if skills {
        extensions.insert(
            mcp_runtime_core::method::SKILLS_EXTENSION.to_owned(),
            super::skills::capability(),
        );
    }
    json!({
        "logging": {},
        "tools": { "listChanged": true },
        "resources": { "subscribe": true, "listChanged": true },
        "prompts": { "listChanged": true },
        "completions": {},
        "extensions": extensions,
    })
}

/// The `UnsupportedProtocolVersionError` for `requested`.
pub(crate) fn unsupported_version(requested: &Value) -> Fault {
    let requested = match requested {
        Value::String(version) => version.clone(),
        other => other.to_string(),
    };
    Fault::new(
        UNSUPPORTED_PROTOCOL_VERSION,
        format!(
            "protocol version `{requested}` is not supported; this server speaks {}",
            PROTOCOL_VERSIONS.join(", ")
        ),
    )
    .with_data(json!({ "requested": requested, "supported": PROTOCOL_VERSIONS }))
}
