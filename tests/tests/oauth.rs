//! The HTTP server as an OAuth resource server, against a real authorization server:
//! `oauth2-mock-server` from npm (`tests/oauth`, installed by the test command), which signs
//! real tokens with keys it publishes through OpenID discovery, and answers introspection
//! requests about the opaque tokens it issues. Every bad token gets 401 with
//! `error="invalid_token"` and a reason, never a 500; a rotated key is fetched when a token
//! names it; kept keys outlive an authorization server that went away. Tools, resources,
//! templates, prompts and completions need their scopes (403 otherwise), listings may show
//! a caller only what its scopes allow, and a token holder's answers are private to it.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::client::{Client, HttpServer};
use mcp_runtime::server::{
    DEFAULT_PAGE_SIZE, HttpConfig, Introspection, OAuthConfig, Server, router,
};
use mcp_runtime::{Registry, ToolContext, mcp_prompt, mcp_resource, mcp_tool};
use mcp_tests::issuer::Issuer;
use mcp_tests::quickstart_bin;
use serde_json::{Value, json};

/// Says who calls, as the access token told the server.
#[mcp_tool(namespace = "auth", inline)]
fn whoami(ctx: &ToolContext) -> Value {
    match ctx.auth() {
        Some(caller) => json!({
            "subject": caller.subject(),
            "scopes": caller.scopes(),
            "client": caller.client_id(),
            "issuer": caller.claims().get("iss"),
        }),
        None => Value::Null,
    }
}

/// Says who calls, from a tool that awaits: its context is made elsewhere.
#[mcp_tool(namespace = "auth")]
async fn whoami_later(ctx: &ToolContext) -> Value {
    tokio::task::yield_now().await;
    json!({ "subject": ctx.auth().and_then(|caller| caller.subject()) })
}

/// Writes a note: only for a caller granted `notes:write`.
#[mcp_tool(namespace = "notes", scopes("notes:write"), inline)]
fn write(
    /// The note.
    text: String,
) -> String {
    text
}

/// How many notes there are: for any caller.
#[mcp_tool(namespace = "notes", inline)]
fn count() -> usize {
    2
}

/// Starts afresh: only for a caller granted `admin`.
#[mcp_tool(namespace = "admin", scopes("admin"), inline)]
fn reset() -> bool {
    true
}

/// Today's note: only for a caller granted `notes:read`. Said to be public, which a
/// resource not every caller may read cannot be.
#[mcp_resource(uri = "notes://today", scopes("notes:read"), cache_scope = "public")]
fn today() -> String {
    "buy milk".to_owned()
}

/// A note by its id: only for a caller granted `notes:read`.
#[mcp_resource(uri_template = "notes://by-id/{id}", scopes("notes:read"))]
fn note(
    /// The note's id.
    #[mcp(complete = note_ids)]
    id: String,
) -> String {
    format!("note {id}")
}

/// The ids of the notes, which only a reader of notes may see.
fn note_ids(prefix: &str, _: &mcp_runtime::CompletionContext) -> Vec<String> {
    ["7", "8"]
        .into_iter()
        .filter(|id| id.starts_with(prefix))
        .map(str::to_owned)
        .collect()
}

/// The server's license: for any caller, and the same for all.
#[mcp_resource(uri = "about://license", cache_scope = "public")]
fn license() -> String {
    "MIT".to_owned()
}

/// The server's rules: for any caller.
#[mcp_resource(uri = "about://rules")]
fn rules() -> String {
    "be kind".to_owned()
}

/// Asks for a summary of the notes: for a caller granted `notes:read` and `notes:summarize`.
#[mcp_prompt(scopes("notes:read", "notes:summarize"))]
fn summarize() -> String {
    "Summarize my notes.".to_owned()
}

/// Says hello: for any caller.
#[mcp_prompt]
fn greet() -> String {
    "Hello.".to_owned()
}

/// The server of these tests, taking tokens of `issuer` for its own URL; that URL.
async fn serve(issuer: &str) -> String {
    serve_with(issuer, DEFAULT_PAGE_SIZE, |config| config).await
}

/// [`serve`], with `page_size` items a page and its OAuth settings changed by `configure`.
async fn serve_with(
    issuer: &str,
    page_size: usize,
    configure: impl FnOnce(OAuthConfig) -> OAuthConfig,
) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let address: SocketAddr = listener.local_addr().expect("bound");
    let resource = format!("http://{address}/mcp");
    let registry = Registry::builder()
        .inventory()
        .build()
        .expect("a valid registry");
    let config = HttpConfig {
        oauth: Some(configure(
            OAuthConfig::new(issuer, &resource).scopes_supported(["notes:read"]),
        )),
        ..HttpConfig::default()
    };
    let server = Server::new(registry).with_page_size(page_size);
    let app = router(Arc::new(server), config).into_make_service_with_connect_info::<SocketAddr>();
    tokio::spawn(async move { axum::serve(listener, app).await });
    resource
}

/// A `tools/list` POST with `authorization`, if any: the status, the challenge, the body.
async fn post(url: &str, authorization: Option<&str>) -> (u16, Option<String>, Value) {
    let list = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list" });
    send(url, authorization, &list).await
}

/// The revision of the handshake, and the stateless one.
const HANDSHAKE: &str = "2025-11-25";
const STATELESS: &str = "2026-07-28";

/// A request for `method` with `params` at `revision`: at 2026-07-28 with the `_meta`
/// that revision asks of every request.
fn request(revision: &str, method: &str, mut params: Value) -> Value {
    if revision == STATELESS {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": STATELESS,
            "io.modelcontextprotocol/clientCapabilities": {},
        });
    }
    json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params })
}

