//! The MCP server: a transport-independent JSON-RPC dispatcher over a [`Registry`], and
//! the transports that carry it.
//!
//! Protocol revisions 2025-06-18 and 2025-11-25: `initialize` with version negotiation,
//! `notifications/initialized`, `ping`, `tools/list` (opaque cursors, deterministic order),
//! `tools/call` (with `notifications/progress` when the call carries a `progressToken`),
//! and `notifications/cancelled`. Nothing is kept per connection beyond the calls in
//! flight.

mod catalog;
mod http;
mod jsonrpc;
mod listen;
#[cfg(feature = "oauth")]
mod oauth;
mod peer;
mod rounds;
mod served;
mod sessions;
mod stateless;
pub(crate) mod stdio;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use arc_swap::ArcSwap;

use futures_util::FutureExt;
use mcp_core::wire::CallToolResult;
use mcp_core::{LoggingLevel, MCPToolCall};
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

pub use catalog::RESOURCE_NOT_FOUND;
pub use http::{
    HttpConfig, ParseRateLimitError, RATE_LIMITED, RateLimitConfig, router, serve_http,
};
pub use jsonrpc::{INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR};
#[cfg(feature = "oauth")]
pub use oauth::OAuthConfig;
pub use served::{CacheHints, CacheScope, Changed, LlmNameError, ServedRegistry, ServedView};
use served::{Snapshot, cursor_name, cursor_of};
pub use stateless::{HEADER_MISMATCH, MISSING_CLIENT_CAPABILITY};
pub use stdio::{MAX_IN_FLIGHT, MAX_MESSAGE_BYTES, serve_stdio};

use crate::execute::CallOptions;
use crate::registry::Registry;
use crate::talk::StateKey;
use crate::talk::ask::{Asks, Outgoing, Round, Way};
pub(crate) use jsonrpc::parse;
use jsonrpc::{CallParams, Id, Incoming};
use listen::{ListKind, Listen, ListenGuard, Listeners};
pub(crate) use peer::{Peer, declared_capabilities, set_level, sets_level, subscribes};
pub(crate) use rounds::input_required_result;
use rounds::round_context;
use stateless::{Mirrored, Refusal, Status};

/// The protocol revisions served, newest first.
pub const PROTOCOL_VERSIONS: [&str; 3] = ["2026-07-28", "2025-11-25", "2025-06-18"];

/// The revisions negotiated by `initialize`, newest first.
pub const HANDSHAKE_VERSIONS: [&str; 2] = ["2025-11-25", "2025-06-18"];

/// The stateless revision: no handshake, the version in every request's `_meta`.
pub const STATELESS_VERSION: &str = "2026-07-28";

