//! Sessions in Redis (feature `redis`), shared by every replica that names the same
//! namespace.
//!
//! A session is a hash, `{namespace}:session:{id}`, whose key expires when the session has
//! been idle for [`SessionLimits::idle`]: fields `rev`, `caps` and `info` (JSON), `level`,
//! `subject`, `client`, and one field `s:{uri}` for each resource it subscribed to. Each
//! client's open sessions are a sorted set, `{namespace}:sessions-of:{client}`, scored by
//! when they expire unused, which the cap counts. A look-up is one round trip (`HGETALL`
//! and `PEXPIRE`, pipelined), at most once a second for a session in use (`recent`);
//! opening, changing and ending are one script each, so that a session ended on one replica
//! is never brought back by a change on another.
//!
//! A session kept in use for longer than the idle time stays open, but no longer counts
//! against its client's cap: the cap is a bound on sessions opened, and then left.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{Client, Script};
use serde_json::Value;

use super::recent::Recent;
use super::{Change, SessionError, SessionLimits, SessionRecord};

/// How long connecting, or an answer, may take before the store counts as unavailable.
const TIMEOUT: Duration = Duration::from_secs(1);

/// KEYS[1] the session; KEYS[2] its client's set. ARGV[1] the id, ARGV[2] the idle time
/// (ms), ARGV[3] the cap, then the record's fields and values. `{1, open}` when kept, `{0,
/// open}` when the client holds its cap.
const OPEN: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local open = redis.call('ZCARD', KEYS[2])
if open >= tonumber(ARGV[3]) then
  return {0, open}
end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], unpack(ARGV, 4))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {1, open + 1}
";

/// KEYS[1] the session. ARGV[1] the field, ARGV[2] its value (empty: the field removed),
/// ARGV[3] the idle time (ms); for a subscription, ARGV[4] the URI's subscribers and ARGV[5]
/// the id. 1 when changed, 0 when the session is not open.
const CHANGE: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
if ARGV[2] == '' then
  redis.call('HDEL', KEYS[1], ARGV[1])
else
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
if ARGV[4] then
  if ARGV[2] == '' then
    redis.call('SREM', ARGV[4], ARGV[5])
  else
    redis.call('SADD', ARGV[4], ARGV[5])
  end
end
return 1
";

/// KEYS[1] the session. ARGV[1] the prefix of the clients' sets, ARGV[2] the id, ARGV[3] the
/// prefix of the URIs' subscribers. 1 when ended, 0 when it was not open.
const END: &str = r"
local client = redis.call('HGET', KEYS[1], 'client')
if not client then
  return 0
end
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(field, 1, 2) == 's:' then
    redis.call('SREM', ARGV[3] .. string.sub(field, 3), ARGV[2])
  end
end
redis.call('DEL', KEYS[1])
redis.call('ZREM', ARGV[1] .. client, ARGV[2])
return 1
";

/// The field that holds a subscription to a URI.
const SUBSCRIBED: &str = "s:";

pub(super) struct RedisSessions {
    /// The sessions read within the last second.
    recent: Arc<Recent>,
    client: Client,
    commands: ConnectionManager,
    open: Script,
    change: Script,
    end: Script,
    /// `{namespace}:changes`, the channel of the replicas' changes.
    channel: String,
    /// `{namespace}:session:`.
    session_prefix: String,
    /// `{namespace}:sessions-of:`.
    client_prefix: String,
    /// `{namespace}:subscribers:`.
    subscribers_prefix: String,
    description: String,
}

