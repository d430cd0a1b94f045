//! The changes every replica of a server tells the others, through Redis pub/sub on the
//! channel `{namespace}:changes`: a resource updated and a list changed (for the sessions'
//! streams and the 2026-07-28 listen streams each replica holds), a session's subscription
//! made or ended, its log level set, and a session ended (for its stream, on whichever
//! replica holds it, and for the sessions each replica read lately, `recent`), a stream's
//! log grown (for its readers), and a client's response to a request a tool sent it (for
//! the replica whose tool awaits it).
//!
//! A resource updated here is first added to the logs of the sessions subscribed to it
//! (`Events::updated`), in the same order as the other changes.
//!
//! Each message names the replica that sent it, which skips its own: it told its own
//! listeners already, so each listener hears of a change once. Messages are sent in order,
//! by one task, and read by another, which subscribes again, at growing intervals, when its
//! connection drops; what is sent while a replica is not subscribed does not reach it.

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use redis::Client;
use redis::aio::ConnectionManager;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use serde_json::Value;

use super::event::GET_STREAM;
use super::events::Events;
use super::recent::Recent;
use super::streams::{Relay, Streams};
use crate::server::Server;
use crate::server::listen::{Fanout, ListKind};

/// The longest wait between two attempts to subscribe again.
const MAX_RESUBSCRIBE_DELAY: Duration = Duration::from_secs(5);

/// A change, as sent on the channel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "change", rename_all = "snake_case")]
pub(crate) enum Change {
    /// A resource was updated.
    Updated { uri: String },
    /// A list changed: `tools`, `prompts` or `resources`.
    Listed { list: String },
    /// A session subscribed to a resource (`on`), or ended that subscription.
    Subscribed {
        session: String,
        uri: String,
        on: bool,
    },
    /// A session ended.
    Ended { session: String },
    /// A stream of a session opened: the one another replica holds ends.
    Attached { session: String },
    /// A session changed otherwise (its log level).
    Changed { session: String },
    /// The log of a session's stream grew.
    Appended { session: String, stream: String },
    /// A client's response to a request a tool sent it from another replica: its
    /// `result`, or its `error`.
    Responded {
        id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        result: Option<Value>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<Value>,
    },
}

#[derive(Debug, Serialize, Deserialize)]
struct Message {
    /// The replica that sent it.
    from: String,
    #[serde(flatten)]
    change: Change,
}

/// What sends this replica's changes to the others.
pub(crate) struct Bus {
    replica: String,
    outbox: mpsc::UnboundedSender<Outgoing>,
}

/// What the bus sends, in order.
enum Outgoing {
    /// A change, as written for the channel.
    Tell(String),
    /// A resource updated: added to its subscribers' logs, then told.
    Updated(String),
}

impl std::fmt::Debug for Bus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bus")
            .field("replica", &self.replica)
            .finish_non_exhaustive()
    }
}

impl Bus {
    /// Starts telling the other replicas on `channel` of the changes sent here, and hearing
    /// of theirs: told to `server` and `streams`. Its tasks run on the current tokio
    /// runtime, for as long as the returned bus is kept.
    pub(crate) fn start(
        (client, commands): (Client, ConnectionManager),
        channel: String,
        description: String,
        (server, streams, recent, events): (
            std::sync::Weak<Server>,
            Arc<Streams>,
            Arc<Recent>,
            Arc<Events>,
        ),
    ) -> Arc<Self> {
        let replica = events.replica().to_owned();
        let (outbox, unsent) = mpsc::unbounded_channel();
        let bus = Arc::new(Self {
            replica: replica.clone(),
            outbox,
        });
        let sender = Sender {
            commands,
            channel: channel.clone(),
            description: description.clone(),
            replica: replica.clone(),
            events: Arc::clone(&events),
        };
        tokio::spawn(sender.send(unsent));
        let hearing = Hearing {
            client,
            channel,
            description,
            replica,
            server,
            streams,
            recent,
            events,
        };
        let bus_alive = Arc::downgrade(&bus);
        tokio::spawn(async move { hearing.hear(bus_alive).await });
        bus
    }

    /// Tells the other replicas of `change`.
    fn tell(&self, change: Change) {
        if let Some(text) = written(&self.replica, change) {
            let _ = self.outbox.send(Outgoing::Tell(text));
        }
    }
}

/// `change`, from `replica`, as written on the channel.
fn written(replica: &str, change: Change) -> Option<String> {
    let message = Message {
        from: replica.to_owned(),
        change,
    };
    serde_json::to_string(&message).ok()
}

impl Fanout for Bus {
    fn resource_updated(&self, uri: &str) {
        let _ = self.outbox.send(Outgoing::Updated(uri.to_owned()));
    }

    fn list_changed(&self, kind: ListKind) {
        self.tell(Change::Listed {
            list: kind.name().to_owned(),
        });
    }
}

impl Relay for Bus {
    fn subscribed(&self, session: &str, uri: &str, on: bool) {
        self.tell(Change::Subscribed {
            session: session.to_owned(),
            uri: uri.to_owned(),
            on,
        });
    }

    fn ended(&self, session: &str) {
        self.tell(Change::Ended {
            session: session.to_owned(),
        });
    }

    fn attached(&self, session: &str) {
        self.tell(Change::Attached {
            session: session.to_owned(),
        });
    }

    fn changed(&self, session: &str) {
        self.tell(Change::Changed {
            session: session.to_owned(),
        });
    }

    fn appended(&self, session: &str, stream: &str) {
        self.tell(Change::Appended {
            session: session.to_owned(),
            stream: stream.to_owned(),
        });
    }

