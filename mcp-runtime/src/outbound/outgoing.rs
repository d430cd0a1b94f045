//! The requests this server sent clients and awaits the responses of, by id.

use serde_json::Value;
use tokio::sync::oneshot;

use crate::base::ids::random_hex;
use crate::base::pending::Awaiting;
use crate::talk::AskError;

/// The requests this server sent clients and awaits the responses of, by id. An id is 128
/// random bits, so that no client answers another's request by guessing it.
#[derive(Debug, Default)]
pub(crate) struct Outgoing {
    waiting: Awaiting<String, Result<Value, Value>>,
}

/// A request awaiting its response; dropping it forgets the request.
pub(crate) struct Awaited<'a> {
    outgoing: &'a Outgoing,
    pub(crate) id: String,
    pub(crate) response: oneshot::Receiver<Result<Value, Value>>,
}

impl Drop for Awaited<'_> {
    fn drop(&mut self) {
        self.outgoing.waiting.forget(&self.id);
    }
}

impl Outgoing {
    /// A new request id, and where its response will come.
    pub(crate) fn open(&self) -> Result<Awaited<'_>, AskError> {
        let random =
            random_hex::<16>().map_err(|_| AskError::NoClient("no randomness for a request id"))?;
        let id = format!("mcp-runtime-{random}");
        let response = self.waiting.open(id.clone());
        Ok(Awaited {
            outgoing: self,
            id,
            response,
        })
    }

    /// Hands the client's response to the request `id` awaits; false when none does.
    pub(crate) fn deliver(&self, id: &str, outcome: Result<Value, Value>) -> bool {
        self.waiting.deliver(id, outcome)
    }
}
