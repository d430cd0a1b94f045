//! The client side: call any MCP server's tools as [`MCPToolCall`]s, and get
//! [`MCPToolResult`]s back, as from the local [`Registry`](crate::registry::Registry).
//!
//! A [`Client`] connects to a server ([`ClientBuilder::stdio`] spawns one; [`crate::testing`]
//! connects to a [`Server`](crate::server::Server) in memory), and negotiates the newest
//! revision both speak: 2026-07-28 through `server/discover`, otherwise the `initialize`
//! handshake of 2025-11-25 or 2025-06-18. The same calls work either way; at 2026-07-28
//! the client runs the rounds of a call that needs input (an `InputRequiredResult`)
//! itself, answering with the application's handlers, as it answers the server's own
//! requests on the handshake's revisions.
//!
//! ```no_run
//! # async fn run() -> Result<(), mcp_runtime::client::ClientError> {
//! use mcp_runtime::client::{Client, StdioServer};
//! use mcp_runtime::MCPToolCall;
//!
//! let client = Client::builder()
//!     .stdio(StdioServer::new("npx").args(["-y", "@modelcontextprotocol/server-everything"]))
//!     .await?;
//! for tool in client.list_tools().await? {
//!     println!("{}: {}", tool.name, tool.description.as_deref().unwrap_or(""));
//! }
//! let result = client.call_tool("echo", serde_json::json!({ "message": "hi" })).await?;
//! println!("{result}");
//! # Ok(()) }
//! ```
//!
//! What a server sends that the client cannot use (a malformed or oversized message, a
//! response to nothing, an exit in the middle of a call, silence) is a [`ClientError`] for
//! the caller: never a panic, and never a wait without end (every request has a timeout).

mod gateway;
mod handlers;
mod headers;
mod http;
mod link;
mod listing;
mod manager;
pub mod oauth;
mod refused;
mod request;
mod skills;
mod sse_bound;
mod stdio;
mod tasks;
mod traced;

use std::sync::Arc;
use std::time::Duration;

use mcp_runtime_core::method::Method;
use mcp_runtime_core::{MCPToolCall, MCPToolResult, TaskSupport};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tokio::sync::{broadcast, mpsc};

use crate::talk::Root;
use mcp_runtime_core::wire::{HANDSHAKE_VERSIONS, STATELESS_VERSION};

pub use gateway::{Mounted, follow, follow_managed, mount, mount_managed};
use handlers::Handlers;
pub use handlers::{ElicitRequest, ElicitResponse, HandlerError};
pub use http::HttpServer;
use link::Link;
pub(crate) use link::{Inbound, Outbound, Outlet, Streams};
pub use link::{Notification, RpcError};
pub use manager::{
    ClientManager, ConfigError, Health, Target, servers_from_file, servers_from_json,
};
pub use mcp_runtime_core::skill::{SkillEntry, SkillResource, SkillResources};
pub use refused::{Lookup, Refused};
pub use request::{Listening, Progress, RequestOptions};
use request::{UNSUPPORTED_VERSION, supported};
pub use skills::{ContentsError, EntryError, LoadedSkill, Mismatch, SkillError, SkillFile, Skills};
pub use stdio::StdioServer;

/// How long a request waits for its answer, unless told otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The most rounds a call that needs input (2026-07-28) takes before the client gives up.
pub const DEFAULT_MAX_ROUNDS: usize = 16;

pub use mcp_runtime_core::wire::MAX_MESSAGE_BYTES;

