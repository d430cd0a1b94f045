//! An upstream's refusals of a read, passed on by the gateway as what they are, told by
//! their code and data and not by their words: a template variable that does not parse,
//! whose message says "not found", stays invalid params; a resource that is missing stays
//! a missing resource, at the code of the gateway client's revision. The upstream is the
//! fixture server, spawned as a real process, spoken to at either revision. (A missing
//! resource whose message does not say "not found", from the official Python SDK's server,
//! is tests/python/sdk2/test_sdk2_refusals.py.)

use std::sync::Arc;

use mcp_runtime::Registry;
use mcp_runtime::client::{self, Client, ClientError, Lookup, Refused, RpcError, StdioServer};
use mcp_runtime::server::{INVALID_PARAMS, RESOURCE_NOT_FOUND, Server};
use serde_json::json;

/// The fixture server, spawned, mounted under `fx`, served as one server; the client asks
/// it at 2025-11-25 (`handshake`) or 2026-07-28, and it asks the upstream at 2025-11-25
/// (`upstream_handshake`) or 2026-07-28.
async fn gateway(upstream_handshake: bool, handshake: bool) -> Client {
    let fixture = StdioServer::new(env!("CARGO_BIN_EXE_fixture-server")).args(["serve", "--stdio"]);
    let mut upstream = Client::builder();
    if upstream_handshake {
        upstream = upstream.handshake_only();
    }
    let upstream = upstream
        .stdio(fixture)
        .await
        .expect("the fixture server starts");
    let mut registry = Registry::builder().build().expect("empty");
    let mounted = client::mount(&mut registry, "fx", Arc::new(upstream))
        .await
        .expect("mounted");
    assert!(
        mounted.skipped.is_empty() && mounted.conflicts.is_empty(),
        "{mounted:?}"
    );
    let mut builder = Client::builder();
    if handshake {
        builder = builder.handshake_only();
    }
    builder
        .in_memory(Arc::new(Server::new(registry)))
        .await
        .expect("connects")
}

/// The JSON-RPC error a read of `uri` through `client` is refused with.
async fn refused(client: &Client, uri: &str) -> RpcError {
    match client.read_resource(uri).await {
        Err(ClientError::Rpc(error)) => error,
        other => panic!("`{uri}` is refused with a JSON-RPC error, not {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_upstreams_invalid_variable_and_missing_resource_are_told_apart_by_structure() {
    for upstream_handshake in [false, true] {
        for handshake in [false, true] {
            let case =
                format!("upstream handshake {upstream_handshake}, client handshake {handshake}");
            let client = gateway(upstream_handshake, handshake).await;
            let part = client
                .read_resource("fixture://fx/parts/P-1-1")
                .await
                .expect("an existing part is read through");
            assert_eq!(part[0]["text"], "part P-1-1: a bolt", "{case}");

            // A serial without its check digit: the upstream's message says "not found",
            // and it is still invalid params, naming the variable and no URI.
            let invalid = refused(&client, "fixture://fx/parts/P-12").await;
            assert_eq!(invalid.code, INVALID_PARAMS, "{case}: {invalid}");
            assert_eq!(
                invalid.refused(Lookup::Resource),
                Refused::InvalidParams,
                "{case}"
            );
            assert!(
                invalid.message.contains("check digit not found"),
                "{case}: {invalid}"
            );
            assert_eq!(
                invalid.data,
                Some(json!({ "argument": "serial" })),
                "{case}"
            );

            // A well-formed serial of no part: missing, at the client's revision's code,
            // naming the URI the client asked for.
            let uri = "fixture://fx/parts/P-2-2";
            let missing = refused(&client, uri).await;
            let code = if handshake {
                RESOURCE_NOT_FOUND
            } else {
                INVALID_PARAMS
            };
            assert_eq!(missing.code, code, "{case}: {missing}");
            assert_eq!(
                missing.refused(Lookup::Resource),
                Refused::NotFound { key: Some(uri) },
                "{case}: {missing:?}"
            );
        }
    }
}