    fn responded(&self, id: &str, outcome: &Result<Value, Value>) {
        let (result, error) = match outcome {
            Ok(result) => (Some(result.clone()), None),
            Err(error) => (None, Some(error.clone())),
        };
        self.tell(Change::Responded {
            id: id.to_owned(),
            result,
            error,
        });
    }
}

/// What publishes this replica's changes.
struct Sender {
    commands: ConnectionManager,
    channel: String,
    description: String,
    replica: String,
    events: Arc<Events>,
}

impl Sender {
    /// Publishes each change of `unsent`, in order, until the bus is dropped.
    async fn send(mut self, mut unsent: mpsc::UnboundedReceiver<Outgoing>) {
        while let Some(outgoing) = unsent.recv().await {
            match outgoing {
                Outgoing::Tell(text) => self.publish(&text).await,
                Outgoing::Updated(uri) => {
                    match self.events.updated(&uri).await {
                        Ok(sessions) => {
                            for session in sessions {
                                let appended = Change::Appended {
                                    session,
                                    stream: GET_STREAM.to_owned(),
                                };
                                if let Some(text) = written(&self.replica, appended) {
                                    self.publish(&text).await;
                                }
                            }
                        }
                        Err(error) => {
                            tracing::warn!(%error, uri, "an update did not reach the sessions subscribed to it");
                        }
                    }
                    if let Some(text) = written(&self.replica, Change::Updated { uri }) {
                        self.publish(&text).await;
                    }
                }
            }
        }
    }

    async fn publish(&mut self, message: &str) {
        let sent: redis::RedisResult<()> = redis::cmd("PUBLISH")
            .arg(&self.channel)
            .arg(message)
            .query_async(&mut self.commands)
            .await;
        if let Err(err) = sent {
            tracing::warn!(store = %self.description, "a change was not told to the other replicas: {err}");
        }
    }
}

/// What hears of the other replicas' changes, and whom it tells.
struct Hearing {
    client: Client,
    channel: String,
    description: String,
    replica: String,
    server: std::sync::Weak<Server>,
    streams: Arc<Streams>,
    recent: Arc<Recent>,
    events: Arc<Events>,
}

impl Hearing {
    /// Hears of changes until the bus is dropped, subscribing again when the connection
    /// drops.
    async fn hear(self, bus: std::sync::Weak<Bus>) {
        let mut delay = Duration::from_millis(100);
        while bus.strong_count() > 0 {
            match crate::tasks::redis_subscribe(&self.client, &self.channel).await {
                Ok(mut messages) => {
                    delay = Duration::from_millis(100);
                    while let Some(message) = messages.next().await {
                        if bus.strong_count() == 0 {
                            return;
                        }
                        match message.get_payload::<String>() {
                            Ok(text) => self.take(&text),
                            Err(err) => {
                                tracing::warn!(store = %self.description, "a change that is no text: {err}")
                            }
                        }
                    }
                    tracing::warn!(store = %self.description, "the changes' connection dropped; subscribing again");
                }
                Err(err) => {
                    tracing::warn!(store = %self.description, "cannot hear of the other replicas' changes yet: {err}");
                    delay = (delay * 2).min(MAX_RESUBSCRIBE_DELAY);
                }
            }
            tokio::time::sleep(delay).await;
        }
    }

    /// Tells this replica's listeners and streams of the change `text` says, unless this
    /// replica sent it.
    fn take(&self, text: &str) {
        let message: Message = match serde_json::from_str(text) {
            Ok(message) => message,
            Err(err) => {
                tracing::warn!(store = %self.description, "a change that cannot be read: {err}");
                return;
            }
        };
        if message.from == self.replica {
            return;
        }
        let Some(server) = self.server.upgrade() else {
            return;
        };
        match message.change {
            Change::Updated { uri } => server.hear_resource_updated(&uri),
            Change::Listed { list } => {
                if let Some(kind) = ListKind::named(&list) {
                    server.hear_list_changed(kind);
                }
            }
            Change::Subscribed { session, .. } | Change::Changed { session } => {
                self.recent.forget(&session);
            }
            Change::Appended { session, stream } => self.events.wake(&session, &stream),
            Change::Attached { session } => self.streams.end_here(&session),
            Change::Ended { session } => {
                self.recent.forget(&session);
                self.streams.end_here(&session);
            }
            Change::Responded { id, result, error } => {
                let outcome = match (result, error) {
                    (Some(result), _) => Ok(result),
                    (None, error) => Err(error.unwrap_or(Value::Null)),
                };
                server.deliver_response(&id, outcome);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_reads_back_as_it_was_sent() {
        for change in [
            Change::Updated {
                uri: "file:///a".to_owned(),
            },
            Change::Listed {
                list: "tools".to_owned(),
            },
            Change::Subscribed {
                session: "s".to_owned(),
                uri: "file:///a".to_owned(),
                on: false,
            },
            Change::Ended {
                session: "s".to_owned(),
            },
            Change::Changed {
                session: "s".to_owned(),
            },
            Change::Appended {
                session: "s".to_owned(),
                stream: "g".to_owned(),
            },
            Change::Attached {
                session: "s".to_owned(),
            },
            Change::Responded {
                id: "q".to_owned(),
                result: Some(serde_json::json!({ "action": "accept" })),
                error: None,
            },
        ] {
            let text = serde_json::to_string(&Message {
                from: "r".to_owned(),
                change: change.clone(),
            })
            .unwrap();
            let read: Message = serde_json::from_str(&text).unwrap();
            assert_eq!((read.from.as_str(), read.change), ("r", change), "{text}");
        }
        for kind in [ListKind::Tools, ListKind::Prompts, ListKind::Resources] {
            assert_eq!(ListKind::named(kind.name()), Some(kind));
        }
    }
}
