//! Posting an export to its endpoint.
//!
//! A plain `http://` endpoint, where no proxy variable is set, is posted to over a
//! connection of the exporter's own: `hyper`'s HTTP/1.1 client, the connection kept alive
//! from export to export. Under load an export is a few hundred kilobytes every few
//! milliseconds, and a client with a pool, redirects and proxies to consult costs several
//! times what writing the request does. Any other endpoint goes through `reqwest`, which
//! reads the proxy variables (`HTTP_PROXY`, `ALL_PROXY`, `NO_PROXY`) and speaks TLS where the
//! build has it.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::client::conn::TrySendError;
use hyper::client::conn::http1::SendRequest;
use hyper::header::{CONTENT_TYPE, HOST, HeaderMap, HeaderName, HeaderValue};
use hyper::{Method, Request, Response, StatusCode, Uri};
use hyper_util::rt::TokioIo;
use tokio::sync::oneshot;

/// The media type of every export.
const PROTOBUF: &str = "application/x-protobuf";

/// The variables that set a proxy for `http://` URLs, as `reqwest` reads them.
const PROXY_VARIABLES: [&str; 4] = ["http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"];

/// Where one signal's exports go, and how they get there.
#[derive(Debug)]
pub(super) struct Route {
    way: Way,
    timeout: Duration,
}

#[derive(Debug)]
enum Way {
    Direct(Box<Direct>),
    Client {
        client: reqwest::Client,
        url: String,
        headers: Vec<(String, String)>,
    },
    /// A header the variables set that HTTP cannot carry: every export fails, saying so,
    /// rather than going out without it.
    Refused(String),
}

/// An endpoint posted to over a connection of the exporter's own.
#[derive(Debug)]
struct Direct {
    /// The address connected to: host and port.
    address: String,
    /// The request's target: the URL's path and query.
    target: Uri,
    /// `Host`, `Content-Type`, and the headers the variables set.
    headers: HeaderMap,
    connection: Option<SendRequest<Full<Bytes>>>,
    /// The export written whose answer is still to be read.
    unanswered: Option<Unanswered>,
}

/// The answer to a request on its way, from a connection of the exporter's own.
type Answer = Pin<
    Box<dyn Future<Output = Result<Response<Incoming>, TrySendError<Request<Full<Bytes>>>>> + Send>,
>;

/// An export written, its answer not yet read: the connection it went on, kept for the next
/// once the answer is read, and what the export carried.
struct Unanswered {
    sender: SendRequest<Full<Bytes>>,
    answer: Answer,
    what: String,
}

impl std::fmt::Debug for Unanswered {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("Unanswered")
    }
}

/// What sending an export tells: how the export before it fared, where its answer was left
/// to read ([`Route::send`]), and whether this one was written.
#[derive(Debug)]
pub(super) struct Sent {
    pub(super) earlier: Option<Fared>,
    pub(super) written: Result<(), Failure>,
}

/// How an export whose answer was left to read fared, once read, and what it carried.
#[derive(Debug)]
pub(super) struct Fared {
    pub(super) what: String,
    pub(super) outcome: Result<(), Failure>,
}

/// How an export fared, where it was not accepted.
#[derive(Debug)]
pub(super) enum Failure {
    /// The endpoint answered with this status.
    Refused(StatusCode),
    /// No answer: what went wrong.
    Failed(String),
}

impl Route {
    /// The route of exports to `url`, with `headers`, each given `timeout` to be answered.
    pub(super) fn new(url: &str, headers: &[(String, String)], timeout: Duration) -> Self {
        let way = match Direct::new(url, headers) {
            Some(Ok(direct)) => Way::Direct(Box::new(direct)),
            Some(Err(refused)) => Way::Refused(refused),
            None => match reqwest::Client::builder().build() {
                Ok(client) => Way::Client {
                    client,
                    url: url.to_owned(),
                    headers: headers.to_vec(),
                },
                Err(error) => Way::Refused(format!("no HTTP client: {error}")),
            },
        };
        Self { way, timeout }
    }

