//! What the handshake's streamable HTTP (2025-06-18, 2025-11-25) keeps of a session between
//! its requests, in a store that every replica behind a balancer may share: the revision
//! negotiated at `initialize`, the capabilities and the `clientInfo` the client declared,
//! the log level it set, the resources it subscribed to, and whom it belongs to.
//!
//! A request that names a session the store does not hold (never opened, ended, or idle
//! past [`SessionLimits::idle`]) gets 404, as the specification prescribes, and its client
//! opens a new one. A session opened by an OAuth subject is that subject's alone: another's
//! request naming it gets the same 404, so that an id cannot be tried for.
//!
//! The store is [`SessionStore::memory`] for one process, or [`SessionStore::redis`] for
//! every replica of a server (feature `redis`). What cannot be shared, an open stream of
//! notifications, stays with the replica that holds it (`Streams`).
//!
//! The 2026-07-28 revision keeps nothing: each request carries its own level and
//! capabilities.

#[cfg(feature = "redis")]
mod bus;
mod event;
mod events;
mod memory;
mod memory_log;
#[cfg(feature = "redis")]
mod recent;
#[cfg(feature = "redis")]
mod redis;
#[cfg(feature = "redis")]
mod redis_log;
mod streams;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use mcp_runtime_core::LoggingLevel;
use serde_json::{Map, Value};

pub(crate) use event::{Event, EventId, EventKind, GET_STREAM, Read, stream_owner};
pub(crate) use events::Events;
pub(crate) use streams::Streams;

/// How long a session may stay unused before it ends, how many one client may hold open,
/// and how many one process keeps in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionLimits {
    /// How long a session unused is kept: 1 hour by default. Every request in it starts
    /// the time again.
    pub idle: Duration,
    /// How many sessions one client may hold open at once: 1,000 by default. A client is
    /// its OAuth subject when the server takes access tokens, else its address (behind a
    /// reverse proxy, the proxy's: raise it there).
    pub per_client: usize,
    /// How many sessions the memory store keeps in all: 100,000 by default. Redis keeps
    /// as many as its memory holds.
    pub total: usize,
    /// How many of a stream's latest SSE events are kept for a client that reconnects
    /// with `Last-Event-ID`: 1,000 by default.
    pub events_per_stream: usize,
    /// How long an SSE event is kept for a client that reconnects: 5 minutes by default.
    pub events_age: Duration,
    /// How many bytes the SSE events kept in memory take in all, their data and
    /// 160 bytes each for what keeps them: 16 MiB by default; past it, the oldest go
    /// first. Redis keeps as many as its memory holds.
    pub events_memory: usize,
    /// How long a session's `GET /mcp` stream lasts before the server closes it: none by
    /// default. Its client reconnects, with the last event's id, and misses nothing (the
    /// events are kept); on the way, behind a load balancer, the stream may move to
    /// another replica, so that streams spread over the replicas as they come and go.
    pub stream_lifetime: Option<Duration>,
}

impl Default for SessionLimits {
    fn default() -> Self {
        Self {
            idle: Duration::from_secs(60 * 60),
            per_client: 1_000,
            total: 100_000,
            events_per_stream: 1_000,
            events_age: Duration::from_secs(5 * 60),
            events_memory: 16 << 20,
            stream_lifetime: None,
        }
    }
}

impl SessionLimits {
    /// These limits, with sessions unused for `idle` ended.
    #[must_use]
    pub fn with_idle(mut self, idle: Duration) -> Self {
        self.idle = idle;
        self
    }

    /// These limits, with at most `per_client` sessions open for one client.
    #[must_use]
    pub fn with_per_client(mut self, per_client: usize) -> Self {
        self.per_client = per_client;
        self
    }

    /// These limits, with at most `total` sessions kept in memory.
    #[must_use]
    pub fn with_total(mut self, total: usize) -> Self {
        self.total = total;
        self
    }

