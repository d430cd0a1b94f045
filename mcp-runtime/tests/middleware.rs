//! Layers around calls: tower's stock layers as they are, an application's own, selectors,
//! and the same stack in process and through a client.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use mcp_runtime::layers::{BoxError, BoxLayer, Kind, Request, Response, Selector};
use mcp_runtime::{
    AuthInfo, CallOptions, ErrorType, MCPToolCall, MCPToolResult, PromptDefinition, PromptMessage,
    PromptResult, Registry, RegistryBuilder, RegistryProblem, ResourceContents, ResourceDefinition,
    ToolDefinition, ToolError,
};
use serde_json::{Value, json};
use tower::ServiceBuilder;

fn definition(name: &str) -> ToolDefinition {
    let schema = json!({ "type": "object" }).try_into().unwrap();
    ToolDefinition::new(name, schema).unwrap()
}

/// A tool that counts the calls running at once, keeps the most seen, and waits `wait`.
fn counting(running: Arc<AtomicUsize>, most: Arc<AtomicUsize>, wait: Duration) -> RegistryBuilder {
    Registry::builder().tool(definition("t.count"), move |_, _| {
        let (running, most) = (Arc::clone(&running), Arc::clone(&most));
        async move {
            let now = running.fetch_add(1, Ordering::SeqCst) + 1;
            most.fetch_max(now, Ordering::SeqCst);
            tokio::time::sleep(wait).await;
            running.fetch_sub(1, Ordering::SeqCst);
            Ok::<_, ToolError>(json!({ "ok": true }))
        }
    })
}

fn call(name: &str, arguments: Value) -> MCPToolCall {
    MCPToolCall::new(name, arguments).unwrap()
}

fn error_type(result: &MCPToolResult) -> ErrorType {
    result.error().expect("a failure").error_type.clone()
}

#[tokio::test]
async fn tower_s_concurrency_limit_runs_one_call_at_a_time_and_answers_all() {
    let (running, most) = (Arc::default(), Arc::new(AtomicUsize::new(0)));
    let registry = counting(
        Arc::clone(&running),
        Arc::clone(&most),
        Duration::from_millis(30),
    )
    .layer(tower::limit::ConcurrencyLimitLayer::new(1))
    .build()
    .unwrap();
    let calls = (0..5).map(|_| registry.call(call("t.count", json!({}))));
    let results = futures_util::future::join_all(calls).await;
    assert!(results.iter().all(MCPToolResult::is_success), "{results:?}");
    assert_eq!(most.load(Ordering::SeqCst), 1, "the limit held");
}

#[tokio::test]
async fn without_the_layer_the_same_calls_overlap() {
    // The test above proves something only if, unlimited, the calls do run together.
    let (running, most) = (Arc::default(), Arc::new(AtomicUsize::new(0)));
    let registry = counting(running, Arc::clone(&most), Duration::from_millis(30))
        .build()
        .unwrap();
    let calls = (0..5).map(|_| registry.call(call("t.count", json!({}))));
    futures_util::future::join_all(calls).await;
    assert!(most.load(Ordering::SeqCst) > 1);
}

#[tokio::test]
async fn load_shedding_refuses_the_call_past_the_limit_as_api_limit_exceeded() {
    let (running, most) = (Arc::default(), Arc::new(AtomicUsize::new(0)));
    let shed = ServiceBuilder::new()
        .layer(tower::load_shed::LoadShedLayer::new())
        .layer(tower::limit::ConcurrencyLimitLayer::new(1))
        .into_inner();
    let registry = counting(running, most, Duration::from_millis(200))
        .layer_for("t.count".parse().unwrap(), BoxLayer::new(shed))
        .build()
        .unwrap();
    let (first, second) = tokio::join!(registry.call(call("t.count", json!({}))), async {
        tokio::time::sleep(Duration::from_millis(50)).await;
        registry.call(call("t.count", json!({}))).await
    });
    assert!(first.is_success(), "{first:?}");
    assert_eq!(error_type(&second), ErrorType::ApiLimitExceeded);
    assert!(
        second.error().unwrap().error_message.contains("overloaded"),
        "{second:?}"
    );
}

