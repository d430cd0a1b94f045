//! The OAuth 2.1 client of MCP's authorization chapter, for servers at a streamable HTTP
//! endpoint that want an access token: give an [`OAuth`] to [`HttpServer::oauth`](super::HttpServer::oauth), and
//! every request carries the token; a refusal gets one.
//!
//! - **Discovery**: from a 401's `WWW-Authenticate` challenge, the server's protected
//!   resource metadata (RFC 9728; at the address the challenge gives, else at the
//!   well-known ones), whose resource must be this server; then the authorization
//!   server's metadata (RFC 8414 or OpenID Connect Discovery), whose issuer must be the
//!   one asked for.
//! - **A client id**: pre-registered for that issuer ([`OAuth::pre_registered`]), else a
//!   Client ID Metadata Document URL when the authorization server takes one
//!   ([`OAuth::client_metadata_url`]), else one registered before and kept, else dynamic
//!   client registration (RFC 7591). Ids are kept per issuer: a server that moves to
//!   another authorization server gets a new registration, never the old id; when the
//!   clients are pre-registered for other issuers only, it is refused instead.
//! - **The authorization code grant with PKCE** (S256), the `resource` parameter (RFC 8707)
//!   in the authorization and token requests, and `state`; the answer's `iss` is checked
//!   against the issuer (RFC 9207) before the code goes anywhere. The token endpoint is
//!   authenticated with `none`, `client_secret_basic` or `client_secret_post`.
//! - **Scopes**: the challenge's `scope`, else the resource metadata's `scopes_supported`,
//!   else none; `offline_access` too when the authorization server offers it, for a
//!   refresh token. A 403 `insufficient_scope` is a step up: a new authorization for the
//!   scopes asked before and those the challenge names, a few times at most.
//! - **Refresh**: an expired token, or one the server no longer takes, is refreshed when
//!   there is a refresh token, before the user is asked again.
//! - **Storage**: tokens and registrations go to a [`TokenStore`]: [`MemoryStore`] by
//!   default, [`FileStore`] to authorize once across runs, or the application's own.
//! - **DPoP** (RFC 9449), with [`OAuth::dpop`]: tokens bound to a [`DpopKey`] wherever the
//!   authorization server offers them, each request with a fresh proof of the key, and the
//!   servers' nonces when they ask for them.
//! - **Machine clients**, with no user and no browser: the client credentials grant
//!   ([`OAuth::client_credentials`]) with a secret or with JWTs signed by the client's key
//!   (`private_key_jwt`, RFC 7523; a [`SigningKey`] from a PEM or JWK file);
//!   enterprise-managed authorization ([`OAuth::enterprise`]: the user's ID token exchanged
//!   at the enterprise identity provider for an ID-JAG, RFC 8693, then the JWT-bearer grant);
//!   workload identity federation ([`OAuth::workload_identity`]: the workload's token, from a
//!   file read anew at each grant or an environment variable, as the JWT-bearer grant's
//!   assertion). Their tokens are kept in the store like any others and, having no refresh
//!   token, are made anew by the same grant before they expire; a grant that fails is
//!   reported, not tried again nor replaced by another. [`OAuth::authorization_server`]
//!   keeps the credentials from any authorization server but the one named.
//!
//! Secrets, keys, assertions and tokens are never in a log line, an error or a Debug output.
//!
//! The user's part (open a page, consent, come back) is a [`UserAgent`]:
//! [`LoopbackRedirect`] listens for the browser's return on a loopback port.
//!
//! ```no_run
//! use mcp_runtime::client::oauth::{FileStore, LoopbackRedirect, OAuth};
//! use mcp_runtime::client::{Client, HttpServer};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let oauth = OAuth::new(LoopbackRedirect::bind()?)
//!     .client_name("Notes assistant")
//!     .token_store(FileStore::new("tokens.json"));
//! let client = Client::builder()
//!     .http(HttpServer::new("https://notes.example.com/mcp").oauth(oauth))
//!     .await?;
//! let tools = client.list_tools().await?;
//! # Ok(()) }
//! ```
//!
//! A service with no user, signing in as its Kubernetes service account:
//!
//! ```no_run
//! use mcp_runtime::client::oauth::{OAuth, TokenSource};
//! use mcp_runtime::client::{Client, HttpServer};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let oauth = OAuth::workload_identity(
//!     "inventory-sync",
//!     TokenSource::file("/var/run/secrets/tokens/mcp-token"),
//! )
//! .authorization_server("https://auth.example.com");
//! let client = Client::builder()
//!     .http(HttpServer::new("https://inventory.example.com/mcp").oauth(oauth))
//!     .await?;
//! # Ok(()) }
//! ```

