//! The streams' logs in Redis (feature `redis`), which every replica reads: each a Redis
//! stream, `{namespace}:events:{session}:{stream}`, whose entries are numbered `0-1`,
//! `0-2`, … (Redis 7 numbers them so), with the fields `k` (what the event is), `t` (when
//! it was added, in ms) and `d` (its data). Adding an event trims the log to its count,
//! drops its entries older than its age, and starts the log's own expiry again: a log
//! unused for its age is gone.
//!
//! A resource update is added, in one script, to the `GET` log of each session subscribed
//! to it: the set `{namespace}:subscribers:{uri}`, which the sessions' scripts keep, and
//! from which a session no longer open is taken out as the update finds it.
//!
//! Each replica marks itself alive, `{namespace}:replica:{id}`, every second, for three:
//! a replica that resumes a call's stream whose replica is gone answers it.

use std::time::Duration;

use redis::Script;
use redis::aio::ConnectionManager;

use super::SessionError;
use super::SessionLimits;
use super::event::{Event, EventKind, Read};
use super::redis::{again_once_dropped, load, millis, subscribers_prefix};

/// The function the scripts that add events share, and the time they add them at.
const APPEND_FN: &str = r"
local function append(log, kind, data, most, age, now)
  local id = redis.call('XADD', log, 'MAXLEN', '=', most, '0-*', 'k', kind, 't', now, 'd', data)
  for _, entry in ipairs(redis.call('XRANGE', log, '-', '+', 'COUNT', 16)) do
    if tonumber(entry[2][4]) > now - age then
      break
    end
    redis.call('XDEL', log, entry[1])
  end
  redis.call('PEXPIRE', log, age)
  return id
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
";

/// KEYS[1] the log. ARGV[1] the event's kind, ARGV[2] its data, ARGV[3] the most kept,
/// ARGV[4] the age (ms). The entry's id.
const APPEND: &str = r"
return append(KEYS[1], ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), now)
";

