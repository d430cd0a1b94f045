//! The MCP server: a transport-independent JSON-RPC dispatcher over a [`Registry`], and
//! the transports that carry it (stdio, and streamable HTTP with the `http` feature).
//!
//! Protocol revisions 2025-06-18 and 2025-11-25 (the `initialize` handshake) and 2026-07-28
//! (stateless: each request carries its protocol version and the client's capabilities in
//! `_meta`), with the tasks extension at each. A message is read once (`jsonrpc.rs`), its
//! method parsed once into a [`Method`], and a request routed by one exhaustive `match`
//! over it (`Server::request`); a `tools/call` comes read into its own fields and goes
//! straight to `call.rs`. Each request a transport takes is also an operation for
//! [`telemetry`](crate::telemetry) (`observe.rs`): begun before it is routed, ended with its
//! answer, and nothing but one atomic load while telemetry is off.
//!
//! What is kept, and where:
//! - by the server, for all its clients: the calls in flight, by client and request id, to
//!   cancel them; the `subscriptions/listen` streams and the connections told of changes
//!   (`listen.rs`); the requests tools sent clients, awaiting their responses; the tasks, in
//!   a [`TaskStore`](crate::tasks::TaskStore) (this process's memory unless one is given).
//! - by the transport, on the handshake's revisions, per stdio connection or HTTP session
//!   (`sessions/`): the capabilities declared at `initialize`, the level of
//!   `logging/setLevel` and the resources subscribed to. A transport hands them in with each
//!   message (`Peer`).
//! - at 2026-07-28, nothing between requests: a request carries its own level and
//!   capabilities, and a call answered over rounds its sealed `requestState`.

pub(crate) mod admission;
mod call;
mod catalog;
mod fault;
mod handshake;
#[cfg(feature = "http")]
mod http;
mod jsonrpc;
mod listen;
mod lists;
#[cfg(feature = "oauth")]
mod oauth;
mod observe;
mod peer;
mod rounds;
mod served;
#[cfg(feature = "http")]
mod sessions;
mod skills;
mod stateless;
pub(crate) mod stdio;
mod tasks;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use arc_swap::ArcSwap;

use mcp_runtime_core::method::Method;
use mcp_runtime_core::wire::CallToolResult;
use mcp_runtime_core::{MCPToolResult, ToolStatus};
use serde::Serialize;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

pub use admission::{BUSY, DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_IN_FLIGHT_PER_CONNECTION};
pub use catalog::RESOURCE_NOT_FOUND;
#[cfg(feature = "http")]
pub use http::{
    HttpConfig, MetricsPathError, ParseRateLimitError, RATE_LIMITED, REQUEST_TARGET,
    RateLimitConfig, StopStreams, check_metrics_path, router, serve_http, stoppable_router,
};
pub use jsonrpc::{INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR};
#[cfg(feature = "oauth")]
pub use oauth::{Introspection, OAuthConfig};
use served::Snapshot;
pub use served::{CacheHints, CacheScope, Changed, LlmNameError, ServedRegistry, ServedView};
#[cfg(feature = "http")]
pub use sessions::{SessionError, SessionLimits, SessionStore};
pub use stateless::{HEADER_MISMATCH, MISSING_CLIENT_CAPABILITY};
pub use stdio::{MAX_IN_FLIGHT, MAX_MESSAGE_BYTES, serve_stdio};

use crate::outbound::Outgoing;
use crate::registry::Registry;
use crate::talk::{StateKey, StateKeyError};
pub(crate) use call::PendingCall;
use fault::Status;
use fault::{Fault, Refusal};
pub(crate) use handshake::{negotiated, unsupported_version};
pub(crate) use jsonrpc::parse;
use jsonrpc::{Id, Incoming};
use listen::{ListKind, Listen, ListenGuard, Listeners};
use lists::Listing;
#[cfg(feature = "http")]
pub(crate) use peer::{Opening, opening};
pub(crate) use peer::{Peer, declared_capabilities, set_level, sets_level, subscribes};
pub(crate) use rounds::input_required_result;
use rounds::round_context;
use stateless::Mirrored;
use tasks::TaskMethod;

