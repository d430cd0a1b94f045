//! Request ids name calls in flight exactly: two ids that differ only past 64 bits are two
//! calls, and a cancellation stops the one it names, however that id is spelled.

use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::server::Server;
use mcp_runtime::{Registry, ToolContext, mcp_tool};
use tokio::sync::{Notify, Semaphore};

/// One permit each time `ids.hold` starts waiting.
static STARTED: Semaphore = Semaphore::const_new(0);

/// Lets every waiting `ids.hold` answer.
static RELEASE: Notify = Notify::const_new();

/// Waits until cancelled or released, then answers `tag`.
#[mcp_tool(namespace = "ids", timeout = "30s")]
async fn hold(ctx: ToolContext, tag: u8) -> u8 {
    let released = RELEASE.notified();
    STARTED.add_permits(1);
    tokio::select! {
        () = ctx.cancellation().cancelled() => {}
        () = released => {}
    }
    tag
}

fn server() -> Arc<Server> {
    let registry = Registry::builder()
        .inventory()
        .prefix("ids.")
        .build()
        .expect("a registry");
    Arc::new(Server::new(registry))
}

/// Starts a call of `ids.hold` under `id`, written as it stands.
fn call(server: &Arc<Server>, id: &str, tag: u8) -> tokio::task::JoinHandle<Option<String>> {
    let server = Arc::clone(server);
    let message = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"ids.hold","arguments":{{"tag":{tag}}}}}}}"#
    );
    tokio::spawn(async move { server.handle(message.as_bytes(), None).await })
}

async fn cancel(server: &Server, id: &str) {
    let message = format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id}}}}}"#
    );
    assert_eq!(server.handle(message.as_bytes(), None).await, None);
}

async fn started(calls: u32) {
    let permits = tokio::time::timeout(Duration::from_secs(10), STARTED.acquire_many(calls))
        .await
        .expect("the calls start")
        .expect("the semaphore is open");
    permits.forget();
}

async fn ended(call: tokio::task::JoinHandle<Option<String>>) -> Option<String> {
    tokio::time::timeout(Duration::from_secs(10), call)
        .await
        .expect("the call ends")
        .expect("the call does not panic")
}

// One test: the two cases share the tool's signals, so they must not run at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancellation_stops_exactly_the_call_its_id_names() {
    let server = server();
    ids_one_apart_past_64_bits_are_two_calls(&server).await;
    a_string_id_that_looks_like_a_number_is_not_that_number(&server).await;
}

async fn ids_one_apart_past_64_bits_are_two_calls(server: &Arc<Server>) {
    let (first, second) = ("18446744073709551616", "18446744073709551617");
    let first_call = call(server, first, 1);
    let second_call = call(server, second, 2);
    started(2).await;
    // The first is cancelled, spelled another way: it is not answered...
    cancel(server, "1.8446744073709551616e19").await;
    assert_eq!(
        ended(first_call).await,
        None,
        "a cancelled call is not answered"
    );
    // ...and the second still runs: released, it answers under its own id.
    RELEASE.notify_waiters();
    let answer = ended(second_call)
        .await
        .expect("the other call is answered");
    assert!(
        answer.contains(&format!(r#""id":{second},"#)),
        "answered under the id as sent: {answer}"
    );
    let answer: serde_json::Value = serde_json::from_str(&answer).expect("JSON");
    assert_eq!(
        answer["result"]["structuredContent"]["result"], 2,
        "{answer}"
    );
}

async fn a_string_id_that_looks_like_a_number_is_not_that_number(server: &Arc<Server>) {
    let number_call = call(server, "7", 3);
    let string_call = call(server, r#""7""#, 4);
    started(2).await;
    cancel(server, r#""\u0037""#).await;
    assert_eq!(ended(string_call).await, None, "the string id is cancelled");
    RELEASE.notify_waiters();
    let answer = ended(number_call).await.expect("the number id is answered");
    assert!(answer.contains(r#""id":7,"#), "{answer}");
}
