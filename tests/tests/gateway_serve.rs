//! `serve --mount`: the quickstart serving another server's tools beside its own, as real
//! processes. A change in the upstream's tool or prompt list reaches the gateway's client
//! at either revision; so do the log messages and progress of an upstream tool's call, to
//! the call they belong to; an HTTP upstream killed mid-run makes its calls fail at once
//! with a clear error while the local tools keep answering (a call in flight then is told
//! that the connection to the mount it names was lost), and is back in use once it
//! restarts. An upstream's resource update reaches the gateway's client subscribed to the
//! resource. A follower of an upstream ends by itself once the server it updates is dropped.
//! An upstream's skills are served under the mount's name, and read verified.

use std::time::{Duration, Instant};

use std::sync::{Arc, Mutex};

use mcp_runtime::client::{
    self, Client, ClientManager, Progress, RequestOptions, StdioServer, Target,
};
use mcp_runtime::server::Server;
use mcp_runtime::{LogMessage, LoggingLevel, Registry, ToolDefinition, ToolError};
use mcp_tests::{HttpServer, quickstart_bin};
use serde_json::{Map, json};

/// The quickstart serving on stdio, with `mount` (`NAME=SERVER`) mounted.
fn gateway(mount: &str) -> StdioServer {
    StdioServer::new(quickstart_bin().to_string_lossy())
        .args(["--mount", mount, "serve", "--stdio"])
}

fn names(tools: Vec<mcp_runtime::client::Tool>) -> Vec<String> {
    tools.into_iter().map(|tool| tool.name).collect()
}