    /// These limits, with at most `per_stream` of a stream's SSE events kept, none for
    /// longer than `age`.
    #[must_use]
    pub fn with_events(mut self, per_stream: usize, age: Duration) -> Self {
        self.events_per_stream = per_stream;
        self.events_age = age;
        self
    }

    /// These limits, with each session's `GET /mcp` stream closed after `lifetime`.
    #[must_use]
    pub fn with_stream_lifetime(mut self, lifetime: Duration) -> Self {
        self.stream_lifetime = Some(lifetime);
        self
    }

    /// These limits, with the SSE events kept in memory taking at most `bytes`.
    #[must_use]
    pub fn with_events_memory(mut self, bytes: usize) -> Self {
        self.events_memory = bytes;
        self
    }
}

/// Why the session store could not do what a request needed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SessionError {
    /// The store did not answer (Redis is down, or too slow): the request may be tried
    /// again.
    #[error("the session store at {store} is unavailable: {reason}")]
    Unavailable {
        /// The store, its password left out.
        store: String,
        /// What failed.
        reason: String,
    },
    /// One client already holds as many sessions as it may.
    #[error(
        "this client already holds {open} open sessions, the most one client may: end one \
         (DELETE /mcp with its Mcp-Session-Id) or let one expire"
    )]
    TooManyForClient {
        /// How many it holds.
        open: usize,
    },
    /// The memory store holds as many sessions as it may.
    #[error("the server holds {0} open sessions, the most it keeps: try again later")]
    Full(usize),
    /// The store's address is none, or it could not be reached at startup.
    #[error("session store: {0}")]
    Config(String),
    /// A record in the store cannot be read back.
    #[error("session `{id}` in {store} cannot be read: {reason}")]
    Unreadable {
        /// The session.
        id: String,
        /// The store.
        store: String,
        /// What is wrong with it.
        reason: String,
    },
}

/// What is known of one session.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct SessionRecord {
    /// The revision negotiated at `initialize`.
    pub(crate) revision: String,
    /// What it declared at `initialize`.
    pub(crate) capabilities: Option<Arc<Map<String, Value>>>,
    /// Its `clientInfo`.
    pub(crate) client_info: Option<Value>,
    /// The least severe log messages it wants.
    pub(crate) log_level: Option<LoggingLevel>,
    /// The resources it subscribed to.
    pub(crate) subscriptions: BTreeSet<String>,
    /// The OAuth subject that opened it, whose alone it is.
    pub(crate) subject: Option<String>,
    /// Whom its place among a client's sessions counts against: the subject, else the
    /// client's address.
    pub(crate) client: String,
}

impl SessionRecord {
    /// Whether a request from `subject` (the subject of its access token, if any) may use
    /// the session.
    pub(crate) fn belongs_to(&self, subject: Option<&str>) -> bool {
        self.subject.as_deref() == subject
    }
}

/// A change to a session the requests make after `initialize`.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Change<'a> {
    /// `logging/setLevel`.
    Level(LoggingLevel),
    /// `resources/subscribe` (true) or `resources/unsubscribe` (false) of a URI.
    Subscribe(&'a str, bool),
}

/// Where the handshake's sessions are kept: in this process, or in Redis for every replica.
///
/// Cloning it is cheap and shares the store.
#[derive(Clone)]
pub struct SessionStore {
    kind: Kind,
    limits: SessionLimits,
    /// The logs of the sessions' SSE streams, where the sessions are.
    events: Arc<Events>,
}

#[derive(Clone)]
enum Kind {
    Memory(Arc<memory::Memory>),
    #[cfg(feature = "redis")]
    Redis(Arc<redis::RedisSessions>),
}

impl std::fmt::Debug for SessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionStore")
            .field("store", &self.describe())
            .field("limits", &self.limits)
            .finish()
    }
}

impl Default for SessionStore {
    fn default() -> Self {
        Self::memory(SessionLimits::default())
    }
}

