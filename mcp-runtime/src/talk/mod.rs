//! What a tool asks of the other side: the client's user, its model, its roots. On
//! 2026-07-28 a call that asks is answered over several rounds, and what the server must
//! remember between them travels with the client, sealed: [`StateKey`].

mod state;

pub use state::{MIN_SECRET_LEN, STATE_KEY_ENV, StateError, StateKey, StateKeyError};