pub use mcp_runtime_core::wire::{
    HANDSHAKE_VERSIONS, PROTOCOL_VERSIONS, STATELESS_VERSION, UNSUPPORTED_PROTOCOL_VERSION,
};

/// No key seals the `requestState` of calls answered over rounds: none was given, and none
/// could be made at random for this process. Kept, and given again, for every round.
#[derive(Debug, Clone, thiserror::Error)]
#[error(transparent)]
pub(crate) struct NoStateKey(Arc<StateKeyError>);

/// The default number of tools in one page of `tools/list`.
pub const DEFAULT_PAGE_SIZE: usize = 100;

/// Where the messages a server sends on its own (notifications) go.
pub type Notifier = Arc<dyn Fn(String) + Send + Sync>;

/// An MCP server over a registry; transports hand it one message at a time.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use mcp_runtime::server::Server;
///
/// let server = Server::new(mcp_runtime::Registry::global());
/// let answer = server
///     .handle(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, None)
///     .await
///     .expect("a request is answered");
/// assert_eq!(answer, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
/// # });
/// ```
pub struct Server {
    /// What is served now: replaced whole by every change, so that a request sees one
    /// registry, with the names and listing made from it.
    served: ArcSwap<Snapshot>,
    /// Whether tools are served under names valid for LLM APIs.
    llm_names: bool,
    /// The namespace whose tools are served under their names alone, with LLM names.
    bare: Option<String>,
    /// Whether `tools/list` carries the portable form of each schema.
    portable: bool,
    /// Taken by each change, so that two changes never work from one snapshot.
    changing: Mutex<()>,
    /// Who hears of changes.
    listeners: Arc<Listeners>,
    /// Who tells the other replicas' listeners of the changes made here, once one shares.
    fanout: Arc<listen::Fanouts>,
    /// What a tool's [`ToolContext::notify_resource_updated`](crate::ToolContext::notify_resource_updated)
    /// calls: [`Server::notify_resource_updated`].
    updates: crate::context::UpdateSink,
    name: String,
    version: String,
    page_size: usize,
    cache: CacheHints,
    /// The calls that can be cancelled, by client and request id, each with a serial
    /// number so that a call only ever removes its own entry.
    in_flight: Mutex<HashMap<String, (u64, CancellationToken)>>,
    serial: std::sync::atomic::AtomicU64,
    /// What seals the `requestState` of calls answered over rounds (2026-07-28): given, or
    /// made at random for this process when first needed.
    state_key: OnceLock<Result<StateKey, NoStateKey>>,
    /// The requests tools sent clients on the handshake's revisions, awaiting responses.
    outgoing: Arc<Outgoing>,
    /// The tasks (the tasks extension): in memory unless a store was given.
    tasks: OnceLock<Arc<crate::tasks::engine::Tasks>>,
    /// The places among the requests in flight, from all connections, and the tasks.
    in_flight_places: admission::Places,
    /// How many requests one connection may have in flight.
    per_connection: usize,
}

impl Server {
    /// A server over `registry`, named after the running program.
    pub fn new(registry: impl Into<ServedRegistry>) -> Self {
        let name = std::env::current_exe()
            .ok()
            .and_then(|path| {
                path.file_stem()
                    .map(|stem| stem.to_string_lossy().into_owned())
            })
            .unwrap_or_else(|| "mcp-runtime".to_owned());
        let snapshot = Snapshot {
            registry: registry.into(),
            llm_names: None,
            portable: false,
            listing: OnceLock::new(),
        };
        let listeners: Arc<Listeners> = Arc::default();
        let fanout: Arc<listen::Fanouts> = Arc::default();
        let updates = catalog::update_sink(&listeners, &fanout);
        Self {
            served: ArcSwap::from_pointee(snapshot),
            llm_names: false,
            bare: None,
            portable: false,
            changing: Mutex::new(()),
            listeners,
            fanout,
            updates,
            name,
            version: env!("CARGO_PKG_VERSION").to_owned(),
            page_size: DEFAULT_PAGE_SIZE,
            cache: CacheHints::default(),
            in_flight: Mutex::new(HashMap::new()),
            serial: std::sync::atomic::AtomicU64::new(0),
            state_key: OnceLock::new(),
            outgoing: Arc::default(),
            tasks: OnceLock::new(),
            in_flight_places: admission::Places::new(
                admission::DEFAULT_MAX_IN_FLIGHT,
                admission::Scope::Server,
            ),
            per_connection: admission::DEFAULT_MAX_IN_FLIGHT_PER_CONNECTION,
        }
    }

