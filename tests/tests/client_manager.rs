//! The client manager against real processes: a server that dies is reconnected (a new
//! process) on the next use; a call whose connection failed is retried only for a tool
//! marked read-only or idempotent; a server that cannot be reached fails fast during its
//! backoff; the app's command line mounts servers with `--mount` and `--servers`, and its
//! `list`, `call`, `check` and `spec` cover them.

use std::collections::BTreeMap;
use std::process::Command;
use std::time::{Duration, Instant};

use mcp_runtime::client::{Client, ClientError, ClientManager, Health, StdioServer, Target};
use mcp_tests::quickstart_bin;
use serde_json::Map;

fn hostile(args: &[&str]) -> Target {
    Target::Stdio(StdioServer::new(env!("CARGO_BIN_EXE_hostile-server")).args(args.iter().copied()))
}

fn manager(servers: &[(&str, Target)]) -> ClientManager {
    let servers: BTreeMap<String, Target> = servers
        .iter()
        .map(|(name, target)| ((*name).to_owned(), target.clone()))
        .collect();
    ClientManager::new(servers, Client::builder().timeout(Duration::from_secs(5)))
}

fn marker(name: &str) -> String {
    let path =
        std::env::temp_dir().join(format!("mcp-client-manager-{name}-{}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path.to_string_lossy().into_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_read_only_call_whose_server_died_is_retried_on_a_new_connection() {
    let marker = marker("retried");
    let servers = manager(&[("frail", hostile(&["die-once", &marker]))]);
    servers.list_tools("frail").await.expect("listed");
    let result = servers
        .call_tool("frail", "poke", Map::new(), Default::default())
        .await
        .expect("retried, and answered by the new process");
    assert_eq!(
        result.content(),
        [mcp_runtime::ContentBlock::text("poked")],
        "{result:?}"
    );
    assert!(
        std::path::Path::new(&marker).exists(),
        "the first process died"
    );
    let _ = std::fs::remove_file(&marker);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_that_is_not_safe_to_repeat_is_not_retried_but_the_server_comes_back() {
    let servers = manager(&[("frail", hostile(&["die"]))]);
    servers.list_tools("frail").await.expect("listed");
    let err = servers
        .call_tool("frail", "poke", Map::new(), Default::default())
        .await
        .expect_err("the server died");
    assert!(
        matches!(&err, ClientError::Closed(reason) if reason.contains("exit status: 3")),
        "{err}"
    );
    // The next use reconnects: a new process, which answers the handshake and listing.
    let tools = servers.list_tools("frail").await.expect("reconnected");
    assert_eq!(tools.len(), 1);
    let health = servers.health().await;
    assert!(matches!(health["frail"], Health::Up(_)), "{health:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_can_have_a_timeout_of_its_own() {
    // The builder's timeout is 1 s; the `mute` server's own, 300 ms.
    let servers: BTreeMap<String, Target> = [
        ("mute", hostile(&["silent"])),
        ("other", hostile(&["silent"])),
    ]
    .into_iter()
    .map(|(name, target)| (name.to_owned(), target))
    .collect();
    let servers = ClientManager::new(servers, Client::builder().timeout(Duration::from_secs(1)))
        .timeout("mute", Duration::from_millis(300))
        .expect("a server of the manager");
    for (server, timeout) in [
        ("mute", Duration::from_millis(300)),
        ("other", Duration::from_secs(1)),
    ] {
        servers.list_tools(server).await.expect("listed");
        let started = Instant::now();
        let err = servers
            .call_tool(server, "poke", Map::new(), Default::default())
            .await
            .expect_err("never answered");
        assert!(
            matches!(&err, ClientError::Timeout { timeout: waited, .. } if *waited == timeout),
            "{server}: {err}"
        );
        assert!(
            started.elapsed() < timeout * 3,
            "{server}: {:?}",
            started.elapsed()
        );
    }
    let unknown = manager(&[]).timeout("nobody", Duration::from_secs(1));
    assert!(unknown.is_err());
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unreachable_server_fails_fast_while_it_backs_off() {
    let missing = Target::Stdio(StdioServer::new("/nonexistent/mcp-server"));
    let servers = manager(&[("gone", missing), ("frail", hostile(&["die"]))]);
    let first = servers.client("gone").await.expect_err("cannot start");
    assert!(matches!(first, ClientError::Connect(_)), "{first}");
    let started = Instant::now();
    let second = servers.client("gone").await.expect_err("backing off");
    assert!(second.to_string().contains("next attempt"), "{second}");
    assert!(started.elapsed() < Duration::from_millis(100));
    let unknown = servers.client("nobody").await.expect_err("no such server");
    assert!(unknown.to_string().contains("`nobody`"), "{unknown}");
    let health = servers.health().await;
    assert!(matches!(health["gone"], Health::Down(_)), "{health:?}");
    assert!(matches!(health["frail"], Health::Up(_)), "{health:?}");
}

fn quickstart(args: &[&str]) -> std::process::Output {
    Command::new(quickstart_bin())
        .args(args)
        .output()
        .expect("runs")
}

#[test]
fn the_command_line_lists_and_calls_mounted_servers() {
    let itself = format!("other={} serve --stdio", quickstart_bin().display());
    let listed = quickstart(&["--mount", &itself, "list"]);
    assert!(listed.status.success(), "{listed:?}");
    let names = String::from_utf8_lossy(&listed.stdout);
    assert!(
        names.lines().any(|line| line == "other.calculator.add"),
        "{names}"
    );
    assert!(
        names.lines().any(|line| line == "calculator.add"),
        "{names}"
    );

    let sum = quickstart(&[
        "--mount",
        &itself,
        "call",
        "other.calculator.add",
        r#"{"a":1,"b":2}"#,
    ]);
    assert!(sum.status.success(), "{sum:?}");
    assert!(String::from_utf8_lossy(&sum.stdout).contains("\"sum\": 3"));
    let refused = quickstart(&[
        "--mount",
        &itself,
        "call",
        "other.calculator.add",
        r#"{"a":"x","b":2}"#,
    ]);
    assert_eq!(
        refused.status.code(),
        Some(1),
        "a failed remote tool exits as a local one"
    );

    let config = std::env::temp_dir().join(format!("mcp-servers-{}.json", std::process::id()));
    std::fs::write(
        &config,
        serde_json::json!({ "mcpServers": { "Far-Away": {
            "command": quickstart_bin(), "args": ["serve", "--stdio"],
        } } })
        .to_string(),
    )
    .unwrap();
    let listed = quickstart(&["--servers", &config.to_string_lossy(), "list"]);
    let _ = std::fs::remove_file(&config);
    assert!(listed.status.success(), "{listed:?}");
    assert!(String::from_utf8_lossy(&listed.stdout).contains("far_away.text.word_count"));

    // The generated listings cover the mounted tools too.
    let checked = quickstart(&["--mount", &itself, "check"]);
    assert!(checked.status.success(), "{checked:?}");
    assert!(
        String::from_utf8_lossy(&checked.stderr).contains("checked 14 tool(s)"),
        "{checked:?}"
    );
    let out = std::env::temp_dir().join(format!("mcp-mounted-spec-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let spec = quickstart(&["--mount", &itself, "spec", "--out", &out.to_string_lossy()]);
    assert!(spec.status.success(), "{spec:?}");
    let written =
        std::fs::read_to_string(out.join("other.calculator.add/MCP_TOOL_SPECIFICATION.md"))
            .expect("the mounted tool's specification");
    assert!(written.contains("other.calculator.add"), "{written}");
    let _ = std::fs::remove_dir_all(&out);

    let bad = quickstart(&["--mount", "no-equals-sign", "list"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("NAME=SERVER"),
        "{bad:?}"
    );
    let dead = quickstart(&["--mount", "x=/nonexistent/mcp-server", "list"]);
    assert_eq!(dead.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&dead.stderr).contains("server `x`"),
        "{dead:?}"
    );
}
