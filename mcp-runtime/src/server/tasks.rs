//! The tasks extension on the server's side: a call of a task tool answered with a task
//! handle (`CreateTaskResult`), and `tasks/get`, `tasks/update` and `tasks/cancel`.
//!
//! A client supports tasks when it declares the extension: in the request's
//! `_meta.io.modelcontextprotocol/clientCapabilities.extensions` (any revision), or at
//! `initialize` (the handshake's revisions). A call of a tool that may run as a task from
//! such a client becomes a task; from another, it runs as any call does, unless the tool
//! requires a task, which is refused with -32021.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use futures_util::FutureExt;
use mcp_runtime_core::MCPToolResult;
use mcp_runtime_core::method::Method;
use mcp_runtime_core::wire::CallToolResult;
use serde_json::{Map, Value, json};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::catalog::{Awaiting, Reply};
use super::fault::Refusal;
use super::fault::Status;
use super::jsonrpc::{self, Id};
use super::stateless::{self, CLIENT_CAPABILITIES_KEY, MISSING_CLIENT_CAPABILITY};
use super::{Answer, Fault, Peer, PendingCall, Request, Server, Step, fault_response};
use crate::context::options::CallOptions;
use crate::outbound::Round;
use crate::tasks::engine::{Ending, Tasks, wire};
use crate::tasks::{EXTENSION, TaskSettings, TaskStore};

impl Server {
    /// Keeps task state in `store`, with `settings`: a shared store (Redis) lets any
    /// replica behind a load balancer answer for any task. Without one, tasks live in this
    /// process's memory.
    #[must_use]
    pub fn with_task_store(self, store: Arc<dyn TaskStore>, settings: TaskSettings) -> Self {
        let _ = self.tasks.set(Arc::new(Tasks::new(store, settings)));
        self
    }

    /// The server's tasks: in memory unless a store was given.
    pub(crate) fn tasks(&self) -> &Arc<Tasks> {
        self.tasks.get_or_init(|| Arc::new(Tasks::in_memory()))
    }

    /// `tasks/get`, `tasks/update` and `tasks/cancel`: refused at once when the client did
    /// not declare the extension or the `Mcp-Name` header names another task; otherwise
    /// left to await the store.
    pub(super) fn task_request(&self, method: TaskMethod, request: &Request<'_>) -> Step {
        match self.task_params(method, request) {
            Ok((task_id, responses)) => {
                let future = self.task_reply(method, task_id, responses, request);
                task_step(request.id, request.stateless, future)
            }
            Err(refused) => refused,
        }
    }

    /// The task a request of the extension names, and the answers a `tasks/update` brings;
    /// or the step refusing it.
    fn task_params(
        &self,
        method: TaskMethod,
        request: &Request<'_>,
    ) -> Result<(String, Map<String, Value>), Step> {
        let Request {
            id,
            params,
            stateless,
            peer,
            mirrored,
        } = *request;
        let refused = |refusal| Step::Answered(Some(Answer::refused(id, refusal)));
        let invalid = |message: &str| {
            Step::Answered(Some(Answer::ok(fault_response(
                id,
                Fault::invalid_params(message),
            ))))
        };
        if !declares_tasks(params.get("_meta"), peer) {
            let status = if stateless {
                Status::BadRequest
            } else {
                Status::Ok
            };
            return Err(refused(Refusal::new(
                missing_tasks(method.method().as_str()),
                status,
            )));
        }
        let Some(Value::String(task_id)) = params.get("taskId") else {
            return Err(invalid("`taskId` must be the task's id, a string"));
        };
        // The header routes the request to the task's replica: at 2026-07-28 it must be
        // there and name this task (over HTTP); on the handshake's revisions, if sent.
        if stateless || mirrored.is_some_and(|headers| headers.name.is_some()) {
            stateless::admit_name(task_id, mirrored).map_err(refused)?;
        }
        let responses = match (method, params.get("inputResponses")) {
            (TaskMethod::Update, Some(Value::Object(responses))) => responses.clone(),
            (TaskMethod::Update, _) => {
                return Err(invalid(
                    "`inputResponses` must be an object of answers by key",
                ));
            }
            (TaskMethod::Get | TaskMethod::Cancel, _) => Map::new(),
        };
        Ok((task_id.clone(), responses))
    }