    /// Whether exports go over a connection of the exporter's own.
    #[cfg(test)]
    fn is_direct(&self) -> bool {
        matches!(self.way, Way::Direct(_))
    }

    /// Posts `body`, and reads the answer to its end, so that the connection serves the
    /// next export.
    pub(super) async fn post(&mut self, body: Bytes) -> Result<(), Failure> {
        let Sent { earlier, written } = self.send(body, "").await;
        debug_assert!(earlier.is_none(), "every export before was posted");
        written?;
        self.settle().await.map_or(Ok(()), |fared| fared.outcome)
    }

    /// Writes `body`, and returns once it is written: over a connection of the exporter's
    /// own, its answer is left to read by [`Self::settle`], or by the next export, which
    /// reads it first. An exporter that sends a batch every few milliseconds is then woken
    /// once a batch, for it, and not again for the answer. Through the client, the answer is
    /// read before this returns. `what` the export carries is told with how it fared, where
    /// its answer is read later.
    pub(super) async fn send(&mut self, body: Bytes, what: &str) -> Sent {
        let earlier = self.settle().await;
        let timeout = self.timeout;
        let posting = async {
            match &mut self.way {
                Way::Direct(direct) => direct.send(body, what).await,
                Way::Client {
                    client,
                    url,
                    headers,
                } => {
                    let mut request = client
                        .post(url.as_str())
                        .header("content-type", PROTOBUF)
                        .body(body);
                    for (key, value) in headers.iter() {
                        request = request.header(key, value);
                    }
                    let response = request
                        .send()
                        .await
                        .map_err(|error| Failure::Failed(error.to_string()))?;
                    let status = response.status();
                    fared(status, response.bytes().await.map(drop))
                }
                Way::Refused(reason) => Err(Failure::Failed(reason.clone())),
            }
        };
        let written = match tokio::time::timeout(timeout, posting).await {
            Ok(written) => written,
            Err(_) => {
                if let Way::Direct(direct) = &mut self.way {
                    // A request cut off mid-way leaves the connection unusable.
                    direct.connection = None;
                }
                Err(timed_out(timeout))
            }
        };
        Sent { earlier, written }
    }

    /// Reads the answer to the export written last, where it is still to be read, and says
    /// how that export fared; `None` when every answer is read. The answer is given the
    /// route's timeout from now: it has had the time since the export too.
    pub(super) async fn settle(&mut self) -> Option<Fared> {
        let Way::Direct(direct) = &mut self.way else {
            return None;
        };
        let mut unanswered = direct.unanswered.take()?;
        let what = std::mem::take(&mut unanswered.what);
        let timeout = self.timeout;
        let outcome = match tokio::time::timeout(timeout, direct.read(unanswered)).await {
            Ok(outcome) => outcome,
            // The connection went with the answer it had not read.
            Err(_) => Err(timed_out(timeout)),
        };
        Some(Fared { what, outcome })
    }
}

fn timed_out(timeout: Duration) -> Failure {
    Failure::Failed(format!("no answer within {}ms", timeout.as_millis()))
}

/// How an export fared, by its answer's status and whether the answer was read to its end:
/// read, so that the connection serves the next export.
fn fared<E: std::fmt::Display>(status: StatusCode, read: Result<(), E>) -> Result<(), Failure> {
    if !status.is_success() {
        return Err(Failure::Refused(status));
    }
    read.map_err(|error| Failure::Failed(format!("the answer broke off: {error}")))
}

