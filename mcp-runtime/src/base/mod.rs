//! What any room of the crate may use, and which uses none of them: random ids, a
//! duration as a message writes it, and responses matched to their requests by id.

pub(crate) mod duration;
pub(crate) mod ids;
pub(crate) mod pending;
