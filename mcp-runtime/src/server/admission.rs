//! How much work a server takes at once. Each request that is not answered where it was read
//! (a call that awaits, a resource read, a prompt) holds a place among the requests in
//! flight until it is answered, and a task holds one until it ends; so does the
//! connection's own share, where the transport has connections of many requests (stdio).
//! Past either bound a request is refused at once with [`BUSY`], never queued: a client
//! that sends without waiting gets answers, and the server's memory stays bounded.

use std::sync::Arc;

use serde_json::json;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

pub use mcp_runtime_core::wire::BUSY;

use super::fault::Fault;

/// The most requests a server has in flight at once, across all its connections, the tasks
/// it runs among them: [`Server::with_max_in_flight`](super::Server::with_max_in_flight).
pub const DEFAULT_MAX_IN_FLIGHT: usize = 4096;

/// The most requests one connection has in flight at once:
/// [`Server::with_max_in_flight_per_connection`](super::Server::with_max_in_flight_per_connection).
pub const DEFAULT_MAX_IN_FLIGHT_PER_CONNECTION: usize = 256;

/// Which bound refused a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// The connection's own.
    Connection,
    /// The whole server's.
    Server,
}

/// A request refused for want of a place: which bound, and how many it allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Busy {
    pub(crate) scope: Scope,
    pub(crate) limit: usize,
}

impl Busy {
    /// The seconds a client is told to wait before it tries again: a hint, since a place
    /// frees as soon as any request in flight is answered.
    pub(crate) const RETRY_AFTER_SECONDS: u64 = 1;

    /// The error a refused request is answered with: what was full, and when to try again.
    pub(crate) fn fault(self) -> Fault {
        let (scope, whose) = match self.scope {
            Scope::Connection => ("connection", "this connection has"),
            Scope::Server => ("server", "the server has, from all its clients,"),
        };
        Fault::new(
            BUSY,
            format!(
                "too many requests at once: {whose} {} requests in flight, the most it takes; \
                 retry once one is answered, or in {} s",
                self.limit,
                Self::RETRY_AFTER_SECONDS
            ),
        )
        .with_data(json!({
            "limit": self.limit,
            "scope": scope,
            "retryAfterSeconds": Self::RETRY_AFTER_SECONDS,
        }))
    }
}

/// Places among a bounded number of requests in flight.
#[derive(Debug, Clone)]
pub(crate) struct Places {
    places: Arc<Semaphore>,
    limit: usize,
    scope: Scope,
}

impl Places {
    /// `limit` places (at least one, at most the most a semaphore holds).
    pub(crate) fn new(limit: usize, scope: Scope) -> Self {
        let limit = limit.clamp(1, Semaphore::MAX_PERMITS);
        Self {
            places: Arc::new(Semaphore::new(limit)),
            limit,
            scope,
        }
    }

    /// A place, held until the returned permit is dropped, or the refusal that says none
    /// is free.
    pub(crate) fn take(&self) -> Result<OwnedSemaphorePermit, Busy> {
        Arc::clone(&self.places)
            .try_acquire_owned()
            .map_err(|_| Busy {
                scope: self.scope,
                limit: self.limit,
            })
    }

    /// Waits until every place is free: every request that held one has been answered.
    pub(crate) async fn all_free(&self) {
        let limit = u32::try_from(self.limit).unwrap_or(u32::MAX);
        let _all = self.places.acquire_many(limit).await;
    }

    /// How many places there are.
    pub(crate) fn limit(&self) -> usize {
        self.limit
    }
}

/// What a request holds while in flight: its place on the connection, if the transport
/// counts per connection, and its place on the server.
#[derive(Debug)]
pub(crate) struct Admitted {
    _connection: Option<OwnedSemaphorePermit>,
    _server: OwnedSemaphorePermit,
}

/// Takes a place on `connection`, if given, then on `server`; a refusal takes none.
pub(crate) fn admit(connection: Option<&Places>, server: &Places) -> Result<Admitted, Busy> {
    let connection = connection.map(Places::take).transpose()?;
    Ok(Admitted {
        _connection: connection,
        _server: server.take()?,
    })
}

impl super::Server {
    /// Takes at most `limit` requests in flight at once, from all clients together
    /// ([`DEFAULT_MAX_IN_FLIGHT`] unless set), a running task counting as one until it
    /// ends. A request past it is refused at once with [`BUSY`] (over HTTP, 503 with
    /// `Retry-After`), which names the limit and when to try again; it is never queued.
    /// Requests answered where they are read (the handshake, listings, inline tools) take
    /// no place.
    #[must_use]
    pub fn with_max_in_flight(mut self, limit: usize) -> Self {
        self.in_flight_places = Places::new(limit, Scope::Server);
        self
    }

    /// Takes at most `limit` requests in flight at once from one stdio connection
    /// ([`DEFAULT_MAX_IN_FLIGHT_PER_CONNECTION`] unless set); past it, a request is refused
    /// with [`BUSY`] while the connection's other messages (a cancellation among them) are
    /// still read. An HTTP connection carries one request at a time (HTTP/1.1), so over
    /// HTTP only the total bounds.
    #[must_use]
    pub fn with_max_in_flight_per_connection(mut self, limit: usize) -> Self {
        self.per_connection = limit.max(1);
        self
    }

    /// A place for a request among those in flight on the server, and on `connection`.
    pub(crate) fn admit(&self, connection: Option<&Places>) -> Result<Admitted, Busy> {
        admit(connection, &self.in_flight_places)
    }

    /// The places of one new connection of many requests.
    pub(crate) fn connection_places(&self) -> Places {
        Places::new(self.per_connection, Scope::Connection)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_names_its_bound_and_when_to_retry_and_takes_no_place() {
        let connection = Places::new(2, Scope::Connection);
        let server = Places::new(3, Scope::Server);
        let first = admit(Some(&connection), &server).unwrap();
        let _second = admit(Some(&connection), &server).unwrap();
        let full = admit(Some(&connection), &server).unwrap_err();
        assert_eq!(
            full,
            Busy {
                scope: Scope::Connection,
                limit: 2
            }
        );
        // The connection's refusal left the server's third place free.
        let _other = admit(None, &server).unwrap();
        let busy = admit(None, &server).unwrap_err();
        assert_eq!(
            busy,
            Busy {
                scope: Scope::Server,
                limit: 3
            }
        );
        let fault = busy.fault();
        assert_eq!(fault.code, BUSY);
        assert!(
            fault.message.contains("3 requests in flight"),
            "{}",
            fault.message
        );
        assert_eq!(fault.data.as_ref().unwrap()["retryAfterSeconds"], 1);
        assert_eq!(fault.data.as_ref().unwrap()["scope"], "server");
        drop(first);
        assert!(
            admit(Some(&connection), &server).is_ok(),
            "an answer frees both places"
        );
    }

    #[test]
    fn no_bound_is_zero() {
        let places = Places::new(0, Scope::Server);
        assert_eq!(places.limit(), 1);
        assert!(places.take().is_ok());
    }
}