mod agent;
mod challenge;
mod discovery;
mod dpop;
mod flow;
mod grants;
mod keys;
mod settings;
mod store;

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

pub use agent::{DEFAULT_CONSENT_TIMEOUT, LoopbackRedirect, UserAgent};
pub(crate) use challenge::Challenge;
pub use dpop::{DpopError, DpopKey};
pub use grants::{IdentityProvider, TokenSource};
pub use keys::{KeyError, SigningKey};
pub(crate) use settings::oauth_of;
pub use store::{ClientCredentials, FileStore, MemoryStore, TokenStore, Tokens};

use super::chain;

/// How many times one request is sent again after its refusal was answered with a new
/// token, before the refusal is final: enough for a refresh, an authorization and a step
/// up, and no more (MCP asks clients to bound step-up retries).
pub(crate) const MAX_AUTHORIZATIONS_PER_REQUEST: usize = 3;

/// Why the OAuth client could not get a token the server takes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AuthError {
    /// The server's or the authorization server's metadata could not be found or read.
    #[error("authorization discovery failed: {0}")]
    Discovery(String),
    /// The server's protected resource metadata names another resource: its tokens would
    /// be for someone else, so no authorization is made.
    #[error(
        "the protected resource metadata names the resource `{resource}`, which is not the server at `{server}`: refusing to authorize"
    )]
    ResourceMismatch {
        /// The resource the metadata names.
        resource: String,
        /// The server's address.
        server: String,
    },
    /// The authorization server's metadata names another issuer than the one it was
    /// found from (a mix-up, or a poisoned document): it is not used.
    #[error(
        "the authorization server metadata at {metadata} names the issuer `{found}`, not `{expected}`: refusing to use it"
    )]
    IssuerMismatch {
        /// Where the metadata was.
        metadata: String,
        /// The issuer it was looked up for.
        expected: String,
        /// The issuer it names.
        found: String,
    },
    /// The authorization server does not offer PKCE with S256, which MCP requires.
    #[error("the authorization server `{issuer}` does not offer PKCE with S256")]
    NoPkce {
        /// The authorization server.
        issuer: String,
    },
    /// No client id for the authorization server: none pre-registered, no Client ID
    /// Metadata Document it takes, and no dynamic registration.
    #[error(
        "no client id for the authorization server `{issuer}`: pre-register one (OAuth::pre_registered), or use one that supports Client ID Metadata Documents or dynamic client registration"
    )]
    NoClient {
        /// The authorization server.
        issuer: String,
    },
    /// The client is pre-registered ([`OAuth::pre_registered`]) with other authorization
    /// servers than the one the server's metadata names. A client registered with one
    /// authorization server is not used at another, and, since the application chose its
    /// clients, no other client id is made up in their place.
    #[error(
        "the client is pre-registered for the authorization server `{}`, but the server's metadata names `{issuer}`: refusing to use it there or to register anew",
        .registered_for.join("`, `")
    )]
    PreRegisteredElsewhere {
        /// The issuers the client is pre-registered for, sorted.
        registered_for: Vec<String>,
        /// The issuer the server's metadata names.
        issuer: String,
    },
    /// Dynamic client registration failed.
    #[error("registering with the authorization server `{issuer}` failed: {reason}")]
    Registration {
        /// The authorization server.
        issuer: String,
        /// What it said.
        reason: String,
    },
    /// The authorization response was not acceptable: another `state`, a missing or
    /// mismatched `iss`, no code. Its code is not used.
    #[error("the authorization response was refused: {0}")]
    Callback(String),
    /// The authorization server refused the authorization (the user declined, or the
    /// request was wrong).
    #[error("the authorization server refused: {error}{}", describe(.description))]
    Denied {
        /// The error code.
        error: String,
        /// Its description, if given.
        description: Option<String>,
    },
    /// The token endpoint refused the code or the refresh token.
    #[error("the token endpoint refused: {error}{}", describe(.description))]
    Token {
        /// The error code, or the HTTP status when there was none.
        error: String,
        /// Its description, if given.
        description: Option<String>,
    },
    /// The server wants scopes the token already has, or still refuses after every
    /// authorization allowed: asking again would not help.
    #[error("the server still refuses (HTTP {status}) after authorization{}", needing(.scopes))]
    Refused {
        /// The last status.
        status: u16,
        /// The scopes it asked for, if it named them.
        scopes: Vec<String>,
    },
    /// The token store failed.
    #[error("the token store failed: {0}")]
    Store(String),
    /// The system's random number generator failed: no PKCE verifier or `state` could be
    /// made, so no authorization is started.
    #[error("the system's random number generator failed: {0}")]
    Random(String),
    /// The user agent failed: the browser did not come back, or could not be sent.
    #[error("the user's authorization did not complete: {0}")]
    UserAgent(String),
    /// No DPoP proof could be made.
    #[error(transparent)]
    Dpop(#[from] DpopError),
    /// The client's own credential could not be read or used: its signing key, a
    /// workload's token, the user's ID token.
    #[error("the client's credential could not be used: {0}")]
    Credential(String),
}

