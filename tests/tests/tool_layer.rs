//! `#[mcp_tool(layer = path::to::function)]`: the layer the function returns wraps that one
//! tool's calls, `Registry::call`'s as any transport's; what it refuses or lets time out is
//! a failure of the fitting type, and the tools beside it are not wrapped.

use std::future::Future;
use std::pin::Pin;
use std::sync::LazyLock;
use std::task::{Context, Poll};
use std::time::Duration;

use mcp_runtime::layers::{BoxError, Request, Response};
use mcp_runtime::{ErrorType, MCPToolCall, MCPToolResult, Registry, ToolError, mcp_tool};
use serde_json::{Value, json};
use tokio::sync::Notify;
use tower::limit::ConcurrencyLimitLayer;
use tower::load_shed::LoadShedLayer;
use tower::timeout::TimeoutLayer;

/// Refuses the calls whose `who` argument is `"mallory"`, before the tool runs.
#[derive(Clone)]
struct RefuseMallory<S>(S);

impl<S> tower::Service<Request> for RefuseMallory<S>
where
    S: tower::Service<Request, Response = Response, Error = BoxError>,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Response, BoxError>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        if request.arguments().get("who") == Some(&json!("mallory")) {
            let refused = ToolError::new(
                ErrorType::PermissionError,
                format!("`{}` does not serve mallory", request.name()),
            );
            return Box::pin(async move { Err(refused.into()) });
        }
        Box::pin(self.0.call(request))
    }
}

/// The layer of [`RefuseMallory`].
#[derive(Clone)]
struct RefuseMalloryLayer;

impl<S> tower::Layer<S> for RefuseMalloryLayer {
    type Service = RefuseMallory<S>;

    fn layer(&self, inner: S) -> RefuseMallory<S> {
        RefuseMallory(inner)
    }
}

fn refuse_mallory() -> RefuseMalloryLayer {
    RefuseMalloryLayer
}

/// Greets someone, but not mallory.
#[mcp_tool(namespace = "tool_layer", layer = refuse_mallory, inline)]
fn guarded_greet(who: String) -> String {
    format!("hello {who}")
}

/// Greets anyone.
#[mcp_tool(namespace = "tool_layer", inline)]
fn open_greet(who: String) -> String {
    format!("hello {who}")
}

fn at_most_50ms() -> TimeoutLayer {
    TimeoutLayer::new(Duration::from_millis(50))
}

/// Never finishes: only a timeout ends its calls. Its own timeout is far beyond the layer's.
#[mcp_tool(namespace = "tool_layer", layer = at_most_50ms, timeout = "20s")]
async fn never_done() {
    std::future::pending::<()>().await;
}

/// Signalled by `held` when a call of it runs.
static ENTERED: LazyLock<Notify> = LazyLock::new(Notify::new);
/// Lets a call of `held` finish.
static RELEASE: LazyLock<Notify> = LazyLock::new(Notify::new);

/// One call at a time; a second one at once is refused, not queued.
fn one_at_a_time() -> (LoadShedLayer, ConcurrencyLimitLayer) {
    (LoadShedLayer::new(), ConcurrencyLimitLayer::new(1))
}

/// Runs until the test releases it.
#[mcp_tool(namespace = "tool_layer", layer = one_at_a_time)]
async fn held() -> String {
    ENTERED.notify_one();
    RELEASE.notified().await;
    "released".to_owned()
}

fn registry() -> Registry {
    Registry::builder()
        .inventory()
        .build()
        .expect("the test's tools make a registry")
}

async fn call(registry: &Registry, name: &str, arguments: Value) -> MCPToolResult {
    let call = MCPToolCall::new(name, arguments).expect("a valid call");
    registry.call(call).await
}

/// Asserts that `name`, `tool_layer.guarded_greet` in `registry`, refuses mallory in its
/// layer, naming itself, and greets alice.
async fn assert_guarded(registry: &Registry, name: &str) {
    let refused = call(registry, name, json!({ "who": "mallory" })).await;
    let error = refused.error().expect("mallory is refused");
    assert_eq!(error.error_type, ErrorType::PermissionError, "{error:?}");
    assert!(
        error
            .error_message
            .contains(&format!("`{name}` does not serve mallory")),
        "{error:?}"
    );

    let served = call(registry, name, json!({ "who": "alice" })).await;
    assert_eq!(
        served.data().map(|data| data["result"].clone()),
        Some(json!("hello alice")),
        "{served:?}"
    );
}

#[tokio::test]
async fn the_tools_own_layer_refuses_before_the_tool_runs_and_lets_the_rest_through() {
    assert_guarded(&registry(), "tool_layer.guarded_greet").await;
}

#[tokio::test]
async fn a_tool_mounted_in_another_registry_keeps_its_own_layer() {
    let mut mounting = Registry::builder().build().expect("an empty registry");
    let conflicts = mounting
        .mount("outer", &registry())
        .expect("a valid prefix");
    assert!(conflicts.is_empty(), "{conflicts:?}");
    assert_guarded(&mounting, "outer.tool_layer.guarded_greet").await;
}

#[tokio::test]
async fn a_layer_wraps_only_the_tool_that_names_it() {
    let result = call(
        &registry(),
        "tool_layer.open_greet",
        json!({ "who": "mallory" }),
    )
    .await;
    assert_eq!(
        result.data().map(|data| data["result"].clone()),
        Some(json!("hello mallory")),
        "{result:?}"
    );
}

#[tokio::test]
async fn a_timeout_layer_fails_the_call_with_a_timeout_error_of_its_own() {
    let result = call(&registry(), "tool_layer.never_done", json!({})).await;
    let error = result.error().expect("the layer's timeout fails the call");
    assert_eq!(error.error_type, ErrorType::TimeoutError, "{error:?}");
    // The tool's own timeout (20 s) says something else.
    assert!(
        error
            .error_message
            .contains("within the time a layer allows"),
        "{error:?}"
    );
}

#[tokio::test]
async fn a_concurrency_limit_with_load_shedding_refuses_a_second_call_while_one_runs() {
    let registry = registry();
    let first = tokio::spawn({
        let registry = registry.clone();
        async move { call(&registry, "tool_layer.held", json!({})).await }
    });
    ENTERED.notified().await;

    let second = call(&registry, "tool_layer.held", json!({})).await;
    let error = second.error().expect("the one permit is taken");
    assert_eq!(error.error_type, ErrorType::ApiLimitExceeded, "{error:?}");

    RELEASE.notify_one();
    let first = first.await.expect("the first call's task ends");
    assert_eq!(
        first.data().map(|data| data["result"].clone()),
        Some(json!("released")),
        "{first:?}"
    );

    // The permit is back: the next call runs.
    RELEASE.notify_one();
    let third = call(&registry, "tool_layer.held", json!({})).await;
    assert!(third.is_success(), "{third:?}");
}