impl SessionStore {
    /// Sessions kept in this process: a request that reaches another replica (a balancer
    /// without affinity) finds no session there and gets 404.
    #[must_use]
    pub fn memory(limits: SessionLimits) -> Self {
        Self {
            kind: Kind::Memory(Arc::new(memory::Memory::default())),
            limits,
            events: Arc::new(Events::memory(limits)),
        }
    }

    /// Sessions kept in the Redis at `url` (`redis://HOST:PORT`), under `namespace`, shared
    /// by every replica that names the same: any of them answers any session's request.
    ///
    /// # Errors
    ///
    /// [`SessionError::Config`] when `url` is no Redis address, `namespace` is empty, or
    /// Redis cannot be reached.
    #[cfg(feature = "redis")]
    pub async fn redis(
        url: &str,
        namespace: &str,
        limits: SessionLimits,
    ) -> Result<Self, SessionError> {
        let store = redis::RedisSessions::connect(url, namespace).await?;
        let logs = redis_log::RedisLogs::new(
            store.commands().clone(),
            namespace,
            store.describe().to_owned(),
        )
        .await?;
        let events = Arc::new(Events::redis(Arc::new(logs), limits));
        Ok(Self {
            kind: Kind::Redis(Arc::new(store)),
            limits,
            events,
        })
    }

    /// Its limits.
    #[must_use]
    pub fn limits(&self) -> SessionLimits {
        self.limits
    }

    /// The logs of its sessions' SSE streams.
    pub(crate) fn events(&self) -> &Arc<Events> {
        &self.events
    }

    /// Where it keeps sessions, its password left out: `memory`, or a Redis address.
    #[must_use]
    pub fn describe(&self) -> String {
        match &self.kind {
            Kind::Memory(_) => "memory".to_owned(),
            #[cfg(feature = "redis")]
            Kind::Redis(redis) => redis.describe().to_owned(),
        }
    }

    /// With sessions in Redis, has `server` tell the other replicas of its changes (a
    /// resource updated, a list changed), and `streams` of subscriptions made, sessions
    /// ended and responses no tool here awaits, and has both hear of theirs. Nothing to do
    /// in memory.
    pub(crate) fn share(&self, server: &Arc<crate::server::Server>, streams: &Arc<Streams>) {
        // The store, as the server knows it: by its logs, which its clones share.
        let store = Arc::as_ptr(&self.events) as usize;
        match &self.kind {
            Kind::Memory(memory) => {
                let _ = streams;
                server.share_changes(
                    store,
                    Arc::new(Logged {
                        memory: Arc::clone(memory),
                        events: Arc::clone(&self.events),
                    }),
                );
            }
            #[cfg(feature = "redis")]
            Kind::Redis(redis) => {
                if tokio::runtime::Handle::try_current().is_err() {
                    tracing::warn!(
                        "the HTTP router was made outside a tokio runtime: changes are not \
                         shared with the other replicas"
                    );
                    return;
                }
                let (connection, channel, description, recent) = redis.bus_parts();
                let bus = bus::Bus::start(
                    connection,
                    channel,
                    description,
                    (
                        Arc::downgrade(server),
                        Arc::clone(streams),
                        recent,
                        Arc::clone(&self.events),
                    ),
                );
                self.events.keep_alive(Arc::downgrade(&bus));
                server.share_changes(
                    store,
                    Arc::clone(&bus) as Arc<dyn crate::server::listen::Fanout>,
                );
                streams.share(Arc::clone(&bus) as Arc<dyn streams::Relay>);
                self.events.share(bus);
            }
        }
    }

    /// Keeps the new session `id`, unless its client holds as many as it may.
    pub(crate) async fn open(&self, id: &str, record: SessionRecord) -> Result<(), SessionError> {
        match &self.kind {
            Kind::Memory(memory) => memory.open(id, record, &self.limits),
            #[cfg(feature = "redis")]
            Kind::Redis(redis) => redis.open(id, &record, &self.limits).await,
        }
    }

