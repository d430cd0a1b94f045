//! The sessions' streams of notifications (`GET /mcp`) this process holds open: what no
//! store can share. A session ended closes its stream: here, and with sessions in Redis on
//! the replica that holds it, told through the replicas' changes (`Relay`), which also tell
//! the other replicas of a session's changes and of its streams' logs grown.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

use tokio_util::sync::CancellationToken;

use crate::server::listen::ListenGuard;

/// The open streams, by session.
#[derive(Debug, Default)]
pub(crate) struct Streams {
    open: Mutex<HashMap<String, Open>>,
    /// What tells the other replicas, with sessions in Redis.
    relay: std::sync::OnceLock<Arc<dyn Relay>>,
    /// Cancelled when the server stops: every stream's own token is a child of it.
    stopping: CancellationToken,
}

/// What tells the replicas that hold a session's stream of its subscriptions and its end.
pub(crate) trait Relay: Send + Sync + std::fmt::Debug {
    /// `session` subscribed to `uri` (`on`), or ended that subscription.
    fn subscribed(&self, session: &str, uri: &str, on: bool);
    /// `session` ended.
    fn ended(&self, session: &str);
    /// A stream of `session` opened here: another replica's ends.
    fn attached(&self, session: &str);
    /// `session` changed otherwise (its log level).
    fn changed(&self, session: &str);
    /// The log of `session`'s `stream` grew.
    fn appended(&self, session: &str, stream: &str);
    /// A client answered the request `id`, which no tool of this replica awaits.
    fn responded(&self, id: &str, outcome: &Result<serde_json::Value, serde_json::Value>);
}

#[derive(Debug)]
struct Open {
    listener: Weak<ListenGuard>,
    ended: CancellationToken,
}

impl Streams {
    /// Makes `listener` the stream of `session`; the token returned is cancelled when the
    /// session ends, or when another stream of it opens, here or on another replica: each
    /// message goes out on one stream, and both would read the session's log.
    /// It is cancelled too when the server stops ([`Streams::stop`]).
    pub(crate) fn attach(&self, session: &str, listener: &Arc<ListenGuard>) -> CancellationToken {
        let ended = self.stopping.child_token();
        let earlier = {
            let mut open = self.lock();
            // Streams whose clients hung up are forgotten as others open.
            open.retain(|_, stream| stream.listener.strong_count() > 0);
            open.insert(
                session.to_owned(),
                Open {
                    listener: Arc::downgrade(listener),
                    ended: ended.clone(),
                },
            )
        };
        if let Some(earlier) = earlier {
            earlier.ended.cancel();
        }
        if let Some(relay) = self.relay.get() {
            relay.attached(session);
        }
        ended
    }

    /// A token for a stream that no session holds (a 2026-07-28 listen stream): cancelled
    /// when the server stops.
    pub(crate) fn until_stop(&self) -> CancellationToken {
        self.stopping.child_token()
    }

    /// Ends every stream, open or opened from now on: the server stops. A stream's client
    /// reconnects, to another replica, with the `Last-Event-ID` of the last event it read,
    /// and a stopping server need not wait for clients that would never hang up.
    pub(crate) fn stop(&self) {
        self.stopping.cancel();
    }

    /// Tells the other replicas that `session` subscribed to `uri` (`on`) or ended that
    /// subscription, so that they read it again.
    pub(crate) fn subscribe(&self, session: &str, uri: &str, on: bool) {
        if let Some(relay) = self.relay.get() {
            relay.subscribed(session, uri, on);
        }
    }

    /// Tells the other replicas that `session` changed otherwise (its log level), so that
    /// they read it again.
    pub(crate) fn changed(&self, session: &str) {
        if let Some(relay) = self.relay.get() {
            relay.changed(session);
        }
    }

    /// Closes the stream of `session`, wherever it is held.
    pub(crate) fn end(&self, session: &str) {
        self.end_here(session);
        if let Some(relay) = self.relay.get() {
            relay.ended(session);
        }
    }

    /// Hands the response `id`, which no tool here awaits, to the other replicas; whether
    /// there are any.
    pub(crate) fn relay_response(
        &self,
        id: &str,
        outcome: &Result<serde_json::Value, serde_json::Value>,
    ) -> bool {
        let Some(relay) = self.relay.get() else {
            return false;
        };
        relay.responded(id, outcome);
        true
    }

    /// Has `relay` tell the other replicas of subscriptions and ends, from now on.
    #[cfg(feature = "redis")]
    pub(super) fn share(&self, relay: Arc<dyn Relay>) {
        let _ = self.relay.set(relay);
    }

    /// Closes the stream of `session`, if this process holds one.
    pub(crate) fn end_here(&self, session: &str) {
        if let Some(stream) = self.lock().remove(session) {
            stream.ended.cancel();
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Open>> {
        // A panic while the lock was held leaves the map as it was: keep using it.
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
