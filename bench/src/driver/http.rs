//! Servers spoken to over streamable HTTP: concurrent keep-alive HTTP/1.1 connections, each
//! sending one `POST` after another.

use std::io::{self, BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::client::conn::http1::SendRequest;
use hyper::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HOST, HeaderName, HeaderValue};
use hyper::{Method, Request, StatusCode, Uri};
use hyper_util::rt::TokioIo;
use serde_json::json;

use super::proto::{self, CallTemplate, Tally};
use super::stats::{self, Latency};

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
}

/// What a run over HTTP measured.
#[derive(Debug, Clone)]
pub(crate) struct HttpReport {
    pub(crate) clients: u64,
    pub(crate) n: u64,
    pub(crate) elapsed: Duration,
    pub(crate) calls_per_s: f64,
    pub(crate) latency: Option<Latency>,
    pub(crate) errors: u64,
    pub(crate) lost: u64,
    pub(crate) cpu: stats::CpuUse,
}

impl HttpReport {
    /// The one-line summary.
    pub(crate) fn line(&self) -> String {
        let (p50, p99) = self
            .latency
            .map_or((f64::NAN, f64::NAN), |l| (l.p50_us, l.p99_us));
        format!(
            "http clients={} n={} calls/s={:.0} p50={p50:.1}us p99={p99:.1}us errors={} lost={} {}",
            self.clients,
            self.n,
            self.calls_per_s,
            self.errors,
            self.lost,
            self.cpu.text(),
        )
    }

    /// The same as one JSON object.
    pub(crate) fn json(&self) -> serde_json::Value {
        let mut object = json!({
            "mode": "http",
            "clients": self.clients,
            "n": self.n,
            "elapsed_s": stats::json_number(Some(self.elapsed.as_secs_f64())),
            "calls_per_s": stats::json_number(Some(self.calls_per_s)),
            "p50_us": stats::json_number(self.latency.map(|l| l.p50_us)),
            "p99_us": stats::json_number(self.latency.map(|l| l.p99_us)),
            "mean_us": stats::json_number(self.latency.map(|l| l.mean_us)),
            "errors": self.errors,
            "lost": self.lost,
        });
        self.cpu.insert_into(&mut object);
        object
    }
}

/// One connection's share of the calls: its latencies and its tally.
struct ClientRun {
    latencies: Vec<u64>,
    tally: Tally,
}

/// A keep-alive connection to the endpoint.
pub(crate) struct Connection {
    sender: SendRequest<Full<Bytes>>,
    path: Uri,
    host: HeaderValue,
    /// `Bearer <token>`, when requests carry a token.
    authorization: Option<HeaderValue>,
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
        })
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
        self.sender.ready().await.map_err(io::Error::other)?;
        let response = self
            .sender
            .send_request(request)
            .await
            .map_err(io::Error::other)?;
        let status = response.status();
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(io::Error::other)?
            .to_bytes();
        Ok((status, body))
    }

    /// `n` calls, ids from `first`, one after another.
    async fn calls(&mut self, template: &CallTemplate, first: u64, n: u64) -> ClientRun {
        let mut run = ClientRun {
            latencies: Vec::with_capacity(usize::try_from(n).unwrap_or(0)),
            tally: Tally::new(first, n),
        };
        for id in first..first + n {
            let start = Instant::now();
            match self.post(template.body(id)).await {
                Ok((status, body)) => {
                    run.latencies
                        .push(u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX));
                    if status == StatusCode::OK {
                        run.tally.count(&body);
                    } else {
                        run.tally.answers += 1;
                        run.tally.errors += 1;
                    }
                }
                Err(_) => {
                    run.tally.errors += 1;
                    break;
                }
            }
        }
        run
    }
}

/// `clients` connections: each does `initialize`, its share of the warm-up, waits for the
/// others, then its share of the `n` calls.
pub(crate) fn run(
    url: &str,
    options: &HttpOptions,
    server_pid: Option<u32>,
) -> io::Result<HttpReport> {
    let uri: Uri = url
        .parse()
        .map_err(|err| io::Error::other(format!("`{url}` is not a URL: {err}")))?;
    if uri.scheme_str() != Some("http") {
        return Err(io::Error::other("only http:// URLs are supported"));
    }
    let clients = options.clients.max(1);
    let runtime = match options.threads {
        0 | 1 => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?,
        threads => tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads)
            .enable_all()
            .build()?,
    };
    let template = CallTemplate::new(&options.tool);
    let authorization = options
        .bearer
        .as_ref()
        .map(|token| HeaderValue::try_from(format!("Bearer {token}")))
        .transpose()
        .map_err(|_| io::Error::other("the token is not a valid header value"))?;
    let share = |total: u64, client: u64| total / clients + u64::from(client < total % clients);
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
            connections.push(connection);
        }
        // Warm-up, all connections at once.
        let mut next = 1_000_000_000u64;
        let mut tasks = tokio::task::JoinSet::new();
        for (client, mut connection) in (0..clients).zip(connections) {
            let (template, n, first) = (template.clone(), share(options.warmup, client), next);
            next += n;
            tasks.spawn(async move {
                let run = connection.calls(&template, first, n).await;
                (connection, run)
            });
        }
        let mut connections = Vec::new();
        while let Some(joined) = tasks.join_next().await {
            let (connection, run) = joined.map_err(io::Error::other)?;
            if run.tally.errors > 0 || run.tally.lost() > 0 {
                return Err(io::Error::other(format!(
                    "warm-up: {} errors, {} calls unanswered",
                    run.tally.errors,
                    run.tally.lost()
                )));
            }
            connections.push(connection);
        }
        let before = stats::CpuSnapshot::take(server_pid);
        let start = Instant::now();
        let mut first = 0;
        for (client, mut connection) in (0..clients).zip(connections) {
            let (template, n) = (template.clone(), share(options.n, client));
            let from = first;
            first += n;
            tasks.spawn(async move {
                let run = connection.calls(&template, from, n).await;
                (connection, run)
            });
        }
        let mut latencies = Vec::with_capacity(usize::try_from(options.n).unwrap_or(0));
        let (mut ok, mut errors, mut lost) = (0, 0, 0);
        while let Some(joined) = tasks.join_next().await {
            let (_connection, run) = joined.map_err(io::Error::other)?;
            latencies.extend(run.latencies);
            ok += run.tally.ok;
            errors += run.tally.errors;
            lost += run.tally.lost();
        }
        let elapsed = start.elapsed();
        let after = stats::CpuSnapshot::take(server_pid);
        Ok(HttpReport {
            clients,
            n: options.n,
            elapsed,
            calls_per_s: stats::rate(ok, elapsed),
            latency: Latency::of(&mut latencies),
            errors,
            lost,
            cpu: before.until(&after, options.n, elapsed),
        })
    })
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