#[tokio::test]
async fn tower_s_timeout_ends_a_slow_call_as_a_timeout_error() {
    let (running, most) = (Arc::default(), Arc::new(AtomicUsize::new(0)));
    let registry = counting(running, most, Duration::from_secs(5))
        .layer(tower::timeout::TimeoutLayer::new(Duration::from_millis(50)))
        .build()
        .unwrap();
    let started = std::time::Instant::now();
    let result = registry.call(call("t.count", json!({}))).await;
    assert_eq!(error_type(&result), ErrorType::TimeoutError);
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "the layer ended it"
    );
}

/// Lets through only the callers whose access token grants `admin`.
#[derive(Clone)]
struct AdminsOnly<S>(S);

impl<S> tower::Service<Request> for AdminsOnly<S>
where
    S: tower::Service<Request, Response = Response, Error = BoxError>,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = BoxError;
    type Future =
        std::pin::Pin<Box<dyn std::future::Future<Output = Result<Response, BoxError>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        if !request.auth().is_some_and(|auth| auth.has_scope("admin")) {
            let refused = ToolError::permission_denied(format!(
                "`{}` is for admins; {} is not one",
                request.name(),
                request.caller()
            ));
            return Box::pin(async move { Err(refused.into()) });
        }
        Box::pin(self.0.call(request))
    }
}

fn caller(scope: &str) -> Arc<AuthInfo> {
    let claims = json!({ "sub": "alice", "scope": scope });
    Arc::new(AuthInfo::from_claims(claims.as_object().unwrap().clone()))
}

#[tokio::test]
async fn a_layer_of_the_application_reads_the_caller_and_refuses_some() {
    let (running, most) = (Arc::default(), Arc::new(AtomicUsize::new(0)));
    let registry = counting(Arc::clone(&running), most, Duration::ZERO)
        .layer(tower::layer::layer_fn(AdminsOnly))
        .build()
        .unwrap();
    let refused = registry
        .call_with(
            call("t.count", json!({})),
            CallOptions::new().with_auth(caller("read")),
        )
        .await;
    assert_eq!(error_type(&refused), ErrorType::PermissionError);
    let message = refused.error().unwrap().error_message.clone();
    assert!(message.contains("subject:alice is not one"), "{message}");
    let allowed = registry
        .call_with(
            call("t.count", json!({})),
            CallOptions::new().with_auth(caller("admin")),
        )
        .await;
    assert!(allowed.is_success(), "{allowed:?}");
    let local = registry.call(call("t.count", json!({}))).await;
    assert_eq!(
        error_type(&local),
        ErrorType::PermissionError,
        "no token, no admin"
    );
}

/// Adds one to the argument `n` before the tool reads it.
#[derive(Clone)]
struct PlusOne<S>(S);

impl<S> tower::Service<Request> for PlusOne<S>
where
    S: tower::Service<Request, Response = Response, Error = BoxError>,
{
    type Response = Response;
    type Error = BoxError;
    type Future = S::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request) -> S::Future {
        if let Some(Value::Number(n)) = request.arguments_mut().get_mut("n") {
            *n = (n.as_i64().unwrap_or(0) + 1).into();
        }
        self.0.call(request)
    }
}

fn echo() -> RegistryBuilder {
    Registry::builder()
        .tool(definition("t.echo"), |arguments, _| async move {
            Ok::<_, ToolError>(Value::Object(arguments))
        })
        .tool(
            definition("other.echo")
                .with_tags(["io"])
                .with_category("net"),
            |arguments, _| async move { Ok::<_, ToolError>(Value::Object(arguments)) },
        )
}

#[tokio::test(flavor = "multi_thread")]
async fn the_same_stack_serves_a_client_and_registry_call() {
    let registry = echo()
        .layer_for(
            "t.*".parse().unwrap(),
            BoxLayer::new(tower::layer::layer_fn(PlusOne)),
        )
        .build()
        .unwrap();
    let in_process = registry.call(call("t.echo", json!({ "n": 1 }))).await;
    assert_eq!(in_process.data().unwrap()["n"], 2);
    let untouched = registry.call(call("other.echo", json!({ "n": 1 }))).await;
    assert_eq!(
        untouched.data().unwrap()["n"],
        1,
        "the selector picks t.* only"
    );

    let server = mcp_runtime::server::Server::new(registry);
    let client = mcp_runtime::testing::connect(server).await.unwrap();
    let through_client = client.call_tool("t.echo", json!({ "n": 1 })).await.unwrap();
    assert_eq!(through_client.data().unwrap()["n"], 2);
}