    /// The session `id` as [`Self::load`] finds it, when that needs nothing awaited: in
    /// memory, or read from Redis within the last second. `None` when it must be awaited.
    pub(crate) fn load_now(
        &self,
        id: &str,
    ) -> Option<Result<Option<Arc<SessionRecord>>, SessionError>> {
        match &self.kind {
            Kind::Memory(memory) => Some(Ok(memory.load(id, &self.limits))),
            #[cfg(feature = "redis")]
            Kind::Redis(redis) => redis.load_now(id).map(|record| Ok(Some(record))),
        }
    }

    /// The session `id`, if it is open; using it starts its idle time again.
    pub(crate) async fn load(&self, id: &str) -> Result<Option<Arc<SessionRecord>>, SessionError> {
        match &self.kind {
            Kind::Memory(memory) => Ok(memory.load(id, &self.limits)),
            #[cfg(feature = "redis")]
            Kind::Redis(redis) => redis.load(id, &self.limits).await,
        }
    }

    /// Makes `change` to the session `id`; false when it is not open.
    pub(crate) async fn change(&self, id: &str, change: Change<'_>) -> Result<bool, SessionError> {
        match &self.kind {
            Kind::Memory(memory) => Ok(memory.change(id, change, &self.limits)),
            #[cfg(feature = "redis")]
            Kind::Redis(redis) => redis.change(id, change, &self.limits).await,
        }
    }

    /// Ends the session `id`; false when it was not open.
    pub(crate) async fn end(&self, id: &str) -> Result<bool, SessionError> {
        match &self.kind {
            Kind::Memory(memory) => Ok(memory.end(id)),
            #[cfg(feature = "redis")]
            Kind::Redis(redis) => redis.end(id).await,
        }
    }
}

/// What puts a resource's update into the logs of the sessions in memory subscribed to it.
struct Logged {
    memory: Arc<memory::Memory>,
    events: Arc<Events>,
}

impl crate::server::listen::Fanout for Logged {
    fn resource_updated(&self, uri: &str) {
        let sessions = self.memory.subscribers(uri);
        if !sessions.is_empty() {
            self.events.append_here(&sessions, &updated(uri));
        }
    }

    fn list_changed(&self, _: crate::server::listen::ListKind) {}
}

/// `notifications/resources/updated` for `uri`.
pub(crate) fn updated(uri: &str) -> String {
    crate::server::jsonrpc::notification(
        &mcp_runtime_core::method::Method::ResourcesUpdated,
        serde_json::json!({ "uri": uri }),
    )
}

/// What the replicas' changes reach of a server, and what they take from it.
impl crate::server::Server {
    /// Tells the other replicas' change of `kind` to this one's listeners.
    #[cfg(all(feature = "http", feature = "redis"))]
    pub(crate) fn hear_list_changed(&self, kind: crate::server::listen::ListKind) {
        self.listeners.changed(kind);
    }

    /// Tells the other replicas' update of `uri` to this one's listeners.
    #[cfg(all(feature = "http", feature = "redis"))]
    pub(crate) fn hear_resource_updated(&self, uri: &str) {
        self.listeners.updated(uri);
    }

    /// Hands the response `id` to the request a tool sent its client from this process;
    /// whether one awaited it.
    #[cfg(feature = "http")]
    pub(crate) fn deliver_response(&self, id: &str, outcome: Result<Value, Value>) -> bool {
        self.outgoing.deliver(id, outcome)
    }

    /// Has `fanout` tell the sessions of the store known by `store`, and the other
    /// replicas that share it, of the changes made here, unless that store has one already.
    #[cfg(feature = "http")]
    pub(crate) fn share_changes(
        &self,
        store: usize,
        fanout: Arc<dyn crate::server::listen::Fanout>,
    ) {
        self.fanout.add(store, fanout);
    }
}
