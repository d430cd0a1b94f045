//! The task store every replica of a server shares: Redis (feature `redis`).
//!
//! Each record is a hash, `{namespace}:task:{id}`, with two fields: `v`, its version, and
//! `doc`, the record as JSON. Creating and replacing are Lua scripts, so that the check and
//! the write are one step on the server; a record with an expiry carries it as the key's
//! own (`PEXPIREAT`), so Redis forgets it then. The doorbell is the pub/sub channel
//! `{namespace}:tasks`, its messages the task ids, of which each listener is kept at most
//! [`DOORBELL_CAPACITY`] unread, as by the memory store. One operation is one round trip: a
//! [`load`](TaskStore::load) is an `HMGET`, a [`create`](TaskStore::create) or a
//! [`replace`](TaskStore::replace) one `EVALSHA`, a [`notify`](TaskStore::notify) one
//! `PUBLISH`; so a [`modify`](super::modify) without conflict is two.

use std::time::Duration;

use futures_util::StreamExt;
use redis::aio::{ConnectionManager, ConnectionManagerConfig, PubSubStream};
use redis::{Client, ConnectionAddr, Script};
use tokio::sync::broadcast;

use super::store::{
    DOORBELL_CAPACITY, Doorbell, StoreError, StoreFuture, TaskRecord, TaskStore, Versioned,
    bounded_doorbell,
};

/// The namespace of [`RedisStore::connect`].
pub const DEFAULT_NAMESPACE: &str = "mcp-runtime";

/// How long a connection attempt may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// How long a command may wait for its answer: well under a lease
/// ([`DEFAULT_LEASE`](super::DEFAULT_LEASE)), so that a stuck server is an error while the
/// lease still holds.
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(2);

/// The longest wait between two attempts to subscribe again after the doorbell's
/// connection dropped.
const MAX_RESUBSCRIBE_DELAY: Duration = Duration::from_secs(5);

/// `KEYS[1]` the record's key; `ARGV[1]` the record as JSON; `ARGV[2]` when it expires (ms
/// since the Unix epoch), empty for never. 1 when stored, 0 when the key is taken.
const CREATE: &str = r"
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('HSET', KEYS[1], 'v', '1', 'doc', ARGV[1])
if ARGV[2] ~= '' then
  redis.call('PEXPIREAT', KEYS[1], ARGV[2])
end
return 1
";

/// `KEYS[1]` the record's key; `ARGV[1]` the version expected; `ARGV[2]` the next version;
/// `ARGV[3]` the record as JSON; `ARGV[4]` when it expires, empty for never. 1 when
/// replaced, 0 when the version is another (or the record is gone).
///
/// Versions are compared as the decimal strings this store writes, never as Lua numbers
/// (doubles).
const REPLACE: &str = r"
if redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then
  return 0
end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'doc', ARGV[3])
if ARGV[4] == '' then
  redis.call('PERSIST', KEYS[1])
else
  redis.call('PEXPIREAT', KEYS[1], ARGV[4])
end
return 1
";

/// Task state in Redis, shared by every replica connected to the same server with the same
/// namespace.
///
/// Commands share one multiplexed connection, reconnected when it drops (the command that
/// finds it dropped fails; the next ones go through the new connection), so one store
/// serves any number of tokio tasks at once; cloning it is cheap and shares the connection.
/// Each [`doorbell`](TaskStore::doorbell) has a pub/sub connection of its own, read by a
/// tokio task of its own.
///
/// Redis expires a record by its own clock: replicas whose clocks run behind the server's
/// see records go a little before their [`expires_at`](TaskRecord::expires_at).
#[derive(Clone)]
pub struct RedisStore {
    client: Client,
    commands: ConnectionManager,
    create: Script,
    replace: Script,
    /// `{namespace}:task:`, followed by a task's id.
    key_prefix: String,
    /// `{namespace}:tasks`.
    channel: String,
    /// What [`TaskStore::describe`] says.
    description: String,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("address", &self.description)
            .finish_non_exhaustive()
    }
}