/// A POST of `message` with `authorization`, if any: the status, the challenge, the body.
/// A 2026-07-28 request mirrors its version, method and name in headers, as that revision
/// asks.
async fn send(
    url: &str,
    authorization: Option<&str>,
    message: &Value,
) -> (u16, Option<String>, Value) {
    let params = &message["params"];
    let stateless = params["_meta"]["io.modelcontextprotocol/protocolVersion"] == STATELESS;
    let mut request = reqwest::Client::new()
        .post(url)
        .header("Accept", "application/json, text/event-stream")
        .header(
            "MCP-Protocol-Version",
            if stateless { STATELESS } else { HANDSHAKE },
        )
        .json(message);
    if stateless {
        request = request.header("Mcp-Method", message["method"].as_str().unwrap_or_default());
        if let Some(name) = params["name"].as_str().or(params["uri"].as_str()) {
            request = request.header("Mcp-Name", name);
        }
    }
    if let Some(authorization) = authorization {
        request = request.header("Authorization", authorization);
    }
    let response = request.send().await.expect("the server answers");
    let status = response.status().as_u16();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .map(|value| value.to_str().expect("text").to_owned());
    let body = response.json().await.unwrap_or(Value::Null);
    (status, challenge, body)
}

/// Calls `tool` through the framework's own client with `token`: what it answered.
async fn call_with(resource: &str, token: &str, tool: &str) -> Value {
    let client = Client::builder()
        .handshake_only()
        .http(HttpServer::new(resource).bearer(token))
        .await
        .expect("connects with the token");
    let result = client.call_tool(tool, json!({})).await.expect("answered");
    let data = result.data().cloned().unwrap_or_default();
    data.get("result").cloned().unwrap_or(Value::Object(data))
}

/// A server of these tests with the authorization server it trusts: tokens minted for it,
/// and messages sent to it with them.
struct Served {
    issuer: Issuer,
    resource: String,
}

impl Served {
    async fn start() -> Self {
        Self::with(DEFAULT_PAGE_SIZE, |config| config).await
    }

    /// A server with `page_size` items a page, whose OAuth settings `configure` changes.
    async fn with(page_size: usize, configure: impl FnOnce(OAuthConfig) -> OAuthConfig) -> Self {
        let issuer = Issuer::start();
        let resource = serve_with(&issuer.url, page_size, configure).await;
        Self { issuer, resource }
    }

    /// Every page of the listing `method` answers `token` at `revision`: the items' keys
    /// (`key` of each item under `field`), page by page.
    async fn pages(
        &self,
        token: &str,
        revision: &str,
        (method, field, key): (&str, &str, &str),
    ) -> Vec<Vec<String>> {
        let mut pages = Vec::new();
        let mut params = json!({});
        loop {
            let (status, _, body) = self
                .send_with(token, &request(revision, method, params.clone()))
                .await;
            assert_eq!(status, 200, "{revision} {method}: {body}");
            let items = body["result"][field]
                .as_array()
                .unwrap_or_else(|| panic!("{revision} {method}: {body}"));
            pages.push(
                items
                    .iter()
                    .map(|item| item[key].as_str().unwrap_or_default().to_owned())
                    .collect(),
            );
            match body["result"]["nextCursor"].as_str() {
                Some(cursor) => params = json!({ "cursor": cursor }),
                None => return pages,
            }
            assert!(pages.len() < 10, "{revision} {method}: pages without end");
        }
    }

    /// A token for this server granting `scope` (space-separated names).
    async fn mint(&self, scope: &str) -> String {
        self.issuer
            .token(
                "/test/token",
                json!({ "aud": self.resource, "scope": scope, "sub": "alice" }),
            )
            .await
    }

    /// `message` sent with `token`: the status, the challenge, the body.
    async fn send_with(&self, token: &str, message: &Value) -> (u16, Option<String>, Value) {
        send(&self.resource, Some(&format!("Bearer {token}")), message).await
    }

