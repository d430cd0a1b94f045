//! The driver's parts: messages and checks, statistics, the stdio and HTTP clients, and
//! the suite; and calls through `mcp_runtime::client`, to measure it.

pub(crate) mod http;
pub(crate) mod proto;
pub(crate) mod stats;
pub(crate) mod stdio;
pub(crate) mod suite;
pub(crate) mod through_client;