/// Calls `tool`, which changes the upstream's list of `kind`, through `client`, and checks
/// that the gateway passes the change on.
async fn trigger(
    client: &Client,
    told: &mut tokio::sync::broadcast::Receiver<client::Notification>,
    tool: &str,
    kind: &str,
    label: &str,
) {
    let changed = client.call_tool(tool, json!({})).await.expect("answered");
    assert!(changed.is_success(), "{label}: {changed}");
    let method = format!("notifications/{kind}/list_changed");
    let heard = mcp_tests::hears(told, &method, Duration::from_secs(10)).await;
    assert!(heard, "{label}: `{method}` was passed on");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_upstream_tool_list_change_reaches_the_gateways_client() {
    let upstream = mcp_tests::workspace_bin("conformance-server", "CONFORMANCE_SERVER_BIN");
    let mount = format!("up={} serve --stdio", upstream.to_string_lossy());
    for handshake in [false, true] {
        let mut builder = Client::builder().timeout(Duration::from_secs(20));
        if handshake {
            builder = builder.handshake_only();
        }
        let client = builder.stdio(gateway(&mount)).await.expect("connects");
        // At 2026-07-28 a client hears of changes on a stream it opens.
        let _listening = client.listen_for_changes().await.expect("listening");
        let mut told = client.notifications();
        let before = names(client.list_tools().await.expect("listed"));
        assert!(
            before.contains(&"up.test.trigger_tool_change".to_owned()),
            "{before:?}"
        );
        assert!(!before.contains(&"up.test.registered_while_serving".to_owned()));

        let label = format!("handshake {handshake}");
        trigger(
            &client,
            &mut told,
            "up.test.trigger_tool_change",
            "tools",
            &label,
        )
        .await;
        let after = names(client.list_tools().await.expect("listed"));
        assert!(
            after.contains(&"up.test.registered_while_serving".to_owned()),
            "handshake {handshake}: {after:?}"
        );
        assert!(after.contains(&"calculator.add".to_owned()), "{after:?}");

        // A change of its prompts too.
        let prompts = |listed: Vec<serde_json::Value>| -> Vec<String> {
            listed
                .iter()
                .filter_map(|prompt| prompt["name"].as_str().map(str::to_owned))
                .collect()
        };
        let added = "up.test_registered_while_serving".to_owned();
        let before = prompts(client.list_prompts().await.expect("listed"));
        assert!(!before.contains(&added), "{before:?}");
        trigger(
            &client,
            &mut told,
            "up.test.trigger_prompt_change",
            "prompts",
            &label,
        )
        .await;
        let after = prompts(client.list_prompts().await.expect("listed"));
        assert!(after.contains(&added), "handshake {handshake}: {after:?}");
    }
}

/// Calls `tool` through `client` with log messages asked for at `least`: its result, and
/// the messages that came with it.
async fn logged_call(
    client: &Client,
    tool: &str,
    least: LoggingLevel,
) -> (String, Vec<LogMessage>) {
    let logged = Arc::new(Mutex::new(Vec::new()));
    let into = Arc::clone(&logged);
    let options = RequestOptions::default().on_log(least, move |message| {
        into.lock().unwrap().push(message);
    });
    let result = client
        .call_tool_with(tool, Map::new(), options)
        .await
        .expect("answered");
    assert!(result.is_success(), "{tool}: {result}");
    let messages = logged.lock().unwrap().clone();
    (result.to_string(), messages)
}

/// The text of each message.
fn texts(messages: &[LogMessage]) -> Vec<&str> {
    messages
        .iter()
        .map(|message| message.data.as_str().unwrap_or("(not text)"))
        .collect()
}

/// What the conformance server's `test.tool_with_logging` logs, in order.
const LOGGED: [&str; 3] = [
    "Tool execution started",
    "Tool processing data",
    "Tool execution completed",
];

#[tokio::test(flavor = "multi_thread")]
async fn an_upstream_tools_log_messages_and_progress_reach_the_gateways_client() {
    let upstream = mcp_tests::workspace_bin("conformance-server", "CONFORMANCE_SERVER_BIN");
    let mount = format!("up={} serve --stdio", upstream.to_string_lossy());
    for handshake in [false, true] {
        let label = format!("downstream handshake {handshake}");
        let mut builder = Client::builder().timeout(Duration::from_secs(20));
        if handshake {
            builder = builder.handshake_only();
        }
        let client = builder.stdio(gateway(&mount)).await.expect("connects");

        // Each message, in order, named after the mounted tool: its logger under the prefix.
        let (result, messages) =
            logged_call(&client, "up.test.tool_with_logging", LoggingLevel::Info).await;
        assert!(
            result.contains("Logging test completed"),
            "{label}: {result}"
        );
        assert_eq!(texts(&messages), LOGGED, "{label}: {messages:?}");
        for message in &messages {
            assert_eq!(message.level, LoggingLevel::Info, "{label}");
            assert_eq!(
                message.logger.as_deref(),
                Some("up.test.tool_with_logging"),
                "{label}"
            );
        }
        // A caller that wants warnings and worse gets none of them. (On the handshake's
        // revisions the session asked for `info` above, and the gateway's session behind
        // it too: the gateway filters for each call.)
        let (_, quiet) =
            logged_call(&client, "up.test.tool_with_logging", LoggingLevel::Warning).await;
        assert_eq!(texts(&quiet), Vec::<&str>::new(), "{label}");

        // Progress, under the token of the gateway client's own request.
        let reports = Arc::new(Mutex::new(Vec::new()));
        let into = Arc::clone(&reports);
        let options = RequestOptions::default().on_progress(move |progress: Progress| {
            into.lock()
                .unwrap()
                .push((progress.progress, progress.total));
        });
        let result = client
            .call_tool_with("up.test.tool_with_progress", Map::new(), options)
            .await
            .expect("answered");
        assert!(result.is_success(), "{label}: {result}");
        let reports = reports.lock().unwrap().clone();
        assert_eq!(
            reports,
            [
                (0.0, Some(100.0)),
                (50.0, Some(100.0)),
                (100.0, Some(100.0))
            ],
            "{label}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn log_messages_of_calls_in_flight_at_once_reach_each_its_own_caller_over_http() {
    // Over HTTP each call's messages come on its own stream, on both sides of the gateway:
    // two calls at once each get their three messages, and only theirs.
    let conformance = mcp_tests::workspace_bin("conformance-server", "CONFORMANCE_SERVER_BIN");
    let upstream = HttpServer::spawn(&conformance, &[]);
    let mount = format!("up={}", upstream.url());
    let gateway = HttpServer::spawn(quickstart_bin(), &["--mount", &mount]);
    for handshake in [false, true] {
        let mut builder = Client::builder().timeout(Duration::from_secs(20));
        if handshake {
            builder = builder.handshake_only();
        }
        let client = builder
            .http(client::HttpServer::new(gateway.url()))
            .await
            .expect("connects");
        let call = || logged_call(&client, "up.test.tool_with_logging", LoggingLevel::Debug);
        let ((_, first), (_, second)) = tokio::join!(call(), call());
        assert_eq!(texts(&first), LOGGED, "handshake {handshake}");
        assert_eq!(texts(&second), LOGGED, "handshake {handshake}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_http_upstream_killed_mid_run_fails_fast_and_is_back_after_its_restart() {
    // Served by the command line: the gateway's client speaks 2026-07-28, one POST a call.
    let upstream = HttpServer::spawn(quickstart_bin(), &[]);
    let client = Client::builder()
        .timeout(Duration::from_secs(20))
        .stdio(gateway(&format!("up={}", upstream.url())))
        .await
        .expect("connects");
    killed_and_restarted(upstream, &client, "calculator.add", "command line").await;

    // Through the library, at the handshake's revision: the gateway's client keeps a
    // session, which the restart ends; the manager starts a new one.
    let upstream = HttpServer::spawn(quickstart_bin(), &[]);
    let manager = manager_of(&upstream);
    let mut registry = Registry::builder().build().expect("built");
    let schema = schemars::json_schema!({
        "type": "object",
        "properties": { "a": { "type": "integer" }, "b": { "type": "integer" } },
    });
    registry
        .register(
            ToolDefinition::new("local.add", schema).expect("a name"),
            |arguments, _| async move {
                let sum =
                    arguments["a"].as_i64().unwrap_or(0) + arguments["b"].as_i64().unwrap_or(0);
                Ok::<_, ToolError>(json!(sum))
            },
        )
        .expect("registered");
    client::mount_managed(&mut registry, "up", Arc::clone(&manager), "up")
        .await
        .expect("mounted");
    let served = Arc::new(Server::new(registry));
    let following = client::follow_managed(Arc::clone(&served), "up", manager, "up");
    let client = Client::builder().in_memory(served).await.expect("connects");
    killed_and_restarted(upstream, &client, "local.add", "library, handshake").await;
    following.abort();
}

/// Calls `up.calculator.add` through `client`'s gateway, kills `upstream`, checks that the
/// call fails at once while `local` answers, restarts the upstream where it was, and waits
/// for the call to succeed again.
async fn killed_and_restarted(upstream: HttpServer, client: &Client, local: &str, label: &str) {
    let add = |name: String| async move {
        client
            .call_tool(&name, json!({ "a": 20, "b": 22 }))
            .await
            .expect("the gateway answers")
    };
    let remote = "up.calculator.add".to_owned();
    let through = add(remote.clone()).await;
    assert!(through.is_success(), "{label}: {through}");

    let address = upstream.address.to_string();
    upstream.stop();
    let started = Instant::now();
    let failed = add(remote.clone()).await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{label}: a dead upstream fails fast, not after {:?}",
        started.elapsed()
    );
    assert!(!failed.is_success(), "{label}: {failed}");
    assert!(
        failed.to_string().contains("could not be called"),
        "{label}: the error says the remote tool could not be called: {failed}"
    );
    let answered = add(local.to_owned()).await;
    assert!(
        answered.is_success(),
        "{label}: the local tools keep answering: {answered}"
    );

    // Restarted where it was: the gateway uses it again.
    let _restarted = HttpServer::spawn_on(quickstart_bin(), &address, &[]);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let again = add(remote.clone()).await;
        if again.is_success() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{label}: the restarted upstream is not used again: {again}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// A client manager of one server, `up`: `upstream`, at the handshake's revision.
fn manager_of(upstream: &HttpServer) -> Arc<ClientManager> {
    let servers = [(
        "up".to_owned(),
        Target::Http(mcp_runtime::client::HttpServer::new(upstream.url())),
    )];
    Arc::new(ClientManager::new(
        servers.into_iter().collect(),
        Client::builder()
            .handshake_only()
            .timeout(Duration::from_secs(20)),
    ))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_follower_ends_by_itself_once_the_server_it_updates_is_dropped() {
    let upstream = HttpServer::spawn(quickstart_bin(), &[]);
    let manager = manager_of(&upstream);
    let served = || async {
        let mut registry = Registry::builder().build().expect("built");
        client::mount_managed(&mut registry, "up", Arc::clone(&manager), "up")
            .await
            .expect("mounted");
        Arc::new(Server::new(registry))
    };
    // Whether the follower ended by itself within ten seconds; the handle is only awaited.
    let ends = |following: tokio::task::JoinHandle<()>| async move {
        tokio::time::timeout(Duration::from_secs(10), following)
            .await
            .is_ok()
    };

    // Following a server that is up, the follower waits for its changes.
    let server = served().await;
    let following = client::follow_managed(Arc::clone(&server), "up", Arc::clone(&manager), "up");
    let client = Client::builder()
        .in_memory(Arc::clone(&server))
        .await
        .expect("connects");
    let listed = names(client.list_tools().await.expect("listed"));
    assert!(
        listed.contains(&"up.calculator.add".to_owned()),
        "{listed:?}"
    );
    drop((client, server));
    assert!(
        ends(following).await,
        "a follower of a server that is up ends once the server it updates is dropped"
    );

    // Following a server that is down, the follower tries to reconnect.
    let server = served().await;
    let following = client::follow_managed(Arc::clone(&server), "up", Arc::clone(&manager), "up");
    upstream.stop();
    drop(server);
    assert!(
        ends(following).await,
        "a follower of a server that is down ends once the server it updates is dropped"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_in_flight_when_its_upstream_dies_names_the_mount_and_its_restart_is_used() {
    // Served by the command line: the gateway's client speaks 2026-07-28, one POST a call.
    let upstream = HttpServer::spawn(quickstart_bin(), &[]);
    let client = Client::builder()
        .timeout(Duration::from_secs(60))
        .stdio(gateway(&format!("up={}", upstream.url())))
        .await
        .expect("connects");
    cut_in_flight(upstream, &client, "command line").await;

    // Through the library, at the handshake's revision: the call's stream and the session
    // end together; the manager starts a new session once the upstream is back.
    let upstream = HttpServer::spawn(quickstart_bin(), &[]);
    let manager = manager_of(&upstream);
    let mut registry = Registry::builder().build().expect("built");
    client::mount_managed(&mut registry, "up", Arc::clone(&manager), "up")
        .await
        .expect("mounted");
    let served = Arc::new(Server::new(registry));
    let following = client::follow_managed(Arc::clone(&served), "up", manager, "up");
    let client = Client::builder()
        .timeout(Duration::from_secs(60))
        .in_memory(served)
        .await
        .expect("connects");
    cut_in_flight(upstream, &client, "library, handshake").await;
    following.abort();
}

/// Calls the slow `up.text.slow_count` through `client`'s gateway, kills `upstream` with
/// the call in flight, checks the call's error, restarts the upstream where it was, and
/// waits for a call to succeed again.
async fn cut_in_flight(upstream: HttpServer, client: &Client, label: &str) {
    let address = upstream.address.to_string();
    // The upstream reports progress once it runs the call, then waits: the call is in
    // flight upstream once its first report reaches the gateway's client.
    let (running, started) = tokio::sync::oneshot::channel();
    let mut running = Some(running);
    let options = RequestOptions::default().on_progress(move |_| {
        if let Some(running) = running.take() {
            let _ = running.send(());
        }
    });
    let arguments = json!({ "text": "in flight", "delay_ms": 600_000 });
    let Some(arguments) = arguments.as_object().cloned() else {
        panic!("an object");
    };
    let in_flight = client.call_tool_with("up.text.slow_count", arguments, options);
    tokio::pin!(in_flight);
    tokio::select! {
        answered = &mut in_flight => panic!("{label}: the slow call answered early: {answered:?}"),
        started = tokio::time::timeout(Duration::from_secs(30), started) => {
            assert!(matches!(started, Ok(Ok(()))), "{label}: the slow call's progress never came");
        }
    }

    // SIGKILL: the connection to the upstream is cut in the middle of the call.
    upstream.stop();
    let failed = tokio::time::timeout(Duration::from_secs(10), in_flight)
        .await
        .unwrap_or_else(|_| {
            panic!("{label}: the call in flight fails within seconds, not at its timeout")
        })
        .expect("the gateway answers");
    assert!(!failed.is_success(), "{label}: {failed}");
    let message = failed.to_string();
    assert!(
        message.contains("`up`") && message.contains("connection") && message.contains("lost"),
        "{label}: the error names the mount and says its connection was lost: {message}"
    );

    // Restarted on the same port: the running gateway uses it again.
    let _restarted = HttpServer::spawn_on(quickstart_bin(), &address, &[]);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let again = client
            .call_tool(
                "up.text.slow_count",
                json!({ "text": "back again", "delay_ms": 0 }),
            )
            .await
            .expect("the gateway answers");
        if again.is_success() {
            assert!(
                again.to_string().contains("\"words\":2"),
                "{label}: {again}"
            );
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{label}: the restarted upstream is not used again: {again}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_upstream_resource_update_reaches_the_gateways_client_subscribed_to_it() {
    // The server behind, served over HTTP by this process: one resource, whose updates it
    // sends to its subscribers.
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
    let upstream = Arc::new(Server::new(registry));
    let (bound, address) = tokio::sync::oneshot::channel();
    let serving = tokio::spawn(mcp_runtime::server::serve_http(
        Arc::clone(&upstream),
        ([127, 0, 0, 1], 0).into(),
        mcp_runtime::server::HttpConfig::default(),
        move |address| {
            let _ = bound.send(address);
        },
    ));
    let address = address.await.expect("bound");

    // The quickstart mounts it (at 2026-07-28); its client subscribes to the mounted URI.
    let client = Client::builder()
        .handshake_only()
        .timeout(Duration::from_secs(20))
        .stdio(gateway(&format!("up=http://{address}/mcp")))
        .await
        .expect("connects");
    let mut told = client.notifications();
    let mut params = Map::new();
    params.insert("uri".to_owned(), json!("docs://up/guide"));
    client
        .request("resources/subscribe", params, RequestOptions::default())
        .await
        .expect("subscribed");

    // The gateway subscribes upstream once it follows the server: an update is sent until
    // one comes through, within a deadline.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        upstream.notify_resource_updated("docs://guide");
        let heard = tokio::time::timeout(Duration::from_millis(250), async {
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
        if let Ok(Some(updated)) = heard {
            assert_eq!(updated["uri"], "docs://up/guide", "{updated}");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the update never reached the gateway's client"
        );
    }
    serving.abort();
}

#[tokio::test(flavor = "multi_thread")]
async fn serve_mount_passes_an_upstreams_skills_on_under_the_mounts_name_verified() {
    let folder =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/quickstart/skills");
    let mount = format!(
        "guide={} serve --stdio --skills {}",
        quickstart_bin().to_string_lossy(),
        folder.to_string_lossy()
    );
    let client = Client::builder()
        .timeout(Duration::from_secs(20))
        .stdio(gateway(&mount))
        .await
        .expect("connects");
    let skills = client.skills();
    assert!(
        skills.offered(),
        "the gateway declares the skills extension"
    );
    let listed = skills.list().await.expect("listed");
    let uris: Vec<&str> = listed.iter().map(|entry| entry.uri.as_str()).collect();
    assert_eq!(uris, ["skill://guide/quickstart-guide/SKILL.md"]);
    let skill = skills.load(listed[0].clone()).await.expect("loaded");
    let on_disk = std::fs::read_to_string(folder.join("quickstart-guide/SKILL.md")).unwrap();
    assert_eq!(skill.instructions().text(), Some(on_disk.as_str()));
    assert!(
        skill.instructions().verified,
        "checked against the listed digest"
    );
}