/// KEYS[1] the URI's subscribers. ARGV[1] the sessions' prefix, ARGV[2] the logs', ARGV[3]
/// the notification, ARGV[4] the most kept, ARGV[5] the age (ms). The sessions it reached.
const UPDATED: &str = r"
local reached = {}
for _, session in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if redis.call('EXISTS', ARGV[1] .. session) == 1 then
    append(ARGV[2] .. session .. ':g', 'm', ARGV[3], ARGV[4], tonumber(ARGV[5]), now)
    reached[#reached + 1] = session
  else
    redis.call('SREM', KEYS[1], session)
  end
end
return reached
";

/// KEYS[1] the log. ARGV[1] the first entry wanted (`0-n`), or empty for none. Nil when
/// the log is not kept, else its last entry's id and the entries wanted.
const READ: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then
  return false
end
local info = redis.call('XINFO', 'STREAM', KEYS[1])
local last = '0-0'
for i = 1, #info, 2 do
  if info[i] == 'last-generated-id' then
    last = info[i + 1]
  end
end
if ARGV[1] == '' then
  return {last, {}}
end
return {last, redis.call('XRANGE', KEYS[1], ARGV[1], '+')}
";

/// How long a replica counts as alive after it last said so.
const ALIVE_FOR: Duration = Duration::from_secs(3);

pub(crate) struct RedisLogs {
    commands: ConnectionManager,
    append: Script,
    updated: Script,
    read: Script,
    /// `{namespace}:events:`.
    log_prefix: String,
    /// `{namespace}:session:`.
    session_prefix: String,
    /// `{namespace}:subscribers:`.
    subscribers_prefix: String,
    /// `{namespace}:replica:`.
    replica_prefix: String,
    description: String,
}

impl RedisLogs {
    pub(crate) async fn new(
        mut commands: ConnectionManager,
        namespace: &str,
        description: String,
    ) -> Result<Self, SessionError> {
        let append = Script::new(&format!("{APPEND_FN}{APPEND}"));
        let updated = Script::new(&format!("{APPEND_FN}{UPDATED}"));
        let read = Script::new(READ);
        load(&mut commands, &[&append, &updated, &read], &description).await?;
        Ok(Self {
            commands,
            append,
            updated,
            read,
            log_prefix: format!("{namespace}:events:"),
            session_prefix: format!("{namespace}:session:"),
            subscribers_prefix: subscribers_prefix(namespace),
            replica_prefix: format!("{namespace}:replica:"),
            description,
        })
    }

    fn log(&self, session: &str, stream: &str) -> String {
        format!("{}{session}:{stream}", self.log_prefix)
    }

    pub(super) async fn append(
        &self,
        session: &str,
        stream: &str,
        kind: EventKind,
        data: &str,
        limits: &SessionLimits,
    ) -> Result<u64, SessionError> {
        let mut invocation = self.append.prepare_invoke();
        invocation
            .key(self.log(session, stream))
            .arg(kind.code())
            .arg(data)
            .arg(limits.events_per_stream.max(1))
            .arg(millis(limits.events_age));
        let id: String = again_once_dropped(&self.commands, &self.description, |mut commands| {
            let invocation = &invocation;
            async move { invocation.invoke_async(&mut commands).await }
        })
        .await?;
        place(&id).ok_or_else(|| self.unreadable(session, &format!("the entry id `{id}`")))
    }

    /// Adds `notification` to the `GET` log of each session subscribed to `uri`; the
    /// sessions it reached.
    pub(crate) async fn updated(
        &self,
        uri: &str,
        notification: &str,
        limits: &SessionLimits,
    ) -> Result<Vec<String>, SessionError> {
        let mut invocation = self.updated.prepare_invoke();
        invocation
            .key(format!("{}{uri}", self.subscribers_prefix))
            .arg(&self.session_prefix)
            .arg(&self.log_prefix)
            .arg(notification)
            .arg(limits.events_per_stream.max(1))
            .arg(millis(limits.events_age));
        again_once_dropped(&self.commands, &self.description, |mut commands| {
            let invocation = &invocation;
            async move { invocation.invoke_async(&mut commands).await }
        })
        .await
    }

    pub(super) async fn read(
        &self,
        session: &str,
        stream: &str,
        after: Option<u64>,
    ) -> Result<Option<Read>, SessionError> {
        let mut invocation = self.read.prepare_invoke();
        invocation
            .key(self.log(session, stream))
            .arg(after.map_or_else(String::new, |after| format!("0-{}", after + 1)));
        type Entries = Vec<(String, Vec<String>)>;
        let read: Option<(String, Entries)> =
            again_once_dropped(&self.commands, &self.description, |mut commands| {
                let invocation = &invocation;
                async move { invocation.invoke_async(&mut commands).await }
            })
            .await?;
        let Some((last, entries)) = read else {
            return Ok(None);
        };
        let last = place(&last)
            .ok_or_else(|| self.unreadable(session, &format!("the last entry id `{last}`")))?;
        let mut events = Vec::with_capacity(entries.len());
        for (id, fields) in entries {
            let event = event(&id, &fields)
                .ok_or_else(|| self.unreadable(session, &format!("the entry `{id}`")))?;
            events.push(event);
        }
        Ok(Some(match after {
            Some(after) => Read::after(after, last, events),
            None => Read {
                last,
                ..Read::default()
            },
        }))
    }

    /// Whether `replica` said it was alive within the last [`ALIVE_FOR`].
    pub(super) async fn alive(&self, replica: &str) -> Result<bool, SessionError> {
        let key = format!("{}{replica}", self.replica_prefix);
        again_once_dropped(&self.commands, &self.description, |mut commands| {
            let key = &key;
            async move {
                redis::cmd("EXISTS")
                    .arg(key)
                    .query_async(&mut commands)
                    .await
            }
        })
        .await
    }

    /// Says, every second until `alive` is dropped, that `replica` is alive.
    pub(crate) fn keep_alive<T: Send + Sync + 'static>(
        &self,
        replica: &str,
        alive: std::sync::Weak<T>,
    ) {
        let key = format!("{}{replica}", self.replica_prefix);
        let mut commands = self.commands.clone();
        let description = self.description.clone();
        tokio::spawn(async move {
            while alive.strong_count() > 0 {
                let said: redis::RedisResult<()> = redis::cmd("SET")
                    .arg(&key)
                    .arg(1)
                    .arg("PX")
                    .arg(millis(ALIVE_FOR))
                    .query_async(&mut commands)
                    .await;
                if let Err(err) = said {
                    tracing::debug!(store = %description, "this replica could not say it is alive: {err}");
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        });
    }

    fn unreadable(&self, session: &str, what: &str) -> SessionError {
        SessionError::Unreadable {
            id: session.to_owned(),
            store: self.description.clone(),
            reason: format!("{what} of its events is not one this server wrote"),
        }
    }
}

/// The place an entry id (`0-n`) gives.
fn place(id: &str) -> Option<u64> {
    id.strip_prefix("0-")?.parse().ok()
}

/// The event an entry keeps.
fn event(id: &str, fields: &[String]) -> Option<Event> {
    let mut kind = None;
    let mut data = None;
    for pair in fields.chunks(2) {
        match pair {
            [field, value] if field == "k" => kind = EventKind::from_code(value),
            [field, value] if field == "d" => data = Some(value.as_str()),
            _ => {}
        }
    }
    Some(Event {
        n: place(id)?,
        kind: kind?,
        data: std::sync::Arc::from(data?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_reads_back_as_its_event() {
        let fields = ["k", "e", "t", "17", "d", "{}"].map(str::to_owned);
        assert_eq!(
            event("0-3", &fields),
            Some(Event {
                n: 3,
                kind: EventKind::Last,
                data: std::sync::Arc::from("{}"),
            })
        );
        assert_eq!(event("5-3", &fields), None);
        assert_eq!(event("0-3", &fields[..2]), None);
    }
}
