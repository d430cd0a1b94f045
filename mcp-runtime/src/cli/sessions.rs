//! Where `serve --http` keeps the sessions of the handshake's revisions, and their limits.

use std::time::Duration;

use clap::Args;

use crate::server::{SessionError, SessionLimits, SessionStore};

/// Where `serve --http` keeps the sessions of the handshake's revisions, and their limits.
#[derive(Args, Debug, Clone)]
pub(super) struct SessionArgs {
    /// Where the sessions of 2025-06-18 and 2025-11-25 clients (`Mcp-Session-Id`) are
    /// kept: `memory` (this process, the default) or a Redis URL shared by every replica
    /// behind a load balancer, so that any of them answers any session's request. A
    /// request naming a session the store does not hold gets 404. Redis needs the `redis`
    /// feature.
    #[arg(
        long,
        value_name = "memory|redis://HOST:PORT",
        default_value = "memory",
        requires = "http"
    )]
    session_store: String,
    /// The prefix of the Redis session store's keys, so that several apps share one Redis.
    #[arg(long, value_name = "NAMESPACE", default_value = "mcp-runtime")]
    session_namespace: String,
    /// How long a session unused is kept; each request in it starts the time again.
    #[arg(long, value_name = "DURATION", default_value = "1h", value_parser = idle)]
    session_ttl: Duration,
    /// How many sessions one client (its OAuth subject, else its address) may hold open;
    /// one more `initialize` gets 429.
    #[arg(long, value_name = "N", default_value_t = SessionLimits::default().per_client)]
    sessions_per_client: usize,
    /// How long a session's stream of notifications (`GET /mcp`) lasts before the server
    /// closes it; its client reconnects, with the last event's id, and misses nothing. Behind
    /// a load balancer this spreads the streams over the replicas. None by default.
    #[arg(long, value_name = "DURATION", value_parser = lifetime)]
    session_stream_lifetime: Option<Duration>,
}

/// A `--session-store` that cannot be used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SessionStoreError {
    /// Neither `memory` nor a Redis URL.
    #[error(
        "--session-store `{0}`: a session store is `memory` or a Redis URL (redis://HOST:PORT)"
    )]
    NotAStore(String),
    /// A Redis URL in a program built without the `redis` feature.
    #[cfg(not(feature = "redis"))]
    #[error("--session-store {0}: this program was built without mcp-runtime's `redis` feature")]
    NoRedis(String),
    /// The store could not be reached.
    #[error("--session-store: {0}")]
    Store(#[from] SessionError),
}

/// `--session-ttl`: a duration of at least one second.
fn idle(text: &str) -> Result<Duration, String> {
    a_second_or_more(text, "a session must outlive its requests")
}

/// `--session-stream-lifetime`: a duration of at least one second.
fn lifetime(text: &str) -> Result<Duration, String> {
    a_second_or_more(text, "a client would spend its time reconnecting")
}

/// The duration `text` names, when it is a second or more; else what is wrong, and `why`
/// it matters.
fn a_second_or_more(text: &str, why: &str) -> Result<Duration, String> {
    let duration = humantime::parse_duration(text).map_err(|err| err.to_string())?;
    if duration < Duration::from_secs(1) {
        return Err(format!("`{text}` is under a second: {why}"));
    }
    Ok(duration)
}

impl SessionArgs {
    /// Whether the store is other than the default, which only `--http` can use.
    pub(super) fn given(&self) -> bool {
        self.session_store != "memory"
    }

    /// The store these arguments name, connected.
    pub(super) async fn store(&self) -> Result<SessionStore, SessionStoreError> {
        let mut limits = SessionLimits::default()
            .with_idle(self.session_ttl)
            .with_per_client(self.sessions_per_client);
        if let Some(lifetime) = self.session_stream_lifetime {
            limits = limits.with_stream_lifetime(lifetime);
        }
        let store = self.session_store.as_str();
        if store == "memory" {
            return Ok(SessionStore::memory(limits));
        }
        if !["redis://", "unix://"]
            .iter()
            .any(|scheme| store.starts_with(scheme))
        {
            return Err(SessionStoreError::NotAStore(store.to_owned()));
        }
        #[cfg(feature = "redis")]
        {
            Ok(SessionStore::redis(store, &self.session_namespace, limits).await?)
        }
        #[cfg(not(feature = "redis"))]
        {
            Err(SessionStoreError::NoRedis(store.to_owned()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Command;
    use super::super::tests::parse;

    #[test]
    fn the_session_store_is_memory_unless_told_and_its_ttl_is_checked() {
        let Ok(Command::Serve(serve)) = parse(&["serve", "--http"]) else {
            panic!("serve --http parses");
        };
        assert!(!serve.sessions.given());
        let Ok(Command::Serve(serve)) = parse(&[
            "serve",
            "--http",
            "--session-store",
            "redis://127.0.0.1:1",
            "--session-ttl",
            "90s",
            "--sessions-per-client",
            "3",
        ]) else {
            panic!("the session flags parse");
        };
        assert!(serve.sessions.given());
        assert_eq!(serve.sessions.session_ttl.as_secs(), 90);
        assert_eq!(serve.sessions.sessions_per_client, 3);
        let refused = parse(&["serve", "--http", "--session-ttl", "10ms"])
            .err()
            .expect("a TTL under a second is refused")
            .to_string();
        assert!(refused.contains("under a second"), "{refused}");
        let refused = parse(&["serve", "--http", "--session-stream-lifetime", "500ms"])
            .err()
            .expect("a stream's lifetime under a second is refused")
            .to_string();
        assert!(refused.contains("reconnecting"), "{refused}");
        let refused = parse(&["serve", "--session-store", "redis://127.0.0.1:1"])
            .err()
            .expect("a session store needs --http")
            .to_string();
        assert!(refused.contains("--http"), "{refused}");
    }

    #[tokio::test]
    async fn a_store_that_is_neither_memory_nor_redis_is_named() {
        let Ok(Command::Serve(serve)) =
            parse(&["serve", "--http", "--session-store", "postgres://db"])
        else {
            panic!("parses");
        };
        let refused = serve.sessions.store().await.unwrap_err().to_string();
        assert!(refused.contains("`postgres://db`"), "{refused}");
        assert!(refused.contains("redis://HOST:PORT"), "{refused}");
    }

    #[tokio::test]
    async fn a_sessions_stream_lasts_as_long_as_told() {
        let Ok(Command::Serve(serve)) = parse(&["serve", "--http"]) else {
            panic!("parses");
        };
        let store = serve.sessions.store().await.unwrap();
        assert_eq!(store.limits().stream_lifetime, None);
        let Ok(Command::Serve(serve)) =
            parse(&["serve", "--http", "--session-stream-lifetime", "2s"])
        else {
            panic!("parses");
        };
        let store = serve.sessions.store().await.unwrap();
        assert_eq!(
            store.limits().stream_lifetime,
            Some(std::time::Duration::from_secs(2))
        );
    }
}