/// An unknown or unsupported protocol version (2026-07-28).
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// A JSON-RPC error to answer with: code, message, data.
type Fault = (i64, String, Option<Value>);

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
    /// Taken by each change, so that two changes never work from one snapshot.
    changing: Mutex<()>,
    /// Who hears of changes.
    listeners: Arc<Listeners>,
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
    state_key: OnceLock<Result<StateKey, String>>,
    /// The requests tools sent clients on the handshake's revisions, awaiting responses.
    outgoing: Arc<Outgoing>,
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
            listing: OnceLock::new(),
        };
        Self {
            served: ArcSwap::from_pointee(snapshot),
            llm_names: false,
            changing: Mutex::new(()),
            listeners: Arc::default(),
            name,
            version: env!("CARGO_PKG_VERSION").to_owned(),
            page_size: DEFAULT_PAGE_SIZE,
            cache: CacheHints::default(),
            in_flight: Mutex::new(HashMap::new()),
            serial: std::sync::atomic::AtomicU64::new(0),
            state_key: OnceLock::new(),
            outgoing: Arc::default(),
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

    fn state_key(&self) -> Result<&StateKey, String> {
        self.state_key
            .get_or_init(|| StateKey::generate().map_err(|err| err.to_string()))
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
    /// who may share it (2026-07-28); five minutes, public, by default.
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
        self.served = ArcSwap::from_pointee(Snapshot::new(registry, true)?);
        self.llm_names = true;
        Ok(self)
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
            let snapshot = Snapshot::new(ServedRegistry::from(registry), self.llm_names)?;
            self.served.store(Arc::new(snapshot));
            for (changed, kind) in [
                (before.tools != after.tools, ListKind::Tools),
                (before.prompts != after.prompts, ListKind::Prompts),
                (before.resources != after.resources, ListKind::Resources),
            ] {
                if changed {
                    self.listeners.changed(kind);
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
            Incoming::Request { id, method, params } if method == "subscriptions/listen" => {
                self.begin_listen(id, &params, mirrored)
            }
            Incoming::Request { id, method, params } => {
                self.request(&id, &method, &params, mirrored)
            }
            Incoming::Call { id, params } => match self.begin_call(id, params, peer, mirrored) {
                Ok(pending) => self.call_now(pending),
                Err(answer) => Step::Answered(Some(answer)),
            },
        }
    }

    /// Cancels `client`'s call `id`, if it is still running.
    fn cancel(&self, id: &Id, client: &str) {
        let key = in_flight_key(client, &id.key());
        if let Some((_, token)) = self.lock_in_flight().get(&key) {
            token.cancel();
        }
        self.listeners.cancel(&key);
    }

    /// Admits a `subscriptions/listen` request (2026-07-28 only) and reads its filter.
    fn begin_listen(
        &self,
        id: Id,
        params: &Map<String, Value>,
        mirrored: Option<&Mirrored<'_>>,
    ) -> Step {
        let method = "subscriptions/listen";
        let refused = match admit(method, params.get("_meta"), mirrored) {
            Ok(true) => match Listen::read(id.clone(), params) {
                Ok(listen) => return Step::Listen(Box::new(listen)),
                Err(message) => Answer::refused(
                    &id,
                    ((jsonrpc::INVALID_PARAMS, message, None), Status::BadRequest),
                ),
            },
            Ok(false) => Answer::ok(fault_response(
                &id,
                (
                    jsonrpc::METHOD_NOT_FOUND,
                    format!(
                        "method `{method}` exists at protocol version {STATELESS_VERSION} only"
                    ),
                    None,
                ),
            )),
            Err(refusal) => Answer::refused(&id, refusal),
        };
        Step::Answered(Some(refused))
    }

    /// Starts the stream of a `subscriptions/listen` request from `client`: its
    /// acknowledgement goes to `send` at once, then each change it asked for, until the
    /// guard is dropped or the client cancels the request.
    pub(crate) fn listen(&self, listen: &Listen, client: &str, send: Notifier) -> ListenGuard {
        let key = in_flight_key(client, &listen.id.key());
        self.listeners.listen(listen, key, send)
    }

    /// Tells a connection that completed the handshake of every change to the tool list,
    /// untagged, as the stateful revisions do, until the guard is dropped.
    pub(crate) fn hear_changes(&self, send: Notifier) -> ListenGuard {
        self.listeners.connection(send)
    }

    /// Every request but `tools/call`, answered at once.
    fn request(
        &self,
        id: &Id,
        method: &str,
        params: &Map<String, Value>,
        mirrored: Option<&Mirrored<'_>>,
    ) -> Step {
        let stateless = match admit(method, params.get("_meta"), mirrored) {
            Ok(stateless) => stateless,
            Err(refusal) => return Step::Answered(Some(Answer::refused(id, refusal))),
        };
        let snapshot = self.served.load();
        if let Some(step) = self.catalog(&snapshot, id, method, params, stateless, mirrored) {
            return step;
        }
        let answer = match method {
            "initialize" => self
                .initialize(params)
                .map(|result| self.respond(id, stateless, &result)),
            "server/discover" => Ok(self.respond(id, stateless, &self.discover())),
            "ping" => Ok(self.respond(id, stateless, &Map::new())),
            // The transport that keeps the connection (or the session) records the level.
            "logging/setLevel" if !stateless => {
                set_level(params).map(|_| self.respond(id, stateless, &Map::new()))
            }
            "tools/list" => self
                .list_tools(&snapshot, params, stateless)
                .map(|page| self.respond(id, stateless, &page)),
            _ if stateless => {
                return Step::Answered(Some(Answer::refused(
                    id,
                    stateless::no_such_method(method),
                )));
            }
            _ => Err((
                jsonrpc::METHOD_NOT_FOUND,
                format!("method `{method}` is not supported by this server"),
                None,
            )),
        };
        Step::Answered(Some(match answer {
            Ok(text) => Answer {
                opens_session: method == "initialize",
                ..Answer::ok(text)
            },
            Err(fault) => Answer::ok(fault_response(id, fault)),
        }))
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

    /// `server/discover` (2026-07-28): the versions and capabilities, without a handshake.
    fn discover(&self) -> Value {
        json!({
            "supportedVersions": PROTOCOL_VERSIONS,
            "capabilities": capabilities(),
            "ttlMs": self.cache.ttl_ms(),
            "cacheScope": self.cache.scope,
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
            return Err((
                jsonrpc::INVALID_PARAMS,
                format!("initialize needs {}", wrong.join(", ")),
                None,
            ));
        }
        let requested = params.get("protocolVersion").and_then(Value::as_str);
        let version = match requested {
            Some(requested) if HANDSHAKE_VERSIONS.contains(&requested) => requested,
            _ => HANDSHAKE_VERSIONS[0],
        };
        Ok(json!({
            "protocolVersion": version,
            "capabilities": capabilities(),
            "serverInfo": { "name": self.name, "version": self.version },
        }))
    }

    fn list_tools<'a>(
        &self,
        snapshot: &'a Snapshot,
        params: &Map<String, Value>,
        stateless: bool,
    ) -> Result<ToolPage<'a>, Fault> {
        let invalid = || (jsonrpc::INVALID_PARAMS, "invalid cursor".to_owned(), None);
        let listing = snapshot.listing();
        let start = match params.get("cursor") {
            None | Some(Value::Null) => 0,
            Some(Value::String(cursor)) => {
                let name = cursor_name(cursor).ok_or_else(invalid)?;
                listing.names.binary_search(&name).map_err(|_| invalid())?
            }
            Some(_) => return Err(invalid()),
        };
        let end = listing.tools.len().min(start + self.page_size);
        Ok(ToolPage {
            tools: &listing.tools[start..end],
            next_cursor: listing.names.get(end).map(|next| cursor_of(next)),
            ttl_ms: stateless.then(|| self.cache.ttl_ms()),
            cache_scope: stateless.then_some(self.cache.scope),
        })
    }

    /// Checks a call's parameters and finds its tool; the error answer otherwise.
    fn begin_call(
        &self,
        id: Id,
        params: CallParams,
        peer: &Peer<'_>,
        mirrored: Option<&Mirrored<'_>>,
    ) -> Result<PendingCall, Answer> {
        let stateless = match admit("tools/call", params.meta.as_ref(), mirrored) {
            Ok(stateless) => stateless,
            Err(refusal) => return Err(Answer::refused(&id, refusal)),
        };
        let invalid = |message: String| {
            Err(Answer::ok(fault_response(
                &id,
                (jsonrpc::INVALID_PARAMS, message, None),
            )))
        };
        let sent_name = match params.name {
            Some(Value::String(name)) => name,
            _ => return invalid("`name` must be the tool's name".to_owned()),
        };
        if stateless {
            if let Err(refusal) = stateless::admit_name(&sent_name, mirrored) {
                return Err(Answer::refused(&id, refusal));
            }
        }
        let snapshot = self.served.load_full();
        let name = match &snapshot.llm_names {
            Some(names) => match names.to_canonical.get(&sent_name) {
                Some(canonical) => canonical.clone(),
                None => return invalid(format!("Unknown tool: {sent_name}")),
            },
            None => sent_name.clone(),
        };
        let arguments = match params.arguments {
            None => Map::new(),
            Some(Value::Object(arguments)) => arguments,
            Some(_) => return invalid("`arguments` must be an object".to_owned()),
        };
        // The registry's own name: a valid name, not checked again.
        let call = match snapshot.registry.get(&name) {
            Some(tool) if tool.is_enabled() => {
                // A caller an access token describes needs every scope the tool asks.
                if let Some(caller) = peer.auth.as_deref() {
                    let needed = tool.definition().scopes();
                    if !needed.iter().all(|scope| caller.has_scope(scope)) {
                        return Err(Answer::insufficient_scope(&id, needed, caller));
                    }
                }
                if stateless {
                    let admitted = stateless::admit_call(
                        tool.definition(),
                        &arguments,
                        params.meta.as_ref(),
                        mirrored,
                    );
                    if let Err(refusal) = admitted {
                        return Err(Answer::refused(&id, refusal));
                    }
                } else if let Some(declared) = &peer.capabilities {
                    // The handshake's client declared its capabilities once, at
                    // `initialize`: a tool that needs one it lacks does not run.
                    if let Err(fault) = stateless::requires(tool.definition(), declared) {
                        return Err(Answer::ok(fault_response(&id, fault)));
                    }
                }
                MCPToolCall {
                    tool_name: tool.name().clone(),
                    arguments,
                }
            }
            _ => return invalid(format!("Unknown tool: {sent_name}")),
        };
        let meta = match params.meta {
            Some(Value::Object(meta)) => Some(meta),
            _ => None,
        };
        // At 2026-07-28 each request says what it wants logged; on the handshake's
        // revisions the connection said it once (`logging/setLevel`).
        let log_level = if stateless {
            meta.as_ref().and_then(stateless::log_level)
        } else {
            peer.log_level
        };
        // At 2026-07-28 a call that asks the client is answered over rounds. A tool that
        // cannot ask (it cannot await) takes no round: nothing to bind, seal or open.
        let may_ask = snapshot
            .registry
            .get(call.tool_name.as_str())
            .is_some_and(|tool| tool.may_ask() || snapshot.registry.asks_user_before(tool));
        let asks = if stateless && may_ask {
            let context = round_context("tools/call", &sent_name, &call.arguments);
            let retry = params.retry.map(|retry| *retry).unwrap_or_default();
            match self.round(&context, retry.input_responses, retry.request_state) {
                Ok(round) => Some(Arc::new(Asks {
                    capabilities: meta
                        .as_ref()
                        .and_then(|meta| meta.get(stateless::CLIENT_CAPABILITIES_KEY))
                        .and_then(Value::as_object)
                        .map(|capabilities| Arc::new(capabilities.clone())),
                    way: Way::Round { round, context },
                })),
                Err(message) => return invalid(message),
            }
        } else {
            None
        };
        let capabilities = if stateless {
            None
        } else {
            peer.capabilities.clone()
        };
        Ok(PendingCall {
            snapshot,
            id,
            stateless,
            call,
            meta,
            log_level,
            asks,
            capabilities,
            client: peer.client.to_owned(),
            auth: peer.auth.clone(),
        })
    }

    /// Runs an inline call that reports no progress right here; any other is left to
    /// [`Server::finish`].
    fn call_now(&self, pending: PendingCall) -> Step {
        let reports_progress = pending.reports();
        let registry = &pending.snapshot.registry;
        let inline = registry
            .get(pending.call.tool_name.as_str())
            .is_some_and(|tool| tool.runs_inline() && !registry.asks_user_before(tool));
        if reports_progress || !inline {
            return Step::Call(Box::new(pending));
        }
        let mut options = CallOptions::new();
        if let Some(meta) = pending.meta {
            options = options.with_meta(meta);
        }
        if let Some(auth) = pending.auth {
            options = options.with_auth(auth);
        }
        // An inline tool runs to its end within the first poll: there is nothing to await,
        // and nothing a cancellation could stop.
        match pending
            .snapshot
            .registry
            .call_with(pending.call, options)
            .now_or_never()
        {
            Some(result) => Step::Answered(Some(Answer::ok(self.respond(
                &pending.id,
                pending.stateless,
                &CallToolResult::from(result),
            )))),
            None => Step::Answered(Some(Answer::ok(fault_response(
                &pending.id,
                (
                    jsonrpc::INTERNAL_ERROR,
                    "an inline tool did not finish at once".to_owned(),
                    None,
                ),
            )))),
        }
    }

    /// Runs a call that must be awaited; `None` when the client cancelled it, as MCP asks
    /// that a cancelled call not be answered.
    pub(crate) async fn finish(
        &self,
        pending: Box<PendingCall>,
        notify: Option<Notifier>,
    ) -> Option<String> {
        let PendingCall {
            snapshot,
            id,
            stateless,
            call,
            meta,
            log_level,
            mut asks,
            capabilities,
            client,
            auth,
        } = *pending;
        // The handshake's revisions: a tool's asks are requests on the call's stream.
        if let (None, Some(capabilities)) = (&asks, capabilities) {
            asks = Some(Arc::new(Asks {
                // Shared with the connection's, not copied for each call.
                capabilities: Some(capabilities),
                way: Way::Send {
                    send: notify.clone(),
                    outgoing: Arc::clone(&self.outgoing),
                },
            }));
        }
        let token = CancellationToken::new();
        let mut options = CallOptions::new().with_cancellation(token.clone());
        if let (Some(least), Some(notify)) = (log_level, &notify) {
            let notify = Arc::clone(notify);
            options = options.with_log(least, move |message| {
                notify(jsonrpc::notification(
                    "notifications/message",
                    json!(message),
                ));
            });
        }
        if let Some(meta) = meta {
            if let (Some(progress_token), Some(notify)) = (meta.get("progressToken"), notify) {
                let progress_token = progress_token.clone();
                options = options.with_progress(move |report| {
                    let mut params = json!({
                        "progressToken": progress_token,
                        "progress": report.progress,
                    });
                    if let Some(total) = report.total {
                        params["total"] = json!(total);
                    }
                    if let Some(message) = report.message {
                        params["message"] = json!(message);
                    }
                    notify(jsonrpc::notification("notifications/progress", params));
                });
            }
            options = options.with_meta(meta);
        }
        if let Some(asks) = &asks {
            options = options.with_asks(Arc::clone(asks));
        }
        if let Some(auth) = auth {
            options = options.with_auth(auth);
        }
        let key = in_flight_key(&client, &id.key());
        let serial = self
            .serial
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.lock_in_flight()
            .insert(key.clone(), (serial, token.clone()));
        let result = snapshot.registry.call_with(call, options).await;
        {
            // A client that reused the id of a call in flight replaced its entry: leave
            // the newer one alone.
            let mut in_flight = self.lock_in_flight();
            if in_flight.get(&key).is_some_and(|(mine, _)| *mine == serial) {
                in_flight.remove(&key);
            }
        }
        if token.is_cancelled() {
            return None;
        }
        if let Some(asks) = asks.filter(|asks| asks.round().is_some_and(Round::is_open)) {
            return Some(self.input_required(&id, &asks));
        }
        Some(self.respond(&id, stateless, &CallToolResult::from(result)))
    }

    fn lock_in_flight(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<String, (u64, CancellationToken)>> {
        // A panic while the lock was held leaves the map as it was: keep using it.
        self.in_flight
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
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
}

impl Answer {
    /// An answer taken up as usual: a result, or an error about the request's content.
    pub(crate) fn ok(text: String) -> Self {
        Self {
            text,
            status: Status::Ok,
            opens_session: false,
            scopes_needed: Vec::new(),
        }
    }

    /// The answer to a request refused before it was taken up.
    fn refused(id: &Id, (fault, status): Refusal) -> Self {
        Self {
            text: fault_response(id, fault),
            status,
            opens_session: false,
            scopes_needed: Vec::new(),
        }
    }

    /// A request whose caller lacks some of the scopes `needed`.
    fn insufficient_scope(id: &Id, needed: &[String], caller: &crate::AuthInfo) -> Self {
        let missing: Vec<&str> = needed
            .iter()
            .filter(|scope| !caller.has_scope(scope))
            .map(String::as_str)
            .collect();
        let message = format!(
            "the caller was not granted the scope `{}`, which this needs",
            missing.join("`, `")
        );
        Self {
            text: fault_response(id, (jsonrpc::INVALID_REQUEST, message, None)),
            status: Status::Ok,
            opens_session: false,
            scopes_needed: needed.to_vec(),
        }
    }
}

/// A call checked and ready to run.
pub(crate) struct PendingCall {
    /// What was served when the call came: it runs there, whatever changes meanwhile.
    snapshot: Arc<Snapshot>,
    id: Id,
    stateless: bool,
    call: MCPToolCall,
    meta: Option<Map<String, Value>>,
    /// The least severe log messages the client wants, if it wants any.
    log_level: Option<LoggingLevel>,
    /// A 2026-07-28 call's round: the answers given so far, the asks still open.
    asks: Option<Arc<Asks>>,
    /// What the client declared at `initialize` (the handshake's revisions).
    capabilities: Option<Arc<Map<String, Value>>>,
    /// Who sent it: only they can cancel it.
    client: String,
    /// Who sent it, as its access token says.
    auth: Option<Arc<crate::AuthInfo>>,
}

impl PendingCall {
    /// Whether the call may send notifications before its answer: it asks for progress
    /// reports (its `_meta` has a `progressToken`), or for log messages.
    pub(crate) fn reports(&self) -> bool {
        self.log_level.is_some()
            || self
                .meta
                .as_ref()
                .is_some_and(|meta| meta.contains_key("progressToken"))
            || self.may_ask()
    }

    /// Whether the call is quick to start where it was read: a mounted tool of another
    /// server, whose call, up to its first wait, only writes the request to that server.
    pub(crate) fn starts_at_once(&self) -> bool {
        self.snapshot
            .registry
            .get(self.call.tool_name.as_str())
            .is_some_and(crate::RegisteredTool::starts_at_once)
    }

    /// Whether the call may send the client requests before its answer: a tool that can
    /// await (only those can ask), called on the handshake's revisions by a client that
    /// can answer some request.
    fn may_ask(&self) -> bool {
        self.capabilities.as_ref().is_some_and(|capabilities| {
            ["elicitation", "sampling", "roots"]
                .iter()
                .any(|capability| capabilities.contains_key(*capability))
        }) && self
            .snapshot
            .registry
            .get(self.call.tool_name.as_str())
            .is_some_and(|tool| tool.may_ask() || self.snapshot.registry.asks_user_before(tool))
    }
}

/// The key of a call in flight: a request id means something only to the client that sent it.
fn in_flight_key(client: &str, id: &str) -> String {
    format!("{client} {id}")
}

/// One page of `tools/list`.
#[derive(Serialize)]
struct ToolPage<'a> {
    tools: &'a [Box<RawValue>],
    #[serde(rename = "nextCursor", skip_serializing_if = "Option::is_none")]
    next_cursor: Option<String>,
    #[serde(rename = "ttlMs", skip_serializing_if = "Option::is_none")]
    ttl_ms: Option<u64>,
    #[serde(rename = "cacheScope", skip_serializing_if = "Option::is_none")]
    cache_scope: Option<CacheScope>,
}

/// Admits a request to `method`: whether it speaks the stateless revision, once its
/// `_meta` and the headers its transport mirrored are as that revision, or the handshake's,
/// asks. At every revision `_meta` is an object when given (`null` is read as absent) and
/// its `progressToken` a string or an integer; a stateful request names no protocol version
/// this server does not speak, in `_meta` or in the `MCP-Protocol-Version` header.
pub(crate) fn admit(
    method: &str,
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
    let invalid = |message: &str| {
        Err((
            (jsonrpc::INVALID_PARAMS, message.to_owned(), None),
            Status::BadRequest,
        ))
    };
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
            return Err((
                unsupported_version(&Value::String(version.to_owned())),
                Status::BadRequest,
            ));
        }
    }
    Ok(stateless)
}

/// The `UnsupportedProtocolVersionError` for `requested`.
/// What every server offers: tools, resources (with subscriptions), prompts and
/// completion, each list telling of its changes, and log messages.
fn capabilities() -> Value {
    json!({
        "logging": {},
        "tools": { "listChanged": true },
        "resources": { "subscribe": true, "listChanged": true },
        "prompts": { "listChanged": true },
        "completions": {},
    })
}

pub(crate) fn unsupported_version(requested: &Value) -> Fault {
    let requested = match requested {
        Value::String(version) => version.clone(),
        other => other.to_string(),
    };
    (
        UNSUPPORTED_PROTOCOL_VERSION,
        format!(
            "protocol version `{requested}` is not supported; this server speaks {}",
            PROTOCOL_VERSIONS.join(", ")
        ),
        Some(json!({ "requested": requested, "supported": PROTOCOL_VERSIONS })),
    )
}

pub(crate) fn fault_response(id: &Id, (code, message, data): Fault) -> String {
    jsonrpc::error_response(id, code, &message, data)
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
