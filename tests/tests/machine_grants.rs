//! Machine clients and DPoP end to end, with real parts on both sides: the quickstart served
//! over HTTP as an OAuth resource server, `oauth2-mock-server` (`tests/oauth`) as the
//! authorization server, which takes the client credentials of one machine client and binds
//! a token to the key of a DPoP proof it checked, and the quickstart's own command line
//! mounting that server with `--mount-auth` or an `mcpServers` file's `auth`.
//!
//! The server's side of DPoP is driven by hand as well: a bound token is taken only with a
//! fresh proof of its key for that very request, once.

use std::process::{Command, Output};

use mcp_runtime::client::oauth::DpopKey;
use mcp_tests::issuer::Issuer;
use mcp_tests::quickstart_bin;
use serde_json::{Value, json};

/// The machine client the authorization server knows, and its secret.
const CLIENT: &str = "machine";
const SECRET: &str = "machine-secret";

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

/// The quickstart served over HTTP, taking tokens from `issuer` for itself: the server, and
/// its URL (the tokens' audience).
fn serve(issuer: &Issuer) -> (mcp_tests::HttpServer, String) {
    let address = format!("127.0.0.1:{}", free_port());
    let resource = format!("http://{address}/mcp");
    let server = mcp_tests::HttpServer::spawn_on(
        quickstart_bin(),
        &address,
        &["--oauth-issuer", &issuer.url, "--oauth-audience", &resource],
    );
    assert_eq!(server.url(), resource);
    (server, resource)
}

/// The quickstart's command line, with `secret` in `MACHINE_SECRET`.
fn quickstart(args: &[&str], secret: &str) -> Output {
    Command::new(quickstart_bin())
        .args(args)
        .env("MACHINE_SECRET", secret)
        .env_remove("RUST_LOG")
        .output()
        .expect("runs")
}

/// Each token request the authorization server granted: grant type, client, and the
/// thumbprint of the key its token is bound to.
async fn grants(issuer: &Issuer) -> Vec<Value> {
    reqwest::get(format!("{}/test/grants", issuer.url))
        .await
        .expect("the issuer answers")
        .json()
        .await
        .expect("JSON")
}

