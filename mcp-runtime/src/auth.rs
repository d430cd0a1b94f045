//! Who calls: what an authorization server said of the caller, as a tool sees it through
//! [`ToolContext::auth`](crate::ToolContext::auth).

use serde_json::{Map, Value};

/// The caller of a request, as its access token describes it: who it is, which client it
/// used, the scopes it was granted, and every claim of the token.
///
/// A server that checks OAuth access tokens (`serve --http --oauth-issuer …`) gives each
/// call the caller's; a call made without one (stdio, or a server that checks no tokens)
/// has none.
///
/// ```
/// use mcp_runtime::AuthInfo;
/// use serde_json::json;
///
/// let claims = json!({ "sub": "alice", "scope": "notes:read notes:write", "client_id": "cli" });
/// let caller = AuthInfo::from_claims(claims.as_object().unwrap().clone());
/// assert_eq!(caller.subject(), Some("alice"));
/// assert_eq!(caller.client_id(), Some("cli"));
/// assert!(caller.has_scope("notes:write"));
/// assert!(!caller.has_scope("notes"));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct AuthInfo {
    scopes: Vec<String>,
    claims: Map<String, Value>,
}

impl AuthInfo {
    /// The caller a token's verified claims describe. Its scopes are the `scope` claim's
    /// space-separated names (RFC 9068), or the names of an `scp` array where an
    /// authorization server writes them so.
    pub fn from_claims(claims: Map<String, Value>) -> Self {
        let scopes = match (claims.get("scope"), claims.get("scp")) {
            (Some(Value::String(scope)), _) => {
                scope.split_whitespace().map(str::to_owned).collect()
            }
            (_, Some(Value::Array(names))) => names
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            (_, Some(Value::String(scp))) => scp.split_whitespace().map(str::to_owned).collect(),
            _ => Vec::new(),
        };
        Self { scopes, claims }
    }

    /// Who the caller is: the token's `sub`, when it names one (a token a client got for
    /// itself, by client credentials, may not).
    pub fn subject(&self) -> Option<&str> {
        self.claims.get("sub").and_then(Value::as_str)
    }

    /// The client the caller used: the token's `client_id`, or its `azp`.
    pub fn client_id(&self) -> Option<&str> {
        self.claims
            .get("client_id")
            .or_else(|| self.claims.get("azp"))
            .and_then(Value::as_str)
    }

    /// The scopes the caller was granted.
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }

    /// Whether the caller was granted `scope`, by its exact name.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|granted| granted == scope)
    }

    /// Every claim of the token: `iss`, `aud`, `exp` and whatever the authorization server
    /// added.
    pub fn claims(&self) -> &Map<String, Value> {
        &self.claims
    }
}

/// Who makes a call, as far as limits go: the key a per-caller limit counts under.
///
/// It is, in this order, the OAuth subject of the caller's access token, else the HTTP
/// session, else the client's address, else the stdio connection; a call made in process
/// ([`Registry::call`](crate::Registry::call)) with none of these is [`Caller::Local`].
/// Reconnecting does not reset a subject's limits: its key is the subject, not the
/// connection.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Caller {
    /// The `sub` claim of the caller's access token.
    Subject(std::sync::Arc<str>),
    /// The HTTP session (`Mcp-Session-Id`) the call came in.
    Session(std::sync::Arc<str>),
    /// The client's address, over HTTP without a session.
    Address(std::sync::Arc<str>),
    /// The one client of a stdio connection.
    Connection,
    /// A call made in process, by the application itself.
    Local,
}

impl Caller {
    /// The caller as a key: its kind and its name, as `subject:alice` or `stdio`.
    pub fn key(&self) -> String {
        let mut key = String::new();
        self.push_key(&mut key);
        key
    }

    /// Appends [`Caller::key`] to `out`.
    pub(crate) fn push_key(&self, out: &mut String) {
        let (kind, name) = match self {
            Self::Subject(subject) => ("subject:", &**subject),
            Self::Session(session) => ("session:", &**session),
            Self::Address(address) => ("address:", &**address),
            Self::Connection => ("stdio", ""),
            Self::Local => ("local", ""),
        };
        out.push_str(kind);
        out.push_str(name);
    }
}

impl std::fmt::Display for Caller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.key())
    }
}
