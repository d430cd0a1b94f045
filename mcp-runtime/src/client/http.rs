//! A server at a streamable HTTP endpoint: each message a POST, answered with JSON or with
//! an event stream of the request's own messages.
//!
//! - At 2026-07-28 each request stands alone: it carries `MCP-Protocol-Version`,
//!   `Mcp-Method`, `Mcp-Name` where the method names something, and the `Mcp-Param-*`
//!   headers of a call. Closing a request's stream cancels it.
//! - On the handshake's revisions the server's session id (`Mcp-Session-Id`) and the version
//!   agreed go on every later request. After the handshake a GET opens the stream on which
//!   the server sends what belongs to no request. A response stream that ends before its
//!   answer is taken up again with a GET carrying `Last-Event-ID`, after the `retry` the
//!   server asked for.
//!
//! An `https://` endpoint needs the `tls` feature (rustls, with the Mozilla root
//! certificates, plus any root given with [`HttpServer::root_certificate`]).
//!
//! With [`HttpServer::oauth`], every request carries the OAuth client's access token, and
//! a refusal (401, or 403 `insufficient_scope`) is answered with a new one before the
//! request is sent again.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use eventsource_stream::Eventsource;
use futures_util::StreamExt;
use mcp_runtime_core::method::Method;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use super::headers::header_safe;
use super::link::{Inbound, Outbound};
use super::oauth::{self, Challenge, OAuth};
use super::{ClientError, MAX_MESSAGE_BYTES, chain};

/// How long to wait before taking up a stream again, when the server did not say.
const DEFAULT_RETRY: Duration = Duration::from_secs(1);

/// How many times one response stream is taken up again before the request fails.
const MAX_RESUMES: usize = 5;

/// What an event may take on the wire besides its message: field names, line ends, its id
/// and retry, comments.
const EVENT_OVERHEAD: usize = 64 * 1024;

/// A server at a streamable HTTP endpoint.
///
/// ```
/// use mcp_runtime::client::HttpServer;
///
/// let server = HttpServer::new("http://127.0.0.1:8080/mcp")
///     .bearer("a-token")
///     .header("X-Team", "search");
/// assert_eq!(server.url(), "http://127.0.0.1:8080/mcp");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct HttpServer {
    url: String,
    headers: Vec<(String, String)>,
    /// The OAuth client that gets the requests' access tokens.
    oauth: Option<OAuth>,
    /// Root certificates trusted besides the built-in ones, PEM.
    #[cfg(feature = "tls")]
    roots: Vec<Vec<u8>>,
}

impl std::fmt::Debug for HttpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Header values may be credentials.
        let names: Vec<&str> = self.headers.iter().map(|(name, _)| name.as_str()).collect();
        f.debug_struct("HttpServer")
            .field("url", &self.url)
            .field("headers", &names)
            .field("oauth", &self.oauth)
            .finish()
    }
}