fn machine_grants(granted: &[Value]) -> Vec<&Value> {
    granted
        .iter()
        .filter(|grant| grant["grant_type"] == "client_credentials" && grant["client_id"] == CLIENT)
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn mount_auth_signs_in_with_client_credentials_and_dpop_bound_tokens() {
    let issuer = Issuer::start();
    let (_server, resource) = serve(&issuer);
    let mount = format!("remote={resource}");
    let auth = format!(
        "remote=grant=client_credentials,client_id={CLIENT},client_secret_env=MACHINE_SECRET,issuer={},dpop",
        issuer.url
    );

    let sum = quickstart(
        &[
            "--mount",
            &mount,
            "--mount-auth",
            &auth,
            "call",
            "remote.calculator.add",
            r#"{"a":2,"b":3}"#,
        ],
        SECRET,
    );
    assert!(sum.status.success(), "{sum:?}");
    let answer: Value = serde_json::from_slice(&sum.stdout).expect("JSON");
    assert_eq!(answer["data"]["sum"], json!(5), "{answer}");
    let granted = grants(&issuer).await;
    let machine = machine_grants(&granted);
    assert_eq!(
        machine.len(),
        1,
        "one token, kept for the command: {granted:?}"
    );
    assert!(
        machine[0]["jkt"]
            .as_str()
            .is_some_and(|jkt| jkt.len() == 43),
        "the token is bound to the command's key: {granted:?}"
    );

    // Without DPoP the same grant gets a bearer token, which the server takes too.
    let bearer = auth.trim_end_matches(",dpop");
    let listed = quickstart(&["--mount", &mount, "--mount-auth", bearer, "list"], SECRET);
    assert!(listed.status.success(), "{listed:?}");
    assert!(
        String::from_utf8_lossy(&listed.stdout)
            .lines()
            .any(|line| line == "remote.calculator.add"),
        "{listed:?}"
    );
    let granted = grants(&issuer).await;
    let machine = machine_grants(&granted);
    assert_eq!(machine.len(), 2, "{granted:?}");
    assert_eq!(machine[1]["jkt"], Value::Null, "{granted:?}");

    // A wrong secret gets no token: the command fails, saying why, and never prints it.
    let wrong = quickstart(
        &["--mount", &mount, "--mount-auth", &auth, "list"],
        "not-the-secret",
    );
    assert!(!wrong.status.success(), "{wrong:?}");
    let said = String::from_utf8_lossy(&wrong.stderr);
    assert!(
        said.contains("server `remote`") && said.contains("invalid_client"),
        "{said}"
    );
    assert!(!said.contains("not-the-secret"), "{said}");

    // Without any auth the server refuses the mount.
    let anonymous = quickstart(&["--mount", &mount, "list"], SECRET);
    assert!(!anonymous.status.success(), "{anonymous:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_mcp_servers_file_binds_tokens_to_the_dpop_key_it_names() {
    let issuer = Issuer::start();
    let (_server, resource) = serve(&issuer);
    let dir = std::env::temp_dir().join(format!("mcp-machine-grants-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // The key as `openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256` writes it.
    let key_file = dir.join("dpop.pem");
    let made = Command::new("openssl")
        .args([
            "genpkey",
            "-algorithm",
            "EC",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-out",
        ])
        .arg(&key_file)
        .output()
        .expect("openssl runs");
    assert!(made.status.success(), "{made:?}");
    let thumbprint = DpopKey::from_pem_file(&key_file)
        .expect("a P-256 key")
        .thumbprint()
        .to_owned();
    let config = dir.join("servers.json");
    std::fs::write(
        &config,
        json!({ "mcpServers": { "Remote": { "url": resource, "auth": {
            "grant": "client_credentials", "client_id": CLIENT,
            "client_secret_env": "MACHINE_SECRET", "dpop_key_file": key_file,
        } } } })
        .to_string(),
    )
    .unwrap();
    let sum = quickstart(
        &[
            "--servers",
            &config.to_string_lossy(),
            "call",
            "remote.calculator.add",
            r#"{"a":20,"b":22}"#,
        ],
        SECRET,
    );
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(sum.status.success(), "{sum:?}");
    let answer: Value = serde_json::from_slice(&sum.stdout).expect("JSON");
    assert_eq!(answer["data"]["sum"], json!(42), "{answer}");
    let granted = grants(&issuer).await;
    let machine = machine_grants(&granted);
    assert_eq!(machine.len(), 1, "{granted:?}");
    assert_eq!(machine[0]["jkt"], json!(thumbprint), "{granted:?}");
}

/// A token bound to `key`, from the authorization server's token endpoint.
async fn bound_token(issuer: &Issuer, key: &DpopKey, resource: &str) -> String {
    let endpoint = format!("{}/token", issuer.url);
    let proof = key.proof("POST", &endpoint, None, None).expect("a proof");
    let answer: Value = reqwest::Client::new()
        .post(&endpoint)
        .basic_auth(CLIENT, Some(SECRET))
        .header("DPoP", proof)
        .form(&[("grant_type", "client_credentials"), ("resource", resource)])
        .send()
        .await
        .expect("the issuer answers")
        .json()
        .await
        .expect("JSON");
    assert_eq!(answer["token_type"], json!("DPoP"), "{answer}");
    answer["access_token"].as_str().expect("a token").to_owned()
}

/// The status and `WWW-Authenticate` of a `tools/list` at `resource` with these headers.
async fn list_tools(resource: &str, headers: &[(&str, &str)]) -> (u16, String) {
    let mut request = reqwest::Client::new()
        .post(resource)
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", "tools/list")
        .json(&json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/list",
            "params": { "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": { "name": "t", "version": "1" },
                "io.modelcontextprotocol/clientCapabilities": {},
            } },
        }));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.expect("the server answers");
    let challenge = response
        .headers()
        .get("WWW-Authenticate")
        .map(|value| value.to_str().unwrap_or_default().to_owned())
        .unwrap_or_default();
    (response.status().as_u16(), challenge)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bound_token_is_taken_only_with_a_fresh_proof_of_its_key_for_that_request() {
    let issuer = Issuer::start();
    let (_server, resource) = serve(&issuer);
    let key = DpopKey::generate().unwrap();
    let token = bound_token(&issuer, &key, &resource).await;
    let scheme = format!("DPoP {token}");
    let proof = key
        .proof("POST", &resource, Some(&token), None)
        .expect("a proof");

    let (status, challenge) =
        list_tools(&resource, &[("Authorization", &scheme), ("DPoP", &proof)]).await;
    assert_eq!(status, 200, "{challenge}");

    let refused = |what: &'static str, error: &'static str| {
        move |(status, challenge): (u16, String)| {
            assert_eq!(status, 401, "{what}: {challenge}");
            assert!(
                challenge.starts_with("DPoP") && challenge.contains(error),
                "{what}: {challenge}"
            );
        }
    };
    refused("the same proof again", "invalid_dpop_proof")(
        list_tools(&resource, &[("Authorization", &scheme), ("DPoP", &proof)]).await,
    );
    refused("the bound token as Bearer", "invalid_token")(
        list_tools(&resource, &[("Authorization", &format!("Bearer {token}"))]).await,
    );
    refused("no proof", "invalid_dpop_proof")(
        list_tools(&resource, &[("Authorization", &scheme)]).await,
    );
    let elsewhere = key
        .proof("POST", &format!("{}/other", resource), Some(&token), None)
        .unwrap();
    refused("a proof for another URL", "invalid_dpop_proof")(
        list_tools(
            &resource,
            &[("Authorization", &scheme), ("DPoP", &elsewhere)],
        )
        .await,
    );
    let get = key.proof("GET", &resource, Some(&token), None).unwrap();
    refused("a proof for another method", "invalid_dpop_proof")(
        list_tools(&resource, &[("Authorization", &scheme), ("DPoP", &get)]).await,
    );
    let no_ath = key.proof("POST", &resource, None, None).unwrap();
    refused("a proof without the token's hash", "invalid_dpop_proof")(
        list_tools(&resource, &[("Authorization", &scheme), ("DPoP", &no_ath)]).await,
    );
    let stranger = DpopKey::generate().unwrap();
    let theirs = stranger
        .proof("POST", &resource, Some(&token), None)
        .unwrap();
    refused("a proof of another key", "invalid_dpop_proof")(
        list_tools(&resource, &[("Authorization", &scheme), ("DPoP", &theirs)]).await,
    );

    // A fresh proof of the right key is taken again.
    let fresh = key.proof("POST", &resource, Some(&token), None).unwrap();
    let (status, challenge) =
        list_tools(&resource, &[("Authorization", &scheme), ("DPoP", &fresh)]).await;
    assert_eq!(status, 200, "{challenge}");
}
