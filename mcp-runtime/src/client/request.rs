//! One request, as the client makes it: its options (timeout, progress, log messages), the
//! `_meta` of 2026-07-28, the rounds of a result that needs input, what the server asks
//! meanwhile (answered by the handlers, or relayed to the caller a gateway's call carries),
//! and the `subscriptions/listen` stream that follows a 2026-07-28 server's changes.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use mcp_runtime_core::method::Method;
use mcp_runtime_core::{LogMessage, LoggingLevel};
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;

use super::{Client, ClientError, RpcError, truncate};
use super::{link, traced};
use mcp_runtime_core::wire::STATELESS_VERSION;

/// The error of a 2026-07-28 server that does not take the protocol version asked.
pub(super) const UNSUPPORTED_VERSION: i64 = -32022;

/// The `_meta` key of the least severe log messages a 2026-07-28 request wants.
const LOG_LEVEL_KEY: &str = "io.modelcontextprotocol/logLevel";

/// Who takes the log messages of a request.
type LogHandler = Arc<dyn Fn(LogMessage) + Send + Sync>;

/// Who takes the progress reports of a request.
type ProgressHandler = Box<dyn FnMut(Progress) + Send>;

/// The versions an unsupported-version error says the server takes.
pub(super) fn supported(error: &RpcError) -> Vec<&str> {
    error
        .data
        .as_ref()
        .and_then(|data| data.get("supported"))
        .and_then(Value::as_array)
        .map(|versions| versions.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// Progress a server reported for a request.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// How far along.
    pub progress: f64,
    /// Out of how much, if known.
    pub total: Option<f64>,
    /// What it is doing.
    pub message: Option<String>,
}

/// A `subscriptions/listen` stream, open until dropped (see [`Client::listen_for_changes`]).
pub struct Listening {
    /// The listen request's answer; `None` once it came.
    answer: Option<Answer>,
}

/// A request's answer, to come.
type Answer =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<Value, ClientError>> + Send>>;

impl std::fmt::Debug for Listening {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Listening").finish_non_exhaustive()
    }
}

impl Listening {
    /// Waits until the server ends the stream (its answer to the listen request), or the
    /// connection ends.
    pub async fn ended(&mut self) -> Result<(), ClientError> {
        let Some(answer) = &mut self.answer else {
            return Ok(());
        };
        let answered = answer.await;
        self.answer = None;
        answered.map(|_| ())
    }
}

/// Options of one request.
#[derive(Default)]
pub struct RequestOptions {
    pub(super) timeout: Option<Duration>,
    pub(super) progress: Option<ProgressHandler>,
    /// What the request mirrors into headers, where the transport has them.
    pub(super) headers: Vec<(String, String)>,
    /// Who answers what the server needs before it can answer (2026-07-28): the asker of
    /// the call this request serves (the gateway's), instead of the client's handlers.
    pub(super) asker: Option<crate::talk::Asker>,
    /// The capabilities this request declares (2026-07-28), instead of the handlers'.
    pub(super) capabilities: Option<Value>,
    /// The least severe log messages wanted during the request, and who takes them.
    pub(super) log: Option<(LoggingLevel, LogHandler)>,
    /// The id its first round is sent under, reserved for its span; a new one if `None`.
    pub(super) id: Option<u64>,
    /// Whether a call runs as a task where the tool can (see `RequestOptions::as_task`).
    pub(super) task: bool,
}

impl std::fmt::Debug for RequestOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestOptions")
            .field("timeout", &self.timeout)
            .field("progress", &self.progress.is_some())
            .field("log", &self.log.as_ref().map(|(least, _)| *least))
            .finish()
    }
}

impl RequestOptions {
    /// Waits at most `timeout` for this request's answer.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Calls `progress` with each progress report the server sends for this request.
    #[must_use]
    pub fn on_progress(mut self, progress: impl FnMut(Progress) + Send + 'static) -> Self {
        self.progress = Some(Box::new(progress));
        self
    }