/// Why a request to the server failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The server could not be started or reached.
    #[error("could not connect to the server: {0}")]
    Connect(String),
    /// The connection ended: the server exited or closed it.
    #[error("the connection to the server ended: {0}")]
    Closed(String),
    /// No answer within the request's timeout; the request was cancelled on the server.
    #[error("`{method}` had no answer within {timeout:?}; it was cancelled")]
    Timeout {
        /// The request's method.
        method: String,
        /// How long it waited.
        timeout: Duration,
    },
    /// The server answered with a JSON-RPC error.
    #[error("the server refused the request: {0}")]
    Rpc(RpcError),
    /// The server's HTTP endpoint answered with an error status and no JSON-RPC error.
    #[error("the server answered HTTP {status}: {body}")]
    Http {
        /// The status.
        status: u16,
        /// The start of the body.
        body: String,
    },
    /// The server sent what the protocol does not allow.
    #[error("the server sent a malformed answer: {0}")]
    Malformed(String),
    /// A call that needs input took more rounds than allowed (2026-07-28).
    #[error("the call still needed input after {0} rounds")]
    TooManyRounds(usize),
    /// No revision both speak.
    #[error("the server speaks none of this client's protocol versions: {0}")]
    Version(String),
    /// The server wants an access token, and the OAuth client could not get one it takes.
    #[error("authorization failed: {0}")]
    Auth(oauth::AuthError),
    /// A call run as a task ended `failed`: the server could not run it (a tool's own
    /// error is a result, not this).
    #[error("task `{task}` failed: {error}")]
    TaskFailed {
        /// The task's id.
        task: String,
        /// What the server said went wrong.
        error: Box<RpcError>,
    },
    /// A call run as a task was cancelled by the server, or by another client.
    #[error("task `{task}` was cancelled{}", reason.as_deref().map(|reason| format!(": {reason}")).unwrap_or_default())]
    TaskCancelled {
        /// The task's id.
        task: String,
        /// Why, if the server said (its `statusMessage`).
        reason: Option<String>,
    },
}

impl ClientError {
    pub(crate) fn closed(reason: &str) -> Self {
        Self::Closed(reason.to_owned())
    }
}

/// A tool as a server lists it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Tool {
    /// Its name, as the server calls it.
    pub name: String,
    /// Its title, if the server gave one.
    #[serde(default)]
    pub title: Option<String>,
    /// What it does.
    #[serde(default)]
    pub description: Option<String>,
    /// The JSON Schema of its arguments.
    #[serde(default = "empty_object")]
    pub input_schema: Value,
    /// The JSON Schema of its structured result, if it declares one.
    #[serde(default)]
    pub output_schema: Option<Value>,
    /// Its annotations (`readOnlyHint`, `idempotentHint`, …).
    #[serde(default)]
    pub annotations: Option<Map<String, Value>>,
    /// The whole entry, as listed.
    #[serde(skip)]
    pub raw: Map<String, Value>,
}

impl Tool {
    /// Whether the tool runs as a task (`execution.taskSupport`): `forbidden` when the
    /// server does not say.
    pub fn task_support(&self) -> TaskSupport {
        match self
            .raw
            .get("execution")
            .and_then(|execution| execution.get("taskSupport"))
            .and_then(Value::as_str)
        {
            Some("required") => TaskSupport::Required,
            Some("optional") => TaskSupport::Optional,
            _ => TaskSupport::Forbidden,
        }
    }
}

fn empty_object() -> Value {
    json!({ "type": "object" })
}

/// Who the server is, and what was negotiated.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ServerInfo {
    /// The revision spoken.
    pub protocol_version: String,
    /// The server's capabilities.
    pub capabilities: Value,
    /// Its name and version (`serverInfo`), when it said.
    pub info: Option<Value>,
    /// Its instructions, when it gave some.
    pub instructions: Option<String>,
}

impl ServerInfo {
    /// Whether the revision is the stateless 2026-07-28.
    pub fn is_stateless(&self) -> bool {
        self.protocol_version == STATELESS_VERSION
    }
}

/// How to connect: the client's name, its handlers, timeouts, the revision to prefer.
#[derive(Debug, Clone)]
pub struct ClientBuilder {
    name: String,
    version: String,
    handlers: Handlers,
    timeout: Duration,
    max_rounds: usize,
    handshake_only: bool,
}

impl Default for ClientBuilder {
    fn default() -> Self {
        Self {
            name: "mcp-runtime".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            handlers: Handlers::default(),
            timeout: DEFAULT_TIMEOUT,
            max_rounds: DEFAULT_MAX_ROUNDS,
            handshake_only: false,
        }
    }
}