/// Why an authorization server's endpoint refused, from its answer: the OAuth error and
/// its description (RFC 6749, section 5.2); else the title and detail of a problem
/// document (RFC 9457), as some servers answer; else the HTTP status.
fn refusal(status: reqwest::StatusCode, body: &[u8]) -> (String, Option<String>) {
    let answer: serde_json::Value = serde_json::from_slice(body).unwrap_or_default();
    let text = |name: &str| {
        answer
            .get(name)
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned)
    };
    match (text("error"), text("title")) {
        (Some(error), _) => (error, text("error_description")),
        (None, Some(title)) => (format!("HTTP {status}"), text("detail").or(Some(title))),
        (None, None) => (format!("HTTP {status}"), None),
    }
}

impl AuthError {
    /// A token endpoint's refusal, answered with `status` and `body`.
    fn token_refused(status: reqwest::StatusCode, body: &[u8]) -> Self {
        let (error, description) = refusal(status, body);
        Self::Token { error, description }
    }
}

fn describe(description: &Option<String>) -> String {
    description
        .as_deref()
        .map(|text| format!(" ({text})"))
        .unwrap_or_default()
}

fn needing(scopes: &[String]) -> String {
    if scopes.is_empty() {
        String::new()
    } else {
        format!(", asking for the scopes `{}`", scopes.join(" "))
    }
}

/// An OAuth 2.1 client for MCP servers: what to register as, where to keep tokens, and how
/// the user consents. Cheap to clone; clones share their tokens. Give it to
/// [`HttpServer::oauth`](crate::client::HttpServer::oauth).
#[derive(Clone)]
pub struct OAuth {
    shared: Arc<Shared>,
}

/// What every clone shares.
struct Shared {
    config: Config,
    agent: Arc<dyn UserAgent>,
    store: Arc<dyn TokenStore>,
    /// One authorization at a time: requests refused together wait for the one that
    /// answers their refusal, and use its token.
    flow: tokio::sync::Mutex<flow::Known>,
    /// The tokens in use, by server address.
    current: std::sync::RwLock<HashMap<String, Arc<Tokens>>>,
}

/// What the client registers as, and asks for.
#[derive(Clone)]
struct Config {
    client_name: String,
    client_metadata_url: Option<String>,
    pre_registered: HashMap<String, ClientCredentials>,
    offline_access: bool,
    /// The DPoP key and what it knows, when tokens are to be bound to it ([`OAuth::dpop`]).
    dpop: Option<Arc<dpop::Dpop>>,
    /// The machine grant, for a client with no user.
    grant: Option<grants::Grant>,
    /// The only authorization server the machine grant's credentials go to, if limited.
    grant_issuer: Option<String>,
}

impl Config {
    fn with_grant(grant: grants::Grant) -> Self {
        Self {
            client_name: "mcp-runtime".to_owned(),
            client_metadata_url: None,
            pre_registered: HashMap::new(),
            offline_access: true,
            dpop: None,
            grant: Some(grant),
            grant_issuer: None,
        }
    }
}