    /// Calls `log` with each log message at `least` or more severe that the server sends
    /// during this request, having asked the server for them: in the request's `_meta` at
    /// 2026-07-28; with `logging/setLevel` on the handshake's revisions, which sets the
    /// level of the whole session (never back up: other requests may want more), and is
    /// sent only to a server that declares `logging`.
    ///
    /// Which request a message comes during is told by the stream it comes on over HTTP.
    /// Over stdio, where everything shares one stream, a message is this request's while it
    /// is the only request in flight (a [`listen_for_changes`](Client::listen_for_changes)
    /// stream aside); with two or more, it is none's, and goes to
    /// [`Client::notifications`] as one outside any request does.
    #[must_use]
    pub fn on_log(
        mut self,
        least: LoggingLevel,
        log: impl Fn(LogMessage) + Send + Sync + 'static,
    ) -> Self {
        self.log = Some((least, Arc::new(log)));
        self
    }
}

impl Client {
    /// At 2026-07-28, opens a `subscriptions/listen` stream for every list change (tools,
    /// prompts, resources), which then come as [`notifications`](Self::notifications):
    /// a server of that revision sends none otherwise. The stream lasts until the returned
    /// [`Listening`] is dropped, or the server ends it. On the handshake's revisions, where
    /// the server sends its changes unasked, there is nothing to open: `None`.
    pub async fn listen_for_changes(&self) -> Result<Option<Listening>, ClientError> {
        if !self.server.is_stateless() {
            return Ok(None);
        }
        let mut params = Map::new();
        params.insert(
            "notifications".to_owned(),
            json!({
                "toolsListChanged": true,
                "promptsListChanged": true,
                "resourcesListChanged": true,
            }),
        );
        let params = self.stateless_params(params);
        let pending = self
            .link
            .request(
                Method::SubscriptionsListen.as_str(),
                &params,
                Vec::new(),
                link::Watch {
                    lasting: true,
                    ..link::Watch::default()
                },
            )
            .await?;
        Ok(Some(Listening {
            answer: Some(Box::pin(pending.answer())),
        }))
    }

    /// `params` with the `_meta` every 2026-07-28 request carries.
    pub(super) fn stateless_params(&self, mut params: Map<String, Value>) -> Map<String, Value> {
        match params.get_mut("_meta") {
            Some(Value::Object(meta)) => meta.extend(self.stateless_meta.clone()),
            _ => {
                params.insert(
                    "_meta".to_owned(),
                    Value::Object(self.stateless_meta.clone()),
                );
            }
        }
        params
    }

    /// Sends a request and awaits its result, within the timeout.
    pub(super) async fn exchange(
        &self,
        method: &str,
        params: &Map<String, Value>,
        options: RequestOptions,
    ) -> Result<Map<String, Value>, ClientError> {
        let timeout = options.timeout.unwrap_or(self.timeout);
        let timed_out = || ClientError::Timeout {
            method: method.to_owned(),
            timeout,
        };
        let (mut watch, mut during, tokened) =
            During::watch(params, options.progress, options.log, options.asker);
        watch.id = options.id;
        let params = tokened.as_ref().unwrap_or(params);
        // The timeout counts from the start: a server that stops reading its input leaves
        // the request waiting to be sent.
        let deadline = tokio::time::sleep(timeout);
        tokio::pin!(deadline);
        let pending = tokio::select! {
            pending = self.link.request(method, params, options.headers, watch) => pending?,
            () = &mut deadline => return Err(timed_out()),
        };
        let answered = tokio::select! {
            answered = during.until_answered(self, pending.answer()) => answered,
            // Dropping the pending request cancels it on the server.
            () = &mut deadline => return Err(timed_out()),
        };
        // What the server sent before its answer, and was read with it: passed on before
        // the answer is.
        during.drain();
        match answered? {
            Value::Object(result) => Ok(result),
            other => Err(ClientError::Malformed(format!(
                "the result of `{method}` is not an object: {}",
                truncate(&other.to_string())
            ))),
        }
    }

    /// Asks `request` of `asker` under `key`, and answers the server with what it said.
    async fn relay(&self, asker: crate::talk::Asker, key: String, request: link::ServerRequest) {
        let link::ServerRequest { id, method, params } = request;
        let outcome = asker
            .ask(&key, crate::talk::InputRequest { method, params })
            .await
            .map_err(|err| RpcError {
                code: crate::server::INTERNAL_ERROR,
                message: err.to_string(),
                data: None,
            });
        if let Err(err) = self.link.respond(id, outcome).await {
            tracing::debug!(error = %err, "an answer to the server's request could not be sent");
        }
    }

