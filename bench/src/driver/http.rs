//! Servers spoken to over streamable HTTP: concurrent keep-alive HTTP/1.1 connections, each
//! sending one `POST` after another.

use std::future::Future;
use std::io::{self, BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::client::conn::http1::SendRequest;
use hyper::header::{
    ACCEPT, AUTHORIZATION, CONNECTION, CONTENT_TYPE, HOST, HeaderName, HeaderValue,
};
use hyper::{Method, Request, StatusCode, Uri};
use hyper_util::rt::TokioIo;

use super::proto::{self, CallTemplate, Tally};
use super::report::{Answers, ClientRun, Mode, Stopwatch, Summary};

/// The options of a run over HTTP.
#[derive(Debug, Clone)]
pub(crate) struct HttpOptions {
    /// Connections, each with one request at a time.
    pub(crate) clients: u64,
    /// Calls measured, over all connections.
    pub(crate) n: u64,
    /// Calls before measuring, over all connections.
    pub(crate) warmup: u64,
    /// The tool called.
    pub(crate) tool: String,
    /// The driver's own runtime threads.
    pub(crate) threads: usize,
    /// An access token every request carries (`Authorization: Bearer …`), if any.
    pub(crate) bearer: Option<String>,
    /// Whether each call names the session its connection's `initialize` opened.
    pub(crate) session: bool,
}

/// The header of the session a request names.
const SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");

/// An answer to a POST.
#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) status: StatusCode,
    /// Whether it came as an SSE stream (`text/event-stream`) rather than one JSON body.
    pub(crate) stream: bool,
    pub(crate) body: Bytes,
}

/// A keep-alive connection to the endpoint.
pub(crate) struct Connection {
    sender: SendRequest<Full<Bytes>>,
    path: Uri,
    host: HeaderValue,
    /// `Bearer <token>`, when requests carry a token.
    authorization: Option<HeaderValue>,
    /// Whether an answer said `Connection: close`: the server (an nginx after
    /// `keepalive_requests`, say) takes no more requests on this connection.
    closing: bool,
    /// The session every request names (`Mcp-Session-Id`), once one is kept.
    session: Option<HeaderValue>,
    /// The session id the last answer gave, if it gave one.
    opened: Option<HeaderValue>,
}

impl Connection {
    pub(crate) async fn open(uri: &Uri, authorization: Option<&HeaderValue>) -> io::Result<Self> {
        let authority = uri
            .authority()
            .ok_or_else(|| io::Error::other(format!("`{uri}` has no host")))?
            .to_string();
        let stream = tokio::net::TcpStream::connect(&authority).await?;
        stream.set_nodelay(true)?;
        let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(io::Error::other)?;
        tokio::spawn(connection);
        let path = uri.path_and_query().map_or("/", |path| path.as_str());
        Ok(Self {
            sender,
            path: path.parse().map_err(io::Error::other)?,
            host: HeaderValue::try_from(authority).map_err(io::Error::other)?,
            authorization: authorization.cloned(),
            closing: false,
            session: None,
            opened: None,
        })
    }

    /// Whether the connection takes no more requests: closed, or closing after the answer
    /// that said so.
    pub(crate) fn is_closed(&self) -> bool {
        self.closing || self.sender.is_closed()
    }

    /// POSTs `body` at the driver's protocol revision; the status and the answer's body.
    async fn post(&mut self, body: Vec<u8>) -> io::Result<(StatusCode, Bytes)> {
        self.post_with(body, HeaderValue::from_static(proto::PROTOCOL_VERSION), &[])
            .await
    }

    /// POSTs `body` with `MCP-Protocol-Version: version` and the headers `extra` (those a
    /// 2026-07-28 request mirrors from its body); the status and the answer's body.
    pub(crate) async fn post_with(
        &mut self,
        body: Vec<u8>,
        version: HeaderValue,
        extra: &[(HeaderName, HeaderValue)],
    ) -> io::Result<(StatusCode, Bytes)> {
        let reply = self.exchange(body, version, extra).await?;
        Ok((reply.status, reply.body))
    }