impl ClientBuilder {
    /// The name and version the client gives the server (`clientInfo`).
    #[must_use]
    pub fn info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.name = name.into();
        self.version = version.into();
        self
    }

    /// How long each request waits for its answer; [`DEFAULT_TIMEOUT`] unless set.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The most rounds a call that needs input takes; [`DEFAULT_MAX_ROUNDS`] unless set.
    #[must_use]
    pub fn max_rounds(mut self, rounds: usize) -> Self {
        self.max_rounds = rounds.max(1);
        self
    }

    /// Speaks a handshake revision (2025-11-25 or 2025-06-18) even to a server that speaks
    /// 2026-07-28.
    #[must_use]
    pub fn handshake_only(mut self) -> Self {
        self.handshake_only = true;
        self
    }

    /// For a gateway: declares elicitation (form and URL mode), sampling and roots at the
    /// handshake, whatever the handlers, so that the server asks; what it asks during a call
    /// that carries a caller to ask (a mounted tool's call carries its own caller) is asked
    /// of that caller, who may decline or lack the capability: the server is told so. What
    /// it asks outside such a call goes to the handlers, or is refused. [`mount`] passes on
    /// what a 2026-07-28 server asks in any case.
    #[must_use]
    pub fn relay_requests(mut self) -> Self {
        self.handlers.relays = true;
        self
    }

    /// Answers the server's elicitations with `handler`, and declares the capability.
    #[must_use]
    pub fn on_elicitation<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(ElicitRequest) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<ElicitResponse, HandlerError>> + Send + 'static,
    {
        self.handlers.on_elicitation(handler);
        self
    }

    /// Answers the server's `sampling/createMessage` with `handler` (its params in, a
    /// `CreateMessageResult` out), and declares the capability.
    #[must_use]
    pub fn on_sampling<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<Value, HandlerError>> + Send + 'static,
    {
        self.handlers.on_sampling(handler);
        self
    }

    /// Answers the server's `roots/list` with `handler`, and declares the capability.
    #[must_use]
    pub fn on_roots<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<Vec<Root>, HandlerError>> + Send + 'static,
    {
        self.handlers.on_roots(handler);
        self
    }

    /// Spawns `server` and connects to it over its standard input and output.
    pub async fn stdio(self, server: StdioServer) -> Result<Client, ClientError> {
        let (outbox, inbox) = server.spawn()?;
        self.connect(outbox, inbox, Streams::Shared).await
    }

    /// Connects to the streamable HTTP endpoint `server`.
    pub async fn http(self, server: HttpServer) -> Result<Client, ClientError> {
        let (outbox, inbox) = server.spawn()?;
        self.connect(Outlet::channel(outbox), inbox, Streams::PerRequest)
            .await
    }

    /// Connects over a transport that carries one message per item each way, on `streams`.
    pub(crate) async fn connect(
        self,
        outbox: Outlet,
        inbox: mpsc::Receiver<Inbound>,
        streams: Streams,
    ) -> Result<Client, ClientError> {
        let handlers = Arc::new(self.handlers.clone());
        let link = Link::start(outbox, inbox, Arc::clone(&handlers), streams);
        let changes = link.subscribe();
        let mut client = Client {
            link,
            transport: traced::transport_of(streams),
            handlers,
            timeout: self.timeout,
            max_rounds: self.max_rounds,
            client_info: json!({ "name": self.name, "version": self.version }),
            stateless_meta: Map::new(),
            mirrors: std::sync::Mutex::new(std::collections::HashMap::new()),
            task_tools: std::sync::Mutex::new(std::collections::HashSet::new()),
            listings: std::sync::Mutex::new(std::collections::HashMap::new()),
            changes: std::sync::Mutex::new(changes),
            log_level: tokio::sync::Mutex::new(None),
            server: ServerInfo {
                protocol_version: String::new(),
                capabilities: json!({}),
                info: None,
                instructions: None,
            },
        };
        // What every 2026-07-28 request carries, made once.
        client.stateless_meta = [
            (
                "io.modelcontextprotocol/protocolVersion",
                json!(STATELESS_VERSION),
            ),
            (
                mcp_runtime_core::wire::CLIENT_CAPABILITIES_META,
                client.handlers.capabilities(),
            ),
            (
                "io.modelcontextprotocol/clientInfo",
                client.client_info.clone(),
            ),
        ]
        .into_iter()
        .map(|(key, value)| (key.to_owned(), value))
        .collect();
        client.server = client.negotiate(self.handshake_only).await?;
        Ok(client)
    }
}