    /// What the store answers a request of the extension, written.
    fn task_reply(
        &self,
        method: TaskMethod,
        task_id: String,
        responses: Map<String, Value>,
        request: &Request<'_>,
    ) -> Pin<Box<dyn Future<Output = Reply> + Send + 'static>> {
        let tasks = Arc::clone(self.tasks());
        let owner = owner(request.peer);
        // The extension's results say what they are at every revision; at 2026-07-28 they
        // carry the server's identity too.
        let meta = request
            .stateless
            .then(|| json!({ "io.modelcontextprotocol/serverInfo": self.server_info() }));
        Box::pin(async move {
            let owner = owner.as_deref();
            let written = match method {
                TaskMethod::Get => match tasks.get(&task_id, owner).await {
                    Ok(record) => wire(&record, true, "complete", meta.as_ref()),
                    Err(fault) => return Err(fault.into()),
                },
                TaskMethod::Update => match tasks.update(&task_id, owner, &responses).await {
                    Ok(()) => acknowledgement(meta.as_ref()),
                    Err(fault) => return Err(fault.into()),
                },
                TaskMethod::Cancel => match tasks.cancel(&task_id, owner).await {
                    Ok(()) => acknowledgement(meta.as_ref()),
                    Err(fault) => return Err(fault.into()),
                },
            };
            written.map_err(|err| Fault::internal(err.to_string()))
        })
    }

    /// Runs a call as a task: answered with the task's handle once it is recorded, the
    /// tool going on in the background. At 2026-07-28 a tool that asks before it has
    /// anything to wait for is answered over rounds first (`InputRequiredResult`), and
    /// becomes a task on the round that gets further.
    pub(super) async fn start_task(&self, mut pending: PendingCall) -> String {
        let tasks = Arc::clone(self.tasks());
        let owner = pending.auth.as_deref().and_then(owner_of_auth);
        let token = CancellationToken::new();
        let panicked = Arc::new(AtomicBool::new(false));
        let (options, progress_seen) = task_call_options(&token, &panicked);
        let options = options.with_update_sink(self.update_sink());
        // The handshake's revisions: the task's asks wait in its record, not on a stream.
        let options = self.call_options(&mut pending, None, options);
        let PendingCall {
            snapshot,
            call,
            id,
            stateless,
            asks,
            ..
        } = pending;
        if let Some(asks) = &asks {
            asks.task.mode.store(true, Ordering::Relaxed);
        }
        let tool = call.tool_name.to_string();
        let call_token = token.clone();
        let work = async move {
            let result = snapshot.registry.call_with(call, options).await;
            task_ending(result, call_token.is_cancelled(), &panicked)
        };
        let mut work = Box::pin(work);
        let in_round = asks.as_ref().is_some_and(|asks| asks.round().is_some());
        let mut ended = None;
        if in_round {
            // Polled once here: a tool that asks what the round did not answer ends the
            // round, before any task exists.
            if let Some(ending) = (&mut work).now_or_never() {
                if let Some(asks) = asks
                    .as_ref()
                    .filter(|asks| asks.round().is_some_and(Round::is_open))
                {
                    return self.input_required(&id, asks);
                }
                ended = Some(ending);
            }
        }
        // A running task holds a place among the requests in flight until it ends: a client
        // cannot start tasks without bound by not waiting for them.
        let place = match self.admit(None) {
            Ok(place) => place,
            Err(busy) => return fault_response(&id, busy.fault()),
        };
        let (record, link) = match tasks.create(&tool, owner, token).await {
            Ok(created) => created,
            Err(err) => {
                return fault_response(
                    &id,
                    Fault::internal(format!("the task could not be created: {err}")),
                );
            }
        };
        if let Some(asks) = &asks {
            asks.task.set(Arc::clone(&link));
        }
        let work: std::pin::Pin<Box<dyn std::future::Future<Output = Ending> + Send>> = match ended
        {
            Some(ending) => Box::pin(std::future::ready(ending)),
            None => Box::pin(async move {
                let ending = work.await;
                drop(place);
                ending
            }),
        };
        tasks.drive(link, work, progress_seen);
        let meta =
            stateless.then(|| json!({ "io.modelcontextprotocol/serverInfo": self.server_info() }));
        match wire(&record, false, "task", meta.as_ref()) {
            Ok(result) => jsonrpc::result_response(&id, &result),
            Err(err) => fault_response(&id, Fault::internal(err.to_string())),
        }
    }
}