impl HttpServer {
    /// The endpoint at `url`.
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            headers: Vec::new(),
            oauth: None,
            #[cfg(feature = "tls")]
            roots: Vec::new(),
        }
    }

    /// Sends `name: value` with every request.
    #[must_use]
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Sends `Authorization: Bearer {token}` with every request.
    #[must_use]
    pub fn bearer(self, token: impl AsRef<str>) -> Self {
        let value = format!("Bearer {}", token.as_ref());
        self.header("Authorization", value)
    }

    /// Gets the access tokens of the requests from `oauth`, the OAuth 2.1 client of MCP's
    /// authorization chapter: the first refusal starts its discovery and authorization.
    #[must_use]
    pub fn oauth(mut self, oauth: OAuth) -> Self {
        self.oauth = Some(oauth);
        self
    }

    /// Trusts the root certificates in `pem` (one, or a bundle, PEM-encoded) for `https://`,
    /// besides the built-in ones: a private CA's, or a test's self-signed one. Needs the
    /// `tls` feature.
    #[cfg(feature = "tls")]
    #[must_use]
    pub fn root_certificate(mut self, pem: impl Into<Vec<u8>>) -> Self {
        self.roots.push(pem.into());
        self
    }

    /// The endpoint.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The HTTP client, trusting the roots given.
    fn http_client(&self) -> Result<reqwest::Client, HttpClientError> {
        #[allow(unused_mut)]
        let mut builder = reqwest::Client::builder();
        #[cfg(feature = "tls")]
        for pem in &self.roots {
            // A bundle, as `SSL_CERT_FILE` often is, or one certificate.
            let roots =
                reqwest::Certificate::from_pem_bundle(pem).map_err(HttpClientError::NotPem)?;
            if roots.is_empty() {
                return Err(HttpClientError::NoCertificate);
            }
            for root in roots {
                builder = builder.add_root_certificate(root);
            }
        }
        builder.build().map_err(HttpClientError::Build)
    }

    /// What the transport keeps of this endpoint: its HTTP client, and its OAuth client
    /// bound to it; or why there is none.
    fn endpoint(&self) -> Result<Endpoint, ClientError> {
        // Built without TLS: say so, rather than fail on the first request.
        if cfg!(not(feature = "tls"))
            && self
                .url
                .get(..8)
                .is_some_and(|scheme| scheme.eq_ignore_ascii_case("https://"))
        {
            return Err(ClientError::Connect(format!(
                "{}: this build speaks plain HTTP only; build mcp-runtime with the `tls` feature for https",
                self.url
            )));
        }
        let http = self
            .http_client()
            .map_err(|err| ClientError::Connect(format!("{}: {err}", self.url)))?;
        let auth = match &self.oauth {
            Some(oauth) => Some(
                oauth
                    .session(&self.url, http.clone())
                    .map_err(|err| ClientError::Connect(format!("{}: {err}", self.url)))?,
            ),
            None => None,
        };
        Ok(Endpoint {
            http,
            auth,
            url: self.url.clone(),
            headers: self.headers.clone(),
            session: Mutex::new(None),
            version: Mutex::new(None),
            listening: AtomicBool::new(false),
            in_flight: Mutex::new(HashMap::new()),
        })
    }

    /// Starts the transport: the channel of messages to send, and the one of messages read.
    pub(crate) fn spawn(
        &self,
    ) -> Result<(mpsc::Sender<Outbound>, mpsc::Receiver<Inbound>), ClientError> {
        let endpoint = Arc::new(self.endpoint()?);
        let (outbox, mut outgoing) = mpsc::channel::<Outbound>(64);
        let (inbound, inbox) = mpsc::channel::<Inbound>(64);
        tokio::spawn(async move {
            while let Some(message) = outgoing.recv().await {
                let endpoint = Arc::clone(&endpoint);
                let inbound = inbound.clone();
                let Ok(body) = serde_json::from_str::<Value>(&message.text) else {
                    continue;
                };
                // 2026-07-28 has no notifications from the client: closing a request's
                // stream is its cancellation.
                if body.get("method").and_then(Value::as_str) == Some(Method::Cancelled.as_str()) {
                    let cancelled = body
                        .pointer("/params/requestId")
                        .and_then(Value::as_u64)
                        .and_then(|id| endpoint.lock_in_flight().remove(&id));
                    if let Some(task) = cancelled {
                        task.abort();
                    }
                    if endpoint.version().is_none() {
                        continue;
                    }
                }
                // The end of the handshake is sent, and the session's own stream opened,
                // before anything else: what the server sends there may answer the very
                // next request.
                if body.get("method").and_then(Value::as_str) == Some(Method::Initialized.as_str())
                {
                    Arc::clone(&endpoint).post(body, message, inbound).await;
                    continue;
                }
                let id = body
                    .get("method")
                    .and(body.get("id"))
                    .and_then(Value::as_u64);
                let task = tokio::spawn({
                    let endpoint = Arc::clone(&endpoint);
                    async move { endpoint.post(body, message, inbound).await }
                });
                if let Some(id) = id {
                    endpoint.lock_in_flight().insert(id, task.abort_handle());
                }
            }
            // The client is gone: every stream still open closes with it.
            for (_, task) in endpoint.lock_in_flight().drain() {
                task.abort();
            }
        });
        Ok((outbox, inbox))
    }
}