impl fmt::Debug for OAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let config = &self.shared.config;
        let issuers: Vec<&String> = config.pre_registered.keys().collect();
        f.debug_struct("OAuth")
            .field("client_name", &config.client_name)
            .field("client_metadata_url", &config.client_metadata_url)
            .field("pre_registered", &issuers)
            .field("offline_access", &config.offline_access)
            .field("dpop", &config.dpop)
            .field("grant", &config.grant)
            .field("grant_issuer", &config.grant_issuer)
            .finish_non_exhaustive()
    }
}

impl PartialEq for OAuth {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }
}

impl Eq for OAuth {}

impl OAuth {
    /// A client whose user consents through `agent`, keeping tokens in memory.
    pub fn new(agent: impl UserAgent) -> Self {
        Self::with(
            Config {
                client_name: "mcp-runtime".to_owned(),
                client_metadata_url: None,
                pre_registered: HashMap::new(),
                offline_access: true,
                dpop: None,
                grant: None,
                grant_issuer: None,
            },
            Arc::new(agent),
            Arc::new(MemoryStore::new()),
        )
    }

    fn with(config: Config, agent: Arc<dyn UserAgent>, store: Arc<dyn TokenStore>) -> Self {
        Self {
            shared: Arc::new(Shared {
                config,
                agent,
                store,
                flow: tokio::sync::Mutex::new(flow::Known::default()),
                current: std::sync::RwLock::new(HashMap::new()),
            }),
        }
    }

    /// A copy with `change` made to its configuration; tokens are not shared with the
    /// original (the builder methods are for before first use).
    fn configure(self, change: impl FnOnce(&mut Config)) -> Self {
        let mut config = self.shared.config.clone();
        change(&mut config);
        Self::with(
            config,
            Arc::clone(&self.shared.agent),
            Arc::clone(&self.shared.store),
        )
    }

    /// The name registered with authorization servers and shown to the user
    /// (`client_name`).
    #[must_use]
    pub fn client_name(self, name: impl Into<String>) -> Self {
        let name = name.into();
        self.configure(|config| config.client_name = name)
    }

    /// The `https://` URL of the client's Client ID Metadata Document: used as the client
    /// id with authorization servers that advertise
    /// `client_id_metadata_document_supported`. The document there must name this URL as
    /// its `client_id` and list the user agent's redirect URI.
    #[must_use]
    pub fn client_metadata_url(self, url: impl Into<String>) -> Self {
        let url = url.into();
        self.configure(|config| config.client_metadata_url = Some(url))
    }

    /// Uses `client` with the authorization server whose issuer is `issuer`, before any
    /// other way of getting a client id.
    ///
    /// Pre-registered clients are bound to their issuers: a server whose metadata names an
    /// authorization server none of them is for is refused with
    /// [`AuthError::PreRegisteredElsewhere`], naming both, instead of a Client ID Metadata
    /// Document or a registration there (a client must not use credentials registered with
    /// one authorization server at another). Every pre-registered client names its issuer,
    /// so there is no client that applies to whichever issuer is found.
    #[must_use]
    pub fn pre_registered(self, issuer: impl Into<String>, client: ClientCredentials) -> Self {
        let issuer = issuer.into();
        self.configure(|config| {
            config.pre_registered.insert(issuer, client);
        })
    }

    /// Whether to ask for a refresh token (`offline_access`, when the authorization
    /// server lists it); yes by default.
    #[must_use]
    pub fn refresh_tokens(self, ask: bool) -> Self {
        self.configure(|config| config.offline_access = ask)
    }

    /// Keeps tokens and registrations in `store` instead of in memory.
    #[must_use]
    pub fn token_store(self, store: impl TokenStore) -> Self {
        Self::with(
            self.shared.config.clone(),
            Arc::clone(&self.shared.agent),
            Arc::new(store),
        )
    }

    /// Forgets the tokens of the server at `server`, here and in the store: the next
    /// request is authorized anew.
    pub async fn sign_out(&self, server: &str) -> Result<(), AuthError> {
        self.shared
            .current
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(server);
        self.shared.store.set_tokens(server, None).await
    }

    /// Binds the client to the server at `server`, with the transport's HTTP client.
    pub(crate) fn session(
        &self,
        server: &str,
        http: reqwest::Client,
    ) -> Result<Session, SessionError> {
        let url = url::Url::parse(server).map_err(SessionError::NotAUrl)?;
        Ok(Session {
            oauth: self.clone(),
            server: server.to_owned(),
            url,
            http,
            looked: Arc::default(),
        })
    }
}