    /// Seals the `requestState` of calls answered over rounds (2026-07-28) with `key`.
    /// Every replica behind a load balancer needs the same key to open another's state;
    /// without one, each process makes its own at random, and a round must then come
    /// back to the process that answered the round before.
    #[must_use]
    pub fn with_state_key(self, key: StateKey) -> Self {
        let _ = self.state_key.set(Ok(key));
        self
    }

    fn state_key(&self) -> Result<&StateKey, NoStateKey> {
        self.state_key
            .get_or_init(|| StateKey::generate().map_err(|err| NoStateKey(Arc::new(err))))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Sets the name and version the server gives in `initialize`.
    #[must_use]
    pub fn with_info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.name = name.into();
        self.version = version.into();
        self
    }

    /// Sets how long clients may keep what `server/discover` and `tools/list` answer, and
    /// who may share it (2026-07-28); five minutes, public, by default. A caller an OAuth
    /// access token describes is answered `private` all the same.
    #[must_use]
    pub fn with_cache_hints(mut self, hints: CacheHints) -> Self {
        self.cache = hints;
        self
    }

    /// Sets how many tools one page of `tools/list` holds (at least one).
    #[must_use]
    pub fn with_page_size(mut self, page_size: usize) -> Self {
        self.page_size = page_size.max(1);
        self
    }

    /// Serves every tool under a name valid for LLM APIs (`^[a-zA-Z0-9_-]{1,64}$`): its
    /// dots become underscores (`calculator.add` → `calculator_add`), and calls are mapped
    /// back. Refused when two tools would get one name, or a name would be too long; so is a
    /// later change that would make one.
    pub fn with_llm_names(mut self) -> Result<Self, LlmNameError> {
        let registry = self.served.load().registry.clone();
        let snapshot = Snapshot::new(registry, true, self.bare.as_deref())?;
        self.served = ArcSwap::from_pointee(snapshot.with_portable(self.portable));
        self.llm_names = true;
        Ok(self)
    }

    /// Serves each tool's schemas in `tools/list` in their portable form
    /// ([`listing::portable`](crate::listing::portable)): references inlined, for clients
    /// that do not resolve them, and type arrays written as `anyOf`, for Gemini's function
    /// declarations, rather than as generated, less the `format`s JSON Schema does not
    /// define ([`listing::served`](crate::listing::served)). Calls are checked against the
    /// schemas as generated all the same; every form admits the same arguments.
    #[must_use]
    pub fn with_portable_schemas(mut self) -> Self {
        self.portable = true;
        let snapshot = self.served.load().relisted(true);
        self.served = ArcSwap::from_pointee(snapshot);
        self
    }

    /// As [`with_llm_names`](Self::with_llm_names), with the tools of `namespace` served
    /// under their names alone: `app.greet` as `greet`, for clients that expect names
    /// without a namespace.
    pub fn with_llm_names_bare(mut self, namespace: &str) -> Result<Self, LlmNameError> {
        self.bare = Some(namespace.to_owned());
        self.with_llm_names()
    }

    /// The registry served now.
    pub fn registry(&self) -> ServedView {
        ServedView(self.served.load_full())
    }