/// The options of a call run as a task: cancelled by `token`, a panic noted in `panicked`,
/// and each progress report kept as the task's status message, which the receiver watches.
fn task_call_options(
    token: &CancellationToken,
    panicked: &Arc<AtomicBool>,
) -> (CallOptions, watch::Receiver<Option<String>>) {
    let (progress, progress_seen) = watch::channel(None);
    let options = CallOptions::new()
        .with_cancellation(token.clone())
        .with_panic_flag(Arc::clone(panicked))
        .with_progress(move |report| {
            let message = report
                .message
                .clone()
                .unwrap_or_else(|| match report.total {
                    Some(total) => format!("{} of {total}", report.progress),
                    None => format!("{}", report.progress),
                });
            progress.send_replace(Some(message));
        });
    (options, progress_seen)
}

/// How a task's call ended: cancelled, failed by a panic, or with its result.
fn task_ending(result: MCPToolResult, cancelled: bool, panicked: &AtomicBool) -> Ending {
    if cancelled {
        return Ending::Cancelled;
    }
    if panicked.load(Ordering::Relaxed) {
        let message = result.error().map_or_else(
            || "the tool panicked".to_owned(),
            |error| error.error_message.clone(),
        );
        return Ending::Failed(jsonrpc::INTERNAL_ERROR, message);
    }
    match serde_json::to_value(CallToolResult::from(result)) {
        Ok(result) => Ending::Completed(result),
        Err(err) => Ending::Failed(jsonrpc::INTERNAL_ERROR, err.to_string()),
    }
}

/// A request of the tasks extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TaskMethod {
    /// `tasks/get`.
    Get,
    /// `tasks/update`.
    Update,
    /// `tasks/cancel`.
    Cancel,
}

impl TaskMethod {
    fn method(self) -> Method {
        match self {
            Self::Get => Method::TasksGet,
            Self::Update => Method::TasksUpdate,
            Self::Cancel => Method::TasksCancel,
        }
    }
}

/// Answers at once when the store's reply is ready (in memory), leaves it to be awaited
/// otherwise.
fn task_step(
    id: &Id,
    stateless: bool,
    mut future: Pin<Box<dyn Future<Output = Reply> + Send + 'static>>,
) -> Step {
    if let Some(done) = (&mut future).now_or_never() {
        let text = match done {
            Ok(result) => jsonrpc::result_response(id, &result),
            Err(fault) => fault_response(id, fault),
        };
        return Step::Answered(Some(Answer::ok(text)));
    }
    Step::Await(Box::new(Awaiting {
        id: id.clone(),
        stateless,
        written: true,
        future,
    }))
}

/// The empty acknowledgement of `tasks/update` and `tasks/cancel`.
fn acknowledgement(
    meta: Option<&Value>,
) -> Result<Box<serde_json::value::RawValue>, serde_json::Error> {
    let mut result = Map::new();
    result.insert("resultType".into(), json!("complete"));
    if let Some(meta) = meta {
        result.insert("_meta".into(), meta.clone());
    }
    serde_json::value::to_raw_value(&result)
}

/// Whether a request's client supports tasks: its `_meta` declares the extension, or its
/// connection did at `initialize`.
pub(super) fn declares_tasks(meta: Option<&Value>, peer: &Peer<'_>) -> bool {
    let in_meta = meta
        .and_then(|meta| meta.get(CLIENT_CAPABILITIES_KEY))
        .and_then(|capabilities| capabilities.get("extensions"))
        .and_then(|extensions| extensions.get(EXTENSION))
        .is_some_and(Value::is_object);
    in_meta
        || peer.capabilities.as_ref().is_some_and(|capabilities| {
            capabilities
                .get("extensions")
                .and_then(|extensions| extensions.get(EXTENSION))
                .is_some_and(Value::is_object)
        })
}

/// -32021 for a client that did not declare the tasks extension.
pub(super) fn missing_tasks(what: &str) -> Fault {
    Fault::new(
        MISSING_CLIENT_CAPABILITY,
        format!(
            "{what} needs the client capability `extensions.{EXTENSION}`, which this request does not declare"
        ),
    )
    .with_data(json!({ "requiredCapabilities": { "extensions": { EXTENSION: {} } } }))
}

/// Who a task belongs to: the access token's subject and client. Without a token, a task
/// is anyone's who knows its id (128 random bits).
fn owner(peer: &Peer<'_>) -> Option<String> {
    peer.auth.as_deref().and_then(owner_of_auth)
}

fn owner_of_auth(auth: &crate::auth::AuthInfo) -> Option<String> {
    match (auth.subject(), auth.client_id()) {
        (None, None) => Some(String::new()),
        (subject, client) => Some(format!(
            "{} {}",
            subject.unwrap_or_default(),
            client.unwrap_or_default()
        )),
    }
}