impl Direct {
    /// The direct route to `url`: `None` where it is not plain `http://`, or a proxy is
    /// set, or it is not a URL `hyper` reads (left to `reqwest`, which says what is wrong
    /// with it); an error where a header cannot be sent.
    fn new(url: &str, headers: &[(String, String)]) -> Option<Result<Self, String>> {
        let proxied = PROXY_VARIABLES
            .iter()
            .any(|name| std::env::var_os(name).is_some_and(|value| !value.is_empty()));
        let uri: Uri = url.parse().ok()?;
        if proxied || uri.scheme_str() != Some("http") {
            return None;
        }
        let authority = uri.authority()?;
        let host = authority.host();
        if host.is_empty() {
            return None;
        }
        // An IPv6 literal keeps its brackets, for the port to follow.
        let address = format!("{host}:{}", authority.port_u16().unwrap_or(80));
        let target = uri.path_and_query().map_or_else(
            || Uri::from_static("/"),
            |path| Uri::try_from(path.as_str()).unwrap_or_else(|_| Uri::from_static("/")),
        );
        let mut map = HeaderMap::new();
        let Ok(host_value) = HeaderValue::from_str(authority.as_str()) else {
            return None;
        };
        map.insert(HOST, host_value);
        map.insert(CONTENT_TYPE, HeaderValue::from_static(PROTOBUF));
        for (key, value) in headers {
            let name = match HeaderName::from_bytes(key.as_bytes()) {
                Ok(name) => name,
                Err(_) => return Some(Err(format!("`{key}` is not a header name"))),
            };
            let value = match HeaderValue::from_str(value) {
                Ok(value) => value,
                Err(_) => return Some(Err(format!("the value of `{key}` is not a header's"))),
            };
            map.insert(name, value);
        }
        Some(Ok(Self {
            address,
            target,
            headers: map,
            connection: None,
            unanswered: None,
        }))
    }

    /// Writes `body`, its answer left to read ([`Self::read`]) once it is written; an answer
    /// that comes first (a refusal that did not wait for the whole request) is read now.
    async fn send(&mut self, body: Bytes, what: &str) -> Result<(), Failure> {
        // The connection's task runs only while an export does: this lets it read a close
        // its server sent since the last one, so that a closed connection is not reused.
        tokio::task::yield_now().await;
        let (written, mut written_now) = oneshot::channel();
        // The body is dropped once the connection has written it, or given up on it.
        let body = Bytes::from_owner(Written {
            body,
            written: Some(written),
        });
        let mut request = self.request(body);
        let mut retried = false;
        loop {
            let reused = self
                .connection
                .as_ref()
                .is_some_and(|sender| !sender.is_closed());
            let mut sender = match self.connection.take() {
                Some(sender) if reused => sender,
                _ => self.connect().await?,
            };
            let sent = match sender.ready().await {
                Ok(()) => sender.try_send_request(request),
                Err(_) if reused && !retried => {
                    // The kept connection closed as it was asked to carry this export:
                    // nothing was written, so the export goes on a new one.
                    retried = true;
                    continue;
                }
                Err(error) => return Err(Failure::Failed(error.to_string())),
            };
            let mut answer: Answer = Box::pin(sent);
            let sent = tokio::select! {
                biased;
                sent = &mut answer => sent,
                _ = &mut written_now => {
                    self.unanswered = Some(Unanswered {
                        sender,
                        answer,
                        what: what.to_owned(),
                    });
                    return Ok(());
                }
            };
            match sent {
                Ok(response) => return self.finish(sender, response).await,
                Err(mut error) => match error.take_message() {
                    // Not written: a kept connection that closed under it. Once more, on a
                    // new connection.
                    Some(unsent) if reused && !retried => {
                        retried = true;
                        request = unsent;
                    }
                    _ => return Err(Failure::Failed(error.into_error().to_string())),
                },
            }
        }
    }

    /// Reads the answer `unanswered` waits for, and says how its export fared.
    async fn read(&mut self, unanswered: Unanswered) -> Result<(), Failure> {
        match unanswered.answer.await {
            Ok(response) => self.finish(unanswered.sender, response).await,
            Err(error) => Err(Failure::Failed(error.into_error().to_string())),
        }
    }

    /// Reads `response` to its end, keeping the connection for the next export where it
    /// serves one, and says how its export fared.
    async fn finish(
        &mut self,
        sender: SendRequest<Full<Bytes>>,
        response: Response<Incoming>,
    ) -> Result<(), Failure> {
        let status = response.status();
        let answer = response.into_body().collect().await.map(drop);
        if answer.is_ok() && !sender.is_closed() {
            self.connection = Some(sender);
        }
        fared(status, answer)
    }