#[tokio::test]
async fn tags_and_categories_pick_their_tools() {
    for selector in ["tag:io", "category:net"] {
        let registry = echo()
            .layer_for(
                selector.parse().unwrap(),
                BoxLayer::new(tower::layer::layer_fn(PlusOne)),
            )
            .build()
            .unwrap();
        let picked = registry.call(call("other.echo", json!({ "n": 1 }))).await;
        assert_eq!(picked.data().unwrap()["n"], 2, "{selector}");
        let left = registry.call(call("t.echo", json!({ "n": 1 }))).await;
        assert_eq!(left.data().unwrap()["n"], 1, "{selector}");
    }
}

#[test]
fn a_selector_that_picks_nothing_is_refused_naming_the_closest_tool() {
    let refused = echo()
        .layer_for(
            "t.ecko".parse().unwrap(),
            BoxLayer::new(tower::layer::layer_fn(PlusOne)),
        )
        .build()
        .unwrap_err();
    let problem = &refused.problems()[0];
    assert!(
        matches!(problem, RegistryProblem::UnmatchedSelector { nearest: Some(near), .. } if near == "t.echo"),
        "{problem:?}"
    );
    assert_eq!(
        problem.to_string(),
        "the layer's selector `t.ecko` picks nothing; did you mean `t.echo`?"
    );
    let mut registry = echo().build().unwrap();
    let layer = BoxLayer::new(tower::layer::layer_fn(PlusOne));
    let refused = registry
        .add_layer(Some("tag:nope".parse().unwrap()), layer)
        .unwrap_err();
    assert!(
        refused.to_string().contains("`tag:nope` picks nothing"),
        "{refused}"
    );
}

/// Answers every call of `t.echo` itself, and says so, without calling the tool.
#[derive(Clone)]
struct Answers<S>(S, Arc<AtomicUsize>);

impl<S> tower::Service<Request> for Answers<S>
where
    S: tower::Service<Request, Response = Response, Error = BoxError>,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = BoxError;
    type Future =
        std::pin::Pin<Box<dyn std::future::Future<Output = Result<Response, BoxError>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        self.1.fetch_add(1, Ordering::SeqCst);
        if request.kind() == Kind::Tool && request.name() == "t.echo" {
            let answer = Response::Tool(MCPToolResult::success(json!({ "from": "layer" })));
            return Box::pin(async move { Ok(answer) });
        }
        let inner = self.0.call(request);
        // Maps what the item answered.
        Box::pin(async move {
            Ok(match inner.await? {
                Response::Tool(result) if result.is_success() => {
                    let mut data = result.data().cloned().unwrap_or_default();
                    data.insert("mapped".into(), true.into());
                    Response::Tool(MCPToolResult::success(Value::Object(data)))
                }
                other => other,
            })
        })
    }
}

#[tokio::test]
async fn a_layer_may_answer_itself_or_map_the_result() {
    let seen = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&seen);
    let registry = echo()
        .layer(tower::layer::layer_fn(move |inner| {
            Answers(inner, Arc::clone(&counted))
        }))
        .build()
        .unwrap();
    let answered = registry.call(call("t.echo", json!({ "n": 1 }))).await;
    assert_eq!(answered.data().unwrap()["from"], "layer");
    let mapped = registry.call(call("other.echo", json!({ "n": 1 }))).await;
    assert_eq!(mapped.data().unwrap()["mapped"], true);
    assert_eq!(mapped.data().unwrap()["n"], 1);
    assert_eq!(seen.load(Ordering::SeqCst), 2);
}

/// Keeps the kind, item and caller of each request it passes on.
#[derive(Clone)]
struct Kinds<S>(S, Arc<std::sync::Mutex<Vec<Seen>>>);

/// What [`Kinds`] keeps of a request: its kind, its item's name, who calls.
type Seen = (Kind, String, mcp_runtime::layers::Caller);

impl<S> tower::Service<Request> for Kinds<S>
where
    S: tower::Service<Request, Response = Response, Error = BoxError>,
{
    type Response = Response;
    type Error = BoxError;
    type Future = S::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> S::Future {
        let seen = (request.kind(), request.name().to_owned(), request.caller());
        self.1.lock().unwrap().push(seen);
        self.0.call(request)
    }
}

