//! The driver's parts: messages and checks, statistics, the stdio and HTTP clients, and
//! the suite; calls through `mcp_runtime::client`, to measure it; and HTTP with and without
//! OAuth access tokens, from an authorization server in process; tasks over HTTP; and the
//! soak, a long run of mixed calls; and a receiver of OTLP exports, for the server to export
//! to while it is measured.

pub(crate) mod burst;
pub(crate) mod http;
// The authorization server and test keys the criterion bench of OAuth uses too.
#[path = "../../../mcp-runtime/benches/fixtures/mod.rs"]
pub(crate) mod issuer;
pub(crate) mod oauth;
pub(crate) mod otlp_sink;
pub(crate) mod proto;
pub(crate) mod report;
pub(crate) mod rounds;
pub(crate) mod sandbox;
pub(crate) mod soak;
pub(crate) mod stats;
pub(crate) mod stdio;
pub(crate) mod suite;
pub(crate) mod tasks;
pub(crate) mod through_client;