/// Why an [`OAuth`] client could not be bound to a server.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SessionError {
    /// The server's address does not parse.
    #[error("not a URL: {0}")]
    NotAUrl(url::ParseError),
}

/// An [`OAuth`] client bound to one server: the tokens to send it, and the answer to its
/// refusals.
#[derive(Clone)]
pub(crate) struct Session {
    oauth: OAuth,
    server: String,
    url: url::Url,
    http: reqwest::Client,
    /// Whether the store was asked for this server's tokens: until a refusal gets some, a
    /// request then goes without one, and no flow runs for it.
    looked: Arc<std::sync::atomic::AtomicBool>,
}

impl Session {
    /// The tokens to send now: those in use, else those kept in the store; refreshed
    /// first when they have expired and can be.
    pub(crate) async fn tokens(&self) -> Result<Option<Arc<Tokens>>, AuthError> {
        let current = self.current();
        if let Some(tokens) = &current {
            let renewable =
                tokens.refresh_token.is_some() || self.oauth.shared.config.grant.is_some();
            if !(renewable && tokens.expires_within(flow::EXPIRY_MARGIN_SECS)) {
                return Ok(current);
            }
        } else if self.looked.load(std::sync::atomic::Ordering::Acquire) {
            return Ok(None);
        }
        self.in_flow(flow::Trigger::Start, current).await?;
        self.looked
            .store(true, std::sync::atomic::Ordering::Release);
        Ok(self.current())
    }

    /// Answers the server's refusal of a request that carried `used`: a new token, unless
    /// one came while it waited.
    pub(crate) async fn answer(
        &self,
        challenge: Challenge,
        used: Option<Arc<Tokens>>,
    ) -> Result<(), AuthError> {
        self.in_flow(flow::Trigger::Refused(challenge), used).await
    }

    fn current(&self) -> Option<Arc<Tokens>> {
        self.oauth
            .shared
            .current
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&self.server)
            .cloned()
    }

    fn set_current(&self, tokens: Option<Arc<Tokens>>) {
        let mut current = self
            .oauth
            .shared
            .current
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match tokens {
            Some(tokens) => current.insert(self.server.clone(), tokens),
            None => current.remove(&self.server),
        };
    }

    /// Runs the flow on a task of its own, so that a request given up (a timeout, a
    /// cancellation) does not abandon a user halfway through consenting: the next request
    /// waits for the same flow and takes its token.
    async fn in_flow(
        &self,
        trigger: flow::Trigger,
        used: Option<Arc<Tokens>>,
    ) -> Result<(), AuthError> {
        let session = self.clone();
        tokio::spawn(async move { session.run(trigger, used).await })
            .await
            .map_err(|err| AuthError::UserAgent(format!("the authorization ended: {err}")))?
    }
}

/// Why a body could not be read.
#[derive(Debug, thiserror::Error)]
enum BodyError {
    /// The connection failed while reading it.
    #[error("{}", chain(.0))]
    Read(reqwest::Error),
    /// It is longer than the limit, in bytes.
    #[error("a body over {0} bytes")]
    TooLong(usize),
}

/// A body, read up to `limit` bytes.
async fn read_capped(response: reqwest::Response, limit: usize) -> Result<Vec<u8>, BodyError> {
    use futures_util::StreamExt as _;
    let mut body = Vec::new();
    let mut chunks = response.bytes_stream();
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.map_err(BodyError::Read)?;
        if body.len() + chunk.len() > limit {
            return Err(BodyError::TooLong(limit));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_says_the_oauth_error_else_the_problem_else_the_status() {
        let bad = reqwest::StatusCode::BAD_REQUEST;
        let said = |body: &str| AuthError::token_refused(bad, body.as_bytes()).to_string();
        assert_eq!(
            said(r#"{"error": "invalid_client", "error_description": "who?", "title": "t"}"#),
            "the token endpoint refused: invalid_client (who?)"
        );
        assert_eq!(
            said(r#"{"title": "Bad Request", "detail": "invalid_client: nope"}"#),
            "the token endpoint refused: HTTP 400 Bad Request (invalid_client: nope)"
        );
        assert_eq!(
            said(r#"{"title": "Gone wrong"}"#),
            "the token endpoint refused: HTTP 400 Bad Request (Gone wrong)"
        );
        assert_eq!(
            said("<html>no</html>"),
            "the token endpoint refused: HTTP 400 Bad Request"
        );
    }
}