    /// Changes the registry while the server runs: `change` gets a copy of the registry
    /// served now, edits it ([`Registry::register`], [`Registry::unregister`],
    /// [`Registry::enable`], [`Registry::disable`], [`Registry::mount`], …) and says
    /// whether it changed anything ([`Changed`]). If so, the copy is served from the next
    /// request on, and every client listening for it is sent
    /// `notifications/tools/list_changed`. Calls already running finish with the registry
    /// they began with.
    ///
    /// Refused, with nothing changed, when the server uses names for LLM APIs and the
    /// change would give two tools one name, or a name too long.
    ///
    /// ```
    /// use mcp_runtime::server::Server;
    /// use mcp_runtime::{Registry, ToolDefinition, ToolError};
    ///
    /// let server = Server::new(Registry::builder().build()?);
    /// let schema = serde_json::json!({ "type": "object" }).try_into()?;
    /// let definition = ToolDefinition::new("clock.now", schema)?;
    /// server.change(|registry| {
    ///     registry.register(definition, |_, _| async { Ok::<_, ToolError>(serde_json::json!({})) })
    /// })??;
    /// assert!(server.registry().has_tool("clock.now"));
    /// assert!(server.change(|registry| registry.disable("clock.now"))?);
    /// assert!(!server.registry().get("clock.now").unwrap().is_enabled());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn change<R: Changed>(
        &self,
        change: impl FnOnce(&mut Registry) -> R,
    ) -> Result<R, LlmNameError> {
        let _changing = self
            .changing
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut registry = Registry::clone(&self.served.load().registry);
        let before = registry.versions();
        let outcome = change(&mut registry);
        if outcome.changed() {
            let after = registry.versions();
            let snapshot = Snapshot::new(
                ServedRegistry::from(registry),
                self.llm_names,
                self.bare.as_deref(),
            )?
            .with_portable(self.portable);
            self.served.store(Arc::new(snapshot));
            for (changed, kind) in [
                (before.tools != after.tools, ListKind::Tools),
                (before.prompts != after.prompts, ListKind::Prompts),
                (before.resources != after.resources, ListKind::Resources),
            ] {
                if changed {
                    self.listeners.changed(kind);
                    self.fanout.list_changed(kind);
                }
            }
        }
        Ok(outcome)
    }

    /// Handles one message; the answer to send back, if it was a request (or could not be
    /// read). Notifications the call makes meanwhile (progress) go to `notify`.
    pub async fn handle(&self, message: &[u8], notify: Option<Notifier>) -> Option<String> {
        match jsonrpc::parse(message) {
            Err(refusal) => Some(refusal.into_response()),
            Ok(incoming) => self
                .dispatch_for(incoming, notify, &Peer::default(), None)
                .await
                .map(|answer| answer.text),
        }
    }

    /// Handles one message already read from `client`, which names who may cancel the
    /// calls it makes (over HTTP, where one server has many clients); `mirrored` holds what
    /// the transport carried beside the body (HTTP's headers).
    pub(crate) async fn dispatch_for(
        &self,
        incoming: Incoming,
        notify: Option<Notifier>,
        peer: &Peer<'_>,
        mirrored: Option<&Mirrored<'_>>,
    ) -> Option<Answer> {
        match self.begin_for(incoming, peer, mirrored) {
            Step::Answered(answer) => answer,
            Step::Call(pending) => self.finish(pending, notify).await.map(Answer::ok),
            // A stream needs a transport to carry it: only the acknowledgement here.
            Step::Listen(listen) => Some(Answer::ok(listen.acknowledgement())),
            Step::Await(awaiting) => Some(Answer::ok(self.finish_awaiting(awaiting).await)),
        }
    }

    /// Handles `incoming` from `peer`, with what its transport mirrored, as far as can be
    /// done without waiting: everything but a call to a tool that must be awaited (async,
    /// blocking or dynamic), or that sends notifications before its answer.
    pub(crate) fn begin_for(
        &self,
        incoming: Incoming,
        peer: &Peer<'_>,
        mirrored: Option<&Mirrored<'_>>,
    ) -> Step {
        let client = peer.client;
        match incoming {
            Incoming::Response { id, outcome } => {
                if let Some(id) = id.and_then(|id| id.as_string()) {
                    self.outgoing.deliver(&id, outcome);
                }
                Step::Answered(None)
            }
            Incoming::Cancelled { request_id } => {
                if let Some(id) = request_id {
                    self.cancel(&id, client);
                }
                Step::Answered(None)
            }
            // `notifications/initialized` and the others: nothing to do.
            Incoming::Notification { .. } => Step::Answered(None),
            Incoming::Request { id, method, params } => {
                self.request(id, method, params, peer, mirrored)
            }
            Incoming::Call { id, params } => self.call(id, params, peer, mirrored),
        }
    }

    /// Begins a `tools/call`: run at once when it can be, left to await otherwise.
    fn call(
        &self,
        id: Id,
        params: jsonrpc::CallParams,
        peer: &Peer<'_>,
        mirrored: Option<&Mirrored<'_>>,
    ) -> Step {
        match self.begin_call(id, params, peer, mirrored) {
            Ok(pending) => self.call_now(pending, peer.client),
            Err(answer) => Step::Answered(Some(answer)),
        }
    }

    /// Cancels `client`'s call `id`, if it is still running.
    fn cancel(&self, id: &Id, client: &str) {
        let key = in_flight_key(client, id);
        if let Some((_, token)) = self.lock_in_flight().get(&key) {
            token.cancel();
        }
        self.listeners.cancel(&key);
    }

    /// Tells the listeners that send through `send` every change they may have missed.
    pub(crate) fn resync(&self, send: &Notifier) {
        self.listeners.resync(send);
    }

    /// Tells a connection that completed the handshake of every change to the tool list,
    /// untagged, as the stateful revisions do, until the guard is dropped.
    pub(crate) fn hear_changes(&self, send: Notifier) -> ListenGuard {
        self.listeners.connection(send)
    }

    /// Routes a request by its method, once it is admitted: the one place that names what
    /// the server does for each method MCP defines.
    fn request(
        &self,
        id: Id,
        method: Method,
        params: Map<String, Value>,
        peer: &Peer<'_>,
        mirrored: Option<&Mirrored<'_>>,
    ) -> Step {
        let stateless = match admit(&method, params.get("_meta"), mirrored) {
            Ok(stateless) => stateless,
            Err(refusal) => return Step::Answered(Some(Answer::refused(&id, refusal))),
        };
        let snapshot = self.served.load();
        let request = Request {
            id: &id,
            params: &params,
            stateless,
            peer,
            mirrored,
        };
        let now = |answer| Step::Answered(Some(answer));
        match method {
            Method::Initialize => now(self.handshake(&request)),
            Method::ServerDiscover => now(self.answered(&request, Ok(self.discover(peer)))),
            Method::Ping => now(self.answered(&request, Ok(Map::new()))),
            // The transport that keeps the connection (or the session) records the level.
            Method::LoggingSetLevel => {
                now(self.answered(&request, set_level(&params).map(|_| Map::new())))
            }
            Method::ToolsList => now(self.list(&snapshot, Listing::Tools, &request)),
            Method::ResourcesList => now(self.list(&snapshot, Listing::Resources, &request)),
            Method::ResourceTemplatesList => {
                now(self.list(&snapshot, Listing::ResourceTemplates, &request))
            }
            Method::PromptsList => now(self.list(&snapshot, Listing::Prompts, &request)),
            Method::ResourcesRead => self.read(&snapshot, &request),
            Method::PromptsGet => self.get(&snapshot, &request),
            Method::CompletionComplete => self.completion(&snapshot, &request),
            Method::ResourcesSubscribe => self.subscription(&snapshot, &request, true),
            Method::ResourcesUnsubscribe => self.subscription(&snapshot, &request, false),
            Method::SubscriptionsListen => self.begin_listen(&snapshot, &request),
            Method::SkillsList => now(self.skills_list(&snapshot, &request)),
            Method::SkillsGet => now(self.skills_get(&snapshot, &request)),
            Method::ResourcesDirectoryRead => now(self.directory_read(&snapshot, &request)),
            Method::TasksGet => self.task_request(TaskMethod::Get, &request),
            Method::TasksUpdate => self.task_request(TaskMethod::Update, &request),
            Method::TasksCancel => self.task_request(TaskMethod::Cancel, &request),
            // Read as a request only when built by hand: the reader makes it a call.
            Method::ToolsCall => {
                let params = jsonrpc::CallParams::from_map(params);
                self.call(id.clone(), params, peer, mirrored)
            }
            // What a server sends, or a notification sent as a request: not served.
            Method::SamplingCreateMessage
            | Method::ElicitationCreate
            | Method::RootsList
            | Method::Initialized
            | Method::Cancelled
            | Method::Progress
            | Method::Message
            | Method::ToolsListChanged
            | Method::ResourcesListChanged
            | Method::ResourcesUpdated
            | Method::PromptsListChanged
            | Method::RootsListChanged
            | Method::ElicitationComplete
            | Method::TaskStatus
            | Method::SubscriptionsAcknowledged
            | Method::Other(_) => now(not_served(&id, &method, stateless)),
        }
    }

    /// A success response to `id`; a 2026-07-28 one is marked complete and signed with the
    /// server's identity.
    fn respond<T: Serialize>(&self, id: &Id, stateless: bool, result: &T) -> String {
        #[derive(Serialize)]
        struct Complete<'a, T> {
            #[serde(flatten)]
            result: &'a T,
            #[serde(rename = "resultType")]
            result_type: &'static str,
            #[serde(rename = "_meta")]
            meta: ServerInfoMeta<'a>,
        }
        #[derive(Serialize)]
        struct ServerInfoMeta<'a> {
            #[serde(rename = "io.modelcontextprotocol/serverInfo")]
            server_info: ServerInfo<'a>,
        }
        #[derive(Serialize)]
        struct ServerInfo<'a> {
            name: &'a str,
            version: &'a str,
        }
        if stateless {
            let complete = Complete {
                result,
                result_type: "complete",
                meta: ServerInfoMeta {
                    server_info: ServerInfo {
                        name: &self.name,
                        version: &self.version,
                    },
                },
            };
            jsonrpc::result_response(id, &complete)
        } else {
            jsonrpc::result_response(id, result)
        }
    }

    /// The answer to a `tools/call` that ran: a result with data alone written straight out
    /// ([`jsonrpc::data_call_response`]), any other through its wire form. A 2026-07-28
    /// one puts the server's identity in the result's own `_meta`, beside the error detail
    /// a failure keeps there.
    fn respond_call(&self, id: &Id, stateless: bool, result: MCPToolResult) -> String {
        if let Some(data) = Self::plain_data(&result) {
            let complete = stateless.then_some((self.name.as_str(), self.version.as_str()));
            if let Some(answer) = jsonrpc::data_call_response(id, data, complete) {
                return answer;
            }
        }
        self.respond_wire(id, stateless, result)
    }

    /// The answer to a call whose tool gave `data`, an object's JSON text, and nothing
    /// else: as [`Server::respond_call`] answers with that data.
    fn respond_data(&self, id: &Id, stateless: bool, data: String) -> String {
        let complete = stateless.then_some((self.name.as_str(), self.version.as_str()));
        if let Some(answer) = jsonrpc::data_text_response(id, &data, complete) {
            return answer;
        }
        let result = match serde_json::from_str(&data) {
            Ok(Value::Object(data)) => MCPToolResult::success_data(Some(data)),
            _ => MCPToolResult::failure(mcp_runtime_core::ToolError::execution(
                "the tool's output could not be read back as a JSON object",
            )),
        };
        self.respond_wire(id, stateless, result)
    }

    /// A result's data, when it holds nothing else.
    fn plain_data(result: &MCPToolResult) -> Option<&Map<String, Value>> {
        result.data().filter(|_| {
            result.status() != ToolStatus::Failure
                && result.error().is_none()
                && result.explanation().is_none()
                && result.content().is_empty()
                && result.meta().is_none()
        })
    }

    /// The answer to a call with `result`, through its wire form.
    fn respond_wire(&self, id: &Id, stateless: bool, result: MCPToolResult) -> String {
        #[derive(Serialize)]
        struct Complete<'a> {
            #[serde(flatten)]
            result: &'a CallToolResult,
            #[serde(rename = "resultType")]
            result_type: &'static str,
        }
        let wire = CallToolResult::from(result);
        if stateless {
            let wire = wire.with_meta("io.modelcontextprotocol/serverInfo", self.server_info());
            let complete = Complete {
                result: &wire,
                result_type: "complete",
            };
            return jsonrpc::result_response(id, &complete);
        }
        jsonrpc::result_response(id, &wire)
    }

    /// The answer to `request`: its result, or the fault that stopped it.
    fn answered<T: Serialize>(&self, request: &Request<'_>, answer: Result<T, Fault>) -> Answer {
        Answer::ok(match answer {
            Ok(result) => self.respond(request.id, request.stateless, &result),
            Err(fault) => fault_response(request.id, fault),
        })
    }
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("name", &self.name)
            .field("version", &self.version)
            .field("page_size", &self.page_size)
            .finish_non_exhaustive()
    }
}