impl RedisStore {
    /// Connects to the Redis at `url` (`redis://` or `unix://`; `rediss://`, TLS, is refused
    /// with an error saying this build has no TLS for Redis), in the namespace
    /// [`DEFAULT_NAMESPACE`].
    ///
    /// # Errors
    ///
    /// When `url` is no Redis address, or Redis cannot be reached there.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        Self::connect_with_namespace(url, DEFAULT_NAMESPACE).await
    }

    /// Connects to the Redis at `url`, keeping records and ringing the doorbell under
    /// `namespace`: apps with different namespaces share a Redis without seeing each
    /// other's tasks; replicas of one app name the same.
    ///
    /// # Errors
    ///
    /// When `url` is no Redis address, `namespace` is empty, or Redis cannot be reached.
    pub async fn connect_with_namespace(url: &str, namespace: &str) -> Result<Self, StoreError> {
        let shown = redact(url);
        let scheme = url.split_once("://").map(|(scheme, _)| scheme);
        if !matches!(scheme, Some("redis" | "rediss" | "unix")) {
            return Err(StoreError::new(format!(
                "`{shown}` is no Redis address: it starts with redis://, rediss:// or unix://"
            )));
        }
        if namespace.is_empty() {
            return Err(StoreError::new("the Redis namespace is empty"));
        }
        let client = Client::open(url).map_err(|err| {
            if scheme == Some("rediss") {
                StoreError::new(format!(
                    "`{shown}`: this build has no TLS for Redis (rediss://); reach Redis by \
                     redis:// on a private network, or through a TLS tunnel ({err})"
                ))
            } else {
                StoreError::new(format!("`{shown}` is no Redis address: {err}"))
            }
        })?;
        let description = format!("{} (namespace {namespace})", address(&client));
        // A refused connection is tried twice more, then reported: a store that is not
        // there at startup is a configuration error, not a blip.
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(CONNECT_TIMEOUT))
            .set_response_timeout(Some(RESPONSE_TIMEOUT))
            .set_number_of_retries(2)
            .set_max_delay(Duration::from_secs(1));
        let mut commands = ConnectionManager::new_with_config(client.clone(), config)
            .await
            .map_err(|err| StoreError::new(format!("cannot connect to Redis at {shown}: {err}")))?;
        let (create, replace) = (Script::new(CREATE), Script::new(REPLACE));
        // Loaded now, so that the first create or replace is one round trip too (a Redis
        // restarted since forgets them; they are loaded again when it says so).
        for script in [&create, &replace] {
            script.load_async(&mut commands).await.map_err(|err| {
                StoreError::new(format!(
                    "Redis at {shown} refuses the store's scripts: {err}"
                ))
            })?;
        }
        Ok(Self {
            client,
            commands,
            create,
            replace,
            key_prefix: format!("{namespace}:task:"),
            channel: format!("{namespace}:tasks"),
            description,
        })
    }

    fn key(&self, id: &str) -> String {
        format!("{}{id}", self.key_prefix)
    }

    fn failed(&self, what: &str, err: &redis::RedisError) -> StoreError {
        StoreError::new(format!("{what} in Redis {}: {err}", self.description))
    }
}