/// Adds the resource `app://about` and the prompt `greet` to `registry`.
fn about_and_greet(registry: &mut Registry) {
    registry
        .register_resource(ResourceDefinition::new("app://about", "about"), |_| async {
            Ok(vec![ResourceContents::text("app://about", "hello")])
        })
        .unwrap();
    registry
        .register_prompt(PromptDefinition::new("greet"), |_| async {
            Ok(PromptResult::new(vec![PromptMessage::user("hi")]))
        })
        .unwrap();
}

#[tokio::test]
async fn resource_reads_and_prompt_gets_pass_through_the_layers_too() {
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let counted = Arc::clone(&seen);
    let mut registry = echo()
        .layer(tower::layer::layer_fn(move |inner| {
            Kinds(inner, Arc::clone(&counted))
        }))
        .build()
        .unwrap();
    about_and_greet(&mut registry);
    let read = registry.read_resource("app://about").await.unwrap();
    assert_eq!(read.len(), 1);
    registry
        .get_prompt("greet", Default::default())
        .await
        .unwrap();
    registry.call(call("t.echo", json!({}))).await;
    let seen: Vec<(Kind, String)> = seen
        .lock()
        .unwrap()
        .iter()
        .map(|(kind, name, _)| (*kind, name.clone()))
        .collect();
    assert_eq!(
        seen,
        [
            (Kind::Resource, "app://about".to_owned()),
            (Kind::Prompt, "greet".to_owned()),
            (Kind::Tool, "t.echo".to_owned()),
        ]
    );
}

#[tokio::test]
async fn a_layer_s_refusal_of_a_resource_read_is_the_read_s_failure() {
    let mut registry = echo()
        .layer(tower::layer::layer_fn(AdminsOnly))
        .build()
        .unwrap();
    registry
        .register_resource(ResourceDefinition::new("app://about", "about"), |_| async {
            Ok(vec![ResourceContents::text("app://about", "hello")])
        })
        .unwrap();
    let refused = registry.read_resource("app://about").await.unwrap_err();
    assert!(refused.to_string().contains("is for admins"), "{refused}");
}

#[test]
fn selectors_are_written_back_as_given() {
    for text in ["a.b", "a.*", "tag:x", "category:y"] {
        assert_eq!(text.parse::<Selector>().unwrap().to_string(), text);
    }
}

/// Doubles `n`.
#[mcp_runtime::mcp_tool(namespace = "inl", inline)]
fn double(n: i64) -> i64 {
    n * 2
}

#[tokio::test(flavor = "multi_thread")]
async fn an_inline_tool_served_through_layers_is_answered() {
    let registry = Registry::builder()
        .inventory()
        .layer_for(
            "inl.*".parse().unwrap(),
            BoxLayer::new(tower::layer::layer_fn(PlusOne)),
        )
        .layer(tower::limit::ConcurrencyLimitLayer::new(1))
        .build()
        .unwrap();
    let client = mcp_runtime::testing::connect(mcp_runtime::server::Server::new(registry))
        .await
        .unwrap();
    let calls = (0..4).map(|_| client.call_tool("inl.double", json!({ "n": 1 })));
    for result in futures_util::future::join_all(calls).await {
        assert_eq!(result.unwrap().data().unwrap()["result"], 4);
    }
}

#[tokio::test]
async fn a_call_waits_for_a_concurrency_slot_no_longer_than_its_own_timeout() {
    use mcp_runtime::layers::ConcurrencyLayer;

    let one = std::num::NonZeroUsize::new(1).unwrap();
    let registry = Registry::builder()
        .tool(definition("hold.slot"), |_, _| async {
            tokio::time::sleep(Duration::from_secs(2)).await;
            Ok::<_, ToolError>(json!({}))
        })
        .tool(
            definition("quick.wait").with_timeout(Duration::from_millis(100)),
            |_, _| async { Ok::<_, ToolError>(json!({})) },
        )
        // No wait of the layer's own: each call waits as long as its timeout.
        .layer(ConcurrencyLayer::new(one))
        .build()
        .unwrap();
    let holding = registry.call(call("hold.slot", json!({})));
    let waiting = async {
        tokio::time::sleep(Duration::from_millis(50)).await;
        let started = std::time::Instant::now();
        (
            registry.call(call("quick.wait", json!({}))).await,
            started.elapsed(),
        )
    };
    let (held, (waited, took)) = tokio::join!(holding, waiting);
    assert!(held.is_success(), "{held:?}");
    assert_eq!(
        error_type(&waited),
        ErrorType::ApiLimitExceeded,
        "{waited:?}"
    );
    let message = &waited.error().unwrap().error_message;
    assert!(
        message.contains("waited 100ms for one of its 1 concurrent slots"),
        "{message}"
    );
    assert!(
        took < Duration::from_secs(1),
        "it gave up at its timeout, not the other call's end: {took:?}"
    );
}