/// A request (not a call) as the dispatcher hands it on, its method aside.
#[derive(Clone, Copy)]
struct Request<'a> {
    id: &'a Id,
    params: &'a Map<String, Value>,
    /// Whether it speaks 2026-07-28.
    stateless: bool,
    /// Who sent it.
    peer: &'a Peer<'a>,
    /// What its transport mirrored from its body (HTTP's headers).
    mirrored: Option<&'a Mirrored<'a>>,
}

/// What [`Server::begin_for`] made of a message.
pub(crate) enum Step {
    /// Handled: the answer to send, if any.
    Answered(Option<Answer>),
    /// A call to run with [`Server::finish`].
    Call(Box<PendingCall>),
    /// A `subscriptions/listen` stream to open with [`Server::listen`].
    Listen(Box<Listen>),
    /// A resource read or a prompt to await with [`Server::finish_awaiting`].
    Await(Box<catalog::Awaiting>),
}

/// An answer to send, and the HTTP status it goes with.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) struct Answer {
    /// The JSON-RPC response.
    pub(crate) text: String,
    /// The HTTP status, where the transport has one.
    pub(crate) status: Status,
    /// Whether it completes a stateful `initialize`, which the handshake's streamable
    /// HTTP may answer with a session id.
    pub(crate) opens_session: bool,
    /// The OAuth scopes the request needs and its caller was not granted all of: the
    /// transport answers 403 and names them, where it has a status (HTTP).
    pub(crate) scopes_needed: Vec<String>,
    /// How the request ended, as telemetry records it, where the answer's maker knew it
    /// (a call's result); telemetry reads it from the text otherwise.
    pub(crate) outcome: Option<crate::telemetry::Outcome>,
}