/// A connection to one MCP server.
pub struct Client {
    link: Arc<Link>,
    /// What carries the requests, as telemetry names it.
    transport: crate::telemetry::Transport,
    handlers: Arc<Handlers>,
    timeout: Duration,
    max_rounds: usize,
    client_info: Value,
    /// The `_meta` every 2026-07-28 request carries.
    stateless_meta: Map<String, Value>,
    server: ServerInfo,
    /// Listings the server said may be kept (`ttlMs`), by method, until when.
    listings: std::sync::Mutex<listing::Kept>,
    /// The server's notifications, read for the list changes that make a kept listing stale.
    changes: std::sync::Mutex<broadcast::Receiver<Notification>>,
    /// What each listed tool's calls mirror into headers (2026-07-28 over HTTP).
    mirrors: std::sync::Mutex<std::collections::HashMap<String, Vec<headers::Mirror>>>,
    /// The tools that run only as tasks (`execution.taskSupport` `required`), as listed or
    /// as the server refused them.
    task_tools: std::sync::Mutex<std::collections::HashSet<String>>,
    /// The least severe log messages the session asked for with `logging/setLevel` (the
    /// handshake's revisions), if it asked; held while asking, so that two requests that
    /// want more do not leave the server at the level of the one asked first.
    log_level: tokio::sync::Mutex<Option<mcp_runtime_core::LoggingLevel>>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("server", &self.server)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// How to connect.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    /// Who the server is, and the revision spoken.
    pub fn server(&self) -> &ServerInfo {
        &self.server
    }

