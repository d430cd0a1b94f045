//! The gateway: the quickstart's tools, spawned as a real process, mounted under a prefix
//! beside a local tool, served as one server and called through it by a client; a remote
//! name taken locally is a conflict reported as a local mount reports it; an upstream that
//! dies makes its calls fail at once with a clear error while local tools keep answering; a
//! mounted tool keeps its version and `_meta`; an upstream's resource update reaches the
//! gateway's client subscribed to the resource, under its mounted URI.

use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_runtime::client::{self, Client, HttpServer, StdioServer};
use mcp_runtime::server::Server;
use mcp_runtime::{ErrorType, MCPToolCall, Registry, ToolDefinition, ToolError};
use mcp_tests::quickstart_bin;
use serde_json::json;

fn quickstart() -> StdioServer {
    StdioServer::new(quickstart_bin().to_string_lossy()).args(["serve", "--stdio"])
}

/// A registry with one local tool, `local.echo`, and the quickstart's calculator taken.
fn local() -> Registry {
    let mut registry = Registry::builder().build().expect("empty");
    let schema = schemars::json_schema!({
        "type": "object",
        "properties": { "text": { "type": "string" } },
        "required": ["text"],
    });
    registry
        .register(
            ToolDefinition::new("local.echo", schema).unwrap(),
            |arguments, _| async move { Ok::<_, ToolError>(arguments["text"].clone()) },
        )
        .unwrap();
    let taken = schemars::json_schema!({ "type": "object" });
    registry
        .register(
            ToolDefinition::new("qs.text.word_count", taken).unwrap(),
            |_, _| async { Ok::<_, ToolError>(json!("the local one")) },
        )
        .unwrap();
    registry
}

/// The quickstart, spawned, mounted under `qs` beside the local tools.
async fn quickstart_mounted() -> (Registry, client::Mounted) {
    let upstream = Client::builder()
        .stdio(quickstart())
        .await
        .expect("connects");
    let mut registry = local();
    let mounted = client::mount(&mut registry, "qs", Arc::new(upstream))
        .await
        .expect("mounted");
    (registry, mounted)
}