    /// Asks the server for log messages at `least` and above with `logging/setLevel`
    /// (the handshake's revisions), unless the session already asked for as many; a server
    /// that does not declare `logging` is not asked.
    async fn ask_for_logs(&self, least: LoggingLevel) {
        if self.server.capabilities.get("logging").is_none() {
            return;
        }
        let mut asked = self.log_level.lock().await;
        if asked.is_some_and(|asked| asked <= least) {
            return;
        }
        let mut params = Map::new();
        params.insert("level".to_owned(), json!(least));
        match self
            .traced_exchange(
                Method::LoggingSetLevel.as_str(),
                params,
                RequestOptions::default(),
            )
            .await
        {
            Ok(_) => *asked = Some(least),
            Err(err) => tracing::debug!(error = %err, "the server did not take a log level"),
        }
    }

    /// Sends a request at the negotiated revision: with the `_meta` of 2026-07-28, and
    /// through the rounds of a result that needs input. With telemetry on, the request is
    /// a span of kind client, whose trace context its `_meta` carries.
    pub async fn request(
        &self,
        method: &str,
        mut params: Map<String, Value>,
        mut options: RequestOptions,
    ) -> Result<Map<String, Value>, ClientError> {
        let recorded = self.trace_request(method, &mut params, &mut options);
        let answered = self.request_rounds(method, params, options).await;
        traced::end(recorded, &answered);
        answered
    }

    /// [`request`](Self::request), untraced.
    async fn request_rounds(
        &self,
        method: &str,
        params: Map<String, Value>,
        options: RequestOptions,
    ) -> Result<Map<String, Value>, ClientError> {
        if !self.server.is_stateless() {
            if let Some((least, _)) = &options.log {
                self.ask_for_logs(*least).await;
            }
            return self.exchange(method, &params, options).await;
        }
        let mut params = self.request_params(params, &options);
        let mut options = options;
        let mut retried = false;
        for _ in 0..self.max_rounds {
            let result = self
                .round(method, &params, &mut options, &mut retried)
                .await?;
            if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
                return Ok(result);
            }
            let responses = self
                .input_responses(&result, options.asker.as_ref())
                .await?;
            params.insert("inputResponses".to_owned(), Value::Object(responses));
            match result.get("requestState") {
                Some(state) => params.insert("requestState".to_owned(), state.clone()),
                None => params.remove("requestState"),
            };
        }
        Err(ClientError::TooManyRounds(self.max_rounds))
    }

    /// `params` with the `_meta` of a 2026-07-28 request: the client's, the capabilities
    /// this request declares, and the log level it wants.
    fn request_params(
        &self,
        params: Map<String, Value>,
        options: &RequestOptions,
    ) -> Map<String, Value> {
        let mut params = self.stateless_params(params);
        if let Some(Value::Object(meta)) = params.get_mut("_meta") {
            if let Some(capabilities) = &options.capabilities {
                meta.insert(
                    mcp_runtime_core::wire::CLIENT_CAPABILITIES_META.to_owned(),
                    capabilities.clone(),
                );
            }
            if let Some((least, _)) = &options.log {
                meta.insert(LOG_LEVEL_KEY.to_owned(), json!(least));
            }
        }
        params
    }

    /// One round of a 2026-07-28 request: its result, which may need input. A server that
    /// does not take the version the request gave is asked once more, if it takes this
    /// client's, as a new request (`retried` then says so).
    async fn round(
        &self,
        method: &str,
        params: &Map<String, Value>,
        options: &mut RequestOptions,
        retried: &mut bool,
    ) -> Result<Map<String, Value>, ClientError> {
        let round_options = |progress| RequestOptions {
            timeout: options.timeout,
            progress,
            headers: options.headers.clone(),
            log: options.log.clone(),
            ..RequestOptions::default()
        };
        let first = RequestOptions {
            // A request's id, reserved for its span, is its first round's.
            id: options.id.take(),
            ..round_options(options.progress.take())
        };
        match self.exchange(method, params, first).await {
            Err(ClientError::Rpc(error)) if error.code == UNSUPPORTED_VERSION && !*retried => {
                *retried = true;
                if !supported(&error).contains(&STATELESS_VERSION) {
                    return Err(ClientError::Rpc(error));
                }
                self.exchange(method, params, round_options(None)).await
            }
            other => other,
        }
    }

    /// The answers to the input requests of `result`: asked of `asker` (whoever the call
    /// this request serves can ask), or else answered by the handlers.
    pub(super) async fn input_responses(
        &self,
        result: &Map<String, Value>,
        asker: Option<&crate::talk::Asker>,
    ) -> Result<Map<String, Value>, ClientError> {
        let requests = result
            .get("inputRequests")
            .and_then(Value::as_object)
            .ok_or_else(|| {
                ClientError::Malformed(
                    "an input-required result without an `inputRequests` object".to_owned(),
                )
            })?;
        let mut responses = Map::new();
        for (key, request) in requests {
            let method = request
                .get("method")
                .and_then(Value::as_str)
                .ok_or_else(|| {
                    ClientError::Malformed(format!("input request `{key}` has no `method`"))
                })?;
            let asked = request.get("params").cloned().unwrap_or_else(|| json!({}));
            let failed = |code, reason: &dyn std::fmt::Display| {
                ClientError::Rpc(RpcError {
                    code,
                    message: format!("input request `{key}` ({method}): {reason}"),
                    data: None,
                })
            };
            let answer = match asker {
                Some(asker) => {
                    let request = crate::talk::InputRequest {
                        method: method.to_owned(),
                        params: asked,
                    };
                    asker
                        .ask(key, request)
                        .await
                        .map_err(|err| failed(-32603, &err))?
                }
                None => self
                    .handlers
                    .answer(method, asked)
                    .await
                    .map_err(|err| failed(err.code, &err.message))?,
            };
            responses.insert(key.clone(), answer);
        }
        Ok(responses)
    }
}