impl Answer {
    /// The answer to a call whose tool answered: the text of `result`, which telemetry
    /// need not read again.
    pub(crate) fn called(text: String, result_failed: bool) -> Self {
        let outcome = if result_failed {
            crate::telemetry::Outcome::ToolError
        } else {
            crate::telemetry::Outcome::Success
        };
        Self {
            outcome: Some(outcome),
            ..Self::ok(text)
        }
    }

    /// An answer taken up as usual: a result, or an error about the request's content.
    pub(crate) fn ok(text: String) -> Self {
        Self {
            text,
            status: Status::Ok,
            opens_session: false,
            scopes_needed: Vec::new(),
            outcome: None,
        }
    }

    /// The answer to a message that does not read, as the transport answers one: 400
    /// where it has a status (HTTP).
    pub(crate) fn unread(refusal: jsonrpc::Refusal) -> Self {
        Self {
            status: Status::BadRequest,
            ..Self::ok(refusal.into_response())
        }
    }

    /// The answer to a request refused before it was taken up.
    fn refused(id: &Id, refusal: Refusal) -> Self {
        Self {
            text: fault_response(id, refusal.fault),
            status: refusal.status,
            opens_session: false,
            scopes_needed: Vec::new(),
            outcome: None,
        }
    }

    /// A request whose caller lacks some of the scopes `needed`.
    fn insufficient_scope(id: &Id, needed: &[String], peer: &Peer<'_>) -> Self {
        let missing: Vec<&str> = needed
            .iter()
            .filter(|scope| {
                !peer
                    .auth
                    .as_deref()
                    .is_some_and(|caller| caller.has_scope(scope))
            })
            .map(String::as_str)
            .collect();
        let message = format!(
            "the caller was not granted the scope `{}`, which this needs",
            missing.join("`, `")
        );
        Self {
            text: fault_response(id, Fault::invalid_request(message)),
            status: Status::Ok,
            opens_session: false,
            scopes_needed: needed.to_vec(),
            outcome: None,
        }
    }
}

