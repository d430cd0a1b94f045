//! The framework's OAuth client against its own resource server, through a real
//! authorization server (`oauth2-mock-server`, see `mcp_tests::issuer`): discovery from the
//! server's 401, dynamic registration, the authorization code with PKCE, the resource as the
//! token's audience, step-up to a wider scope, tokens kept across clients and refreshed,
//! and the refusals a client must make on its own.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use futures_util::future::BoxFuture;
use mcp_runtime::client::oauth::{
    AuthError, ClientCredentials, FileStore, MemoryStore, OAuth, TokenStore, Tokens, UserAgent,
};
use mcp_runtime::client::{Client, ClientError, HttpServer};
use mcp_runtime::server::{HttpConfig, OAuthConfig, Server, router};
use mcp_runtime::{Registry, ToolContext, mcp_tool};
use mcp_tests::issuer::Issuer;
use serde_json::{Value, json};

/// Says who calls, as the access token told the server.
#[mcp_tool(namespace = "auth", inline)]
fn whoami(ctx: &ToolContext) -> Value {
    match ctx.auth() {
        Some(caller) => json!({ "subject": caller.subject(), "scopes": caller.scopes() }),
        None => Value::Null,
    }
}

/// Writes a note: only for a caller granted `notes:write`.
#[mcp_tool(namespace = "notes", scopes("notes:write"), inline)]
fn write(
    /// The note.
    text: String,
) -> String {
    text
}

/// What the user does at the authorization server's page.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Answer {
    Consent,
    Decline,
}

/// A user at a browser: each authorization page is fetched, and the authorization
/// server's redirect, not followed, is the way back, or the user declines. The pages seen
/// are kept.
struct Browser {
    http: reqwest::Client,
    answer: Answer,
    pages: Arc<Mutex<Vec<reqwest::Url>>>,
}

impl Browser {
    fn new(answer: Answer) -> (Self, Arc<Mutex<Vec<reqwest::Url>>>) {
        let pages = Arc::new(Mutex::new(Vec::new()));
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("a client");
        let browser = Self {
            http,
            answer,
            pages: Arc::clone(&pages),
        };
        (browser, pages)
    }
}

impl UserAgent for Browser {
    fn redirect_uri(&self) -> String {
        "http://127.0.0.1:9/callback".to_owned()
    }

    fn authorize(&self, page: String) -> BoxFuture<'_, Result<String, AuthError>> {
        Box::pin(async move {
            let url = reqwest::Url::parse(&page).expect("a URL");
            self.pages.lock().unwrap().push(url.clone());
            if self.answer == Answer::Decline {
                let param = |name: &str| {
                    url.query_pairs()
                        .find(|(key, _)| key == name)
                        .map(|(_, value)| value.into_owned())
                        .unwrap_or_default()
                };
                let issuer = url.origin().ascii_serialization();
                let mut back = reqwest::Url::parse(&self.redirect_uri()).expect("a URL");
                back.query_pairs_mut()
                    .append_pair("error", "access_denied")
                    .append_pair("state", &param("state"))
                    .append_pair("iss", &issuer);
                return Ok(back.into());
            }
            let response = self.http.get(url).send().await.expect("the page answers");
            let location = response
                .headers()
                .get("location")
                .unwrap_or_else(|| panic!("no redirect: HTTP {}", response.status()))
                .to_str()
                .expect("text")
                .to_owned();
            Ok(location)
        })
    }
}

/// The tokens in memory, counting the times new ones were kept: each a token request.
#[derive(Default)]
struct CountingStore {
    kept: MemoryStore,
    new_tokens: Arc<AtomicUsize>,
}

impl TokenStore for CountingStore {
    fn tokens(&self, server: &str) -> BoxFuture<'_, Result<Option<Tokens>, AuthError>> {
        self.kept.tokens(server)
    }

    fn set_tokens(
        &self,
        server: &str,
        tokens: Option<Tokens>,
    ) -> BoxFuture<'_, Result<(), AuthError>> {
        if tokens.is_some() {
            self.new_tokens.fetch_add(1, Ordering::SeqCst);
        }
        self.kept.set_tokens(server, tokens)
    }

    fn client(&self, issuer: &str) -> BoxFuture<'_, Result<Option<ClientCredentials>, AuthError>> {
        self.kept.client(issuer)
    }

    fn set_client(
        &self,
        issuer: &str,
        client: ClientCredentials,
    ) -> BoxFuture<'_, Result<(), AuthError>> {
        self.kept.set_client(issuer, client)
    }
}

