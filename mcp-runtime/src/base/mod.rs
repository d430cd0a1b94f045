//! What any room of the crate may use, and which uses none of them: random ids, a
//! duration as a message writes it, responses matched to their requests by id, and slots
//! of which at most N are held at once.

pub(crate) mod duration;
pub(crate) mod ids;
pub(crate) mod pending;
pub(crate) mod slots;
