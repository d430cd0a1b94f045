//! The HTTP server's connections: accepted, each served by hyper on a task of its own, until
//! the process is asked to stop; then no connection is accepted, each connection answers
//! the request it is reading or answering and closes, the streams of notifications (a
//! session's `GET /mcp`, a listen stream) end, and the server returns once all have
//! closed.
//!
//! In place of `axum::serve` with its graceful shutdown, whose every connection polls a
//! channel each time it wakes (about 550 instructions a request): here a connection reads
//! a flag, and leaves its waker where the stop can wake it only when the waker changes.
//!
//! A connection has [`HEADER_READ_TIMEOUT`] to send each request's headers, counted from
//! when the server begins to wait for them: a client that sends them a byte at a time, or
//! leaves a kept-alive connection idle, is disconnected rather than holding its task and
//! its file descriptor for ever. One timer a connection asks whether it has waited that
//! long (`idle.rs`), and is set again when it has not.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::handler::Handler;
use axum::http::Method;
use futures_util::FutureExt;
use futures_util::future::Either;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpStream};
use tower::Service;

use super::idle::{Idle, Tracked, Waited};
use super::post::PostMcp;
use super::{HttpState, MCP_PATH};

/// How long a connection has to send a request's headers, from when the server begins to
/// wait for them (after the connection opens, and after each answer on a kept-alive one):
/// hyper's default. Counted here (`idle.rs`) rather than by hyper, whose timer for each
/// request's headers cost a request about 1,400 instructions (5%).
pub(super) const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// Serves `router` on `listener` until `stop` completes, then drains the connections.
/// `POST /mcp` is handed to its handler with `state` directly (below).
pub(super) async fn serve(
    listener: TcpListener,
    router: Router,
    state: Arc<HttpState>,
    stop: impl Future<Output = ()>,
) -> io::Result<()> {
    let stopping = Arc::new(Stop::default());
    // Each connection's task holds a sender: the receiver reads `None` once all have ended.
    let (open, mut closed) = tokio::sync::mpsc::channel::<()>(1);
    let mut stop = std::pin::pin!(stop);
    loop {
        let (connection, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    refused(error).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        tokio::spawn(serve_connection(
            connection,
            peer,
            (router.clone(), Arc::clone(&state)),
            Arc::clone(&stopping),
            open.clone(),
        ));
    }
    drop(listener);
    stopping.raise();
    // The streams of notifications would last as long as their clients: they end, and
    // their clients reconnect elsewhere.
    state.streams.stop();
    drop(open);
    closed.recv().await;
    Ok(())
}

/// After a failed `accept`: nothing for a connection the client gave up on; else (out of
/// file descriptors, say) the error is logged and accepting waits a second, as hyper's
/// server did, rather than spinning.
async fn refused(error: io::Error) {
    if matches!(
        error.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    ) {
        return;
    }
    tracing::error!(%error, "a connection could not be accepted");
    tokio::time::sleep(Duration::from_secs(1)).await;
}

/// Serves one connection from `peer` until it closes, or ends it gracefully once the server
/// stops. Its requests carry `ConnectInfo` with the peer's address.
///
/// `POST /mcp`, nearly every request, goes straight to its handler: the router would take
/// it there after matching its path, putting its (no) parameters into the request, and
/// boxing its future, a thousand instructions a request. The route has no layer of its
/// own (its handler guards and logs its requests), so what it is answered is the same.
async fn serve_connection(
    connection: TcpStream,
    peer: SocketAddr,
    (router, state): (Router, Arc<HttpState>),
    stopping: Arc<Stop>,
    _open: tokio::sync::mpsc::Sender<()>,
) {
    super::no_delay(&connection);
    let idle = Idle::new(HEADER_READ_TIMEOUT);
    let service = {
        let idle = Arc::clone(&idle);
        hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
            let answering = idle.answering();
            let tracked = |response: axum::response::Response| {
                Ok::<_, Infallible>(response.map(|body| Tracked::new(body, answering)))
            };
            request.extensions_mut().insert(ConnectInfo(peer));
            if request.method() == Method::POST && request.uri().path() == MCP_PATH {
                let posted = PostMcp.call(request.map(Body::new), Arc::clone(&state));
                return Either::Left(posted.map(tracked));
            }
            // `Router::call` takes it mutably; a clone of it is one reference counted.
            Either::Right(
                router
                    .clone()
                    .call(request)
                    .map(|routed| tracked(routed.unwrap_or_else(|never| match never {}))),
            )
        })
    };
    let served = hyper::server::conn::http1::Builder::new()
        .serve_connection(TokioIo::new(connection), service);
    let mut served = std::pin::pin!(served);
    let mut watch = Watch::new(stopping);
    let mut ending = false;
    let mut ask = std::pin::pin!(tokio::time::sleep_until(idle.first_ask()));
    let result = std::future::poll_fn(|cx| {
        let woken_anew = watch.wake_with(cx);
        if !ending && watch.stopped() {
            served.as_mut().graceful_shutdown();
            ending = true;
        }
        if let Poll::Ready(result) = served.as_mut().poll(cx) {
            return Poll::Ready(Some(result));
        }
        // The timer keeps the waker it was polled with: polled again only when that changes
        // or it rang, not each time the connection is.
        if woken_anew || ask.is_elapsed() {
            while ask.as_mut().poll(cx).is_ready() {
                match idle.waited(tokio::time::Instant::now()) {
                    Waited::Over => return Poll::Ready(None),
                    Waited::AskAt(at) => ask.as_mut().reset(at),
                }
            }
        }
        Poll::Pending
    })
    .await;
    match result {
        Some(Ok(())) => {}
        Some(Err(error)) => tracing::trace!(%error, "a connection ended in error"),
        None => tracing::trace!(
            "a connection ended: no request's headers came within {HEADER_READ_TIMEOUT:?}"
        ),
    }
}