    /// The request that posts `body`.
    fn request(&self, body: Bytes) -> Request<Full<Bytes>> {
        let mut request = Request::new(Full::new(body));
        *request.method_mut() = Method::POST;
        *request.uri_mut() = self.target.clone();
        *request.headers_mut() = self.headers.clone();
        request
    }

    /// A new connection to the endpoint, its task run on the exporter's runtime.
    async fn connect(&self) -> Result<SendRequest<Full<Bytes>>, Failure> {
        let failed = |error: &dyn std::fmt::Display| {
            Failure::Failed(format!("no connection to {}: {error}", self.address))
        };
        let stream = tokio::net::TcpStream::connect(&self.address)
            .await
            .map_err(|error| failed(&error))?;
        let _ = stream.set_nodelay(true);
        let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|error| failed(&error))?;
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(%error, "an OTLP export connection ended");
            }
        });
        Ok(sender)
    }
}

/// A request's body, which says when the connection is done with it.
struct Written {
    body: Bytes,
    written: Option<oneshot::Sender<()>>,
}

impl AsRef<[u8]> for Written {
    fn as_ref(&self) -> &[u8] {
        &self.body
    }
}

impl Drop for Written {
    fn drop(&mut self) {
        if let Some(written) = self.written.take() {
            let _ = written.send(());
        }
    }
}

