//! `tracing` events of a running tool reach the client as log messages when the
//! application adds `ClientLogLayer` to its subscriber: from inline, blocking, async and
//! dynamic tools, at or above the level the client asked for, and never outside a call.

use std::sync::{Arc, Mutex, Once};

use mcp_runtime::talk::ClientLogLayer;
use mcp_runtime::{
    CallOptions, LogMessage, LoggingLevel, MCPToolCall, Registry, ToolDefinition, ToolError,
    mcp_tool,
};
use serde_json::{Value, json};
use tracing_subscriber::layer::SubscriberExt;

/// The layer, in this test binary's global subscriber: blocking tools run on threads of
/// their own, which a thread's default subscriber would not reach.
fn install() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let subscriber = tracing_subscriber::registry().with(ClientLogLayer::new());
        tracing::subscriber::set_global_default(subscriber).expect("the only subscriber");
    });
}

/// Traces at three levels, inline.
#[mcp_tool(namespace = "trace", inline)]
fn inline() -> u8 {
    tracing::debug!("inline detail");
    tracing::info!(n = 1, "inline says hi");
    tracing::warn!("inline warns");
    1
}

/// Traces on the blocking pool.
#[mcp_tool(namespace = "trace")]
fn blocking() -> u8 {
    tracing::info!(tool = "blocking", ok = true, "blocking says hi");
    2
}

/// Traces before and after awaiting, so across two polls.
#[mcp_tool(namespace = "trace")]
async fn later() -> u8 {
    tracing::info!("before the wait");
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    tracing::error!(code = 7);
    3
}

fn collector() -> (Arc<Mutex<Vec<LogMessage>>>, CallOptions) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let options = CallOptions::new().with_log(LoggingLevel::Info, move |message| {
        sink.lock().unwrap().push(message);
    });
    (seen, options)
}

fn message(level: LoggingLevel, data: Value) -> LogMessage {
    LogMessage {
        level,
        logger: Some("tracing_to_client".to_owned()),
        data,
    }
}

async fn call(registry: &Registry, name: &str, options: CallOptions) {
    let call = MCPToolCall::new(name, json!({})).expect("a call");
    let result = registry.call_with(call, options).await;
    assert!(result.error().is_none(), "{result:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_kind_of_tool_sends_its_events_at_or_above_the_level_asked() {
    install();
    let mut registry = Registry::builder()
        .inventory()
        .prefix("trace.")
        .build()
        .expect("a registry");
    registry
        .register(
            ToolDefinition::new(
                "trace.dynamic",
                schemars::json_schema!({ "type": "object" }),
            )
            .expect("a definition"),
            |_, _| async {
                tracing::warn!(kind = "dynamic", "dynamic warns");
                Ok::<_, ToolError>(json!({}))
            },
        )
        .expect("registered");

    let (seen, options) = collector();
    call(&registry, "trace.inline", options).await;
    assert_eq!(
        *seen.lock().unwrap(),
        [
            message(
                LoggingLevel::Info,
                json!({ "message": "inline says hi", "n": 1 })
            ),
            message(LoggingLevel::Warning, json!("inline warns")),
        ]
    );

    let (seen, options) = collector();
    call(&registry, "trace.blocking", options).await;
    assert_eq!(
        *seen.lock().unwrap(),
        [message(
            LoggingLevel::Info,
            json!({ "message": "blocking says hi", "tool": "blocking", "ok": true })
        )]
    );

    let (seen, options) = collector();
    call(&registry, "trace.later", options).await;
    assert_eq!(
        *seen.lock().unwrap(),
        [
            message(LoggingLevel::Info, json!("before the wait")),
            message(LoggingLevel::Error, json!({ "code": 7 })),
        ]
    );

    let (seen, options) = collector();
    call(&registry, "trace.dynamic", options).await;
    assert_eq!(
        *seen.lock().unwrap(),
        [message(
            LoggingLevel::Warning,
            json!({ "message": "dynamic warns", "kind": "dynamic" })
        )]
    );

    // A client that asked for nothing gets nothing; nor does anything outside a call.
    let (seen, _) = collector();
    call(&registry, "trace.inline", CallOptions::new()).await;
    tracing::error!("outside any call");
    assert!(seen.lock().unwrap().is_empty());
}