/// Whether the server is stopping, and the wakers of the connections to tell when it does.
#[derive(Default)]
struct Stop {
    stopping: AtomicBool,
    next: AtomicU64,
    waiting: Mutex<HashMap<u64, Waker>>,
}

impl Stop {
    /// Stops: every connection is woken, to end.
    fn raise(&self) {
        self.stopping.store(true, Ordering::Release);
        let waiting = std::mem::take(&mut *self.lock());
        for waker in waiting.into_values() {
            waker.wake();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Waker>> {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// One connection's watch on [`Stop`]: its waker, left there while it is the one its task
/// is polled with, and taken away when the connection ends.
struct Watch {
    stop: Arc<Stop>,
    id: u64,
    waker: Option<Waker>,
}

impl Watch {
    fn new(stop: Arc<Stop>) -> Self {
        let id = stop.next.fetch_add(1, Ordering::Relaxed);
        Self {
            stop,
            id,
            waker: None,
        }
    }

    /// Leaves `cx`'s waker where the stop wakes it, unless it is the one left already:
    /// whether it was a new one (on the first poll, it is).
    fn wake_with(&mut self, cx: &Context<'_>) -> bool {
        if self
            .waker
            .as_ref()
            .is_some_and(|waker| waker.will_wake(cx.waker()))
        {
            return false;
        }
        self.waker = Some(cx.waker().clone());
        self.stop.lock().insert(self.id, cx.waker().clone());
        true
    }

    /// Whether the server is stopping. Read after [`Watch::wake_with`], a stop raised before
    /// the waker was left is seen here.
    fn stopped(&self) -> bool {
        self.stop.stopping.load(Ordering::Acquire)
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        if self.waker.is_some() {
            self.stop.lock().remove(&self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::task::Wake;

    use axum::routing::get;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    /// The headers of a `POST /mcp` of JSON-RPC.
    const JSON: &str =
        "content-type: application/json\r\naccept: application/json, text/event-stream\r\n";

    /// A request of `method /mcp` with `headers` and `body`, whole.
    fn request(method: &str, headers: &str, body: &str) -> String {
        format!(
            "{method} /mcp HTTP/1.1\r\nhost: test\r\n{headers}content-length: {}\r\n\r\n{body}",
            body.len()
        )
    }

    /// A `POST /mcp` of the JSON-RPC message `body`, whole.
    fn post_mcp(body: &str) -> String {
        request("POST", JSON, body)
    }

    /// Sends a `GET` of `path` on `connection` and reads its answer's first bytes.
    async fn get_on(connection: &mut TcpStream, path: &str) -> String {
        let request = format!("GET {path} HTTP/1.1\r\nhost: test\r\n\r\n");
        connection.write_all(request.as_bytes()).await.unwrap();
        let mut answer = vec![0; 1024];
        let read = connection.read(&mut answer).await.unwrap();
        String::from_utf8_lossy(&answer[..read]).into_owned()
    }

    #[tokio::test]
    async fn a_stop_answers_the_request_in_flight_and_closes_idle_connections() {
        let (started, mut slow_started) = tokio::sync::mpsc::channel::<()>(1);
        let router = Router::new()
            .route("/quick", get(|| async { "quick" }))
            .route(
                "/slow",
                get(move || async move {
                    started.send(()).await.unwrap();
                    tokio::time::sleep(Duration::from_millis(300)).await;
                    "slow"
                }),
            )
            .route(
                "/peer",
                get(|ConnectInfo(peer): ConnectInfo<SocketAddr>| async move { peer.to_string() }),
            );
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let mcp = Arc::new(crate::server::Server::new(
            crate::Registry::builder().build().unwrap(),
        ));
        let state = super::super::test_state(mcp);
        let server = tokio::spawn(serve(listener, router, state, async {
            let _ = stopped.await;
        }));

        // A connection kept alive and idle, and one whose request is being answered.
        let mut idle = TcpStream::connect(address).await.unwrap();
        let answer = get_on(&mut idle, "/peer").await;
        let peer = idle.local_addr().unwrap().to_string();
        assert!(
            answer.ends_with(&peer),
            "each request knows its peer: {answer}"
        );
        // `POST /mcp` is answered by the MCP handler, which the test's router lacks.
        let request = post_mcp(r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#);
        idle.write_all(request.as_bytes()).await.unwrap();
        let mut answer = vec![0; 1024];
        let read = idle.read(&mut answer).await.unwrap();
        let answer = String::from_utf8_lossy(&answer[..read]);
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert!(
            answer.ends_with(r#"{"jsonrpc":"2.0","id":7,"result":{}}"#),
            "{answer}"
        );
        let mut busy = TcpStream::connect(address).await.unwrap();
        let slow = tokio::spawn(async move { get_on(&mut busy, "/slow").await });
        slow_started.recv().await.unwrap();

        stop.send(()).unwrap();
        let answer = slow.await.unwrap();
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert!(
            answer.ends_with("slow"),
            "the request in flight is answered: {answer}"
        );
        let mut rest = Vec::new();
        let closed = tokio::time::timeout(Duration::from_secs(5), idle.read_to_end(&mut rest));
        assert!(closed.await.is_ok(), "the idle connection is closed");
        tokio::time::timeout(Duration::from_secs(5), server)
            .await
            .expect("the server returns once its connections are closed")
            .unwrap()
            .unwrap();
        assert!(
            TcpStream::connect(address).await.is_err(),
            "nothing is accepted"
        );
    }

    /// A listener on a free loopback port, and its address.
    async fn listening() -> (TcpListener, SocketAddr) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        (listener, address)
    }

    /// A server of an empty registry.
    fn empty_server() -> Arc<crate::server::Server> {
        Arc::new(crate::server::Server::new(
            crate::Registry::builder().build().unwrap(),
        ))
    }

    /// Serves `router`, with the MCP handler, until the test ends.
    async fn serving(router: Router) -> SocketAddr {
        let (listener, address) = listening().await;
        let state = super::super::test_state(empty_server());
        tokio::spawn(serve(listener, router, state, std::future::pending()));
        address
    }

    /// Whether the server closes `connection` within twice `timeout`, and when, with what it
    /// sent before: on a paused clock, which moves on whenever every task waits.
    async fn closed_after(
        connection: &mut TcpStream,
        timeout: Duration,
    ) -> (Option<Duration>, String) {
        let began = tokio::time::Instant::now();
        let mut rest = Vec::new();
        let closed = tokio::time::timeout(timeout * 2, connection.read_to_end(&mut rest))
            .await
            .ok()
            .map(|_| began.elapsed());
        (closed, String::from_utf8_lossy(&rest).into_owned())
    }

    #[tokio::test(start_paused = true)]
    async fn a_client_that_never_ends_its_headers_is_disconnected_after_the_timeout() {
        let address = serving(Router::new()).await;
        let mut slow = TcpStream::connect(address).await.unwrap();
        slow.write_all(b"POST /mcp HTTP/1.1\r\nhost: test\r\ncontent-")
            .await
            .unwrap();
        let (closed, _) = closed_after(&mut slow, HEADER_READ_TIMEOUT).await;
        assert!(
            closed.is_some_and(|after| after >= HEADER_READ_TIMEOUT),
            "a connection whose headers never end is closed after {HEADER_READ_TIMEOUT:?}, not \
             before: {closed:?}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_that_never_ends_is_answered_408_after_the_timeout() {
        use super::super::post::BODY_READ_TIMEOUT;
        let address = serving(Router::new()).await;
        let mut slow = TcpStream::connect(address).await.unwrap();
        slow.write_all(
            b"POST /mcp HTTP/1.1\r\nhost: test\r\ncontent-type: application/json\r\n\
              accept: application/json, text/event-stream\r\ncontent-length: 100\r\n\r\n\
              {\"jsonrpc\":",
        )
        .await
        .unwrap();
        let (closed, answer) = closed_after(&mut slow, BODY_READ_TIMEOUT).await;
        assert!(
            closed.is_some(),
            "the connection is answered and closed: {answer}"
        );
        assert!(
            closed.is_some_and(|after| after >= BODY_READ_TIMEOUT),
            "not before {BODY_READ_TIMEOUT:?}: {closed:?}"
        );
        assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
        assert!(
            answer.contains("the request body did not arrive within 30 s of its headers"),
            "{answer}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn an_answer_longer_than_the_timeout_is_not_cut_and_the_wait_counts_from_its_end() {
        // A body that takes twice the timeout to write: no headers are read meanwhile.
        let slow = || async {
            let chunks = futures_util::stream::unfold(0, |sent| async move {
                (sent < 2).then_some(())?;
                tokio::time::sleep(HEADER_READ_TIMEOUT).await;
                Some((Ok::<_, Infallible>("x"), sent + 1))
            });
            Body::from_stream(chunks)
        };
        let address = serving(Router::new().route("/slow", get(slow))).await;
        let mut connection = TcpStream::connect(address).await.unwrap();
        let began = tokio::time::Instant::now();
        connection
            .write_all(b"GET /slow HTTP/1.1\r\nhost: test\r\n\r\n")
            .await
            .unwrap();
        let mut answer = Vec::new();
        while !answer.ends_with(b"\r\n0\r\n\r\n") {
            let mut chunk = [0; 256];
            let read = connection.read(&mut chunk).await.unwrap();
            assert!(
                read > 0,
                "the connection was closed while answering: {}",
                String::from_utf8_lossy(&answer)
            );
            answer.extend_from_slice(&chunk[..read]);
        }
        assert!(began.elapsed() >= HEADER_READ_TIMEOUT * 2);
        let (closed, _) = closed_after(&mut connection, HEADER_READ_TIMEOUT).await;
        assert!(
            closed.is_some_and(|after| after >= HEADER_READ_TIMEOUT),
            "closed {HEADER_READ_TIMEOUT:?} after the answer ended: {closed:?}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_kept_alive_connection_left_idle_is_closed_after_the_timeout() {
        let address = serving(Router::new()).await;
        let mut idle = TcpStream::connect(address).await.unwrap();
        let request = post_mcp(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
        // A request, then another two thirds of the timeout later: the timeout counts from
        // the second answer, not from the first request's.
        for _ in 0..2 {
            idle.write_all(request.as_bytes()).await.unwrap();
            let mut answer = vec![0; 1024];
            let read = idle.read(&mut answer).await.unwrap();
            assert!(answer[..read].starts_with(b"HTTP/1.1 200"));
            tokio::time::sleep(HEADER_READ_TIMEOUT * 2 / 3).await;
        }
        let (closed, _) = closed_after(&mut idle, HEADER_READ_TIMEOUT).await;
        let closed = closed.map(|after| after + HEADER_READ_TIMEOUT * 2 / 3);
        assert!(
            closed.is_some_and(|after| after >= HEADER_READ_TIMEOUT),
            "an idle connection is closed after {HEADER_READ_TIMEOUT:?}: {closed:?}"
        );
    }

    /// Sends `method /mcp` with `headers` and `body` on a new connection to `address`; the
    /// connection, and its answer's head.
    async fn open(
        address: SocketAddr,
        (method, headers): (&str, &str),
        body: &str,
    ) -> (TcpStream, String) {
        let mut connection = TcpStream::connect(address).await.unwrap();
        let request = request(method, headers, body);
        connection.write_all(request.as_bytes()).await.unwrap();
        let mut head = Vec::new();
        while !head.ends_with(b"\r\n\r\n") {
            let mut byte = [0u8; 1];
            connection.read_exact(&mut byte).await.unwrap();
            head.push(byte[0]);
        }
        (connection, String::from_utf8(head).unwrap())
    }

    /// Opens, on the server at `address`, a session's stream of the handshake's wire and a
    /// listen stream of the stateless wire: each named, with its connection.
    async fn open_streams(address: SocketAddr) -> [(&'static str, TcpStream); 2] {
        let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#;
        let (_, head) = open(address, ("POST", JSON), initialize).await;
        let session = head
            .lines()
            .find_map(|line| {
                let (name, value) = line.split_once(':')?;
                name.eq_ignore_ascii_case("mcp-session-id")
                    .then(|| value.trim().to_owned())
            })
            .unwrap_or_else(|| panic!("a session: {head}"));
        let get = format!(
            "accept: text/event-stream\r\nmcp-session-id: {session}\r\n\
             mcp-protocol-version: 2025-11-25\r\n"
        );
        let (session_stream, head) = open(address, ("GET", &get), "").await;
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        let listen = r#"{"jsonrpc":"2.0","id":2,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
        let post = format!(
            "{JSON}mcp-protocol-version: 2026-07-28\r\nmcp-method: subscriptions/listen\r\n"
        );
        let (listen_stream, head) = open(address, ("POST", &post), listen).await;
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        [
            ("the session's stream", session_stream),
            ("the listen stream", listen_stream),
        ]
    }

    /// Asserts that each of `streams` ends within 5 s, then that `serving` returns as soon.
    async fn assert_streams_end_and_serving_returns<E: std::fmt::Debug>(
        streams: [(&'static str, TcpStream); 2],
        serving: tokio::task::JoinHandle<Result<(), E>>,
    ) {
        for (name, mut stream) in streams {
            let mut rest = Vec::new();
            let ended =
                tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut rest)).await;
            assert!(ended.is_ok(), "{name} ends when the server stops");
        }
        tokio::time::timeout(Duration::from_secs(5), serving)
            .await
            .expect("the server returns once its streams have ended")
            .unwrap()
            .unwrap();
    }

    /// Serves an empty server's router with `spawn_serving` (given the listener and what
    /// completes once the test stops it), opens its two streams, stops, and asserts that
    /// they end and the serving task returns.
    async fn assert_a_stop_ends_the_streams(
        spawn_serving: impl FnOnce(
            TcpListener,
            tokio::sync::oneshot::Receiver<()>,
        ) -> tokio::task::JoinHandle<io::Result<()>>,
    ) {
        let (listener, address) = listening().await;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let serving = spawn_serving(listener, stopped);
        let streams = open_streams(address).await;
        stop.send(()).unwrap();
        assert_streams_end_and_serving_returns(streams, serving).await;
    }

    #[tokio::test]
    async fn a_stop_ends_the_streams_of_notifications_and_the_server_returns() {
        assert_a_stop_ends_the_streams(|listener, stopped| {
            let (router, state) =
                super::super::routes(empty_server(), super::super::HttpConfig::default());
            tokio::spawn(serve(listener, router, state, async {
                let _ = stopped.await;
            }))
        })
        .await;
    }

    #[tokio::test]
    async fn an_application_serving_the_router_ends_its_streams_on_its_own_shutdown() {
        assert_a_stop_ends_the_streams(|listener, stopped| {
            let (router, streams) =
                super::super::stoppable_router(empty_server(), super::super::HttpConfig::default());
            let app = router.into_make_service_with_connect_info::<SocketAddr>();
            tokio::spawn(
                axum::serve(listener, app)
                    .with_graceful_shutdown(async move {
                        let _ = stopped.await;
                        streams.stop();
                    })
                    .into_future(),
            )
        })
        .await;
    }

    struct Count(AtomicU64);

    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn a_stop_wakes_each_watching_connection_once_and_forgets_them() {
        let stop = Arc::new(Stop::default());
        let woken = Arc::new(Count(AtomicU64::new(0)));
        let waker = Waker::from(Arc::clone(&woken));
        let cx = Context::from_waker(&waker);
        let mut watches: Vec<Watch> = (0..3).map(|_| Watch::new(Arc::clone(&stop))).collect();
        for watch in &mut watches {
            assert!(watch.wake_with(&cx), "the first poll's waker is new");
            assert!(!watch.stopped());
            // Polled again with the same waker: nothing new is left.
            assert!(!watch.wake_with(&cx));
        }
        assert_eq!(stop.lock().len(), 3);
        // A connection that ended is not woken.
        watches.pop();
        assert_eq!(stop.lock().len(), 2);
        stop.raise();
        assert_eq!(woken.0.load(Ordering::SeqCst), 2);
        assert!(stop.lock().is_empty());
        assert!(watches.iter().all(Watch::stopped));
        // One that starts watching after the stop sees it at once.
        assert!(Watch::new(Arc::clone(&stop)).stopped());
    }
}