impl RedisSessions {
    pub(super) async fn connect(url: &str, namespace: &str) -> Result<Self, SessionError> {
        let shown = crate::tasks::redact_redis_url(url);
        if !matches!(
            url.split_once("://").map(|(scheme, _)| scheme),
            Some("redis" | "unix")
        ) {
            return Err(SessionError::Config(format!(
                "`{shown}` is no Redis address: it starts with redis:// or unix://"
            )));
        }
        if namespace.is_empty() {
            return Err(SessionError::Config(
                "the Redis namespace is empty".to_owned(),
            ));
        }
        let client = Client::open(url)
            .map_err(|err| SessionError::Config(format!("`{shown}` is no Redis address: {err}")))?;
        let description = format!(
            "{} (namespace {namespace})",
            crate::tasks::redis_address(&client)
        );
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(TIMEOUT))
            .set_response_timeout(Some(TIMEOUT))
            .set_number_of_retries(2)
            .set_max_delay(Duration::from_secs(1));
        let mut commands = ConnectionManager::new_with_config(client.clone(), config)
            .await
            .map_err(|err| {
                SessionError::Config(format!("cannot connect to Redis at {shown}: {err}"))
            })?;
        let (open, change, end) = (Script::new(OPEN), Script::new(CHANGE), Script::new(END));
        load(&mut commands, &[&open, &change, &end], &shown).await?;
        Ok(Self {
            recent: Arc::default(),
            client,
            commands,
            open,
            change,
            end,
            channel: format!("{namespace}:changes"),
            session_prefix: format!("{namespace}:session:"),
            client_prefix: format!("{namespace}:sessions-of:"),
            subscribers_prefix: subscribers_prefix(namespace),
            description,
        })
    }

    pub(super) fn describe(&self) -> &str {
        &self.description
    }

    /// Its connection, for the streams' logs kept in the same Redis.
    pub(super) fn commands(&self) -> &ConnectionManager {
        &self.commands
    }

    /// What the replicas' changes go through: its client and connection, the channel, its
    /// description, and the sessions read lately.
    pub(super) fn bus_parts(&self) -> ((Client, ConnectionManager), String, String, Arc<Recent>) {
        (
            (self.client.clone(), self.commands.clone()),
            self.channel.clone(),
            self.description.clone(),
            Arc::clone(&self.recent),
        )
    }

    pub(super) async fn open(
        &self,
        id: &str,
        record: &SessionRecord,
        limits: &SessionLimits,
    ) -> Result<(), SessionError> {
        let mut invocation = self.open.prepare_invoke();
        invocation
            .key(self.key(id))
            .key(format!("{}{}", self.client_prefix, record.client))
            .arg(id)
            .arg(millis(limits.idle))
            .arg(limits.per_client);
        for (field, value) in fields(record) {
            invocation.arg(field).arg(value);
        }
        let (kept, open): (u8, usize) = self
            .again_once_dropped(|mut commands| {
                let invocation = &invocation;
                async move { invocation.invoke_async(&mut commands).await }
            })
            .await?;
        if kept == 1 {
            Ok(())
        } else {
            Err(SessionError::TooManyForClient { open })
        }
    }

    /// The session `id` as read within the last second, if it was.
    pub(super) fn load_now(&self, id: &str) -> Option<Arc<SessionRecord>> {
        self.recent.get(id, Instant::now())
    }

    pub(super) async fn load(
        &self,
        id: &str,
        limits: &SessionLimits,
    ) -> Result<Option<Arc<SessionRecord>>, SessionError> {
        if let Some(record) = self.load_now(id) {
            return Ok(Some(record));
        }
        let read = Instant::now();
        let found = self.read(id, limits).await?.map(Arc::new);
        if let Some(record) = &found {
            self.recent.put(id, Arc::clone(record), read);
        }
        Ok(found)
    }

    /// The session `id` as Redis holds it, its idle time started again.
    async fn read(
        &self,
        id: &str,
        limits: &SessionLimits,
    ) -> Result<Option<SessionRecord>, SessionError> {
        let key = self.key(id);
        let mut pipe = redis::pipe();
        pipe.cmd("HGETALL")
            .arg(&key)
            .cmd("PEXPIRE")
            .arg(&key)
            .arg(millis(limits.idle))
            .ignore();
        let (fields,): (HashMap<String, String>,) = self
            .again_once_dropped(|mut commands| {
                let pipe = &pipe;
                async move { pipe.query_async(&mut commands).await }
            })
            .await?;
        if fields.is_empty() {
            return Ok(None);
        }
        record(fields)
            .map(Some)
            .map_err(|reason| SessionError::Unreadable {
                id: id.to_owned(),
                store: self.description.clone(),
                reason,
            })
    }

    pub(super) async fn change(
        &self,
        id: &str,
        change: Change<'_>,
        limits: &SessionLimits,
    ) -> Result<bool, SessionError> {
        self.recent.forget(id);
        let (field, value) = match change {
            Change::Level(level) => ("level".to_owned(), level.as_str().to_owned()),
            Change::Subscribe(uri, on) => (
                format!("{SUBSCRIBED}{uri}"),
                if on { "1" } else { "" }.to_owned(),
            ),
        };
        let mut invocation = self.change.prepare_invoke();
        invocation
            .key(self.key(id))
            .arg(field)
            .arg(value)
            .arg(millis(limits.idle));
        if let Change::Subscribe(uri, _) = change {
            invocation
                .arg(format!("{}{uri}", self.subscribers_prefix))
                .arg(id);
        }
        let changed: u8 = self
            .again_once_dropped(|mut commands| {
                let invocation = &invocation;
                async move { invocation.invoke_async(&mut commands).await }
            })
            .await?;
        Ok(changed == 1)
    }

    pub(super) async fn end(&self, id: &str) -> Result<bool, SessionError> {
        self.recent.forget(id);
        let mut invocation = self.end.prepare_invoke();
        invocation
            .key(self.key(id))
            .arg(&self.client_prefix)
            .arg(id)
            .arg(&self.subscribers_prefix);
        let ended: u8 = self
            .again_once_dropped(|mut commands| {
                let invocation = &invocation;
                async move { invocation.invoke_async(&mut commands).await }
            })
            .await?;
        Ok(ended == 1)
    }

    async fn again_once_dropped<T, F, Fut>(&self, command: F) -> Result<T, SessionError>
    where
        F: Fn(ConnectionManager) -> Fut,
        Fut: Future<Output = redis::RedisResult<T>>,
    {
        again_once_dropped(&self.commands, &self.description, command).await
    }

    fn key(&self, id: &str) -> String {
        format!("{}{id}", self.session_prefix)
    }
}