/// Holds the MCP requests that come without a token, once armed, until all of them are
/// in: refusals that arrive together.
struct Gate {
    armed: AtomicBool,
    together: tokio::sync::Barrier,
}

/// The resource server of these tests at `/mcp`, taking tokens of `issuer` for the
/// resource at `path` of its address (its own URL, unless told otherwise): its URL.
async fn serve(issuer: &str, path: &str) -> String {
    serve_gated(issuer, path, None).await
}

/// [`serve`], with requests without a token held at `gate`.
async fn serve_gated(issuer: &str, path: &str, gate: Option<Arc<Gate>>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let address: SocketAddr = listener.local_addr().expect("bound");
    let url = format!("http://{address}/mcp");
    let resource = format!("http://{address}{path}");
    let registry = Registry::builder()
        .inventory()
        .build()
        .expect("a valid registry");
    let config = HttpConfig {
        oauth: Some(OAuthConfig::new(issuer, &resource).scopes_supported(["notes:read"])),
        ..HttpConfig::default()
    };
    let app = router(Arc::new(Server::new(registry)), config)
        .layer(axum::middleware::from_fn(
            move |request: axum::extract::Request, next: axum::middleware::Next| {
                let gate = gate.clone();
                async move {
                    if let Some(gate) = gate {
                        let bare = request.method() == "POST"
                            && request.uri().path() == "/mcp"
                            && !request.headers().contains_key("authorization");
                        if bare && gate.armed.load(Ordering::SeqCst) {
                            gate.together.wait().await;
                        }
                    }
                    next.run(request).await
                }
            },
        ))
        .into_make_service_with_connect_info::<SocketAddr>();
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

async fn connect(url: &str, oauth: OAuth, handshake: bool) -> Result<Client, ClientError> {
    let mut builder = Client::builder();
    if handshake {
        builder = builder.handshake_only();
    }
    builder.http(HttpServer::new(url).oauth(oauth)).await
}

/// The structured answer of `tool`, called with `arguments`.
async fn call(client: &Client, tool: &str, arguments: Value) -> Value {
    let result = client.call_tool(tool, arguments).await.expect("answered");
    assert!(result.is_success(), "{tool}: {result:?}");
    let data = result.data().cloned().unwrap_or_default();
    data.get("result").cloned().unwrap_or(Value::Object(data))
}

/// The `scope` parameter of an authorization page, split.
fn scopes_asked(page: &reqwest::Url) -> Vec<String> {
    page.query_pairs()
        .find(|(key, _)| key == "scope")
        .map(|(_, scope)| scope.split(' ').map(str::to_owned).collect())
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread")]
async fn our_client_gets_a_token_for_our_server_and_calls_it_at_either_revision() {
    let issuer = Issuer::start();
    let url = serve(&issuer.url, "/mcp").await;
    for handshake in [true, false] {
        let (browser, pages) = Browser::new(Answer::Consent);
        let client = connect(&url, OAuth::new(browser), handshake)
            .await
            .expect("authorized and connected");
        let caller = call(&client, "auth.whoami", json!({})).await;
        assert_eq!(caller["subject"], "johndoe", "{caller}");
        assert_eq!(caller["scopes"], json!(["notes:read"]), "{caller}");
        let pages = pages.lock().unwrap().clone();
        assert_eq!(pages.len(), 1, "one consent");
        let asked: Vec<(String, String)> = pages[0].query_pairs().into_owned().collect();
        for (name, value) in [
            ("response_type", "code"),
            ("code_challenge_method", "S256"),
            ("resource", url.as_str()),
            ("scope", "notes:read"),
        ] {
            assert!(
                asked.contains(&(name.to_owned(), value.to_owned())),
                "{name}={value} in {asked:?}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_needing_a_wider_scope_steps_up_once_and_keeps_what_was_granted() {
    let issuer = Issuer::start();
    let url = serve(&issuer.url, "/mcp").await;
    let (browser, pages) = Browser::new(Answer::Consent);
    let client = connect(&url, OAuth::new(browser), false)
        .await
        .expect("connected");
    assert_eq!(
        call(&client, "notes.write", json!({ "text": "hi" })).await,
        "hi"
    );
    let caller = call(&client, "auth.whoami", json!({})).await;
    assert_eq!(caller["scopes"], json!(["notes:read", "notes:write"]));
    let pages = pages.lock().unwrap().clone();
    assert_eq!(pages.len(), 2, "a consent, then one step up");
    assert_eq!(scopes_asked(&pages[0]), ["notes:read"]);
    assert_eq!(scopes_asked(&pages[1]), ["notes:read", "notes:write"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn tokens_kept_in_a_file_spare_a_second_consent_and_expired_ones_are_refreshed() {
    let issuer = Issuer::start();
    let url = serve(&issuer.url, "/mcp").await;
    let dir = std::env::temp_dir().join(format!("mcp-client-oauth-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory");
    let file = dir.join("tokens.json");
    let _ = std::fs::remove_file(&file);
    let signed_in = |answer| {
        let (browser, pages) = Browser::new(answer);
        (
            OAuth::new(browser).token_store(FileStore::new(&file)),
            pages,
        )
    };
    let kept = || -> Value { serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap() };

    let (oauth, pages) = signed_in(Answer::Consent);
    let first = connect(&url, oauth, false).await.expect("connected");
    call(&first, "auth.whoami", json!({})).await;
    assert_eq!(pages.lock().unwrap().len(), 1);
    let tokens = kept()["tokens"][&url].clone();
    assert!(tokens["refresh_token"].is_string(), "{tokens}");

    // Another client with the same file: no consent.
    let (oauth, pages) = signed_in(Answer::Decline);
    let second = connect(&url, oauth, false).await.expect("connected");
    assert_eq!(
        call(&second, "auth.whoami", json!({})).await["subject"],
        "johndoe"
    );
    assert!(pages.lock().unwrap().is_empty());

    // Expired in the file: refreshed before use, still no consent.
    let mut file_now = kept();
    file_now["tokens"][&url]["expires_at"] = json!(1);
    std::fs::write(&file, file_now.to_string()).expect("written");
    let (oauth, pages) = signed_in(Answer::Decline);
    let third = connect(&url, oauth, false).await.expect("connected");
    assert_eq!(
        call(&third, "auth.whoami", json!({})).await["subject"],
        "johndoe"
    );
    assert!(pages.lock().unwrap().is_empty());
    // The new expiry is the refresh's: without one, the kept expiry would stay.
    let refreshed = kept()["tokens"][&url].clone();
    assert!(refreshed["expires_at"].as_u64().unwrap() > 1, "{refreshed}");
    assert!(refreshed["refresh_token"].is_string(), "{refreshed}");
    std::fs::remove_dir_all(&dir).expect("removed");
}

#[tokio::test(flavor = "multi_thread")]
async fn requests_refused_together_wait_for_one_consent() {
    const CALLS: usize = 8;
    let issuer = Issuer::start();
    let gate = Arc::new(Gate {
        armed: AtomicBool::new(false),
        together: tokio::sync::Barrier::new(CALLS),
    });
    let url = serve_gated(&issuer.url, "/mcp", Some(Arc::clone(&gate))).await;
    let (browser, pages) = Browser::new(Answer::Consent);
    let store = CountingStore::default();
    let new_tokens = Arc::clone(&store.new_tokens);
    let oauth = OAuth::new(browser).token_store(store);
    let client = Arc::new(connect(&url, oauth.clone(), true).await.expect("connected"));
    // Answered: the handshake's last notification went before it.
    call(&client, "auth.whoami", json!({})).await;
    oauth.sign_out(&url).await.expect("signed out");
    gate.armed.store(true, Ordering::SeqCst);
    let calls: Vec<_> = (0..CALLS)
        .map(|_| {
            let client = Arc::clone(&client);
            tokio::spawn(async move { call(&client, "auth.whoami", json!({})).await })
        })
        .collect();
    for call in calls {
        assert_eq!(call.await.expect("ran")["subject"], "johndoe");
    }
    assert_eq!(
        pages.lock().unwrap().len(),
        2,
        "one consent to connect, one after signing out"
    );
    assert_eq!(
        new_tokens.load(Ordering::SeqCst),
        2,
        "one token for each consent, and no refresh for the calls that waited"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_declined_consent_and_a_server_claiming_another_resource_are_errors_that_say_so() {
    let issuer = Issuer::start();
    let url = serve(&issuer.url, "/mcp").await;
    let (browser, _) = Browser::new(Answer::Decline);
    match connect(&url, OAuth::new(browser), false).await {
        Err(ClientError::Auth(AuthError::Denied { error, .. })) => {
            assert_eq!(error, "access_denied");
        }
        other => panic!("{:?}", other.map(|_| "connected")),
    }

    let elsewhere = serve(&issuer.url, "/other").await;
    let (browser, pages) = Browser::new(Answer::Consent);
    match connect(&elsewhere, OAuth::new(browser), false).await {
        Err(ClientError::Auth(AuthError::ResourceMismatch { resource, server })) => {
            assert_eq!(resource, elsewhere.replace("/mcp", "/other"));
            assert_eq!(server, elsewhere);
        }
        other => panic!("{:?}", other.map(|_| "connected")),
    }
    assert!(pages.lock().unwrap().is_empty(), "no consent asked");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_pre_registered_for_another_issuer_is_refused_naming_both_and_never_replaced() {
    const ELSEWHERE: &str = "https://auth.elsewhere.example";
    let issuer = Issuer::start();
    let url = serve(&issuer.url, "/mcp").await;

    // Pre-registered for another authorization server only: no registration here, no consent.
    let (browser, pages) = Browser::new(Answer::Consent);
    let oauth = OAuth::new(browser).pre_registered(ELSEWHERE, ClientCredentials::public("theirs"));
    let error = match connect(&url, oauth, false).await {
        Err(ClientError::Auth(error)) => error,
        other => panic!("{:?}", other.map(|_| "connected")),
    };
    let message = error.to_string();
    let AuthError::PreRegisteredElsewhere {
        registered_for,
        issuer: named,
    } = error
    else {
        panic!("{error:?}");
    };
    assert_eq!(registered_for, [ELSEWHERE]);
    assert_eq!(named, issuer.url);
    for name in [ELSEWHERE, issuer.url.as_str()] {
        assert!(
            message.contains(&format!("`{name}`")),
            "{name} in {message}"
        );
    }
    assert!(pages.lock().unwrap().is_empty(), "no consent asked");

    // Registered with this authorization server beforehand: that client is the one used.
    let registered: Value = reqwest::Client::new()
        .post(format!("{}/register", issuer.url))
        .json(&json!({
            "redirect_uris": ["http://127.0.0.1:9/callback"],
            "token_endpoint_auth_method": "none",
        }))
        .send()
        .await
        .expect("the issuer answers")
        .json()
        .await
        .expect("JSON");
    let ours = registered["client_id"].as_str().expect("a client id");
    let (browser, pages) = Browser::new(Answer::Consent);
    let oauth = OAuth::new(browser)
        .pre_registered(ELSEWHERE, ClientCredentials::public("theirs"))
        .pre_registered(&issuer.url, ClientCredentials::public(ours));
    let client = connect(&url, oauth, false).await.expect("connected");
    assert_eq!(
        call(&client, "auth.whoami", json!({})).await["subject"],
        "johndoe"
    );
    let pages = pages.lock().unwrap().clone();
    assert_eq!(pages.len(), 1, "one consent");
    assert!(
        pages[0]
            .query_pairs()
            .any(|(key, value)| key == "client_id" && value == ours),
        "{}",
        pages[0]
    );
}