/// Why the HTTP client of an endpoint could not be made.
#[derive(Debug, thiserror::Error)]
enum HttpClientError {
    /// A root certificate given did not read as PEM.
    #[cfg(feature = "tls")]
    #[error("a root certificate that is not PEM: {0}")]
    NotPem(reqwest::Error),
    /// A root certificate given held no certificate.
    #[cfg(feature = "tls")]
    #[error("a root certificate that is not PEM: no certificate in it")]
    NoCertificate,
    /// The client could not be built.
    #[error(transparent)]
    Build(reqwest::Error),
}

/// What the transport knows of the endpoint and its session.
struct Endpoint {
    http: reqwest::Client,
    /// The OAuth client bound to this endpoint, if requests carry its tokens.
    auth: Option<oauth::Session>,
    url: String,
    headers: Vec<(String, String)>,
    /// The handshake's session id, once the server gave one.
    session: Mutex<Option<String>>,
    /// The handshake's version, once agreed.
    version: Mutex<Option<String>>,
    /// Whether the GET stream of the session is open.
    listening: AtomicBool,
    /// The requests whose answers are being read, by id.
    in_flight: Mutex<HashMap<u64, AbortHandle>>,
}

impl Endpoint {
    fn lock_in_flight(&self) -> std::sync::MutexGuard<'_, HashMap<u64, AbortHandle>> {
        self.in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn version(&self) -> Option<String> {
        self.version
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn session(&self) -> Option<String> {
        self.session
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// A request to the endpoint with the headers every one carries.
    fn request(&self, method: reqwest::Method) -> reqwest::RequestBuilder {
        let mut request = self.http.request(method, &self.url);
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        if let Some(session) = self.session() {
            request = request.header("Mcp-Session-Id", session);
        }
        request
    }

    /// Sends `request`: as it is, or, with an OAuth client, with its access token, and again
    /// with a new one after each refusal the client could answer, a few times at most.
    async fn send(&self, request: reqwest::RequestBuilder) -> Result<reqwest::Response, Failure> {
        let Some(auth) = &self.auth else {
            return request.send().await.map_err(Failure::Http);
        };
        let (mut answered, mut nonce_asked) = (0, false);
        loop {
            let tokens = auth.tokens().await.map_err(Failure::Auth)?;
            let mut attempt = request
                .try_clone()
                .ok_or_else(|| {
                    Failure::Auth(oauth::AuthError::Discovery(
                        "a request whose body cannot be sent twice".to_owned(),
                    ))
                })?
                .build()
                .map_err(Failure::Http)?;
            if let Some(tokens) = &tokens {
                auth.present(&mut attempt, tokens).map_err(Failure::Auth)?;
            }
            let response = self.http.execute(attempt).await.map_err(Failure::Http)?;
            // A server that wants a DPoP nonce in the proof is asked again once with it.
            if !nonce_asked && auth.wants_nonce(&response) {
                nonce_asked = true;
                continue;
            }
            let Some(challenge) = Challenge::of(response.status().as_u16(), response.headers())
            else {
                return Ok(response);
            };
            if answered == oauth::MAX_AUTHORIZATIONS_PER_REQUEST {
                return Err(Failure::Auth(oauth::AuthError::Refused {
                    status: response.status().as_u16(),
                    scopes: challenge.scopes.unwrap_or_default(),
                }));
            }
            answered += 1;
            auth.answer(challenge, tokens)
                .await
                .map_err(Failure::Auth)?;
        }
    }

    /// POSTs one message and reads its answer into `inbound`.
    async fn post(self: Arc<Self>, body: Value, message: Outbound, inbound: mpsc::Sender<Inbound>) {
        let method = body.get("method").and_then(Value::as_str).unwrap_or("");
        let id = body
            .get("method")
            .and(body.get("id"))
            .and_then(Value::as_u64);
        let stateless = body
            .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let request = self.post_request(&body, method, stateless.as_deref(), &message.headers);
        let in_session = stateless.is_none() && self.session().is_some();
        let response = match self.send(request.body(message.text)).await {
            Ok(response) => response,
            Err(failure) => {
                fail(&inbound, id, failure.into_error("POST", &self.url)).await;
                return;
            }
        };
        if method == Method::Initialize.as_str() {
            self.keep_session(&response);
        }
        let Some(response) = self.accepted(response, in_session, id, &inbound).await else {
            return;
        };
        if method == Method::Initialized.as_str() {
            // The handshake is done: the session's own stream can open.
            self.listen(inbound.clone()).await;
        }
        let status = response.status().as_u16();
        if is_event_stream(&response) {
            self.read_stream(response, id, &inbound).await;
        } else if status != 202 && status != 204 {
            self.read_answer(response, method, id, &inbound).await;
        }
        if let Some(id) = id {
            self.lock_in_flight().remove(&id);
        }
    }

    /// The POST of a message with `body`, for `method`, and the headers it carries: at
    /// 2026-07-28 (`stateless`, its version) the method, what it names and `mirrored`;
    /// on the handshake's revisions, the version agreed.
    fn post_request(
        &self,
        body: &Value,
        method: &str,
        stateless: Option<&str>,
        mirrored: &[(String, String)],
    ) -> reqwest::RequestBuilder {
        let mut request = self
            .request(reqwest::Method::POST)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream");
        if let Some(version) = stateless {
            request = request.header("MCP-Protocol-Version", version);
            if !method.is_empty() {
                request = request.header("Mcp-Method", method);
            }
            let name = match Method::parse(method) {
                Method::ToolsCall | Method::PromptsGet => body.pointer("/params/name"),
                Method::ResourcesRead => body.pointer("/params/uri"),
                _ => None,
            };
            if let Some(name) = name.and_then(Value::as_str) {
                request = request.header("Mcp-Name", header_safe(name));
            }
            for (name, value) in mirrored {
                request = request.header(name, value);
            }
        } else if let Some(version) = self.version() {
            request = request.header("MCP-Protocol-Version", version);
        }
        request
    }

    /// Keeps the session id an `initialize` response gives, if any.
    fn keep_session(&self, response: &reqwest::Response) {
        if let Some(session) = response
            .headers()
            .get("mcp-session-id")
            .and_then(|value| value.to_str().ok())
        {
            *self.session.lock().unwrap_or_else(PoisonError::into_inner) = Some(session.to_owned());
        }
    }

    /// `response` if its status is a success; otherwise its failure is told: the end of
    /// the connection for a session the server no longer knows, else the request's.
    async fn accepted(
        &self,
        response: reqwest::Response,
        in_session: bool,
        id: Option<u64>,
        inbound: &mpsc::Sender<Inbound>,
    ) -> Option<reqwest::Response> {
        let status = response.status();
        if status.as_u16() == 404 && in_session {
            // The session is gone (the server restarted, or ended it): so is this
            // connection; a new one starts a new session.
            let _ = inbound
                .send(Inbound::End(ClientError::Closed(
                    "the server no longer knows this session (HTTP 404): it restarted or ended it"
                        .to_owned(),
                )))
                .await;
            return None;
        }
        if !status.is_success() {
            let text = response.text().await.unwrap_or_default();
            fail(inbound, id, http_error(status.as_u16(), &text)).await;
            return None;
        }
        Some(response)
    }

    /// Reads a JSON answer into `inbound`: the message, unless its body is empty.
    async fn read_answer(
        &self,
        response: reqwest::Response,
        method: &str,
        id: Option<u64>,
        inbound: &mpsc::Sender<Inbound>,
    ) {
        match read_capped(response).await {
            Ok(text) if !text.trim().is_empty() => {
                if method == Method::Initialize.as_str() {
                    self.agreed(&text);
                }
                let _ = inbound.send(Inbound::Message(text)).await;
            }
            Ok(_) => {
                let empty =
                    ClientError::Malformed(format!("`{method}` was answered with an empty body"));
                fail(inbound, id, empty).await;
            }
            Err(error) => fail(inbound, id, error).await,
        }
    }

    /// Notes the version an `initialize` response agreed.
    fn agreed(&self, text: &str) {
        let version = serde_json::from_str::<Value>(text).ok().and_then(|answer| {
            answer
                .pointer("/result/protocolVersion")
                .and_then(Value::as_str)
                .map(str::to_owned)
        });
        if let Some(version) = version {
            *self.version.lock().unwrap_or_else(PoisonError::into_inner) = Some(version);
        }
    }

    /// Reads a response stream until the answer to `id` (or, for the session's stream, until
    /// it ends); a stream that ends first is taken up again with `Last-Event-ID`.
    async fn read_stream(
        &self,
        response: reqwest::Response,
        id: Option<u64>,
        inbound: &mpsc::Sender<Inbound>,
    ) {
        let mut response = response;
        let mut place = Place {
            last_event: None,
            retry: DEFAULT_RETRY,
        };
        for _ in 0..=MAX_RESUMES {
            if read_events(self, response, id, inbound, &mut place).await == Read::Done {
                return;
            }
            // Ended without the answer. Without an event id to resume from it is lost.
            let (Some(id), Some(from)) = (id, place.last_event.clone()) else {
                let ended = "the response stream ended before the answer".to_owned();
                fail(inbound, id, ClientError::Closed(ended)).await;
                return;
            };
            tokio::time::sleep(place.retry).await;
            response = match self.resume(from).await {
                Ok(resumed) => resumed,
                // The call was in flight: its connection was lost, whatever stopped the
                // stream being taken up again (its server gone, say).
                Err(error) => {
                    let lost = ClientError::Closed(format!(
                        "the response stream broke off before the answer, and could not be \
                         taken up again: {error}"
                    ));
                    let _ = inbound.send(Inbound::Failed { id, error: lost }).await;
                    return;
                }
            };
        }
        let error = ClientError::Closed(format!(
            "the response stream ended {MAX_RESUMES} times before the answer"
        ));
        fail(inbound, id, error).await;
    }

    /// The stream taken up again after the event `from`.
    async fn resume(&self, from: String) -> Result<reqwest::Response, ClientError> {
        let resumed = self
            .request(reqwest::Method::GET)
            .header("Accept", "text/event-stream")
            .header("Last-Event-ID", from);
        let resumed = match self.version() {
            Some(version) => resumed.header("MCP-Protocol-Version", version),
            None => resumed,
        };
        match self.send(resumed).await {
            Ok(resumed) if resumed.status().is_success() => Ok(resumed),
            Ok(resumed) => {
                let status = resumed.status().as_u16();
                let text = resumed.text().await.unwrap_or_default();
                Err(http_error(status, &text))
            }
            Err(failure) => Err(failure.into_error("GET", &self.url)),
        }
    }

    /// Opens the session's own stream, once, and returns when it is open (or refused): what
    /// the server sends outside any request. A server without one (405, 404) is fine.
    async fn listen(self: &Arc<Self>, inbound: mpsc::Sender<Inbound>) {
        if self.listening.swap(true, Ordering::SeqCst) {
            return;
        }
        let mut request = self
            .request(reqwest::Method::GET)
            .header("Accept", "text/event-stream");
        if let Some(version) = self.version() {
            request = request.header("MCP-Protocol-Version", version);
        }
        match self.send(request).await {
            Ok(response) if response.status().is_success() => {
                let endpoint = Arc::clone(self);
                tokio::spawn(async move {
                    endpoint.read_stream(response, None, &inbound).await;
                    endpoint.listening.store(false, Ordering::SeqCst);
                });
            }
            Ok(response) => {
                tracing::debug!(status = %response.status(), "the server has no stream of its own");
                self.listening.store(false, Ordering::SeqCst);
            }
            Err(failure) => {
                let error = failure.into_error("GET", &self.url);
                tracing::debug!(error = %error, "the server's own stream did not open");
                self.listening.store(false, Ordering::SeqCst);
            }
        }
    }
}

/// Where a response stream is: its last event's id, and how long to wait before taking it
/// up again.
struct Place {
    last_event: Option<String>,
    retry: Duration,
}

/// How reading a response stream ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Read {
    /// With the answer, or with a failure already told: nothing more to read.
    Done,
    /// The stream broke off or ended before the answer.
    Ended,
}

/// Reads the events of `response` into `inbound`, noting in `place` where it got to, until
/// the answer to `id` or the end of the stream.
async fn read_events(
    endpoint: &Endpoint,
    response: reqwest::Response,
    id: Option<u64>,
    inbound: &mpsc::Sender<Inbound>,
    place: &mut Place,
) -> Read {
    // Every stream read here (a POST's answer, the session's own, one taken up again) is
    // refused while it streams once an event outgrows a message.
    let bytes =
        super::sse_bound::Bounded::new(response.bytes_stream(), MAX_MESSAGE_BYTES + EVENT_OVERHEAD);
    let mut events = bytes.eventsource();
    while let Some(event) = events.next().await {
        let event = match event {
            Ok(event) => event,
            Err(eventsource_stream::EventStreamError::Transport(
                super::sse_bound::BoundError::TooLong(length),
            )) => {
                let error = ClientError::Malformed(format!(
                    "a message over {MAX_MESSAGE_BYTES} bytes: an event still not ended after {length} bytes"
                ));
                tracing::warn!(error = %error, "an event stream refused");
                fail(inbound, id, error).await;
                return Read::Done;
            }
            Err(err) => {
                tracing::debug!(error = %err, "the response stream broke off");
                break;
            }
        };
        if !event.id.is_empty() {
            place.last_event = Some(event.id.clone());
        }
        if let Some(wait) = event.retry {
            place.retry = wait;
        }
        if event.data.trim().is_empty() {
            continue;
        }
        if event.data.len() > MAX_MESSAGE_BYTES {
            let error = ClientError::Malformed(format!("a message over {MAX_MESSAGE_BYTES} bytes"));
            fail(inbound, id, error).await;
            return Read::Done;
        }
        if endpoint.version().is_none() && id.is_some() {
            endpoint.agreed(&event.data);
        }
        let answers = id.is_some_and(|id| answers(&event.data, id));
        let message = match id {
            Some(request) => Inbound::During {
                text: event.data,
                request,
            },
            None => Inbound::Message(event.data),
        };
        let _ = inbound.send(message).await;
        if answers {
            return Read::Done;
        }
    }
    Read::Ended
}

/// Tells the request `id`, if the message was one, that it failed.
async fn fail(inbound: &mpsc::Sender<Inbound>, id: Option<u64>, error: ClientError) {
    if let Some(id) = id {
        let _ = inbound.send(Inbound::Failed { id, error }).await;
    }
}

/// Whether `response` is an event stream.
fn is_event_stream(response: &reqwest::Response) -> bool {
    response
        .headers()
        .get("content-type")
        .and_then(|value| value.to_str().ok())
        .is_some_and(|kind| kind.starts_with("text/event-stream"))
}

/// Why a request could not be sent.
enum Failure {
    /// The connection failed.
    Http(reqwest::Error),
    /// No token the server takes could be had.
    Auth(oauth::AuthError),
}

impl Failure {
    fn into_error(self, method: &str, url: &str) -> ClientError {
        match self {
            Self::Http(err) => ClientError::Connect(format!("{method} {url}: {}", chain(&err))),
            Self::Auth(err) => ClientError::Auth(err),
        }
    }
}

/// Whether `data` is the response to `id`.
fn answers(data: &str, id: u64) -> bool {
    serde_json::from_str::<Value>(data).is_ok_and(|message| {
        message.get("method").is_none() && message.get("id").and_then(Value::as_u64) == Some(id)
    })
}

/// An error status: the JSON-RPC error its body holds, or the status and the body's start.
fn http_error(status: u16, body: &str) -> ClientError {
    let error = serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|body| body.get("error").cloned())
        .and_then(|error| {
            Some(super::RpcError {
                code: error.get("code")?.as_i64()?,
                message: error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
                data: error.get("data").cloned(),
            })
        });
    match error {
        Some(error) => ClientError::Rpc(error),
        None => ClientError::Http {
            status,
            body: super::truncate(body),
        },
    }
}

/// A JSON body, read up to [`MAX_MESSAGE_BYTES`].
async fn read_capped(response: reqwest::Response) -> Result<String, ClientError> {
    let mut body = Vec::new();
    let mut chunks = response.bytes_stream();
    while let Some(chunk) = chunks.next().await {
        let chunk =
            chunk.map_err(|err| ClientError::Closed(format!("reading the answer: {err}")))?;
        if body.len() + chunk.len() > MAX_MESSAGE_BYTES {
            return Err(ClientError::Malformed(format!(
                "a message over {MAX_MESSAGE_BYTES} bytes"
            )));
        }
        body.extend_from_slice(&chunk);
    }
    String::from_utf8(body)
        .map_err(|_| ClientError::Malformed("an answer that is not UTF-8".to_owned()))
}