impl TaskStore for RedisStore {
    fn create<'a>(&'a self, record: &'a TaskRecord) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let doc = to_doc(record)?;
            let mut commands = self.commands.clone();
            let stored: bool = self
                .create
                .key(self.key(&record.id))
                .arg(doc)
                .arg(expiry(record))
                .invoke_async(&mut commands)
                .await
                .map_err(|err| self.failed(&format!("creating task `{}`", record.id), &err))?;
            if stored {
                Ok(())
            } else {
                Err(StoreError::new(format!("task id `{}` is taken", record.id)))
            }
        })
    }

    fn load<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<Versioned>> {
        Box::pin(async move {
            let mut commands = self.commands.clone();
            let (version, doc): (Option<String>, Option<String>) = redis::cmd("HMGET")
                .arg(self.key(id))
                .arg("v")
                .arg("doc")
                .query_async(&mut commands)
                .await
                .map_err(|err| self.failed(&format!("reading task `{id}`"), &err))?;
            let (version, doc) = match (version, doc) {
                (None, None) => return Ok(None),
                (Some(version), Some(doc)) => (version, doc),
                _ => {
                    return Err(StoreError::new(format!(
                        "task `{id}` in Redis {} lacks its version or its record",
                        self.description
                    )));
                }
            };
            let version = version.parse::<u64>().map_err(|_| {
                StoreError::new(format!(
                    "task `{id}` in Redis {} has the version `{version}`, no number",
                    self.description
                ))
            })?;
            let record: TaskRecord = serde_json::from_str(&doc).map_err(|err| {
                StoreError::new(format!(
                    "task `{id}` in Redis {} is no task record this runtime reads: {err}",
                    self.description
                ))
            })?;
            if record.id != id {
                return Err(StoreError::new(format!(
                    "task `{id}` in Redis {} holds the record of task `{}`",
                    self.description, record.id
                )));
            }
            Ok(Some(Versioned { record, version }))
        })
    }

    fn replace<'a>(&'a self, record: &'a TaskRecord, expected: u64) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let doc = to_doc(record)?;
            let Some(next) = expected.checked_add(1) else {
                return Ok(false);
            };
            let mut commands = self.commands.clone();
            self.replace
                .key(self.key(&record.id))
                .arg(expected.to_string())
                .arg(next.to_string())
                .arg(doc)
                .arg(expiry(record))
                .invoke_async(&mut commands)
                .await
                .map_err(|err| self.failed(&format!("replacing task `{}`", record.id), &err))
        })
    }

    fn notify<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut commands = self.commands.clone();
            // How many replicas heard it does not matter: none may be listening.
            let _: u64 = redis::cmd("PUBLISH")
                .arg(&self.channel)
                .arg(id)
                .query_async(&mut commands)
                .await
                .map_err(|err| self.failed(&format!("ringing for task `{id}`"), &err))?;
            Ok(())
        })
    }

    /// Subscribes on a pub/sub connection of its own: its future resolves once Redis
    /// confirmed the subscription, so every ring published after is heard.
    ///
    /// A tokio task reads that connection whether or not the doorbell is read, and keeps
    /// at most [`DOORBELL_CAPACITY`] rings for the listener: past it, the oldest are
    /// dropped, as the memory store drops them, where Redis's client alone would keep
    /// every ring published while the listener is busy. A dropped ring is safe: the
    /// runtime reads the records of its tasks at every lease renewal too. Dropping the
    /// doorbell ends the task and closes the connection.
    ///
    /// When that connection drops, the doorbell goes on: it subscribes again, after 0.1 s
    /// and then at growing intervals (at most 5 s) until Redis answers; the rings
    /// published meanwhile are lost, which the store's contract allows. It ends only when
    /// dropped.
    fn doorbell(&self) -> StoreFuture<'_, Doorbell> {
        Box::pin(async move {
            let first = subscribe(&self.client, &self.channel)
                .await
                .map_err(|err| self.failed("subscribing to the doorbell", &err))?;
            let mut listening = Listening {
                client: self.client.clone(),
                channel: self.channel.clone(),
                description: self.description.clone(),
                messages: Some(first),
            };
            let (bell, rings) = broadcast::channel(DOORBELL_CAPACITY);
            tokio::spawn(async move {
                let ringing = async {
                    // An error only once nobody listens.
                    while bell.send(listening.next().await).is_ok() {}
                };
                tokio::select! {
                    () = ringing => {}
                    () = bell.closed() => {}
                }
            });
            Ok(bounded_doorbell(rings))
        })
    }

    fn describe(&self) -> String {
        self.description.clone()
    }
}

/// A doorbell's subscription, and what it takes to subscribe again.
struct Listening {
    client: Client,
    channel: String,
    description: String,
    /// `None` while the connection is lost.
    messages: Option<PubSubStream>,
}

impl Listening {
    /// The next task id rung: subscribing again, at growing intervals, while the
    /// connection is lost.
    async fn next(&mut self) -> String {
        let mut delay = Duration::from_millis(100);
        loop {
            if let Some(messages) = &mut self.messages {
                match messages.next().await {
                    Some(message) => match message.get_payload::<String>() {
                        Ok(id) => return id,
                        Err(err) => {
                            tracing::warn!(store = %self.description, "a doorbell ring that is no task id: {err}");
                        }
                    },
                    None => {
                        tracing::warn!(store = %self.description, "the doorbell's connection dropped; subscribing again");
                        self.messages = None;
                    }
                }
                continue;
            }
            tokio::time::sleep(delay).await;
            match subscribe(&self.client, &self.channel).await {
                Ok(messages) => self.messages = Some(messages),
                Err(err) => {
                    tracing::warn!(store = %self.description, "the doorbell cannot subscribe again yet: {err}");
                    delay = (delay * 2).min(MAX_RESUBSCRIBE_DELAY);
                }
            }
        }
    }
}

/// A new pub/sub connection subscribed to `channel`, once Redis confirmed it.
pub(crate) async fn subscribe(client: &Client, channel: &str) -> redis::RedisResult<PubSubStream> {
    let subscribing = async {
        let mut pubsub = client.get_async_pubsub().await?;
        pubsub.subscribe(channel).await?;
        Ok(pubsub.into_on_message())
    };
    tokio::time::timeout(CONNECT_TIMEOUT + RESPONSE_TIMEOUT, subscribing)
        .await
        .unwrap_or_else(|_| {
            Err(redis::RedisError::from(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "no answer to SUBSCRIBE",
            )))
        })
}