/// The answer to a request for a method this server does not serve: at 2026-07-28 refused
/// with 404 over HTTP, as the revision asks.
fn not_served(id: &Id, method: &Method, stateless: bool) -> Answer {
    if stateless {
        return Answer::refused(id, stateless::no_such_method(method));
    }
    Answer::ok(fault_response(
        id,
        Fault::method_not_found(format!("method `{method}` is not supported by this server")),
    ))
}

/// The key of a call in flight: a request id means something only to the client that sent it.
fn in_flight_key(client: &str, id: &Id) -> String {
    let mut key = String::with_capacity(client.len() + 24);
    key.push_str(client);
    key.push(' ');
    id.push_key(&mut key);
    key
}

/// Admits a request to `method`: whether it speaks the stateless revision, once its
/// `_meta` and the headers its transport mirrored are as that revision, or the handshake's,
/// asks. At every revision `_meta` is an object when given (`null` is read as absent) and
/// its `progressToken` a string or an integer; a stateful request names no protocol version
/// this server does not speak, in `_meta` or in the `MCP-Protocol-Version` header.
pub(crate) fn admit(
    method: &Method,
    meta: Option<&Value>,
    mirrored: Option<&Mirrored<'_>>,
) -> Result<bool, Refusal> {
    let stateless = stateless::is_stateless(method, meta, mirrored);
    if stateless {
        stateless::admit(method, meta, mirrored)?;
        if !stateless::has_method(method) {
            return Err(stateless::no_such_method(method));
        }
    }
    let invalid = |message: &str| Err(Refusal::bad_request(Fault::invalid_params(message)));
    let meta = match meta {
        None | Some(Value::Null) => None,
        Some(Value::Object(meta)) => Some(meta),
        Some(_) => return invalid("`_meta` must be an object"),
    };
    if meta
        .and_then(|meta| meta.get("progressToken"))
        .is_some_and(|token| {
            !(token.is_string() || token.as_f64().is_some_and(|number| number.fract() == 0.0))
        })
    {
        return invalid("`_meta.progressToken` must be a string or an integer");
    }
    if !stateless {
        // A version in `_meta` is one the handshake negotiates: any other made the request
        // stateless. The header's is checked here.
        let header = mirrored.and_then(|headers| headers.version);
        if let Some(version) = header.filter(|version| !PROTOCOL_VERSIONS.contains(version)) {
            return Err(Refusal::bad_request(unsupported_version(&Value::String(
                version.to_owned(),
            ))));
        }
    }
    Ok(stateless)
}

/// The JSON-RPC error response to `id` carrying `fault`.
pub(crate) fn fault_response(id: &Id, fault: Fault) -> String {
    fault.response(id)
}

/// Resolves when the process is asked to stop: Ctrl-C, or SIGTERM on Unix.
pub(crate) async fn stop_signal() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {},
        () = terminate => {},
    }
}