/// Set once `held.slow` has begun, holding its slot.
static SLOW_BEGUN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
/// Set once `held.slow` has run to its end.
static SLOW_DONE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Inline: answered where the server read its request, unless a layer makes it wait. Says
/// whether `held.slow` had ended when it ran.
#[mcp_runtime::mcp_tool(namespace = "held", inline)]
fn quick() -> bool {
    SLOW_DONE.load(Ordering::SeqCst)
}

/// Holds its concurrency slot for `ms` milliseconds.
#[mcp_runtime::mcp_tool(namespace = "held")]
async fn slow(ms: u64) -> bool {
    SLOW_BEGUN.store(true, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(ms)).await;
    SLOW_DONE.store(true, Ordering::SeqCst);
    true
}

#[tokio::test(flavor = "multi_thread")]
async fn an_inline_call_a_limit_makes_wait_is_answered_once_its_slot_frees_counted_once() {
    use mcp_runtime::layers::{ConcurrencyLayer, RateLimitLayer};
    let one = std::num::NonZeroUsize::new(1).unwrap();
    let registry = Registry::builder()
        .inventory()
        .layer_for(
            "held.quick".parse().unwrap(),
            BoxLayer::new(RateLimitLayer::new("2/min".parse().unwrap())),
        )
        .layer_for(
            "held.*".parse().unwrap(),
            BoxLayer::new(ConcurrencyLayer::new(one)),
        )
        .build()
        .unwrap();
    let server = mcp_runtime::server::Server::new(registry);
    let client = Arc::new(mcp_runtime::testing::connect(server).await.unwrap());
    let holder = {
        let client = Arc::clone(&client);
        tokio::spawn(async move { client.call_tool("held.slow", json!({ "ms": 400 })).await })
    };
    // The slow call's body runs once it holds the one slot.
    while !SLOW_BEGUN.load(Ordering::SeqCst) {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let waited = client.call_tool("held.quick", json!({})).await.unwrap();
    assert!(waited.is_success(), "{waited:?}");
    assert_eq!(
        waited.data().unwrap()["result"],
        true,
        "the inline call waited for the slot the slow one held"
    );
    assert!(holder.await.unwrap().unwrap().is_success());
    // The call that waited counted once against its rate limit: one more goes, at once.
    let second = client.call_tool("held.quick", json!({})).await.unwrap();
    assert!(second.is_success(), "{second:?}");
    let third = client.call_tool("held.quick", json!({})).await.unwrap();
    assert_eq!(error_type(&third), ErrorType::ApiLimitExceeded, "{third:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn layers_see_who_reads_a_resource_or_gets_a_prompt_as_they_see_who_calls_a_tool() {
    use mcp_runtime::layers::Caller;
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let kept = Arc::clone(&seen);
    let mut registry = echo()
        .layer(tower::layer::layer_fn(move |inner| {
            Kinds(inner, Arc::clone(&kept))
        }))
        .build()
        .unwrap();
    about_and_greet(&mut registry);
    registry.read_resource("app://about").await.unwrap();
    let server = mcp_runtime::server::Server::new(registry);
    let client = mcp_runtime::testing::connect(server).await.unwrap();
    client.read_resource("app://about").await.unwrap();
    client
        .get_prompt("greet", serde_json::Map::new())
        .await
        .unwrap();
    client.call_tool("t.echo", json!({})).await.unwrap();
    let seen: Vec<(Kind, Caller)> = seen
        .lock()
        .unwrap()
        .iter()
        .map(|(kind, _, caller)| (*kind, caller.clone()))
        .collect();
    assert_eq!(
        seen,
        [
            (Kind::Resource, Caller::Local),
            (Kind::Resource, Caller::Connection),
            (Kind::Prompt, Caller::Connection),
            (Kind::Tool, Caller::Connection),
        ],
        "a client's reads and gets count against its own limits, not the application's"
    );
}