#[cfg(all(test, feature = "http"))]
mod tests {
    use std::convert::Infallible;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};

    use hyper::body::Incoming;
    use hyper::{Response, StatusCode};

    use super::*;

    /// What the endpoint was sent: each request's path, headers and body.
    type Seen = Arc<Mutex<Vec<(String, HeaderMap, Bytes)>>>;

    /// How an endpoint keeps its connections.
    #[derive(Clone, Copy)]
    enum Keeps {
        /// Alive, for the next request.
        Alive,
        /// Closed after each answer, saying so.
        Closed,
        /// Closed without a word, idle for a while.
        IdleFor(Duration),
    }

    /// A port of the test's own, and the URL of traces there.
    async fn listener() -> (tokio::net::TcpListener, String) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a port");
        let address = listener.local_addr().expect("an address");
        (listener, format!("http://{address}/v1/traces"))
    }

    /// An endpoint on a port of its own that answers every request with `status`, keeping
    /// its connections as `keeps` says; the connections it accepted, and what it was sent.
    async fn endpoint(status: StatusCode, keeps: Keeps) -> (String, Arc<AtomicUsize>, Seen) {
        let (listener, url) = listener().await;
        let (connections, seen) = (Arc::new(AtomicUsize::new(0)), Seen::default());
        let (accepted, kept) = (Arc::clone(&connections), Arc::clone(&seen));
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                accepted.fetch_add(1, Ordering::SeqCst);
                let kept = Arc::clone(&kept);
                let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                    let kept = Arc::clone(&kept);
                    async move {
                        let (parts, body) = request.into_parts();
                        let body = body.collect().await.expect("a body").to_bytes();
                        let path = parts.uri.path().to_owned();
                        kept.lock().expect("seen").push((path, parts.headers, body));
                        let mut response = Response::new(Full::new(Bytes::new()));
                        *response.status_mut() = status;
                        Ok::<_, Infallible>(response)
                    }
                });
                let served = hyper::server::conn::http1::Builder::new()
                    .keep_alive(!matches!(keeps, Keeps::Closed))
                    .serve_connection(TokioIo::new(stream), service);
                tokio::spawn(async move {
                    match keeps {
                        // Dropped, the connection's socket closes with no answer pending.
                        Keeps::IdleFor(idle) => drop(tokio::time::timeout(idle, served).await),
                        Keeps::Alive | Keeps::Closed => drop(served.await),
                    }
                });
            }
        });
        (url, connections, seen)
    }

    /// A runtime as on the exporter's thread, driven only while an export is posted, and
    /// one of the endpoint's own.
    fn runtimes() -> (tokio::runtime::Runtime, tokio::runtime::Runtime) {
        let exporter = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let served = tokio::runtime::Runtime::new().expect("a runtime");
        (exporter, served)
    }

    /// The bodies the endpoint was sent, in order.
    fn bodies(seen: &Seen) -> Vec<Bytes> {
        let seen = seen.lock().expect("seen");
        seen.iter().map(|(_, _, body)| body.clone()).collect()
    }

    fn headers() -> Vec<(String, String)> {
        vec![("api-key".to_owned(), "a b".to_owned())]
    }

    #[tokio::test]
    async fn exports_go_over_one_kept_connection_with_their_headers() {
        let (url, connections, seen) = endpoint(StatusCode::OK, Keeps::Alive).await;
        let mut route = Route::new(&url, &headers(), Duration::from_secs(5));
        assert!(
            route.is_direct(),
            "a plain http:// endpoint is posted to directly"
        );
        for body in ["first", "second"] {
            route
                .post(Bytes::from_static(body.as_bytes()))
                .await
                .expect("accepted");
        }
        assert_eq!(
            connections.load(Ordering::SeqCst),
            1,
            "one connection, kept"
        );
        let seen = seen.lock().expect("seen");
        assert_eq!(seen.len(), 2);
        for ((path, headers, body), sent) in seen.iter().zip(["first", "second"]) {
            assert_eq!(path, "/v1/traces");
            assert_eq!(body, sent.as_bytes());
            assert_eq!(headers.get(CONTENT_TYPE).expect("a type"), PROTOBUF);
            assert_eq!(headers.get("api-key").expect("the header set"), "a b");
            let host = headers.get(HOST).expect("a host").to_str().expect("text");
            assert!(url.contains(host), "{host} in {url}");
        }
    }

    #[tokio::test]
    async fn a_connection_the_endpoint_closes_is_not_reused() {
        let (url, connections, seen) = endpoint(StatusCode::OK, Keeps::Closed).await;
        let mut route = Route::new(&url, &[], Duration::from_secs(5));
        for body in ["first", "second", "third"] {
            route
                .post(Bytes::from_static(body.as_bytes()))
                .await
                .expect("accepted");
        }
        assert_eq!(connections.load(Ordering::SeqCst), 3);
        assert_eq!(bodies(&seen), ["first", "second", "third"]);
    }

    #[test]
    fn a_kept_connection_the_endpoint_dropped_while_idle_is_not_reused() {
        let (exporter, served) = runtimes();
        let idle = Duration::from_millis(50);
        let (url, connections, seen) =
            served.block_on(endpoint(StatusCode::OK, Keeps::IdleFor(idle)));
        let mut route = Route::new(&url, &[], Duration::from_secs(5));
        for body in ["first", "second"] {
            exporter
                .block_on(route.post(Bytes::from_static(body.as_bytes())))
                .expect("accepted");
            std::thread::sleep(idle * 4);
        }
        assert_eq!(connections.load(Ordering::SeqCst), 2);
        assert_eq!(seen.lock().expect("seen").len(), 2);
    }

    #[tokio::test]
    async fn a_refusal_says_its_status_and_the_connection_serves_the_next_export() {
        let (url, connections, seen) =
            endpoint(StatusCode::SERVICE_UNAVAILABLE, Keeps::Alive).await;
        let mut route = Route::new(&url, &[], Duration::from_secs(5));
        for _ in 0..2 {
            match route.post(Bytes::from_static(b"spans")).await {
                Err(Failure::Refused(status)) => {
                    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
                }
                other => panic!("not refused: {other:?}"),
            }
        }
        assert_eq!(connections.load(Ordering::SeqCst), 1);
        assert_eq!(seen.lock().expect("seen").len(), 2);
    }

    #[test]
    fn an_export_sent_is_written_at_once_and_its_answer_read_after() {
        let (exporter, served) = runtimes();
        let (url, connections, seen) =
            served.block_on(endpoint(StatusCode::SERVICE_UNAVAILABLE, Keeps::Alive));
        let mut route = Route::new(&url, &[], Duration::from_secs(5));
        let sent = exporter.block_on(route.send(Bytes::from_static(b"first"), "first"));
        assert!(sent.earlier.is_none(), "{sent:?}");
        assert!(sent.written.is_ok(), "{sent:?}");
        // The endpoint takes the whole export while the exporter's runtime stands still.
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while seen.lock().expect("seen").is_empty() {
            assert!(
                std::time::Instant::now() < deadline,
                "the export was not written"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        match exporter.block_on(route.settle()).map(|fared| fared.outcome) {
            Some(Err(Failure::Refused(status))) => {
                assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
            }
            other => panic!("not the refusal, read after: {other:?}"),
        }
        assert!(exporter.block_on(route.settle()).is_none(), "read once");
        // The next export reads the answer left before it is written, and says how the
        // export before fared.
        let _ = exporter.block_on(route.send(Bytes::from_static(b"second"), "second"));
        let sent = exporter.block_on(route.send(Bytes::from_static(b"third"), "third"));
        assert!(
            matches!(
                sent.earlier.as_ref().map(|fared| &fared.outcome),
                Some(Err(Failure::Refused(_)))
            ),
            "{sent:?}"
        );
        assert!(sent.written.is_ok(), "{sent:?}");
        assert!(exporter.block_on(route.settle()).is_some());
        assert_eq!(
            connections.load(Ordering::SeqCst),
            1,
            "one connection, kept"
        );
        assert_eq!(bodies(&seen), ["first", "second", "third"]);
    }

    #[tokio::test]
    async fn an_answer_that_does_not_come_fails_within_the_timeout() {
        let (listener, url) = listener().await;
        // Takes the request and never answers.
        tokio::spawn(async move {
            let (mut stream, _) = listener.accept().await.expect("a connection");
            let mut sink = tokio::io::sink();
            let _ = tokio::io::copy(&mut stream, &mut sink).await;
        });
        let mut route = Route::new(&url, &[], Duration::from_millis(200));
        let sent = route.send(Bytes::from_static(b"spans"), "spans").await;
        assert!(sent.written.is_ok(), "{sent:?}");
        match route.settle().await.map(|fared| fared.outcome) {
            Some(Err(Failure::Failed(error))) => {
                assert!(error.contains("no answer within 200ms"), "{error}");
            }
            other => panic!("not timed out: {other:?}"),
        }
    }

    #[tokio::test]
    async fn an_endpoint_that_is_not_there_fails_naming_it() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
        let address = listener.local_addr().expect("an address");
        drop(listener);
        let mut route = Route::new(
            &format!("http://{address}/v1/traces"),
            &[],
            Duration::from_secs(5),
        );
        match route.post(Bytes::from_static(b"spans")).await {
            Err(Failure::Failed(error)) => {
                assert!(error.contains(&address.to_string()), "{error}");
            }
            other => panic!("not failed: {other:?}"),
        }
    }

    #[tokio::test]
    async fn a_header_http_cannot_carry_fails_every_export_and_sends_nothing() {
        let (url, connections, _) = endpoint(StatusCode::OK, Keeps::Alive).await;
        let broken = vec![("api key".to_owned(), "secret".to_owned())];
        let mut route = Route::new(&url, &broken, Duration::from_secs(5));
        match route.post(Bytes::from_static(b"spans")).await {
            Err(Failure::Failed(error)) => assert!(error.contains("`api key`"), "{error}"),
            other => panic!("not failed: {other:?}"),
        }
        assert_eq!(connections.load(Ordering::SeqCst), 0, "nothing sent");
    }

    #[test]
    fn endpoints_other_than_plain_http_go_through_the_client() {
        for url in ["https://collector.example/v1/traces", "not a url"] {
            assert!(
                !Route::new(url, &[], Duration::from_secs(1)).is_direct(),
                "{url}"
            );
        }
    }
}
