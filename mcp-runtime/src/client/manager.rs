//! Several named servers, kept up: read from the `mcpServers` configuration MCP hosts use,
//! connected on demand, reconnected with backoff after one dies, checked for health, and
//! called with a retry only where the tool says a retry is safe.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_runtime_core::MCPToolResult;
use serde::Deserialize;
use serde_json::{Map, Value};
use tokio::sync::Mutex;

use super::oauth;
use super::{Client, ClientBuilder, ClientError, HttpServer, RequestOptions, StdioServer, Tool};

/// The first wait before reconnecting to a server that could not be reached.
pub(crate) const FIRST_BACKOFF: Duration = Duration::from_millis(250);
/// The longest wait between attempts.
pub(crate) const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// Where a server is: a command to spawn, or a streamable HTTP endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// Spawned, spoken to over stdio.
    Stdio(StdioServer),
    /// At an HTTP endpoint.
    Http(HttpServer),
}

impl Target {
    /// `text` as a target: a URL (`http://…`, `https://…`), or a program and its arguments
    /// separated by spaces (a program whose arguments hold spaces belongs in a
    /// configuration file).
    pub fn parse(text: &str) -> Result<Self, ConfigError> {
        let text = text.trim();
        if text.starts_with("http://") || text.starts_with("https://") {
            return Ok(Self::Http(HttpServer::new(text)));
        }
        let mut words = text.split_whitespace();
        let program = words
            .next()
            .ok_or_else(|| ConfigError("an empty server: give a URL or a command".to_owned()))?;
        Ok(Self::Stdio(StdioServer::new(program).args(words)))
    }

    async fn connect(&self, builder: ClientBuilder) -> Result<Client, ClientError> {
        match self {
            Self::Stdio(server) => builder.stdio(server.clone()).await,
            Self::Http(server) => builder.http(server.clone()).await,
        }
    }
}

/// A configuration that cannot be used, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("MCP server configuration: {0}")]
pub struct ConfigError(pub String);

/// The servers of an `mcpServers` configuration, by name:
/// `{"mcpServers": {"name": {"command", "args", "env"} | {"url", "headers", "auth"}}}`.
/// An HTTP server's `auth` gets its tokens with a machine grant (client credentials, a
/// workload's token, enterprise-managed authorization), its credentials read from the
/// files and environment variables it names, never written in the file:
///
/// - `{"grant": "client_credentials", "client_id", "client_secret_env" | "private_key_file" | "private_key_jwk_file"}`
/// - `{"grant": "workload_identity", "client_id", "token_file" | "token_env"}`
/// - `{"grant": "enterprise", "client_id", "client_secret_env", "idp_token_endpoint",
///   "idp_client_id", "id_token_file" | "id_token_env"}`
///
/// Each takes `"issuer"`, the only authorization server its credentials may go to, and
/// `"dpop": true` (a key made afresh) or `"dpop_key_file"` (a PKCS#8 PEM of a P-256 key)
/// for DPoP-bound tokens (RFC 9449).
///
/// ```
/// use mcp_runtime::client::{Target, servers_from_json};
///
/// let servers = servers_from_json(r#"{"mcpServers": {
///     "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"] },
///     "search": { "url": "https://search.example/mcp", "headers": { "X-Team": "docs" } },
///     "inventory": { "url": "https://inventory.example/mcp", "auth": {
///         "grant": "workload_identity", "client_id": "inventory-sync",
///         "token_file": "/var/run/secrets/tokens/mcp-token" } }
/// }}"#)?;
/// assert!(matches!(servers["files"], Target::Stdio(_)));
/// assert!(matches!(servers["search"], Target::Http(_)));
/// assert!(matches!(servers["inventory"], Target::Http(_)));
/// # Ok::<(), mcp_runtime::client::ConfigError>(())
/// ```
pub fn servers_from_json(json: &str) -> Result<BTreeMap<String, Target>, ConfigError> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    struct File {
        mcp_servers: BTreeMap<String, Entry>,
    }
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Entry {
        Command {
            command: String,
            #[serde(default)]
            args: Vec<String>,
            #[serde(default)]
            env: BTreeMap<String, String>,
            #[serde(default)]
            cwd: Option<String>,
        },
        Url {
            url: String,
            #[serde(default)]
            headers: BTreeMap<String, String>,
            #[serde(default)]
            auth: Option<Value>,
        },
    }
    let file: File = serde_json::from_str(json).map_err(|err| {
        ConfigError(format!(
            "{err}; each server is {{\"command\", \"args\", \"env\"}} or {{\"url\", \"headers\", \"auth\"}}, under \"mcpServers\""
        ))
    })?;
    file.mcp_servers
        .into_iter()
        .map(|(name, entry)| {
            let target = match entry {
                Entry::Command {
                    command,
                    args,
                    env,
                    cwd,
                } => {
                    let mut server = StdioServer::new(command).args(args);
                    for (key, value) in env {
                        server = server.env(key, value);
                    }
                    if let Some(cwd) = cwd {
                        server = server.current_dir(cwd);
                    }
                    Target::Stdio(server)
                }
                Entry::Url { url, headers, auth } => {
                    let mut server = HttpServer::new(url);
                    for (name, value) in headers {
                        server = server.header(name, value);
                    }
                    if let Some(auth) = auth {
                        let oauth = oauth::oauth_of(auth)
                            .map_err(|reason| ConfigError(format!("`{name}`: {reason}")))?;
                        server = server.oauth(oauth);
                    }
                    Target::Http(server)
                }
            };
            Ok((name, target))
        })
        .collect()
}