    /// POSTs `body` as [`Connection::post_with`] does; the whole answer, its content type
    /// included, to tell an SSE stream from a JSON body.
    pub(crate) async fn exchange(
        &mut self,
        body: Vec<u8>,
        version: HeaderValue,
        extra: &[(HeaderName, HeaderValue)],
    ) -> io::Result<Reply> {
        // Header values made once, not parsed again for every request.
        let mut request = Request::new(Full::new(Bytes::from(body)));
        *request.method_mut() = Method::POST;
        *request.uri_mut() = self.path.clone();
        let headers = request.headers_mut();
        headers.insert(HOST, self.host.clone());
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(
            ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        headers.insert(HeaderName::from_static("mcp-protocol-version"), version);
        for (name, value) in extra {
            headers.insert(name.clone(), value.clone());
        }
        if let Some(authorization) = &self.authorization {
            headers.insert(AUTHORIZATION, authorization.clone());
        }
        if let Some(session) = &self.session {
            headers.insert(SESSION_ID, session.clone());
        }
        self.sender.ready().await.map_err(io::Error::other)?;
        let response = self
            .sender
            .send_request(request)
            .await
            .map_err(io::Error::other)?;
        let status = response.status();
        self.opened = response.headers().get(SESSION_ID).cloned();
        self.closing |= response
            .headers()
            .get(CONNECTION)
            .is_some_and(|value| value.as_bytes().eq_ignore_ascii_case(b"close"));
        let stream = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.starts_with("text/event-stream"));
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(io::Error::other)?
            .to_bytes();
        Ok(Reply {
            status,
            stream,
            body,
        })
    }

    /// `n` calls, ids from `first`, one after another.
    async fn calls(&mut self, template: &CallTemplate, first: u64, n: u64) -> ClientRun {
        let mut latencies = Vec::with_capacity(usize::try_from(n).unwrap_or(0));
        let mut tally = Tally::new(first, n);
        for id in first..first + n {
            let start = Instant::now();
            match self.post(template.body(id)).await {
                Ok((status, body)) => {
                    latencies.push(u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX));
                    if status == StatusCode::OK {
                        tally.count(&body);
                    } else {
                        tally.answers += 1;
                        tally.errors += 1;
                    }
                }
                Err(_) => {
                    tally.errors += 1;
                    break;
                }
            }
        }
        ClientRun {
            latencies,
            answers: Answers::from(&tally),
        }
    }
}

/// `url`, which must be an `http://` URL.
pub(crate) fn endpoint(url: &str) -> io::Result<Uri> {
    let uri: Uri = url
        .parse()
        .map_err(|err| io::Error::other(format!("`{url}` is not a URL: {err}")))?;
    if uri.scheme_str() != Some("http") {
        return Err(io::Error::other("only http:// URLs are supported"));
    }
    Ok(uri)
}

/// The driver's runtime: `threads` worker threads, or the current thread for 0 or 1.
pub(crate) fn runtime(threads: usize) -> io::Result<tokio::runtime::Runtime> {
    match threads {
        0 | 1 => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build(),
        threads => tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads)
            .enable_all()
            .build(),
    }
}

/// Runs `work` on every connection at once: the connection `client` of `clients` gets its
/// share of `total` requests, their ids following those of the connection before it from
/// `first` on. The connections back, with what each did.
pub(crate) async fn on_each<R, F, Fut>(
    connections: Vec<Connection>,
    total: u64,
    first: u64,
    work: F,
) -> io::Result<Vec<(Connection, R)>>
where
    R: Send + 'static,
    F: Fn(Connection, u64, u64) -> Fut,
    Fut: Future<Output = (Connection, R)> + Send + 'static,
{
    let clients = connections.len() as u64;
    let mut tasks = tokio::task::JoinSet::new();
    let mut next = first;
    for (client, connection) in (0..clients).zip(connections) {
        let n = total / clients + u64::from(client < total % clients);
        tasks.spawn(work(connection, next, n));
        next += n;
    }
    let mut done = Vec::with_capacity(tasks.len());
    while let Some(joined) = tasks.join_next().await {
        done.push(joined.map_err(io::Error::other)?);
    }
    Ok(done)
}