#[tokio::test(flavor = "multi_thread")]
async fn remote_and_local_tools_are_served_as_one() {
    let (registry, mounted) = quickstart_mounted().await;
    assert!(
        mounted.tools.contains(&"qs.calculator.add".to_owned()),
        "{mounted:?}"
    );
    assert!(mounted.skipped.is_empty(), "{mounted:?}");
    let [conflict] = mounted.conflicts.as_slice() else {
        panic!("one conflict: {mounted:?}");
    };
    assert_eq!(conflict.tool_name, "qs.text.word_count");
    assert!(conflict.shadowed_by.contains("dynamic"), "{conflict:?}");

    // Served as one, at either revision, and called through by a client.
    let served = Arc::new(Server::new(registry));
    for handshake in [false, true] {
        let mut builder = Client::builder();
        if handshake {
            builder = builder.handshake_only();
        }
        let client = builder
            .in_memory(Arc::clone(&served))
            .await
            .expect("connects");
        let names: Vec<String> = client
            .list_tools()
            .await
            .expect("listed")
            .into_iter()
            .map(|tool| tool.name)
            .collect();
        assert!(names.contains(&"local.echo".to_owned()), "{names:?}");
        assert!(names.contains(&"qs.calculator.add".to_owned()), "{names:?}");
        let sum = client
            .call(&MCPToolCall::new("qs.calculator.add", json!({ "a": 40, "b": 2 })).unwrap())
            .await
            .expect("answered");
        assert!(sum.is_success(), "{sum}");
        assert!(sum.to_string().contains("42"), "{sum}");
        // Arguments are checked against the upstream's schema before they leave.
        let refused = client
            .call_tool("qs.calculator.add", json!({ "a": "one", "b": 2 }))
            .await
            .expect("answered");
        assert_eq!(
            refused.error().unwrap().error_type,
            ErrorType::ValidationError
        );
        let local = client
            .call_tool("local.echo", json!({ "text": "near" }))
            .await
            .expect("answered");
        assert_eq!(local.data().unwrap()["result"], "near");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_dead_upstream_fails_fast_and_the_rest_keeps_answering() {
    let upstream = Arc::new(
        Client::builder()
            .stdio(StdioServer::new(env!("CARGO_BIN_EXE_hostile-server")).args(["die"]))
            .await
            .expect("the handshake is proper"),
    );
    let mut registry = local();
    let mounted = client::mount(&mut registry, "frail", Arc::clone(&upstream))
        .await
        .expect("listed");
    assert_eq!(mounted.tools, ["frail.poke"]);
    let started = Instant::now();
    let first = registry
        .call(MCPToolCall::new("frail.poke", json!({})).unwrap())
        .await;
    let error = first.error().expect("a failure");
    assert_eq!(error.error_type, ErrorType::ToolExecutionError);
    assert!(
        error.error_message.contains("exit status: 3"),
        "{}",
        error.error_message
    );
    // Once dead, at once.
    let again = registry
        .call(MCPToolCall::new("frail.poke", json!({})).unwrap())
        .await;
    assert!(
        again.error().unwrap().error_message.contains("ended"),
        "{again}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    let local = registry
        .call(MCPToolCall::new("local.echo", json!({ "text": "still here" })).unwrap())
        .await;
    assert_eq!(local.data().unwrap()["result"], "still here");
}

#[tokio::test(flavor = "multi_thread")]
async fn remote_resources_templates_and_prompts_are_mounted_too() {
    let (registry, mounted) = quickstart_mounted().await;
    assert!(mounted.skipped.is_empty(), "{mounted:?}");
    let client = mcp_runtime::testing::connect(Server::new(registry))
        .await
        .expect("connects");

    let about = client
        .read_resource("quickstart://qs/about")
        .await
        .expect("read upstream");
    assert_eq!(
        about[0]["uri"], "quickstart://about",
        "the upstream's own contents"
    );
    assert!(
        about[0]["text"]
            .as_str()
            .unwrap()
            .starts_with("# quickstart")
    );

    // A template: the mounted URI is read upstream as it was written there.
    let spec = client
        .read_resource("quickstart://qs/tools/calculator.add")
        .await
        .expect("read upstream");
    assert!(spec[0]["text"].as_str().unwrap().contains("calculator.add"));

    // The upstream's missing-resource error stays one: at 2026-07-28, invalid params that
    // name the URI asked for, not an internal error.
    let missing = client
        .read_resource("quickstart://qs/tools/nope.nope")
        .await
        .expect_err("no such tool upstream");
    let mcp_runtime::client::ClientError::Rpc(error) = &missing else {
        panic!("a JSON-RPC error: {missing}");
    };
    assert_eq!(error.code, mcp_runtime::server::INVALID_PARAMS, "{missing}");
    assert_eq!(
        error.data.as_ref().unwrap()["uri"],
        "quickstart://qs/tools/nope.nope"
    );

    let mut arguments = serde_json::Map::new();
    arguments.insert("code".to_owned(), json!("fn main() {}"));
    let prompt = client
        .get_prompt("qs.code_review", arguments)
        .await
        .expect("rendered upstream");
    assert!(
        prompt["messages"][0]["content"]["text"]
            .as_str()
            .unwrap()
            .contains("fn main() {}")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn what_the_server_behind_asks_is_asked_of_the_gateways_client() {
    // The quickstart's `text.summarize` asks for a sample: at 2026-07-28 with an
    // input-required result, on the handshake's revisions with a request during the call.
    // Either way the gateway passes it on to its own client, at either revision; over
    // HTTP the request comes on the call's own event stream.
    let over_http = mcp_tests::HttpServer::spawn(quickstart_bin(), &[]);
    for (upstream_handshake, http) in [(false, false), (true, false), (true, true)] {
        let upstream = match upstream_handshake {
            false => Client::builder(),
            true => Client::builder().handshake_only().relay_requests(),
        };
        let upstream = match http {
            false => upstream.stdio(quickstart()).await,
            true => upstream.http(HttpServer::new(over_http.url())).await,
        }
        .expect("connects");
        assert_eq!(upstream.server().is_stateless(), !upstream_handshake);
        let mut registry = local();
        client::mount(&mut registry, "qs", Arc::new(upstream))
            .await
            .expect("mounted");
        let served = Arc::new(Server::new(registry));
        asks_pass_through(Arc::clone(&served), upstream_handshake).await;
        if upstream_handshake {
            // Calls at once: each request goes to the caller of its own call. Over HTTP it
            // comes on that call's stream; over stdio, where all share one, it names the
            // call in its `_meta`.
            let downstream = Client::builder()
                .on_sampling(|request| async move {
                    let text = request["messages"][0]["content"]["text"].clone();
                    Ok(json!({
                        "role": "assistant",
                        "content": { "type": "text", "text": format!("sampled {text}") },
                        "model": "test",
                    }))
                })
                .in_memory(served)
                .await
                .expect("connects");
            let call = |n: usize| {
                let downstream = &downstream;
                async move {
                    let text = format!("text number {n}");
                    let result = downstream
                        .call_tool("qs.text.summarize", json!({ "text": text }))
                        .await
                        .expect("answered");
                    assert!(result.is_success(), "{result}");
                    assert!(result.to_string().contains(&text), "{result}");
                }
            };
            tokio::join!(call(1), call(2), call(3), call(4));
        }
    }
}

/// `text.summarize` mounted under `qs` in `served` samples through the gateway's client.
async fn asks_pass_through(served: Arc<Server>, upstream_handshake: bool) {
    for handshake in [false, true] {
        let handshake_label =
            format!("upstream handshake {upstream_handshake}, downstream handshake {handshake}");
        let mut builder = Client::builder().on_sampling(|request| async move {
            assert!(
                request["messages"][0]["content"]["text"]
                    .as_str()
                    .unwrap()
                    .contains("pass me on")
            );
            Ok(json!({
                "role": "assistant",
                "content": { "type": "text", "text": "answered downstream" },
                "model": "test",
            }))
        });
        if handshake {
            builder = builder.handshake_only();
        }
        let client = builder
            .in_memory(Arc::clone(&served))
            .await
            .expect("connects");
        let summary = client
            .call_tool("qs.text.summarize", json!({ "text": "pass me on" }))
            .await
            .expect("answered");
        assert!(summary.is_success(), "{handshake_label}: {summary:?}");
        assert!(
            summary.to_string().contains("answered downstream"),
            "{handshake_label}: {summary}"
        );

        // A client that cannot sample is not asked, and the call says why.
        let mute = Client::builder();
        let mute = if handshake {
            mute.handshake_only()
        } else {
            mute
        };
        let mute = mute.in_memory(Arc::clone(&served)).await.expect("connects");
        let refused = mute
            .call_tool("qs.text.summarize", json!({ "text": "x" }))
            .await
            .expect("answered");
        assert!(!refused.is_success(), "{handshake_label}: {refused}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_upstream_tool_list_change_is_followed_and_passed_on() {
    let binary = mcp_tests::workspace_bin("conformance-server", "CONFORMANCE_SERVER_BIN");
    let upstream = Arc::new(
        Client::builder()
            .handshake_only()
            .stdio(StdioServer::new(binary.to_string_lossy()).args(["serve", "--stdio"]))
            .await
            .expect("connects"),
    );
    let mut registry = local();
    client::mount(&mut registry, "up", Arc::clone(&upstream))
        .await
        .expect("mounted");
    let served = Arc::new(Server::new(registry));
    let following = client::follow(Arc::clone(&served), "up", Arc::clone(&upstream));

    let downstream = Client::builder()
        .handshake_only()
        .in_memory(Arc::clone(&served))
        .await
        .expect("connects");
    let mut told = downstream.notifications();
    let names = |tools: Vec<mcp_runtime::client::Tool>| -> Vec<String> {
        tools.into_iter().map(|tool| tool.name).collect()
    };
    let before = names(downstream.list_tools().await.unwrap());
    assert!(!before.contains(&"up.test.registered_while_serving".to_owned()));

    // Through the gateway, the upstream registers a tool and says so.
    let changed = downstream
        .call_tool("up.test.trigger_tool_change", json!({}))
        .await
        .expect("answered");
    assert!(
        changed.to_string().contains("tool list changed"),
        "{changed}"
    );
    let heard = mcp_tests::hears(
        &mut told,
        "notifications/tools/list_changed",
        Duration::from_secs(5),
    )
    .await;
    assert!(heard, "the gateway's client was told of the change");
    let after = names(downstream.list_tools().await.unwrap());
    assert!(
        after.contains(&"up.test.registered_while_serving".to_owned()),
        "{after:?}"
    );
    assert!(
        after.contains(&"local.echo".to_owned()),
        "local tools stay: {after:?}"
    );
    // The new tool is called upstream.
    let called = downstream
        .call_tool("up.test.registered_while_serving", json!({}))
        .await
        .expect("answered");
    assert!(called.is_success(), "{called}");
    following.abort();
}

#[tokio::test(flavor = "multi_thread")]
async fn an_upstream_of_the_handshakes_revisions_is_asked_for_the_log_messages_passed_on() {
    // Such a server sends log messages only once the session asked for them
    // (`logging/setLevel`): the gateway asks for what its caller wants. Over stdio its
    // messages do not say which call they come during: with another call in flight, whose
    // caller wants none, they are no caller's.
    let binary = mcp_tests::workspace_bin("conformance-server", "CONFORMANCE_SERVER_BIN");
    let upstream = Client::builder()
        .handshake_only()
        .stdio(StdioServer::new(binary.to_string_lossy()).args(["serve", "--stdio"]))
        .await
        .expect("connects");
    let mut registry = local();
    client::mount(&mut registry, "up", Arc::new(upstream))
        .await
        .expect("mounted");
    let served = Arc::new(Server::new(registry));
    let downstream = Client::builder()
        .in_memory(Arc::clone(&served))
        .await
        .expect("connects");
    let logged_call = || async {
        let logged = Arc::new(std::sync::Mutex::new(Vec::new()));
        let into = Arc::clone(&logged);
        let options = client::RequestOptions::default()
            .on_log(mcp_runtime::LoggingLevel::Debug, move |message| {
                into.lock().unwrap().push(message)
            });
        let result = downstream
            .call_tool_with("up.test.tool_with_logging", serde_json::Map::new(), options)
            .await
            .expect("answered");
        assert!(result.is_success(), "{result}");
        logged.lock().unwrap().clone()
    };

    let logged = logged_call().await;
    let texts: Vec<_> = logged.iter().map(|message| message.data.clone()).collect();
    assert_eq!(
        texts,
        [
            "Tool execution started",
            "Tool processing data",
            "Tool execution completed"
        ],
        "{logged:?}"
    );
    assert!(
        logged
            .iter()
            .all(|message| message.logger.as_deref() == Some("up.test.tool_with_logging")),
        "{logged:?}"
    );

    // Another caller, who wants no messages, calls the same tool at the same time. The
    // server behind logs its call too (the session's level is one for all calls): none of
    // those messages reaches the first caller.
    let other = Client::builder().in_memory(served).await.expect("connects");
    let quiet_call = async {
        let result = other
            .call_tool("up.test.tool_with_logging", json!({}))
            .await
            .expect("answered");
        assert!(result.is_success(), "{result}");
    };
    let (both, ()) = tokio::join!(logged_call(), quiet_call);
    assert!(
        both.len() <= 3,
        "another caller's messages were passed on: {both:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_mounted_tool_keeps_its_version_and_meta() {
    // A server of this framework, whose tool says its version, category and tags under the
    // framework's key, and something of another vendor's beside.
    let mut upstream = Registry::builder().build().expect("empty");
    let mut vendor = serde_json::Map::new();
    vendor.insert(
        "vendor.example/ui".to_owned(),
        json!({ "card": "compact", "order": [2, 1] }),
    );
    let definition = ToolDefinition::new("far.stamp", schemars::json_schema!({ "type": "object" }))
        .unwrap()
        .with_version("2.3.4")
        .unwrap()
        .with_category("stamps")
        .with_tags(["paper", "ink"])
        .with_meta(vendor);
    upstream
        .register(definition, |_, _| async {
            Ok::<_, ToolError>(json!("stamped"))
        })
        .unwrap();
    let upstream = Client::builder()
        .in_memory(Arc::new(Server::new(upstream)))
        .await
        .expect("connects");
    let meta_of = |tools: Vec<client::Tool>, name: &str| {
        let tool = tools
            .into_iter()
            .find(|tool| tool.name == name)
            .unwrap_or_else(|| panic!("`{name}` is listed"));
        tool.raw.get("_meta").cloned().expect("a `_meta`")
    };
    let listed = meta_of(upstream.list_tools().await.expect("listed"), "far.stamp");
    assert_eq!(listed["mcp-runtime/tool"]["version"], "2.3.4", "{listed}");
    assert_eq!(listed["vendor.example/ui"]["card"], "compact", "{listed}");

    let mut registry = local();
    client::mount(&mut registry, "up", Arc::new(upstream))
        .await
        .expect("mounted");
    let mounted = registry.get("up.far.stamp").expect("mounted");
    assert_eq!(mounted.definition().version().to_string(), "2.3.4");

    // The gateway lists the tool with the `_meta` the server behind lists, unchanged.
    let served = Arc::new(Server::new(registry));
    for handshake in [false, true] {
        let mut builder = Client::builder();
        if handshake {
            builder = builder.handshake_only();
        }
        let downstream = builder
            .in_memory(Arc::clone(&served))
            .await
            .expect("connects");
        let through = meta_of(
            downstream.list_tools().await.expect("listed"),
            "up.far.stamp",
        );
        assert_eq!(through, listed, "handshake {handshake}");
    }
}

/// A server of one resource, `docs://guide`, whose updates it sends to its subscribers.
fn documented() -> Arc<Server> {
    let mut registry = Registry::builder().build().expect("empty");
    registry
        .register_resource(
            mcp_runtime::ResourceDefinition::new("docs://guide", "guide"),
            |_| async {
                Ok::<_, ToolError>(vec![mcp_runtime::ResourceContents::text(
                    "docs://guide",
                    "the guide",
                )])
            },
        )
        .expect("registered");
    Arc::new(Server::new(registry))
}

#[tokio::test(flavor = "multi_thread")]
async fn an_upstream_resource_update_reaches_the_gateway_client_subscribed_to_it() {
    for upstream_handshake in [false, true] {
        let label = format!("upstream handshake {upstream_handshake}");
        let upstream = documented();
        let mut builder = Client::builder();
        if upstream_handshake {
            builder = builder.handshake_only();
        }
        let to_upstream = Arc::new(
            builder
                .in_memory(Arc::clone(&upstream))
                .await
                .expect("connects"),
        );
        let mut registry = local();
        client::mount(&mut registry, "up", Arc::clone(&to_upstream))
            .await
            .expect("mounted");
        let served = Arc::new(Server::new(registry));
        let following = client::follow(Arc::clone(&served), "up", to_upstream);

        // A client of the gateway subscribes to the resource as it is mounted.
        let downstream = Client::builder()
            .handshake_only()
            .in_memory(Arc::clone(&served))
            .await
            .expect("connects");
        let mut told = downstream.notifications();
        let mut params = serde_json::Map::new();
        params.insert("uri".to_owned(), json!("docs://up/guide"));
        downstream
            .request("resources/subscribe", params, Default::default())
            .await
            .expect("subscribed");

        // The follower subscribes upstream as it starts: an update is sent until one comes
        // through, within a deadline.
        let deadline = Instant::now() + Duration::from_secs(10);
        let updated = loop {
            upstream.notify_resource_updated("docs://guide");
            let heard = tokio::time::timeout(Duration::from_millis(200), async {
                loop {
                    match told.recv().await {
                        Ok(notification)
                            if notification.method == "notifications/resources/updated" =>
                        {
                            return Some(notification.params);
                        }
                        Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                        Err(tokio::sync::broadcast::error::RecvError::Closed) => return None,
                    }
                }
            })
            .await;
            if let Ok(Some(params)) = heard {
                break params;
            }
            assert!(
                Instant::now() < deadline,
                "{label}: the update never reached the gateway's client"
            );
        };
        assert_eq!(updated["uri"], "docs://up/guide", "{label}: {updated}");
        following.abort();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_upstream_that_asks_in_another_order_when_called_again_gets_each_answer_where_it_belongs()
 {
    // A 2026-07-28 caller answers over rounds, each of which calls the server behind again:
    // the answers given are matched to its questions by what they ask, not by their place.
    let fixture = StdioServer::new(env!("CARGO_BIN_EXE_fixture-server")).args(["serve", "--stdio"]);
    let upstream = Client::builder()
        .handshake_only()
        .relay_requests()
        .stdio(fixture)
        .await
        .expect("connects");
    let mut registry = Registry::builder().build().expect("empty");
    client::mount(&mut registry, "fx", Arc::new(upstream))
        .await
        .expect("mounted");
    let downstream = Client::builder()
        .on_elicitation(|request| async move {
            let answer = match request.message.as_str() {
                "first?" => "one",
                "second?" => "two",
                other => panic!("asked {other}"),
            };
            let mut content = serde_json::Map::new();
            content.insert("value".to_owned(), json!(answer));
            Ok(mcp_runtime::client::ElicitResponse::accept(content))
        })
        .in_memory(Arc::new(Server::new(registry)))
        .await
        .expect("connects");
    assert!(downstream.server().is_stateless());
    let result = downstream
        .call_tool("fx.fixture.two_questions", json!({}))
        .await
        .expect("answered");
    assert!(result.is_success(), "{result}");
    assert_eq!(
        result.data().unwrap()["result"],
        json!({ "first": "one", "second": "two" }),
        "{result}"
    );
}