    /// The challenge of a 403 for a caller without the scopes `needed`.
    fn insufficient_scope(&self, needed: &str) -> String {
        let metadata = self
            .resource
            .replace("/mcp", "/.well-known/oauth-protected-resource/mcp");
        format!(
            "Bearer error=\"insufficient_scope\", scope=\"{needed}\", \
             resource_metadata=\"{metadata}\", error_description=\"this needs the scope `{needed}`\""
        )
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_metadata_says_where_to_get_a_token_and_a_request_without_one_is_told_so() {
    let issuer = Issuer::start();
    let resource = serve(&issuer.url).await;
    let origin = resource.trim_end_matches("/mcp");
    let metadata_url = format!("{origin}/.well-known/oauth-protected-resource/mcp");
    for url in [
        metadata_url.clone(),
        format!("{origin}/.well-known/oauth-protected-resource"),
    ] {
        let metadata: Value = reqwest::get(&url)
            .await
            .expect("answered")
            .json()
            .await
            .expect("JSON");
        assert_eq!(metadata["resource"], json!(resource), "{url}");
        assert_eq!(
            metadata["authorization_servers"],
            json!([issuer.url]),
            "{url}"
        );
        assert_eq!(metadata["scopes_supported"], json!(["notes:read"]), "{url}");
    }
    // A browser-based client reads the metadata from a page of its own origin: the
    // preflight, then the read, are open to it.
    let page = "https://inspector.example";
    let http = reqwest::Client::new();
    let preflight = http
        .request(reqwest::Method::OPTIONS, &metadata_url)
        .header("origin", page)
        .header("access-control-request-method", "GET")
        .header("access-control-request-headers", "mcp-protocol-version")
        .send()
        .await
        .expect("answered");
    assert!(preflight.status().is_success(), "{}", preflight.status());
    let allowed = |response: &reqwest::Response, name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned)
    };
    assert_eq!(
        allowed(&preflight, "access-control-allow-origin").as_deref(),
        Some("*")
    );
    let methods = allowed(&preflight, "access-control-allow-methods").unwrap_or_default();
    assert!(methods.contains("GET"), "{methods}");
    assert_eq!(
        allowed(&preflight, "access-control-allow-headers").as_deref(),
        Some("*")
    );
    let read = http
        .get(&metadata_url)
        .header("origin", page)
        .header("mcp-protocol-version", HANDSHAKE)
        .send()
        .await
        .expect("answered");
    assert_eq!(read.status(), 200);
    assert_eq!(
        allowed(&read, "access-control-allow-origin").as_deref(),
        Some("*")
    );
    // The endpoint itself still refuses an origin it does not allow.
    let foreign = http
        .post(&resource)
        .header("origin", page)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
        .send()
        .await
        .expect("answered");
    assert_eq!(foreign.status(), 403);
    let (status, challenge, _) = post(&resource, None).await;
    assert_eq!(status, 401);
    assert_eq!(
        challenge.as_deref(),
        Some(format!("Bearer resource_metadata=\"{metadata_url}\", scope=\"notes:read\"").as_str())
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_token_from_the_authorization_server_lets_the_caller_in_and_tools_see_who_it_is() {
    let issuer = Issuer::start();
    let resource = serve(&issuer.url).await;
    // The authorization server's own token endpoint, as a client would use it.
    let issued = issuer
        .token(
            "/token",
            json!({ "grant_type": "client_credentials", "aud": resource, "scope": "notes:read" }),
        )
        .await;
    let (status, _, body) = post(&resource, Some(&format!("Bearer {issued}"))).await;
    assert_eq!(status, 200, "{body}");
    assert!(body["result"]["tools"].is_array(), "{body}");
    // The scheme's name in any case.
    let (status, _, _) = post(&resource, Some(&format!("bearer {issued}"))).await;
    assert_eq!(status, 200);

    let alices = issuer
        .token(
            "/test/token",
            json!({ "aud": resource, "sub": "alice", "scope": "notes:read notes:write" }),
        )
        .await;
    let seen = call_with(&resource, &alices, "auth.whoami").await;
    assert_eq!(seen["subject"], json!("alice"), "{seen}");
    assert_eq!(
        seen["scopes"],
        json!(["notes:read", "notes:write"]),
        "{seen}"
    );
    assert_eq!(seen["client"], json!("tests"), "{seen}");
    assert_eq!(seen["issuer"], json!(issuer.url), "{seen}");
    let seen = call_with(&resource, &alices, "auth.whoami_later").await;
    assert_eq!(seen["subject"], json!("alice"), "{seen}");

    // An audience names this server whatever the case of its scheme and host, as URIs
    // compare; its path is compared as written.
    let shouted = resource.replacen("http://", "HTTP://", 1);
    let token = issuer
        .token("/test/token", json!({ "aud": shouted, "sub": "alice" }))
        .await;
    let (status, _, body) = post(&resource, Some(&format!("Bearer {token}"))).await;
    assert_eq!(status, 200, "{shouted}: {body}");
    let other_path = resource.replace("/mcp", "/MCP");
    let token = issuer
        .token("/test/token", json!({ "aud": other_path, "sub": "alice" }))
        .await;
    let (status, _, body) = post(&resource, Some(&format!("Bearer {token}"))).await;
    assert_eq!(status, 401, "{other_path}: {body}");
}

#[tokio::test(flavor = "multi_thread")]
async fn every_bad_token_gets_401_invalid_token_with_its_reason() {
    let issuer = Issuer::start();
    let resource = serve(&issuer.url).await;
    let cases: [(&str, &str, Value, &str); 8] = [
        (
            "expired",
            "/test/token",
            json!({ "aud": resource, "expires_in": -3600 }),
            "expired",
        ),
        (
            "not yet valid",
            "/test/token",
            json!({ "aud": resource, "not_before_in": 3600 }),
            "not valid yet",
        ),
        (
            "for another server",
            "/test/token",
            json!({ "aud": "http://elsewhere.example/mcp" }),
            "audience",
        ),
        ("for no server", "/test/token", json!({}), "`aud`"),
        (
            "from another issuer",
            "/test/token",
            json!({ "aud": resource, "iss": "http://evil.example" }),
            "issuer",
        ),
        (
            "signed by a stranger",
            "/test/forged",
            json!({ "aud": resource }),
            "signature",
        ),
        (
            "MACed with the public key",
            "/test/hs256",
            json!({ "aud": resource }),
            "HS256",
        ),
        (
            "unsigned",
            "/test/none",
            json!({ "aud": resource }),
            "signed JWT",
        ),
    ];
    for (what, path, body, reason) in cases {
        let token = issuer.token(path, body).await;
        let (status, challenge, answer) = post(&resource, Some(&format!("Bearer {token}"))).await;
        assert_eq!(status, 401, "{what}: {answer}");
        let challenge = challenge.unwrap_or_else(|| panic!("{what}: no challenge"));
        assert!(
            challenge.starts_with("Bearer error=\"invalid_token\", error_description=\""),
            "{what}: {challenge}"
        );
        assert!(
            challenge.contains("resource_metadata=\""),
            "{what}: {challenge}"
        );
        assert_eq!(answer["error"], json!("invalid_token"), "{what}: {answer}");
        let description = answer["error_description"].as_str().unwrap_or_default();
        assert!(description.contains(reason), "{what}: {description}");
    }
    for garbage in ["Bearer abc", "Bearer a.b.c", "Bearer eyJ.eyJ.sig"] {
        let (status, challenge, answer) = post(&resource, Some(garbage)).await;
        assert_eq!(status, 401, "{garbage}: {answer}");
        assert!(
            challenge.is_some_and(|c| c.contains("error=\"invalid_token\"")),
            "{garbage}"
        );
    }
    // Not a bearer token at all: as if none were given.
    let (status, challenge, _) = post(&resource, Some("Basic dXNlcjpwYXNz")).await;
    assert_eq!(status, 401);
    assert!(challenge.is_some_and(|c| !c.contains("error=")));
}

#[tokio::test(flavor = "multi_thread")]
async fn an_es256_token_is_checked_with_the_published_ec_key() {
    let issuer = Issuer::start();
    let resource = serve(&issuer.url).await;
    let kid = issuer.rotate_to("ES256").await;
    let token = issuer
        .token("/test/token", json!({ "aud": resource, "kid": kid }))
        .await;
    let (status, _, body) = post(&resource, Some(&format!("Bearer {token}"))).await;
    assert_eq!(status, 200, "{body}");
    let wrong = issuer
        .token(
            "/test/token",
            json!({ "aud": "http://127.0.0.1:1/mcp", "kid": kid }),
        )
        .await;
    assert_eq!(
        post(&resource, Some(&format!("Bearer {wrong}"))).await.0,
        401
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_token_taken_once_is_refused_once_its_key_is_withdrawn() {
    let issuer = Issuer::start();
    let resource = serve(&issuer.url).await;
    let before = format!(
        "Bearer {}",
        issuer
            .token("/test/token", json!({ "aud": resource }))
            .await
    );
    assert_eq!(post(&resource, Some(&before)).await.0, 200);
    // key-1 is replaced (its tokens no longer check), and a token naming a new key makes
    // the server fetch the keys again, once the pause between fetches is over: its
    // acceptance is the signal.
    issuer.replace("key-1").await;
    let kid = issuer.rotate().await;
    let after = format!(
        "Bearer {}",
        issuer
            .token("/test/token", json!({ "aud": resource, "kid": kid }))
            .await
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while post(&resource, Some(&after)).await.0 != 200 {
        assert!(
            std::time::Instant::now() < deadline,
            "the new key was never fetched"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (status, challenge, _) = post(&resource, Some(&before)).await;
    assert_eq!(status, 401, "a token of a withdrawn key");
    assert!(challenge.is_some_and(|c| c.contains("invalid_token")));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_token_taken_once_is_refused_once_it_expires() {
    let issuer = Issuer::start();
    let resource = serve_with(&issuer.url, DEFAULT_PAGE_SIZE, |mut config| {
        config.leeway = Duration::ZERO;
        config
    })
    .await;
    let token = issuer
        .token("/test/token", json!({ "aud": resource, "expires_in": 2 }))
        .await;
    let bearer = format!("Bearer {token}");
    assert_eq!(post(&resource, Some(&bearer)).await.0, 200);
    // Taken again while good (from what the first check kept), then refused once past its
    // expiry: the refusal is the signal, bounded by a deadline far past it.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let (status, challenge, body) = post(&resource, Some(&bearer)).await;
        if status == 401 {
            let challenge = challenge.unwrap_or_default();
            assert!(challenge.contains("invalid_token"), "{challenge}");
            assert!(body.to_string().contains("expired"), "{body}");
            break;
        }
        assert_eq!(status, 200, "{body}");
        assert!(
            std::time::Instant::now() < deadline,
            "an expired token is still taken"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rotated_key_is_fetched_when_a_token_names_it() {
    let issuer = Issuer::start();
    let resource = serve(&issuer.url).await;
    let before = issuer
        .token("/test/token", json!({ "aud": resource }))
        .await;
    assert_eq!(
        post(&resource, Some(&format!("Bearer {before}"))).await.0,
        200
    );
    let kid = issuer.rotate().await;
    let after = issuer
        .token("/test/token", json!({ "aud": resource, "kid": kid }))
        .await;
    // A token naming an unknown key fetches the keys again, at most once a second: within
    // a second of the last fetch it is refused, and taken after.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let (status, _, body) = post(&resource, Some(&format!("Bearer {after}"))).await;
        if status == 200 {
            break;
        }
        assert_eq!(status, 401, "{kid}: {body}");
        assert!(
            std::time::Instant::now() < deadline,
            "{kid} was never fetched: {body}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // The old key is still published, and still good.
    assert_eq!(
        post(&resource, Some(&format!("Bearer {before}"))).await.0,
        200
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn kept_keys_outlive_the_authorization_server_and_without_them_requests_are_refused() {
    let mut issuer = Issuer::start();
    let resource = serve(&issuer.url).await;
    let token = issuer
        .token("/test/token", json!({ "aud": resource }))
        .await;
    assert_eq!(
        post(&resource, Some(&format!("Bearer {token}"))).await.0,
        200
    );
    // A server that has no keys yet when the authorization server goes away.
    let late = serve(&issuer.url).await;
    let late_token = issuer.token("/test/token", json!({ "aud": late })).await;
    issuer.stop();
    assert_eq!(
        post(&resource, Some(&format!("Bearer {token}"))).await.0,
        200,
        "the keys fetched before still check it"
    );
    let (status, challenge, body) = post(&late, Some(&format!("Bearer {late_token}"))).await;
    assert_eq!(status, 503, "{body}");
    assert!(challenge.is_none());
    let description = body["error_description"].as_str().unwrap_or_default();
    assert!(
        description.contains("keys cannot be fetched"),
        "{description}"
    );
}

/// A free port on loopback, for a server that must know its own URL before it listens.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_command_line_serves_with_oauth() {
    let issuer = Issuer::start();
    let address = format!("127.0.0.1:{}", free_port());
    let resource = format!("http://{address}/mcp");
    let server = mcp_tests::HttpServer::spawn_on(
        quickstart_bin(),
        &address,
        &[
            "--oauth-issuer",
            &issuer.url,
            "--oauth-audience",
            &resource,
            "--oauth-scope",
            "tools",
        ],
    );
    assert_eq!(server.url(), resource);
    let (status, challenge, _) = post(&resource, None).await;
    assert_eq!(status, 401);
    assert!(challenge.is_some_and(
        |c| c.contains("oauth-protected-resource/mcp") && c.contains("scope=\"tools\"")
    ),);
    let token = issuer
        .token("/test/token", json!({ "aud": resource }))
        .await;
    let (status, _, body) = post(&resource, Some(&format!("Bearer {token}"))).await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body["result"]["tools"]
            .as_array()
            .is_some_and(|tools| tools.iter().any(|tool| tool["name"] == "calculator.add")),
        "{body}"
    );
}

#[test]
fn the_command_line_refuses_an_audience_that_is_not_a_url() {
    let output = std::process::Command::new(quickstart_bin())
        .args([
            "serve",
            "--http",
            "127.0.0.1:0",
            "--oauth-issuer",
            "http://127.0.0.1:9/",
        ])
        .args(["--oauth-audience", "my-server"])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("`my-server` is not an http(s) URL"), "{said}");
    let output = std::process::Command::new(quickstart_bin())
        .args([
            "serve",
            "--http",
            "127.0.0.1:0",
            "--oauth-issuer",
            "http://127.0.0.1:9/",
        ])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("--oauth-audience"), "{said}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_static_token_comes_from_the_environment_too() {
    let mut command = std::process::Command::new(quickstart_bin());
    command
        .args(["serve", "--http", "127.0.0.1:0"])
        .env("MCP_TOKEN", "s3cret-from-env");
    let server = mcp_tests::HttpServer::start(command);
    let (status, _, _) = post(&server.url(), None).await;
    assert_eq!(status, 401);
    let (status, _, _) = post(&server.url(), Some("bearer s3cret-from-env")).await;
    assert_eq!(status, 200);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_caller_without_a_tools_scope_gets_403_naming_it_and_a_wider_token_gets_in() {
    let served = Served::start().await;
    let call = request(
        HANDSHAKE,
        "tools/call",
        json!({ "name": "notes.write", "arguments": { "text": "hi" } }),
    );
    let reader = served.mint("notes:read").await;
    let (status, challenge, body) = served.send_with(&reader, &call).await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(
        challenge.as_deref(),
        Some(served.insufficient_scope("notes:write").as_str())
    );
    assert_eq!(body["error"], json!("insufficient_scope"), "{body}");
    // A tool that needs no scope: any caller with a good token.
    let seen = call_with(&served.resource, &reader, "auth.whoami").await;
    assert_eq!(seen["scopes"], json!(["notes:read"]), "{seen}");
    // Stepped up: a token with the scope.
    let writer = served.mint("notes:read notes:write").await;
    let (status, _, body) = served.send_with(&writer, &call).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["result"]["structuredContent"]["result"],
        json!("hi"),
        "{body}"
    );
    // The listing says which scopes a tool needs.
    let (_, _, listed) = served
        .send_with(&writer, &request(HANDSHAKE, "tools/list", json!({})))
        .await;
    let tools = listed["result"]["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let write = tools.iter().find(|tool| tool["name"] == "notes.write");
    assert_eq!(
        write.map(|tool| &tool["_meta"]["mcp-runtime/tool"]["scopes"]),
        Some(&json!(["notes:write"])),
        "{listed}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn resources_templates_prompts_and_their_completions_need_their_scopes_at_both_revisions() {
    let served = Served::start().await;
    let nobody = served.mint("").await;
    let reader = served.mint("notes:read").await;
    let summarizer = served.mint("notes:read notes:summarize").await;
    for revision in [HANDSHAKE, STATELESS] {
        let read = |uri: &str| request(revision, "resources/read", json!({ "uri": uri }));
        let get = |name: &str| request(revision, "prompts/get", json!({ "name": name }));
        let complete = request(
            revision,
            "completion/complete",
            json!({
                "ref": { "type": "ref/resource", "uri": "notes://by-id/{id}" },
                "argument": { "name": "id", "value": "" },
            }),
        );
        let refused = [
            (&nobody, read("notes://today"), "notes:read"),
            (&nobody, read("notes://by-id/7"), "notes:read"),
            (&nobody, complete.clone(), "notes:read"),
            (&reader, get("summarize"), "notes:read notes:summarize"),
        ];
        for (token, message, needed) in &refused {
            let (status, challenge, body) = served.send_with(token, message).await;
            assert_eq!(status, 403, "{revision} {message}: {body}");
            assert_eq!(
                challenge.as_deref(),
                Some(served.insufficient_scope(needed).as_str()),
                "{revision} {message}"
            );
            assert_eq!(body["scope"], json!(needed), "{revision} {message}: {body}");
        }
        let answered = [
            (
                &reader,
                read("notes://today"),
                "/contents/0/text",
                "buy milk",
            ),
            (
                &reader,
                read("notes://by-id/7"),
                "/contents/0/text",
                "note 7",
            ),
            (&reader, complete.clone(), "/completion/values/0", "7"),
            (
                &summarizer,
                get("summarize"),
                "/messages/0/content/text",
                "Summarize my notes.",
            ),
            (
                &nobody,
                read("about://rules"),
                "/contents/0/text",
                "be kind",
            ),
            (&nobody, get("greet"), "/messages/0/content/text", "Hello."),
        ];
        for (token, message, pointer, expected) in &answered {
            let (status, _, body) = served.send_with(token, message).await;
            assert_eq!(status, 200, "{revision} {message}: {body}");
            assert_eq!(
                body["result"].pointer(pointer),
                Some(&json!(expected)),
                "{revision} {message}: {body}"
            );
        }
    }
    // A subscription needs the resource's scopes, as a read does: its updates tell what
    // only such a caller should know. Leaving one needs none.
    let subscription = |method: &str, uri: &str| request(HANDSHAKE, method, json!({ "uri": uri }));
    for uri in ["notes://today", "notes://by-id/7"] {
        let refused = subscription("resources/subscribe", uri);
        let (status, challenge, body) = served.send_with(&nobody, &refused).await;
        assert_eq!(status, 403, "{uri}: {body}");
        assert_eq!(
            challenge.as_deref(),
            Some(served.insufficient_scope("notes:read").as_str()),
            "{uri}"
        );
    }
    for (token, method, uri) in [
        (&reader, "resources/subscribe", "notes://today"),
        (&reader, "resources/subscribe", "notes://by-id/7"),
        (&nobody, "resources/subscribe", "about://rules"),
        (&nobody, "resources/unsubscribe", "notes://today"),
    ] {
        let (status, _, body) = served.send_with(token, &subscription(method, uri)).await;
        assert_eq!(status, 200, "{method} {uri}: {body}");
        assert_eq!(body["result"], json!({}), "{method} {uri}: {body}");
    }
    // At 2026-07-28 a listen stream carries a resource's updates only to a caller that may
    // read it. A stream that opens stays open: its head is enough.
    let listen = |token: &str, uri: &str| {
        let filter = json!({ "notifications": { "resourceSubscriptions": [uri] } });
        reqwest::Client::new()
            .post(&served.resource)
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", STATELESS)
            .header("Mcp-Method", "subscriptions/listen")
            .header("Authorization", format!("Bearer {token}"))
            .json(&request(STATELESS, "subscriptions/listen", filter))
            .send()
    };
    let header = |response: &reqwest::Response, name: &str| {
        let value = response.headers().get(name);
        value
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned)
    };
    let refused = listen(&nobody, "notes://by-id/7").await.expect("answered");
    assert_eq!(refused.status(), 403);
    assert_eq!(
        header(&refused, "www-authenticate"),
        Some(served.insufficient_scope("notes:read"))
    );
    for (token, uri) in [(&reader, "notes://by-id/7"), (&nobody, "about://rules")] {
        let opened = listen(token, uri).await.expect("answered");
        assert_eq!(opened.status(), 200, "{uri}");
        let kind = header(&opened, "content-type");
        assert_eq!(kind.as_deref(), Some("text/event-stream"), "{uri}");
    }
    // The listings say which scopes each needs.
    for (method, field, key, name, needed) in [
        (
            "resources/list",
            "resources",
            "uri",
            "notes://today",
            json!(["notes:read"]),
        ),
        (
            "resources/templates/list",
            "resourceTemplates",
            "uriTemplate",
            "notes://by-id/{id}",
            json!(["notes:read"]),
        ),
        (
            "prompts/list",
            "prompts",
            "name",
            "summarize",
            json!(["notes:read", "notes:summarize"]),
        ),
    ] {
        let (_, _, listed) = served
            .send_with(&summarizer, &request(HANDSHAKE, method, json!({})))
            .await;
        let items = listed["result"][field]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let item = items.iter().find(|item| item[key] == name);
        assert_eq!(
            item.map(|item| &item["_meta"]["mcp-runtime/scopes"]),
            Some(&needed),
            "{listed}"
        );
    }
}

/// The listings of these tests: method, the field of its items, the key of an item.
const TOOLS: (&str, &str, &str) = ("tools/list", "tools", "name");
const RESOURCES: (&str, &str, &str) = ("resources/list", "resources", "uri");
const TEMPLATES: (&str, &str, &str) = (
    "resources/templates/list",
    "resourceTemplates",
    "uriTemplate",
);
const PROMPTS: (&str, &str, &str) = ("prompts/list", "prompts", "name");

#[tokio::test(flavor = "multi_thread")]
async fn listings_hide_what_a_callers_scopes_do_not_allow_when_so_configured_in_full_pages() {
    let served = Served::with(2, |config| config.hide_unauthorized(true)).await;
    let nobody = served.mint("").await;
    let reader = served.mint("notes:read").await;
    let everyone = served
        .mint("admin notes:read notes:write notes:summarize")
        .await;
    for revision in [HANDSHAKE, STATELESS] {
        // admin.reset (admin) comes first and notes.write (notes:write) last: a page is
        // full of what the caller may use, and the last page is the last of those.
        assert_eq!(
            served.pages(&reader, revision, TOOLS).await,
            [
                vec!["auth.whoami", "auth.whoami_later"],
                vec!["notes.count"]
            ],
            "{revision}"
        );
        assert_eq!(
            served.pages(&everyone, revision, TOOLS).await,
            [
                vec!["admin.reset", "auth.whoami"],
                vec!["auth.whoami_later", "notes.count"],
                vec!["notes.write"]
            ],
            "{revision}"
        );
        for (token, listing, expected) in [
            (
                &nobody,
                RESOURCES,
                vec![vec!["about://license", "about://rules"]],
            ),
            (
                &reader,
                RESOURCES,
                vec![
                    vec!["about://license", "about://rules"],
                    vec!["notes://today"],
                ],
            ),
            (&nobody, TEMPLATES, vec![vec![]]),
            (&reader, TEMPLATES, vec![vec!["notes://by-id/{id}"]]),
            (&reader, PROMPTS, vec![vec!["greet"]]),
            (&everyone, PROMPTS, vec![vec!["greet", "summarize"]]),
        ] {
            assert_eq!(
                served.pages(token, revision, listing).await,
                expected,
                "{revision} {listing:?}"
            );
        }
        // A cursor that names a tool the caller is not shown is no cursor, as one that
        // names no tool is: the answers do not tell the two apart.
        let hex = |name: &str| -> String { name.bytes().map(|b| format!("{b:02x}")).collect() };
        for cursor in [hex("admin.reset"), hex("admin.nothing")] {
            let list = request(revision, "tools/list", json!({ "cursor": cursor }));
            let (status, _, body) = served.send_with(&reader, &list).await;
            assert_eq!(
                body["error"]["message"], "invalid cursor",
                "{revision}: {status} {body}"
            );
        }
        // Hidden is not refused unheard: a call gets 403 with the scope to ask for.
        let call = request(
            revision,
            "tools/call",
            json!({ "name": "admin.reset", "arguments": {} }),
        );
        let (status, challenge, body) = served.send_with(&reader, &call).await;
        assert_eq!(status, 403, "{revision}: {body}");
        assert_eq!(
            challenge.as_deref(),
            Some(served.insufficient_scope("admin").as_str())
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn listings_show_every_item_by_default_and_a_call_without_its_scopes_gets_403() {
    let served = Served::with(2, |config| config).await;
    let nobody = served.mint("").await;
    for revision in [HANDSHAKE, STATELESS] {
        assert_eq!(
            served.pages(&nobody, revision, TOOLS).await,
            [
                vec!["admin.reset", "auth.whoami"],
                vec!["auth.whoami_later", "notes.count"],
                vec!["notes.write"]
            ],
            "{revision}"
        );
        assert_eq!(
            served.pages(&nobody, revision, RESOURCES).await,
            [
                vec!["about://license", "about://rules"],
                vec!["notes://today"]
            ],
            "{revision}"
        );
        assert_eq!(
            served.pages(&nobody, revision, TEMPLATES).await,
            [vec!["notes://by-id/{id}"]],
            "{revision}"
        );
        assert_eq!(
            served.pages(&nobody, revision, PROMPTS).await,
            [vec!["greet", "summarize"]],
            "{revision}"
        );
        let call = request(
            revision,
            "tools/call",
            json!({ "name": "admin.reset", "arguments": {} }),
        );
        assert_eq!(served.send_with(&nobody, &call).await.0, 403, "{revision}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn at_2026_07_28_what_a_token_holder_is_answered_is_private_to_it() {
    let served = Served::start().await;
    let reader = served.mint("notes:read").await;
    let cases = [
        ("server/discover", json!({}), "private"),
        ("tools/list", json!({}), "private"),
        ("resources/list", json!({}), "private"),
        ("resources/templates/list", json!({}), "private"),
        ("prompts/list", json!({}), "private"),
        (
            "resources/read",
            json!({ "uri": "about://rules" }),
            "private",
        ),
        (
            "resources/read",
            json!({ "uri": "notes://by-id/7" }),
            "private",
        ),
        // Said so by the resource, and the same for every caller.
        (
            "resources/read",
            json!({ "uri": "about://license" }),
            "public",
        ),
        // Said so by the resource, but not every caller may read it.
        (
            "resources/read",
            json!({ "uri": "notes://today" }),
            "private",
        ),
    ];
    for (method, params, scope) in cases {
        let message = request(STATELESS, method, params.clone());
        let (status, _, body) = served.send_with(&reader, &message).await;
        assert_eq!(status, 200, "{method} {params}: {body}");
        assert_eq!(
            body["result"]["cacheScope"], scope,
            "{method} {params}: {body}"
        );
        assert!(
            body["result"]["ttlMs"].is_u64(),
            "{method} {params}: {body}"
        );
    }
}

/// The client the issuer's introspection endpoint lets in (tests/oauth/issuer.mjs).
const CLIENT_ID: &str = "mcp-resource-server";
const CLIENT_SECRET: &str = "s3cret:with/odd+chars";

/// Who `auth.whoami` sees calling with `token`, or the status and body of the
/// refusal.
async fn seen_by(served: &Served, token: &str) -> Result<Value, (u16, Value)> {
    let call = request(
        HANDSHAKE,
        "tools/call",
        json!({ "name": "auth.whoami", "arguments": {} }),
    );
    match served.send_with(token, &call).await {
        (200, _, body) => Ok(body["result"]["structuredContent"]["result"].clone()),
        (status, _, body) => Err((status, body)),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_opaque_token_is_introspected_once_a_while_and_a_jwt_still_checked_against_the_keys() {
    let served = Served::with(DEFAULT_PAGE_SIZE, |config| {
        config.introspection(Introspection::new(CLIENT_ID, CLIENT_SECRET))
    })
    .await;
    let issuer = &served.issuer;
    let opaque = issuer
        .opaque(json!({ "aud": served.resource, "sub": "bob", "scope": "notes:read" }))
        .await;
    let before = issuer.introspections().await;
    let seen = seen_by(&served, &opaque).await.expect("let in");
    assert_eq!(seen["subject"], json!("bob"), "{seen}");
    assert_eq!(seen["scopes"], json!(["notes:read"]), "{seen}");
    assert_eq!(seen["issuer"], json!(issuer.url), "{seen}");
    assert_eq!(issuer.introspections().await, before + 1);
    // The scopes the answer gave are those checked.
    let write = request(
        HANDSHAKE,
        "tools/call",
        json!({ "name": "notes.write", "arguments": { "text": "hi" } }),
    );
    let (status, challenge, _) = served.send_with(&opaque, &write).await;
    assert_eq!(status, 403);
    assert_eq!(
        challenge.as_deref(),
        Some(served.insufficient_scope("notes:write").as_str())
    );
    let read = request(
        HANDSHAKE,
        "resources/read",
        json!({ "uri": "notes://today" }),
    );
    assert_eq!(served.send_with(&opaque, &read).await.0, 200);
    // All of that on the one answer, kept.
    assert_eq!(issuer.introspections().await, before + 1);
    // A JWT is checked against the keys, not asked about.
    let jwt = served.mint("notes:read").await;
    assert_eq!(
        seen_by(&served, &jwt).await.expect("let in")["subject"],
        json!("alice")
    );
    assert_eq!(issuer.introspections().await, before + 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_opaque_token_the_authorization_server_does_not_vouch_for_here_now_gets_401() {
    let served = Served::with(DEFAULT_PAGE_SIZE, |config| {
        config.introspection(Introspection::new(CLIENT_ID, CLIENT_SECRET))
    })
    .await;
    let resource = served.resource.clone();
    let cases = [
        (
            "inactive",
            json!({ "aud": resource, "active": false }),
            "not active",
        ),
        (
            "expired",
            json!({ "aud": resource, "expires_in": -3600 }),
            "expired",
        ),
        (
            "for another server",
            json!({ "aud": "http://elsewhere.example/mcp" }),
            "audience",
        ),
        (
            "from another issuer",
            json!({ "aud": resource, "iss": "http://evil.example" }),
            "issuer",
        ),
    ];
    for (what, claims, reason) in cases {
        let token = served.issuer.opaque(claims).await;
        let (status, body) = seen_by(&served, &token).await.expect_err(what);
        assert_eq!(status, 401, "{what}: {body}");
        assert_eq!(body["error"], json!("invalid_token"), "{what}: {body}");
        let description = body["error_description"].as_str().unwrap_or_default();
        assert!(description.contains(reason), "{what}: {description}");
    }
    // A token it never issued.
    let (status, body) = seen_by(&served, "never-issued").await.expect_err("unknown");
    assert_eq!(status, 401, "{body}");
    // A refusal is kept a while: the same token sent again costs no introspection.
    let before = served.issuer.introspections().await;
    for _ in 0..3 {
        let (status, body) = seen_by(&served, "never-issued").await.expect_err("unknown");
        assert_eq!(status, 401, "{body}");
        let description = body["error_description"].as_str().unwrap_or_default();
        assert!(description.contains("not active"), "{description}");
    }
    assert_eq!(served.issuer.introspections().await, before);
    // A token not valid yet is asked about again: it will be.
    let early = served
        .issuer
        .opaque(json!({ "aud": resource, "not_before_in": 3600 }))
        .await;
    let before = served.issuer.introspections().await;
    for _ in 0..2 {
        let (status, _) = seen_by(&served, &early).await.expect_err("not yet");
        assert_eq!(status, 401);
    }
    assert_eq!(served.issuer.introspections().await, before + 2);
    // An answer that names no audience is not refused for it.
    let unaddressed = served.issuer.opaque(json!({ "sub": "carol" })).await;
    let seen = seen_by(&served, &unaddressed).await.expect("let in");
    assert_eq!(seen["subject"], json!("carol"), "{seen}");
}

#[tokio::test(flavor = "multi_thread")]
async fn introspection_fails_closed_when_the_authorization_server_cannot_be_asked() {
    // The wrong secret: the authorization server refuses to answer.
    let refused = Served::with(DEFAULT_PAGE_SIZE, |config| {
        config.introspection(Introspection::new(CLIENT_ID, "not-the-secret"))
    })
    .await;
    let token = refused
        .issuer
        .opaque(json!({ "aud": refused.resource }))
        .await;
    let (status, body) = seen_by(&refused, &token).await.expect_err("refused");
    assert_eq!(status, 503, "{body}");
    let description = body["error_description"].as_str().unwrap_or_default();
    assert!(description.contains("client credentials"), "{description}");

    // The authorization server gone: what it vouched for is kept a while, nothing new is
    // let in.
    let mut served = Served::with(DEFAULT_PAGE_SIZE, |config| {
        config.introspection(Introspection::new(CLIENT_ID, CLIENT_SECRET))
    })
    .await;
    let known = served
        .issuer
        .opaque(json!({ "aud": served.resource, "sub": "bob" }))
        .await;
    let unknown = served
        .issuer
        .opaque(json!({ "aud": served.resource, "sub": "eve" }))
        .await;
    assert!(seen_by(&served, &known).await.is_ok());
    served.issuer.stop();
    assert_eq!(
        seen_by(&served, &known).await.expect("kept")["subject"],
        json!("bob")
    );
    let (status, body) = seen_by(&served, &unknown).await.expect_err("not let in");
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["error"], json!("temporarily_unavailable"), "{body}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_command_line_introspects_every_token_with_the_secret_from_the_environment() {
    let issuer = Issuer::start();
    let address = format!("127.0.0.1:{}", free_port());
    let resource = format!("http://{address}/mcp");
    let mut command = std::process::Command::new(quickstart_bin());
    command
        .args(["serve", "--http", &address])
        .args(["--oauth-issuer", &issuer.url, "--oauth-audience", &resource])
        .args(["--oauth-introspection", "--oauth-introspect-all"])
        .args(["--oauth-client-id", CLIENT_ID])
        .env("MCP_OAUTH_CLIENT_SECRET", CLIENT_SECRET);
    let _server = mcp_tests::HttpServer::start(command);
    let opaque = issuer.opaque(json!({ "aud": resource })).await;
    let (status, _, body) = post(&resource, Some(&format!("Bearer {opaque}"))).await;
    assert_eq!(status, 200, "{body}");
    // Every token is asked about: a JWT the issuer signed but never remembered too.
    let jwt = issuer
        .token("/test/token", json!({ "aud": resource }))
        .await;
    let (status, _, body) = post(&resource, Some(&format!("Bearer {jwt}"))).await;
    assert_eq!(status, 401, "{body}");
    let description = body["error_description"].as_str().unwrap_or_default();
    assert!(description.contains("not active"), "{description}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_is_its_subjects_alone_and_another_subject_naming_it_gets_404() {
    let served = Served::start().await;
    let token = |subject: &'static str| {
        let served = &served;
        async move {
            served
                .issuer
                .token(
                    "/test/token",
                    json!({ "aud": served.resource, "sub": subject, "scope": "notes:read" }),
                )
                .await
        }
    };
    let (alice, bob) = (token("alice").await, token("bob").await);
    let http = reqwest::Client::new();
    let send = |token: &str, session: Option<&str>, method: &str, message: Value| {
        let mut request = http
            .request(method.parse().expect("a method"), &served.resource)
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", HANDSHAKE)
            .header("Authorization", format!("Bearer {token}"));
        if method == "POST" {
            request = request.json(&message);
        }
        if let Some(session) = session {
            request = request.header("Mcp-Session-Id", session);
        }
        async move { request.send().await.expect("the server answers") }
    };
    let initialize = request(
        HANDSHAKE,
        "initialize",
        json!({ "protocolVersion": HANDSHAKE, "capabilities": {}, "clientInfo": { "name": "t", "version": "1" } }),
    );
    let opened = send(&alice, None, "POST", initialize).await;
    assert_eq!(opened.status(), 200);
    let session = opened.headers()["mcp-session-id"]
        .to_str()
        .expect("text")
        .to_owned();
    let ping = request(HANDSHAKE, "ping", json!({}));
    // Alice's session answers Alice.
    let answer = send(&alice, Some(&session), "POST", ping.clone()).await;
    assert_eq!(answer.status(), 200);
    // Bob, naming it, is told no such session, as for one never opened: he cannot use it,
    // end it, or learn that it exists.
    for method in ["POST", "GET", "DELETE"] {
        let refused = send(&bob, Some(&session), method, ping.clone()).await;
        assert_eq!(refused.status(), 404, "{method}");
        let body: Value = refused.json().await.expect("a JSON error");
        assert_eq!(body["error"]["code"], -32_001, "{method}: {body}");
    }
    // Alice's session goes on, with its stream, and she may end it: its stream then ends.
    let answer = send(&alice, Some(&session), "POST", ping.clone()).await;
    assert_eq!(answer.status(), 200);
    let stream = send(&alice, Some(&session), "GET", Value::Null).await;
    assert_eq!(stream.status(), 200);
    let ended = send(&alice, Some(&session), "DELETE", Value::Null).await;
    assert_eq!(ended.status(), 204);
    tokio::time::timeout(std::time::Duration::from_secs(5), stream.text())
        .await
        .expect("the session's stream ends with it")
        .expect("a stream read to its end");
    let after = send(&alice, Some(&session), "POST", ping).await;
    assert_eq!(after.status(), 404);
}