/// [`servers_from_json`] of the file at `path`.
pub fn servers_from_file(path: &Path) -> Result<BTreeMap<String, Target>, ConfigError> {
    let json = std::fs::read_to_string(path)
        .map_err(|err| ConfigError(format!("{}: {err}", path.display())))?;
    servers_from_json(&json)
        .map_err(|ConfigError(reason)| ConfigError(format!("{}: {reason}", path.display())))
}

/// How a server is doing.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Health {
    /// It answered, in this long.
    Up(Duration),
    /// It did not, and why.
    Down(ClientError),
}

/// One server and its connection, if it has one.
struct Managed {
    target: Target,
    /// Its own request timeout, instead of the builder's.
    timeout: Option<Duration>,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    client: Option<Arc<Client>>,
    /// The tools it listed last, by name: what says whether a retry is safe.
    tools: BTreeMap<String, Tool>,
    /// After a failed attempt: when to try again, and the wait after that.
    retry_at: Option<(Instant, Duration, ClientError)>,
}

/// Several named MCP servers, each connected when first needed and again after it dies.
pub struct ClientManager {
    builder: ClientBuilder,
    servers: BTreeMap<String, Managed>,
}

impl std::fmt::Debug for ClientManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientManager")
            .field("servers", &self.servers.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl ClientManager {
    /// A manager of `servers`, each connected with `builder` (its handlers, timeout).
    pub fn new(servers: BTreeMap<String, Target>, builder: ClientBuilder) -> Self {
        Self {
            builder,
            servers: servers
                .into_iter()
                .map(|(name, target)| {
                    let managed = Managed {
                        target,
                        timeout: None,
                        state: Mutex::new(State::default()),
                    };
                    (name, managed)
                })
                .collect(),
        }
    }

    /// Gives the requests to `server` a timeout of their own, instead of the builder's: a
    /// slow server's calls may wait longer, a quick one's fail sooner. Taken by its next
    /// connection. A name that is no server's is an error.
    pub fn timeout(mut self, server: &str, timeout: Duration) -> Result<Self, ConfigError> {
        let managed = self
            .servers
            .get_mut(server)
            .ok_or_else(|| ConfigError(format!("no server is named `{server}`")))?;
        managed.timeout = Some(timeout);
        Ok(self)
    }

    /// The servers' names.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.servers.keys().map(String::as_str)
    }

    /// The connection to `server`: the one open, or a new one if it has none or it ended.
    /// After a failed attempt the next waits (250 ms, doubling to 30 s); until then, the
    /// failure is answered at once.
    pub async fn client(&self, server: &str) -> Result<Arc<Client>, ClientError> {
        let managed = self
            .servers
            .get(server)
            .ok_or_else(|| ClientError::Connect(format!("no server is named `{server}`")))?;
        let mut state = managed.state.lock().await;
        if let Some(client) = &state.client {
            if client.ended().is_none() {
                return Ok(Arc::clone(client));
            }
            tracing::warn!(%server, reason = ?client.ended(), "the server's connection ended; reconnecting");
            state.client = None;
        }
        let backoff = match &state.retry_at {
            Some((at, _, error)) if Instant::now() < *at => {
                return Err(ClientError::Connect(format!(
                    "`{server}` is down ({error}); the next attempt is in {:?}",
                    at.saturating_duration_since(Instant::now())
                )));
            }
            Some((_, backoff, _)) => *backoff,
            None => FIRST_BACKOFF,
        };
        let builder = match managed.timeout {
            Some(timeout) => self.builder.clone().timeout(timeout),
            None => self.builder.clone(),
        };
        match managed.target.connect(builder).await {
            Ok(client) => {
                let client = Arc::new(client);
                state.client = Some(Arc::clone(&client));
                state.retry_at = None;
                Ok(client)
            }
            Err(error) => {
                state.retry_at = Some((
                    Instant::now() + backoff,
                    (backoff * 2).min(MAX_BACKOFF),
                    error.clone(),
                ));
                Err(error)
            }
        }
    }

    /// The tools `server` lists, remembered for deciding retries.
    pub async fn list_tools(&self, server: &str) -> Result<Vec<Tool>, ClientError> {
        let client = self.client(server).await?;
        let tools = client.list_tools().await?;
        if let Some(managed) = self.servers.get(server) {
            managed.state.lock().await.tools = tools
                .iter()
                .map(|tool| (tool.name.clone(), tool.clone()))
                .collect();
        }
        Ok(tools)
    }

    /// Calls `tool` on `server`. A call whose connection failed (the server died, or could
    /// not be reached) is made once more, on a new connection, only when the tool is
    /// marked read-only or idempotent; a timeout is never retried. When that second
    /// attempt cannot reach the server either, the error is the call's own: a connection
    /// lost with the call in flight stays [`ClientError::Closed`].
    pub async fn call_tool(
        &self,
        server: &str,
        tool: &str,
        arguments: Map<String, Value>,
        options: RequestOptions,
    ) -> Result<MCPToolResult, ClientError> {
        let client = self.client(server).await?;
        let (timeout, task) = (options.timeout, options.task);
        match client
            .call_tool_with(tool, arguments.clone(), options)
            .await
        {
            Err(error @ (ClientError::Closed(_) | ClientError::Connect(_)))
                if self.safe_to_retry(server, tool).await =>
            {
                tracing::warn!(%server, %tool, %error, "retrying a call that is safe to repeat");
                let options = RequestOptions {
                    timeout,
                    task,
                    ..RequestOptions::default()
                };
                let retried = match self.client(server).await {
                    Ok(client) => client.call_tool_with(tool, arguments, options).await,
                    Err(again) => Err(again),
                };
                match retried {
                    Err(again @ (ClientError::Closed(_) | ClientError::Connect(_))) => {
                        tracing::warn!(%server, %tool, error = %again, "the retry failed too");
                        Err(error)
                    }
                    other => other,
                }
            }
            other => other,
        }
    }

    async fn safe_to_retry(&self, server: &str, tool: &str) -> bool {
        let Some(managed) = self.servers.get(server) else {
            return false;
        };
        let state = managed.state.lock().await;
        state.tools.get(tool).is_some_and(|tool| {
            let hint = |key: &str| {
                tool.annotations
                    .as_ref()
                    .and_then(|hints| hints.get(key))
                    .and_then(Value::as_bool)
                    == Some(true)
            };
            hint("readOnlyHint") || hint("idempotentHint")
        })
    }

    /// Asks every server whether it is up: a `ping` on the handshake's revisions, a
    /// `server/discover` at 2026-07-28, each connecting first if needed.
    pub async fn health(&self) -> BTreeMap<String, Health> {
        let mut health = BTreeMap::new();
        for name in self.servers.keys() {
            let started = Instant::now();
            let answer = match self.client(name).await {
                Ok(client) => client.ping().await,
                Err(error) => Err(error),
            };
            let state = match answer {
                Ok(()) => Health::Up(started.elapsed()),
                Err(error) => Health::Down(error),
            };
            health.insert(name.clone(), state);
        }
        health
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn auth_of(auth: &str) -> Result<BTreeMap<String, Target>, ConfigError> {
        servers_from_json(&format!(
            r#"{{"mcpServers": {{"s": {{"url": "http://127.0.0.1:1/mcp", "auth": {auth}}}}}}}"#
        ))
    }

    #[test]
    fn an_http_servers_auth_names_its_grant_and_where_its_credentials_are() {
        let servers = auth_of(
            r#"{"grant": "workload_identity", "client_id": "w", "token_file": "/t", "issuer": "https://as"}"#,
        )
        .expect("a workload");
        let Target::Http(server) = &servers["s"] else {
            panic!("an HTTP server");
        };
        let shown = format!("{server:?}");
        assert!(
            shown.contains("Workload") && shown.contains("https://as"),
            "{shown}"
        );
        let no_token = auth_of(r#"{"grant": "workload_identity", "client_id": "w"}"#).unwrap_err();
        assert!(no_token.0.contains("token_file"), "{no_token}");
        let unknown = auth_of(r#"{"grant": "password", "client_id": "w"}"#).unwrap_err();
        assert!(unknown.0.contains("`password`"), "{unknown}");
        let no_secret = auth_of(
            r#"{"grant": "client_credentials", "client_id": "c", "client_secret_env": "MCP_RUNTIME_TEST_UNSET_SECRET"}"#,
        )
        .unwrap_err();
        assert!(
            no_secret.0.contains("MCP_RUNTIME_TEST_UNSET_SECRET"),
            "{no_secret}"
        );
        let inline =
            auth_of(r#"{"grant": "client_credentials", "client_id": "c", "client_secret": "x"}"#);
        assert!(inline.is_err(), "a secret written in the file is refused");
    }

    #[test]
    fn an_auth_binds_its_tokens_with_dpop_to_a_key_made_afresh_or_read_from_a_file() {
        let workload = r#""grant": "workload_identity", "client_id": "w", "token_env": "T""#;
        let shown = |servers: BTreeMap<String, Target>| match &servers["s"] {
            Target::Http(server) => format!("{server:?}"),
            Target::Stdio(_) => panic!("an HTTP server"),
        };
        let fresh = shown(auth_of(&format!(r#"{{{workload}, "dpop": true}}"#)).expect("DPoP"));
        assert!(fresh.contains("thumbprint"), "{fresh}");
        let bearer = shown(auth_of(&format!(r#"{{{workload}, "dpop": false}}"#)).expect("no DPoP"));
        assert!(!bearer.contains("thumbprint"), "{bearer}");
        let dir = std::env::temp_dir().join(format!("mcp-dpop-key-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("key.pem");
        let pkcs8 = ring::signature::EcdsaKeyPair::generate_pkcs8(
            &ring::signature::ECDSA_P256_SHA256_FIXED_SIGNING,
            &ring::rand::SystemRandom::new(),
        )
        .unwrap();
        std::fs::write(
            &file,
            pem::encode(&pem::Pem::new("PRIVATE KEY", pkcs8.as_ref())),
        )
        .unwrap();
        let thumbprint = oauth::DpopKey::from_pem_file(&file)
            .unwrap()
            .thumbprint()
            .to_owned();
        let path = serde_json::to_string(&file).unwrap();
        let read = shown(
            auth_of(&format!(r#"{{{workload}, "dpop_key_file": {path}}}"#)).expect("a key file"),
        );
        assert!(read.contains(&thumbprint), "{read}");
        let both = auth_of(&format!(
            r#"{{{workload}, "dpop": false, "dpop_key_file": {path}}}"#
        ))
        .unwrap_err();
        assert!(both.0.contains("leave one out"), "{both}");
        let missing = dir.join("none.pem");
        let path = serde_json::to_string(&missing).unwrap();
        let unread = auth_of(&format!(r#"{{{workload}, "dpop_key_file": {path}}}"#)).unwrap_err();
        assert!(
            unread.0.contains("none.pem") && unread.0.starts_with("`s`: `auth`: "),
            "{unread}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
