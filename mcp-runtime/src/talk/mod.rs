//! What a tool tells the other side ([`ClientLogLayer`] sends its `tracing` events as log
//! messages) and asks of it: the client's user, its model, its roots. What carries an ask
//! to the client is the server's, reached through a trait of this room's, so that a tool's
//! side names nothing of the machinery. On
//! 2026-07-28 a call that asks is answered over several rounds, and what the server must
//! remember between them travels with the client, sealed: [`StateKey`].

pub(crate) mod ask;
mod asker;
pub(crate) mod form;
pub(crate) mod log;
mod state;

pub use ask::{AskError, Elicitation, InputRequest, Root, Sampled, Sampling, SamplingMessage};
pub(crate) use asker::{AskChannel, Asking, asks_built_on_ask};
pub use asker::{Asker, Elicit};
pub use form::{Form, FormChoice, FormField, FormFieldError, FormSchemaError, form_schema};
pub use log::ClientLogLayer;
pub use mcp_runtime_macros::Form;
pub use state::{MIN_SECRET_LEN, STATE_KEY_ENV, StateError, StateKey, StateKeyError};
