//! What a stream's log holds: its events, each with its place, and the ids they carry on
//! the wire, `{stream}.{n}`.

use std::sync::Arc;

/// The log of a session's `GET /mcp` stream.
pub(crate) const GET_STREAM: &str = "g";

/// What an event of a log is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EventKind {
    /// The first event of a call's stream: its data, kept but sent empty, names the request
    /// (`{"request": id}`), for an answer made when the replica that ran it is gone.
    Prime,
    /// A message sent on the stream.
    Message,
    /// The last message of a call's stream: its answer.
    Last,
}

#[cfg(feature = "redis")]
impl EventKind {
    pub(crate) fn code(self) -> &'static str {
        match self {
            Self::Prime => "p",
            Self::Message => "m",
            Self::Last => "e",
        }
    }

    pub(crate) fn from_code(code: &str) -> Option<Self> {
        match code {
            "p" => Some(Self::Prime),
            "m" => Some(Self::Message),
            "e" => Some(Self::Last),
            _ => None,
        }
    }
}

/// One event of a log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Event {
    /// Its place in the log, from 1.
    pub(crate) n: u64,
    pub(crate) kind: EventKind,
    /// The message, as sent.
    pub(crate) data: Arc<str>,
}

/// What a log holds after an event.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Read {
    /// The events after it, in order.
    pub(crate) events: Vec<Event>,
    /// The place of the log's last event (0 for none yet).
    pub(crate) last: u64,
    /// Whether events after it were dropped (past the log's bounds) before this read.
    pub(crate) lost: bool,
}

impl Read {
    /// What a log whose events from `first` to `last` are `events` holds after `after`.
    pub(crate) fn after(after: u64, last: u64, events: Vec<Event>) -> Self {
        let first = events.first().map_or(last + 1, |event| event.n);
        Self {
            lost: first > after + 1 || last < after,
            events,
            last,
        }
    }
}

/// An event's id on the wire: its stream, and its place there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EventId {
    pub(crate) stream: String,
    pub(crate) n: u64,
}

impl EventId {
    /// The id `text` names, if it is one this server gives.
    pub(crate) fn parse(text: &str) -> Option<Self> {
        let (stream, n) = text.split_once('.')?;
        let call_stream = stream.len() == 32
            && stream
                .bytes()
                .all(|byte| byte.is_ascii_hexdigit() && !byte.is_ascii_uppercase());
        if stream != GET_STREAM && !call_stream {
            return None;
        }
        let n = n.parse().ok()?;
        Some(Self {
            stream: stream.to_owned(),
            n,
        })
    }

    pub(crate) fn text(stream: &str, n: u64) -> String {
        format!("{stream}.{n}")
    }
}

/// The replica a call's stream names as the one that runs it.
pub(crate) fn stream_owner(stream: &str) -> &str {
    stream.get(..16).unwrap_or(stream)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_id_reads_back_and_only_ids_this_server_gives_are_taken() {
        let stream = "0123456789abcdef0123456789abcdef";
        assert_eq!(
            EventId::parse(&EventId::text(stream, 7)),
            Some(EventId {
                stream: stream.to_owned(),
                n: 7
            })
        );
        assert_eq!(EventId::parse("g.0").map(|id| id.n), Some(0));
        for foreign in ["", "g", "g.", "g.x", "h.1", "0123.1", "../g.1", "G.1"] {
            assert_eq!(EventId::parse(foreign), None, "{foreign}");
        }
        assert_eq!(stream_owner(stream), "0123456789abcdef");
    }

    #[test]
    fn a_read_says_when_events_after_it_were_dropped() {
        let event = |n| Event {
            n,
            kind: EventKind::Message,
            data: Arc::from("x"),
        };
        assert!(!Read::after(3, 5, vec![event(4), event(5)]).lost);
        assert!(Read::after(1, 5, vec![event(4), event(5)]).lost);
        assert!(!Read::after(5, 5, vec![]).lost);
        assert!(Read::after(2, 5, vec![]).lost, "all trimmed");
        assert!(Read::after(9, 2, vec![]).lost, "the log began again");
    }
}