/// A channel the link fills during a request, and who takes what comes on it.
struct Tap<T, H> {
    receiver: mpsc::UnboundedReceiver<T>,
    taker: H,
}

/// A channel for a request's `taker`, made only when there is one: the sender goes to the
/// link, the tap stays with the request.
fn tap<T, H>(taker: Option<H>) -> (Option<mpsc::UnboundedSender<T>>, Option<Tap<T, H>>) {
    taker
        .map(|taker| {
            let (sender, receiver) = mpsc::unbounded_channel();
            (sender, Tap { receiver, taker })
        })
        .unzip()
}

/// The next message on `tap`; never, if there is no tap.
async fn next<T, H>(tap: Option<&mut Tap<T, H>>) -> Option<T> {
    match tap {
        Some(tap) => tap.receiver.recv().await,
        None => std::future::pending().await,
    }
}

/// The keys under which the server's requests during one request are asked of its relay.
/// A caller at 2026-07-28 answers over rounds, each of which makes the request again, and
/// the server behind may ask again in another order: a request's key is what it asks (its
/// method and parameters, its `_meta` aside), and how many times the same was asked before
/// during this request, so that each answer given goes back to its own question.
#[derive(Default)]
struct RelayKeys {
    seen: HashMap<String, usize>,
}

impl RelayKeys {
    fn key(&mut self, request: &link::ServerRequest) -> String {
        use sha2::Digest;
        let mut params = request.params.clone();
        if let Value::Object(params) = &mut params {
            params.remove("_meta");
        }
        let mut digest = sha2::Sha256::new();
        digest.update(request.method.as_bytes());
        digest.update([0]);
        digest.update(params.to_string().as_bytes());
        let digest = digest.finalize();
        let asked: String = digest[..8]
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect();
        let times = self.seen.entry(asked.clone()).or_insert(0);
        *times += 1;
        format!("upstream-{asked}-{times}")
    }
}

/// What a request takes in while it waits for its answer, each only when its options ask
/// for it: progress reports, log messages, and the server's requests, relayed to whoever
/// the request's asker asks.
struct During {
    progress: Option<Tap<Value, ProgressHandler>>,
    log: Option<Tap<Value, (LoggingLevel, LogHandler)>>,
    relays: Option<Tap<link::ServerRequest, crate::talk::Asker>>,
}