    /// The server's skills (the skills extension): listed, loaded and read, each file
    /// verified against the skill's entry; nothing is read before it is asked for. See
    /// [`Skills`].
    pub fn skills(&self) -> Skills<'_> {
        Skills::new(self)
    }

    /// The server's notifications from now on (`list_changed`, log messages, …).
    ///
    /// The last 256 are kept for each receiver: one that falls further behind is told so,
    /// with [`broadcast::error::RecvError::Lagged`] naming how many it missed, and should
    /// read again what it follows (the client's own listing cache and followers do).
    pub fn notifications(&self) -> broadcast::Receiver<Notification> {
        self.link.subscribe()
    }

    /// Why the connection ended, if it has.
    pub fn ended(&self) -> Option<ClientError> {
        self.link.ended()
    }

    /// Waits until the connection ends; [`ended`](Self::ended) then says why.
    pub async fn closed(&self) {
        self.link.closed().await;
    }

    /// Speaks 2026-07-28 if the server does, else the newest handshake revision it takes.
    async fn negotiate(&self, handshake_only: bool) -> Result<ServerInfo, ClientError> {
        let discovered = if handshake_only {
            None
        } else {
            self.discover().await?
        };
        match discovered {
            Some(info) => Ok(info),
            None => self.handshake().await,
        }
    }

    /// The server as `server/discover` describes it at 2026-07-28, or none when the server
    /// speaks only the handshake's revisions.
    async fn discover(&self) -> Result<Option<ServerInfo>, ClientError> {
        // Twice at most: a 2026-07-28 server that did not take the version asked says which
        // it takes, and the request is made again, as a new one.
        for attempt in 0..2 {
            let discover = self
                .traced_exchange(
                    Method::ServerDiscover.as_str(),
                    self.stateless_params(Map::new()),
                    RequestOptions::default(),
                )
                .await;
            match discover {
                Ok(result) => return Ok(discovered(&result)),
                Err(ClientError::Rpc(error))
                    if error.code == UNSUPPORTED_VERSION
                        && supported(&error).contains(&STATELESS_VERSION)
                        && attempt == 0 => {}
                // A server of the handshake's revisions does not know the method, or
                // refuses its params, or its HTTP endpoint refuses the request: the
                // handshake.
                Err(
                    ClientError::Rpc(_)
                    | ClientError::Http {
                        status: 400 | 404 | 405,
                        ..
                    },
                ) => return Ok(None),
                Err(other) => return Err(other),
            }
        }
        Ok(None)
    }

    /// The handshake of the revisions before 2026-07-28: `initialize`, then `initialized`.
    async fn handshake(&self) -> Result<ServerInfo, ClientError> {
        let mut params = Map::new();
        params.insert("protocolVersion".to_owned(), json!(HANDSHAKE_VERSIONS[0]));
        params.insert("capabilities".to_owned(), self.handlers.capabilities());
        params.insert("clientInfo".to_owned(), self.client_info.clone());
        let result = self
            .traced_exchange(
                Method::Initialize.as_str(),
                params,
                RequestOptions::default(),
            )
            .await?;
        let version = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .ok_or_else(|| {
                ClientError::Malformed(format!(
                    "`{}` answered without `protocolVersion`",
                    Method::Initialize
                ))
            })?;
        if !HANDSHAKE_VERSIONS.contains(&version) {
            return Err(ClientError::Version(format!(
                "it offered {version}; this client speaks {}",
                HANDSHAKE_VERSIONS.join(", ")
            )));
        }
        self.link
            .notify(Method::Initialized.as_str(), json!({}))
            .await?;
        Ok(ServerInfo {
            protocol_version: version.to_owned(),
            capabilities: result
                .get("capabilities")
                .cloned()
                .unwrap_or_else(|| json!({})),
            info: result.get("serverInfo").cloned(),
            instructions: result
                .get("instructions")
                .and_then(Value::as_str)
                .map(str::to_owned),
        })
    }

    /// Whether the server answers: a `ping` on the handshake's revisions, a
    /// `server/discover` at 2026-07-28.
    pub async fn ping(&self) -> Result<(), ClientError> {
        let method = if self.server.is_stateless() {
            Method::ServerDiscover
        } else {
            Method::Ping
        };
        self.request(method.as_str(), Map::new(), RequestOptions::default())
            .await
            .map(|_| ())
    }

    /// Calls `call` on the server: its `tool_name` as the server names the tool.
    pub async fn call(&self, call: &MCPToolCall) -> Result<MCPToolResult, ClientError> {
        self.call_tool_with(
            call.tool_name.as_str(),
            call.arguments.clone(),
            RequestOptions::default(),
        )
        .await
    }

    /// Calls the tool `name` with `arguments` (a JSON object), whatever its name's form.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<MCPToolResult, ClientError> {
        let arguments = match arguments {
            Value::Object(arguments) => arguments,
            Value::Null => Map::new(),
            other => {
                return Ok(MCPToolResult::failure(
                    mcp_runtime_core::MCPErrorDetail::new(
                        mcp_runtime_core::ErrorType::ValidationError,
                        format!("a tool's arguments are a JSON object, not {other}"),
                    ),
                ));
            }
        };
        self.call_tool_with(name, arguments, RequestOptions::default())
            .await
    }

    /// Calls the tool `name` with `arguments` and `options` (timeout, progress, a task).
    ///
    /// A tool that runs only as a task (`execution.taskSupport` `required`, as listed, or as
    /// the server refuses a call that does not declare tasks) is run as one
    /// ([`RequestOptions::as_task`]), and its result awaited: the answer is the same.
    pub async fn call_tool_with(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        options: RequestOptions,
    ) -> Result<MCPToolResult, ClientError> {
        if options.task || self.runs_only_as_task(name) {
            return self.call_as_task(name, arguments, options).await;
        }
        self.call_or_task(name, arguments, options).await
    }

    /// The params of a call of `name` with `arguments`, and what `options` mirror of them
    /// into headers (2026-07-28).
    fn call_params(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        options: &mut RequestOptions,
    ) -> Map<String, Value> {
        if self.server.is_stateless() {
            let mirrors = self
                .mirrors
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if let Some(marked) = mirrors.get(name) {
                options.headers = headers::param_headers(marked, &arguments);
            }
        }
        let mut params = Map::new();
        params.insert("name".to_owned(), json!(name));
        params.insert("arguments".to_owned(), Value::Object(arguments));
        params
    }

    /// Reads the resource at `uri`: its `contents`.
    pub async fn read_resource(&self, uri: &str) -> Result<Vec<Value>, ClientError> {
        let mut params = Map::new();
        params.insert("uri".to_owned(), json!(uri));
        let result = self
            .request(
                Method::ResourcesRead.as_str(),
                params,
                RequestOptions::default(),
            )
            .await?;
        match result.get("contents") {
            Some(Value::Array(contents)) => Ok(contents.clone()),
            _ => Err(ClientError::Malformed(format!(
                "the result of `{}` has no `contents` list",
                Method::ResourcesRead
            ))),
        }
    }

    /// Renders the prompt `name` with `arguments`: the `GetPromptResult`.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<Map<String, Value>, ClientError> {
        let mut params = Map::new();
        params.insert("name".to_owned(), json!(name));
        params.insert("arguments".to_owned(), Value::Object(arguments));
        self.request(
            Method::PromptsGet.as_str(),
            params,
            RequestOptions::default(),
        )
        .await
    }

    /// Completes `argument`'s `value` for `reference` (`{"type": "ref/prompt", "name": …}`
    /// or `{"type": "ref/resource", "uri": …}`): the values the server suggests.
    pub async fn complete(
        &self,
        reference: Value,
        argument: &str,
        value: &str,
    ) -> Result<Vec<String>, ClientError> {
        let mut params = Map::new();
        params.insert("ref".to_owned(), reference);
        params.insert(
            "argument".to_owned(),
            json!({ "name": argument, "value": value }),
        );
        let result = self
            .request(
                Method::CompletionComplete.as_str(),
                params,
                RequestOptions::default(),
            )
            .await?;
        let values = result
            .get("completion")
            .and_then(|completion| completion.get("values"))
            .and_then(Value::as_array)
            .ok_or_else(|| {
                ClientError::Malformed(
                    "the result of `completion/complete` has no `completion.values`".to_owned(),
                )
            })?;
        Ok(values
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect())
    }
}

