//! The driver's parts: messages and checks, statistics, the stdio and HTTP clients, and
//! the suite.

pub(crate) mod http;
pub(crate) mod proto;
pub(crate) mod stats;
pub(crate) mod stdio;
pub(crate) mod suite;