fn to_doc(record: &TaskRecord) -> Result<String, StoreError> {
    serde_json::to_string(record).map_err(|err| {
        StoreError::new(format!(
            "task `{}` cannot be written as JSON: {err}",
            record.id
        ))
    })
}

/// The record's expiry as `PEXPIREAT` takes it, or empty for none.
fn expiry(record: &TaskRecord) -> String {
    record
        .expires_at()
        .map(|at| at.to_string())
        .unwrap_or_default()
}

/// The address `client` connects to, without user name or password.
pub(crate) fn address(client: &Client) -> String {
    let info = client.get_connection_info();
    let db = info.redis_settings().db();
    let host_port = |host: &str, port: u16| {
        if host.contains(':') {
            format!("[{host}]:{port}")
        } else {
            format!("{host}:{port}")
        }
    };
    match info.addr() {
        ConnectionAddr::Tcp(host, port) => format!("redis://{}/{db}", host_port(host, *port)),
        ConnectionAddr::TcpTls { host, port, .. } => {
            format!("rediss://{}/{db}", host_port(host, *port))
        }
        ConnectionAddr::Unix(path) => format!("unix://{}?db={db}", path.display()),
        other => format!("{other}/{db}"),
    }
}

/// `url` without the password it may hold: after the user name, or as a `pass` or
/// `password` query parameter (`unix://`).
pub(crate) fn redact(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let authority = match authority.rsplit_once('@') {
        Some((user_info, host)) => match user_info.split_once(':') {
            Some((user, _)) => format!("{user}:***@{host}"),
            None => format!("{user_info}@{host}"),
        },
        None => authority.to_owned(),
    };
    let tail = match tail.split_once('?') {
        Some((path, query)) => {
            let query: Vec<String> = query
                .split('&')
                .map(|pair| match pair.split_once('=') {
                    Some((name, _)) if name == "pass" || name == "password" => {
                        format!("{name}=***")
                    }
                    _ => pair.to_owned(),
                })
                .collect();
            format!("{path}?{}", query.join("&"))
        }
        None => tail.to_owned(),
    };
    if scheme.is_empty() && !url.contains("://") {
        format!("{authority}{tail}")
    } else {
        format!("{scheme}://{authority}{tail}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_passwords() {
        assert_eq!(
            redact("redis://user:secret@host:6379/2"),
            "redis://user:***@host:6379/2"
        );
        assert_eq!(redact("redis://:secret@host"), "redis://:***@host");
        assert_eq!(redact("rediss://host:6380"), "rediss://host:6380");
        assert_eq!(
            redact("unix:///run/redis.sock?db=1&pass=secret"),
            "unix:///run/redis.sock?db=1&pass=***"
        );
        assert_eq!(redact("http://a:b@c/"), "http://a:***@c/");
        assert_eq!(redact("nonsense"), "nonsense");
    }

    #[test]
    fn describes_without_password() {
        let client = Client::open("redis://user:secret@example.com:6390/3").expect("a URL");
        assert_eq!(address(&client), "redis://example.com:6390/3");
        let client = Client::open("unix:///run/redis.sock?db=2&pass=secret").expect("a URL");
        assert_eq!(address(&client), "unix:///run/redis.sock?db=2");
    }

    #[tokio::test]
    async fn refuses_other_addresses() {
        for url in ["http://user:secret@host/", "localhost:6379", ""] {
            let err = RedisStore::connect(url).await.expect_err(url);
            assert!(err.0.contains("is no Redis address"), "{err}");
            assert!(!err.0.contains("secret"), "{err}");
        }
    }

    #[tokio::test]
    async fn says_it_has_no_tls() {
        let err = RedisStore::connect("rediss://user:secret@example.com:6380/0")
            .await
            .expect_err("no TLS");
        assert!(err.0.contains("no TLS for Redis"), "{err}");
        assert!(!err.0.contains("secret"), "{err}");
    }

    #[tokio::test]
    async fn refuses_an_unreachable_redis_naming_it_without_password() {
        // A port nothing listens on: bound, then released.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let url = format!("redis://user:secret@127.0.0.1:{port}/0");
        let err = RedisStore::connect(&url)
            .await
            .expect_err("nothing listens");
        assert!(
            err.0.contains(&format!(
                "cannot connect to Redis at redis://user:***@127.0.0.1:{port}/0"
            )),
            "{err}"
        );
        assert!(!err.0.contains("secret"), "{err}");
    }
}