/// What `command` answers; sent again, once, when it found the connection dropped (Redis
/// restarted, say): the connection is made anew for the second, so that the first request
/// after Redis returns is answered, not refused. Sent twice, each command of this store
/// leaves Redis as sent once.
pub(super) async fn again_once_dropped<T, F, Fut>(
    commands: &ConnectionManager,
    description: &str,
    command: F,
) -> Result<T, SessionError>
where
    F: Fn(ConnectionManager) -> Fut,
    Fut: Future<Output = redis::RedisResult<T>>,
{
    let unavailable = |err: redis::RedisError| SessionError::Unavailable {
        store: description.to_owned(),
        reason: err.to_string(),
    };
    match command(commands.clone()).await {
        Ok(answer) => Ok(answer),
        Err(err) if err.is_io_error() || err.is_connection_dropped() => {
            command(commands.clone()).await.map_err(unavailable)
        }
        Err(err) => Err(unavailable(err)),
    }
}

/// Loads `scripts` into the Redis at `shown`, so that their first use is one round trip.
pub(super) async fn load(
    commands: &mut ConnectionManager,
    scripts: &[&Script],
    shown: &str,
) -> Result<(), SessionError> {
    for script in scripts {
        script.load_async(commands).await.map_err(|err| {
            SessionError::Config(format!(
                "Redis at {shown} refuses the session store's scripts (Redis 7 is needed): {err}"
            ))
        })?;
    }
    Ok(())
}

/// The prefix of the sets of each URI's subscribers.
pub(super) fn subscribers_prefix(namespace: &str) -> String {
    format!("{namespace}:subscribers:")
}

pub(super) fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis())
        .unwrap_or(u64::MAX)
        .max(1)
}

/// The hash fields a record is kept as.
fn fields(record: &SessionRecord) -> Vec<(String, String)> {
    let mut fields = vec![
        ("rev".to_owned(), record.revision.clone()),
        ("client".to_owned(), record.client.clone()),
    ];
    if let Some(capabilities) = &record.capabilities {
        fields.push((
            "caps".to_owned(),
            Value::Object((**capabilities).clone()).to_string(),
        ));
    }
    if let Some(info) = &record.client_info {
        fields.push(("info".to_owned(), info.to_string()));
    }
    if let Some(level) = record.log_level {
        fields.push(("level".to_owned(), level.as_str().to_owned()));
    }
    if let Some(subject) = &record.subject {
        fields.push(("subject".to_owned(), subject.clone()));
    }
    for uri in &record.subscriptions {
        fields.push((format!("{SUBSCRIBED}{uri}"), "1".to_owned()));
    }
    fields
}

/// The record a hash's `fields` keep, or what is wrong with them.
fn record(fields: HashMap<String, String>) -> Result<SessionRecord, String> {
    let mut record = SessionRecord::default();
    let mut subscriptions = BTreeSet::new();
    for (field, value) in fields {
        match field.as_str() {
            "rev" => record.revision = value,
            "client" => record.client = value,
            "subject" => record.subject = Some(value),
            "caps" => match serde_json::from_str(&value) {
                Ok(Value::Object(capabilities)) => {
                    record.capabilities = Some(Arc::new(capabilities));
                }
                _ => return Err("`caps` is no JSON object".to_owned()),
            },
            "info" => {
                let info = serde_json::from_str(&value)
                    .map_err(|err| format!("`info` is no JSON: {err}"))?;
                record.client_info = Some(info);
            }
            "level" => {
                let level = value
                    .parse()
                    .map_err(|_| format!("`level` is `{value}`, no log level"))?;
                record.log_level = Some(level);
            }
            other => {
                if let Some(uri) = other.strip_prefix(SUBSCRIBED) {
                    subscriptions.insert(uri.to_owned());
                }
            }
        }
    }
    record.subscriptions = subscriptions;
    Ok(record)
}

#[cfg(test)]
mod tests {
    use mcp_runtime_core::LoggingLevel;
    use serde_json::json;

    use super::*;

    #[test]
    fn a_record_reads_back_as_it_was_kept() {
        let Value::Object(capabilities) = json!({ "elicitation": {} }) else {
            unreachable!()
        };
        let kept = SessionRecord {
            revision: "2025-11-25".to_owned(),
            capabilities: Some(Arc::new(capabilities)),
            client_info: Some(json!({ "name": "c", "version": "1" })),
            log_level: Some(LoggingLevel::Notice),
            subscriptions: ["file:///a".to_owned(), "s:odd".to_owned()].into(),
            subject: Some("alice".to_owned()),
            client: "subject:alice".to_owned(),
        };
        let fields = fields(&kept).into_iter().collect();
        assert_eq!(record(fields), Ok(kept));
    }

    #[test]
    fn a_field_that_cannot_be_read_is_named() {
        let fields = [("level".to_owned(), "loud".to_owned())].into();
        assert_eq!(
            record(fields),
            Err("`level` is `loud`, no log level".to_owned())
        );
    }
}