impl During {
    /// The link's watch of a request with `params`, what this request takes in, and, when
    /// progress is wanted, `params` with a progress token.
    fn watch(
        params: &Map<String, Value>,
        progress: Option<ProgressHandler>,
        log: Option<(LoggingLevel, LogHandler)>,
        asker: Option<crate::talk::Asker>,
    ) -> (link::Watch, Self, Option<Map<String, Value>>) {
        let (reports, progress) = tap(progress);
        let (logged, log) = tap(log);
        let (relay, relays) = tap(asker);
        let mut tokened = None;
        let progress_watch = reports.map(|sender| {
            let token = format!("progress-{}", next_token());
            tokened = Some(with_progress_token(params, &token));
            (token, sender)
        });
        let watch = link::Watch {
            progress: progress_watch,
            relay,
            log: logged,
            ..link::Watch::default()
        };
        (
            watch,
            Self {
                progress,
                log,
                relays,
            },
            tokened,
        )
    }

    /// Awaits `answer`, passing on meanwhile what comes during the request; the server's
    /// requests are asked of the asker through `client`.
    async fn until_answered(
        &mut self,
        client: &Client,
        answer: impl std::future::Future<Output = Result<Value, ClientError>>,
    ) -> Result<Value, ClientError> {
        tokio::pin!(answer);
        let mut asked = RelayKeys::default();
        // Made only for a request whose asks are relayed.
        let mut asking = self
            .relays
            .as_ref()
            .map(|_| futures_util::stream::FuturesUnordered::new());
        loop {
            tokio::select! {
                answer = &mut answer => return answer,
                Some(request) = next(self.relays.as_mut()) => {
                    if let (Some(relays), Some(asking)) = (&self.relays, asking.as_mut()) {
                        let asker = relays.taker.clone();
                        let key = asked.key(&request);
                        asking.push(client.relay(asker, key, request));
                    }
                }
                Some(()) = async {
                    match asking.as_mut() {
                        Some(asking) if !asking.is_empty() => {
                            futures_util::StreamExt::next(asking).await
                        }
                        _ => std::future::pending().await,
                    }
                } => {}
                Some(report) = next(self.progress.as_mut()) => self.report(&report),
                Some(message) = next(self.log.as_mut()) => self.pass_log(message),
            }
        }
    }

    /// Passes on what was received but not yet taken.
    fn drain(&mut self) {
        while let Some(report) = self
            .progress
            .as_mut()
            .and_then(|tap| tap.receiver.try_recv().ok())
        {
            self.report(&report);
        }
        while let Some(message) = self
            .log
            .as_mut()
            .and_then(|tap| tap.receiver.try_recv().ok())
        {
            self.pass_log(message);
        }
    }

    fn report(&mut self, report: &Value) {
        if let Some(tap) = self.progress.as_mut() {
            (tap.taker)(progress_of(report));
        }
    }

    fn pass_log(&self, message: Value) {
        if let Some(Tap {
            taker: (least, log),
            ..
        }) = &self.log
        {
            pass_log(*least, log, message);
        }
    }
}

/// `params` with `token` as its `_meta`'s progress token.
fn with_progress_token(params: &Map<String, Value>, token: &str) -> Map<String, Value> {
    let mut params = params.clone();
    params
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .map(|meta| meta.insert("progressToken".to_owned(), json!(token)));
    params
}

/// A `notifications/progress`'s params as a report.
fn progress_of(report: &Value) -> Progress {
    Progress {
        progress: report
            .get("progress")
            .and_then(Value::as_f64)
            .unwrap_or(0.0),
        total: report.get("total").and_then(Value::as_f64),
        message: report
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_owned),
    }
}

/// Passes a `notifications/message`'s params to `log`, if it is a log message at `least`
/// or more severe.
fn pass_log(least: LoggingLevel, log: &LogHandler, params: Value) {
    match serde_json::from_value::<LogMessage>(params) {
        Ok(message) if message.level >= least => log(message),
        Ok(_) => {}
        Err(err) => {
            tracing::debug!(error = %err, "the server sent a log message that is not one; ignored");
        }
    }
}

/// A token unique within this process.
fn next_token() -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        .to_string()
}