/// What a `server/discover` result says, if the server speaks 2026-07-28: a result without
/// the version (a server of the handshake's revisions answering any method) does not.
fn discovered(result: &Map<String, Value>) -> Option<ServerInfo> {
    let speaks = result
        .get("supportedVersions")
        .and_then(Value::as_array)
        .is_some_and(|versions| {
            versions
                .iter()
                .any(|version| version.as_str() == Some(STATELESS_VERSION))
        });
    speaks.then(|| ServerInfo {
        protocol_version: STATELESS_VERSION.to_owned(),
        capabilities: result
            .get("capabilities")
            .cloned()
            .unwrap_or_else(|| json!({})),
        // The schema has it in `_meta`; some servers put it beside the capabilities.
        info: result
            .get("_meta")
            .and_then(|meta| meta.get("io.modelcontextprotocol/serverInfo"))
            .or_else(|| result.get("serverInfo"))
            .cloned(),
        instructions: result
            .get("instructions")
            .and_then(Value::as_str)
            .map(str::to_owned),
    })
}

/// At most 200 characters of `text`, for messages.
pub(crate) fn truncate(text: &str) -> String {
    match text.char_indices().nth(200) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// An error and its causes, one after the other: reqwest's own message alone ("error
/// sending request") does not say what failed (a refused connection, a certificate).
pub(crate) fn chain(err: &dyn std::error::Error) -> String {
    let mut said = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let cause_said = cause.to_string();
        if !said.contains(&cause_said) {
            said.push_str(": ");
            said.push_str(&cause_said);
        }
        source = cause.source();
    }
    said
}
