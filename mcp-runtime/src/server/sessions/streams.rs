//! The sessions' streams of notifications (`GET /mcp`) this process holds open: what no
//! store can share. A subscription a session makes here reaches its stream here at once;
//! a session ended here closes its stream.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

use tokio_util::sync::CancellationToken;

use crate::server::listen::ListenGuard;

/// The open streams, by session.
#[derive(Debug, Default)]
pub(crate) struct Streams {
    open: Mutex<HashMap<String, Open>>,
}

#[derive(Debug)]
struct Open {
    listener: Weak<ListenGuard>,
    ended: CancellationToken,
}

impl Streams {
    /// Makes `listener` the stream of `session`, subscribed to `subscriptions`; the token
    /// returned is cancelled when the session ends here. A stream the session opened
    /// before goes on, but no longer hears of its subscriptions' changes.
    pub(crate) fn attach<'a>(
        &self,
        session: &str,
        listener: &Arc<ListenGuard>,
        subscriptions: impl IntoIterator<Item = &'a String>,
    ) -> CancellationToken {
        for uri in subscriptions {
            listener.subscribe(uri, true);
        }
        let ended = CancellationToken::new();
        let mut open = self.lock();
        // Streams whose clients hung up are forgotten as others open.
        open.retain(|_, stream| stream.listener.strong_count() > 0);
        open.insert(
            session.to_owned(),
            Open {
                listener: Arc::downgrade(listener),
                ended: ended.clone(),
            },
        );
        ended
    }

    /// Tells the stream of `session`, if this process holds one, that it subscribed to
    /// `uri` (`on`) or ended that subscription.
    pub(crate) fn subscribe(&self, session: &str, uri: &str, on: bool) {
        let listener = self
            .lock()
            .get(session)
            .and_then(|stream| stream.listener.upgrade());
        if let Some(listener) = listener {
            listener.subscribe(uri, on);
        }
    }

    /// Closes the stream of `session`, if this process holds one.
    pub(crate) fn end(&self, session: &str) {
        if let Some(stream) = self.lock().remove(session) {
            stream.ended.cancel();
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Open>> {
        // A panic while the lock was held leaves the map as it was: keep using it.
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