/// `clients` connections: each does `initialize`, its share of the warm-up, waits for the
/// others, then its share of the `n` calls.
pub(crate) fn run(
    url: &str,
    options: &HttpOptions,
    server_pid: Option<u32>,
) -> io::Result<Summary> {
    let uri = endpoint(url)?;
    let clients = options.clients.max(1);
    let runtime = runtime(options.threads)?;
    let template = CallTemplate::new(&options.tool);
    let authorization = options
        .bearer
        .as_ref()
        .map(|token| HeaderValue::try_from(format!("Bearer {token}")))
        .transpose()
        .map_err(|_| io::Error::other("the token is not a valid header value"))?;
    let calls = |mut connection: Connection, first: u64, n: u64| {
        let template = template.clone();
        async move {
            let run = connection.calls(&template, first, n).await;
            (connection, run)
        }
    };
    runtime.block_on(async {
        let mut connections = Vec::with_capacity(usize::try_from(clients).unwrap_or(0));
        for _ in 0..clients {
            let mut connection = Connection::open(&uri, authorization.as_ref()).await?;
            let (status, body) = connection.post(proto::initialize(0).into_bytes()).await?;
            if status != StatusCode::OK || proto::answer_id(&body).is_none_or(|(_, ok)| !ok) {
                return Err(io::Error::other(format!(
                    "initialize failed: {status} {}",
                    String::from_utf8_lossy(&body)
                )));
            }
            if options.session {
                connection.session = connection.opened.take();
                if connection.session.is_none() {
                    return Err(io::Error::other("initialize opened no session"));
                }
            }
            connections.push(connection);
        }
        // Warm-up, all connections at once.
        let mut warmed = Vec::with_capacity(connections.len());
        for (connection, run) in on_each(connections, options.warmup, 1_000_000_000, calls).await? {
            let Answers { errors, lost, .. } = run.answers;
            if errors > 0 || lost > 0 {
                return Err(io::Error::other(format!(
                    "warm-up: {errors} errors, {lost} calls unanswered"
                )));
            }
            warmed.push(connection);
        }
        let watch = Stopwatch::start(server_pid);
        let runs = on_each(warmed, options.n, 0, calls).await?;
        let timed = watch.stop(options.n);
        let run = ClientRun::merged(runs.into_iter().map(|(_, run)| run));
        Ok(Summary::new(Mode::Http { clients }, options.n, timed, run))
    })
}

/// How much one run of calls of the default tool does.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Load {
    /// Keep-alive connections, one request at a time on each.
    pub(crate) clients: u64,
    /// Calls measured, over all connections.
    pub(crate) n: u64,
    /// Calls before measuring, over all connections.
    pub(crate) warmup: u64,
}

/// Spawns the HTTP server `command` (see [`HttpServer::spawn`]) and times calls of the
/// default tool on it under `load`, each with `bearer` as its access token, if any.
pub(crate) fn run_spawned(
    command: &[String],
    load: Load,
    bearer: Option<String>,
) -> io::Result<Summary> {
    let server = HttpServer::spawn(command)?;
    let options = HttpOptions {
        clients: load.clients,
        n: load.n,
        warmup: load.warmup,
        tool: proto::DEFAULT_TOOL.to_owned(),
        threads: 1,
        bearer,
        session: false,
    };
    run(&server.url, &options, Some(server.pid()))
}

/// An HTTP server spawned by the driver, killed when dropped.
pub(crate) struct HttpServer {
    child: Child,
    /// The endpoint, `http://ADDR/mcp`.
    pub(crate) url: String,
}

impl HttpServer {
    /// Spawns `command`, which must print `listening on http://ADDR/mcp` on standard error
    /// once bound; the rest of its standard error is passed on.
    pub(crate) fn spawn(command: &[String]) -> io::Result<Self> {
        let (program, args) = command
            .split_first()
            .ok_or_else(|| io::Error::other("no command to run"))?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|err| io::Error::new(err.kind(), format!("cannot run `{program}`: {err}")))?;
        let stderr = child
            .stderr
            .take()
            .ok_or_else(|| io::Error::other("no standard error"))?;
        let (found, told) = std::sync::mpsc::channel::<String>();
        std::thread::spawn(move || {
            let mut found = Some(found);
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                match line.strip_prefix("listening on ") {
                    Some(url) if found.is_some() => {
                        if let Some(found) = found.take() {
                            let _ = found.send(url.trim().to_owned());
                        }
                    }
                    _ => eprintln!("{line}"),
                }
            }
        });
        let mut server = Self {
            child,
            url: String::new(),
        };
        server.url = told
            .recv_timeout(Duration::from_secs(30))
            .map_err(|_| io::Error::other(format!("`{program}` did not say where it listens")))?;
        Ok(server)
    }

    /// The server's process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
