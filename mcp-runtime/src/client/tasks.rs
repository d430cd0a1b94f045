//! Calls that run as tasks: MCP's tasks extension (`io.modelcontextprotocol/tasks`), on the
//! client's side.
//!
//! The client declares the extension on the calls it runs as tasks, in the request's
//! `_meta` client capabilities, at every revision: a server that supports tasks then decides
//! (a tool whose `taskSupport` is `optional` or `required` becomes a task), and answers
//! with a task handle (`resultType: "task"`). Declared on the call alone, not for the whole
//! session, so that a tool that may run either way runs as a task only when asked
//! ([`RequestOptions::as_task`]), keeping its progress and log messages on the call
//! otherwise. A tool that runs only as a task is always run as one.
//!
//! The client then polls `tasks/get` as often as the server asks (`pollIntervalMs`),
//! answers what the task asks (`input_required`) with `tasks/update`, and returns the
//! result the completed task inlines, as the answer to an ordinary call. The request's
//! timeout bounds the whole task; past it, or when the call's future is dropped, the task
//! is cancelled with `tasks/cancel`.

use std::time::Duration;

use mcp_runtime_core::method::{Method, TASKS_EXTENSION};
use mcp_runtime_core::{MCPToolResult, wire};
use serde_json::{Map, Value, json};
use tokio::time::Instant;

use super::request::{Progress, RequestOptions};
use super::{Client, ClientError, RpcError, link};

/// The wait between two polls when the server suggests none.
const DEFAULT_POLL_INTERVAL: Duration = Duration::from_millis(500);

/// The shortest and longest wait between two polls, whatever the server suggests.
const POLL_BOUNDS: (Duration, Duration) = (Duration::from_millis(10), Duration::from_secs(30));

/// How long a cancellation sent as a call is dropped may wait for its answer.
const CANCEL_TIMEOUT: Duration = Duration::from_secs(10);

type ProgressHandler = Box<dyn FnMut(Progress) + Send>;
type LogHandler = std::sync::Arc<dyn Fn(mcp_runtime_core::LogMessage) + Send + Sync>;

impl RequestOptions {
    /// Runs the call as a task where the tool supports it (`execution.taskSupport`
    /// `optional`): the request declares the tasks extension, the server answers with a
    /// task, and the client polls it to its end; the answer is the tool's result, as from
    /// any call. A tool that runs only as a task is run as one without asking; one that
    /// never does is called as usual.
    #[must_use]
    pub fn as_task(mut self) -> Self {
        self.task = true;
        self
    }
}

impl Client {
    /// Whether the tool `name` runs only as a task, as the server listed or refused it.
    pub(super) fn runs_only_as_task(&self, name: &str) -> bool {
        self.task_tools
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .contains(name)
    }

    /// Notes the tools of a listing that run only as tasks, forgetting those of the last.
    pub(super) fn note_task_tools<'a>(&self, required: impl Iterator<Item = &'a str>) {
        *self
            .task_tools
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) =
            required.map(str::to_owned).collect();
    }

    /// A call not asked to run as a task: as a task after all when the server refuses it
    /// for not declaring tasks (a tool that runs only as one, not listed as such), or when
    /// the server answers with a task anyway (the capabilities a gateway passes on may
    /// declare them).
    pub(super) async fn call_or_task(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        options: RequestOptions,
    ) -> Result<MCPToolResult, ClientError> {
        let mut shared = Shared::from(options);
        let mut options = shared.options();
        let params = self.call_params(name, arguments.clone(), &mut options);
        let deadline = Instant::now() + shared.timeout.unwrap_or(self.timeout);
        match self
            .request(Method::ToolsCall.as_str(), params, options)
            .await
        {
            Err(ClientError::Rpc(error)) if needs_tasks(&error) => {
                tracing::debug!(tool = %name, "the server runs the tool only as a task");
                self.task_tools
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .insert(name.to_owned());
                self.call_as_task(name, arguments, shared.options()).await
            }
            Ok(answer) => {
                let polling = Polling {
                    deadline,
                    timeout: shared.timeout.unwrap_or(self.timeout),
                    capabilities: with_tasks(
                        shared
                            .capabilities
                            .clone()
                            .unwrap_or_else(|| self.handlers.capabilities()),
                    ),
                    asker: shared.asker.clone(),
                };
                self.finish_call(answer, &polling).await
            }
            Err(other) => Err(other),
        }
    }

    /// Calls the tool `name` as a task: the call declares the tasks extension; a task the
    /// server answers with is polled to its end.
    pub(super) async fn call_as_task(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        mut options: RequestOptions,
    ) -> Result<MCPToolResult, ClientError> {
        let timeout = options.timeout.unwrap_or(self.timeout);
        let polling = Polling {
            deadline: Instant::now() + timeout,
            timeout,
            capabilities: with_tasks(
                options
                    .capabilities
                    .take()
                    .unwrap_or_else(|| self.handlers.capabilities()),
            ),
            asker: options.asker.clone(),
        };
        options.capabilities = Some(polling.capabilities.clone());
        let params = self.call_params(name, arguments, &mut options);
        let params = self.declaring(params, &polling);
        let answer = self
            .request(Method::ToolsCall.as_str(), params, options)
            .await?;
        self.finish_call(answer, &polling).await
    }

    /// The answer to a call: its result, or, for a task, the result the task ends with.
    async fn finish_call(
        &self,
        answer: Map<String, Value>,
        polling: &Polling,
    ) -> Result<MCPToolResult, ClientError> {
        if answer.get("resultType").and_then(Value::as_str) != Some("task") {
            return Ok(wire::tool_result_from_wire(answer));
        }
        let task = answer
            .get("taskId")
            .and_then(Value::as_str)
            .ok_or_else(|| ClientError::Malformed("a task handle without a `taskId`".to_owned()))?
            .to_owned();
        let mut cancelling = Cancelling {
            link: std::sync::Arc::clone(&self.link),
            params: self.task_params(&task, Map::new(), polling, true),
            headers: self.task_headers(&task),
            armed: true,
        };
        let ended = self.poll(&task, answer, polling).await;
        // A task that ended, or whose server cannot be reached, is not cancelled; one whose
        // wait ran out is, as the call's future dropped would be.
        cancelling.armed = matches!(ended, Err(ClientError::Timeout { .. }));
        ended
    }

    /// Polls the task `task` from its record `record` until it ends.
    async fn poll(
        &self,
        task: &str,
        mut record: Map<String, Value>,
        polling: &Polling,
    ) -> Result<MCPToolResult, ClientError> {
        let mut interval = poll_interval(&record).unwrap_or(DEFAULT_POLL_INTERVAL);
        loop {
            let status = record.get("status").and_then(Value::as_str).unwrap_or("");
            match (status, record.get("result"), record.get("error")) {
                ("completed", Some(Value::Object(result)), _) => {
                    return Ok(wire::tool_result_from_wire(result.clone()));
                }
                ("failed", _, Some(error)) => {
                    return Err(ClientError::TaskFailed {
                        task: task.to_owned(),
                        error: Box::new(rpc_error(error)),
                    });
                }
                ("cancelled", _, _) => {
                    return Err(ClientError::TaskCancelled {
                        task: task.to_owned(),
                        reason: record
                            .get("statusMessage")
                            .and_then(Value::as_str)
                            .map(str::to_owned),
                    });
                }
                ("input_required", _, _) if record.contains_key("inputRequests") => {
                    let responses = self
                        .input_responses(&record, polling.asker.as_ref())
                        .await?;
                    let mut answers = Map::new();
                    answers.insert("inputResponses".to_owned(), Value::Object(responses));
                    self.task_request(Method::TasksUpdate, task, answers, polling)
                        .await?;
                }
                // Ended, or waiting for input, as a handle says without the details: asked
                // at once.
                ("completed" | "failed" | "input_required", _, _) => {}
                _ => {
                    let now = Instant::now();
                    if now >= polling.deadline {
                        return Err(polling.timed_out());
                    }
                    tokio::time::sleep_until((now + interval).min(polling.deadline)).await;
                }
            }
            record = self
                .task_request(Method::TasksGet, task, Map::new(), polling)
                .await?;
            interval = poll_interval(&record).unwrap_or(interval);
        }
    }

    /// A request of the extension about `task`, answered within the call's deadline.
    async fn task_request(
        &self,
        method: Method,
        task: &str,
        params: Map<String, Value>,
        polling: &Polling,
    ) -> Result<Map<String, Value>, ClientError> {
        let left = polling.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(polling.timed_out());
        }
        let options = RequestOptions {
            timeout: Some(left),
            headers: self.task_headers(task),
            capabilities: Some(polling.capabilities.clone()),
            ..RequestOptions::default()
        };
        let params = self.task_params(task, params, polling, false);
        match self.request(method.as_str(), params, options).await {
            // The whole call's time ran out while this request waited.
            Err(ClientError::Timeout { .. }) => Err(polling.timed_out()),
            other => other,
        }
    }

    /// The params of a request about `task`: its id, declaring the extension; `whole`,
    /// with the `_meta` of 2026-07-28 too, for a request sent past [`Client::request`].
    fn task_params(
        &self,
        task: &str,
        mut params: Map<String, Value>,
        polling: &Polling,
        whole: bool,
    ) -> Map<String, Value> {
        params.insert("taskId".to_owned(), json!(task));
        if !self.server.is_stateless() {
            return self.declaring(params, polling);
        }
        if !whole {
            return params;
        }
        let mut params = self.stateless_params(params);
        if let Some(Value::Object(meta)) = params.get_mut("_meta") {
            meta.insert(
                wire::CLIENT_CAPABILITIES_META.to_owned(),
                polling.capabilities.clone(),
            );
        }
        params
    }

    /// `params` declaring the tasks extension in their `_meta`, on the handshake's
    /// revisions (at 2026-07-28 every request declares its capabilities there anyway).
    fn declaring(&self, mut params: Map<String, Value>, polling: &Polling) -> Map<String, Value> {
        if self.server.is_stateless() {
            return params;
        }
        if let Value::Object(meta) = params
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()))
        {
            meta.insert(
                wire::CLIENT_CAPABILITIES_META.to_owned(),
                polling.capabilities.clone(),
            );
        }
        params
    }

    /// What a request about `task` mirrors into headers at 2026-07-28: the task it names.
    fn task_headers(&self, task: &str) -> Vec<(String, String)> {
        if self.server.is_stateless() {
            vec![("Mcp-Name".to_owned(), task.to_owned())]
        } else {
            Vec::new()
        }
    }
}

/// What polling a task needs: until when, the capabilities its requests declare, and who
/// answers what it asks (the caller a gateway's call serves), if not the handlers.
struct Polling {
    deadline: Instant,
    timeout: Duration,
    capabilities: Value,
    asker: Option<crate::talk::Asker>,
}

impl Polling {
    fn timed_out(&self) -> ClientError {
        ClientError::Timeout {
            method: Method::ToolsCall.as_str().to_owned(),
            timeout: self.timeout,
        }
    }
}

/// Cancels a task on the server when dropped armed: the call's future dropped, or its wait
/// run out, before the task ended.
struct Cancelling {
    link: std::sync::Arc<link::Link>,
    params: Map<String, Value>,
    headers: Vec<(String, String)>,
    armed: bool,
}

impl Drop for Cancelling {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let link = std::sync::Arc::clone(&self.link);
        let params = std::mem::take(&mut self.params);
        let headers = std::mem::take(&mut self.headers);
        runtime.spawn(async move {
            let sent = link
                .request(
                    Method::TasksCancel.as_str(),
                    &params,
                    headers,
                    link::Watch::default(),
                )
                .await;
            let answered = match sent {
                Ok(pending) => tokio::time::timeout(CANCEL_TIMEOUT, pending.answer())
                    .await
                    .unwrap_or_else(|_| Err(ClientError::closed("no answer to `tasks/cancel`"))),
                Err(err) => Err(err),
            };
            if let Err(err) = answered {
                tracing::debug!(error = %err, "a task could not be cancelled");
            }
        });
    }
}

/// The options of a request, kept to make them again for a second request of the same
/// call: the progress handler shared between them.
struct Shared {
    timeout: Option<Duration>,
    progress: Option<std::sync::Arc<std::sync::Mutex<ProgressHandler>>>,
    headers: Vec<(String, String)>,
    asker: Option<crate::talk::Asker>,
    capabilities: Option<Value>,
    log: Option<(mcp_runtime_core::LoggingLevel, LogHandler)>,
    id: Option<u64>,
    task: bool,
}

impl From<RequestOptions> for Shared {
    fn from(options: RequestOptions) -> Self {
        Self {
            timeout: options.timeout,
            progress: options
                .progress
                .map(|progress| std::sync::Arc::new(std::sync::Mutex::new(progress))),
            headers: options.headers,
            asker: options.asker,
            capabilities: options.capabilities,
            log: options.log,
            id: options.id,
            task: options.task,
        }
    }
}

impl Shared {
    /// The options again; the id reserved for the request's span, only once.
    fn options(&mut self) -> RequestOptions {
        let progress = self.progress.clone().map(|shared| {
            Box::new(move |report: Progress| {
                let mut progress = shared
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                progress(report);
            }) as ProgressHandler
        });
        RequestOptions {
            timeout: self.timeout,
            progress,
            headers: self.headers.clone(),
            asker: self.asker.clone(),
            capabilities: self.capabilities.clone(),
            log: self.log.clone(),
            id: self.id.take(),
            task: self.task,
        }
    }
}

/// `capabilities` declaring the tasks extension too.
fn with_tasks(mut capabilities: Value) -> Value {
    if !capabilities.is_object() {
        capabilities = json!({});
    }
    if let Value::Object(declared) = &mut capabilities {
        let extensions = declared
            .entry("extensions")
            .or_insert_with(|| Value::Object(Map::new()));
        if !extensions.is_object() {
            *extensions = Value::Object(Map::new());
        }
        if let Value::Object(extensions) = extensions {
            extensions
                .entry(TASKS_EXTENSION)
                .or_insert_with(|| Value::Object(Map::new()));
        }
    }
    capabilities
}

/// Whether `error` refuses a call for not declaring the tasks extension.
fn needs_tasks(error: &RpcError) -> bool {
    error.code == wire::MISSING_CLIENT_CAPABILITY
        && error
            .data
            .as_ref()
            .and_then(|data| data.pointer("/requiredCapabilities/extensions"))
            .and_then(|extensions| extensions.get(TASKS_EXTENSION))
            .is_some()
}

/// The wait a task record suggests before the next poll, within [`POLL_BOUNDS`].
fn poll_interval(record: &Map<String, Value>) -> Option<Duration> {
    record
        .get("pollIntervalMs")
        .and_then(Value::as_u64)
        .map(|ms| Duration::from_millis(ms).clamp(POLL_BOUNDS.0, POLL_BOUNDS.1))
}

/// A failed task's `error`, as a JSON-RPC error.
fn rpc_error(error: &Value) -> RpcError {
    RpcError {
        code: error
            .get("code")
            .and_then(Value::as_i64)
            .unwrap_or(crate::server::INTERNAL_ERROR),
        message: error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("the task failed")
            .to_owned(),
        data: error.get("data").cloned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extension_is_added_to_what_is_declared() {
        let declared = with_tasks(json!({ "sampling": {}, "extensions": { "x/y": {} } }));
        assert_eq!(
            declared,
            json!({ "sampling": {}, "extensions": { "x/y": {}, TASKS_EXTENSION: {} } })
        );
        assert_eq!(
            with_tasks(Value::Null),
            json!({ "extensions": { TASKS_EXTENSION: {} } })
        );
    }

    #[test]
    fn only_a_refusal_for_the_tasks_extension_needs_tasks() {
        let refusal = |code, data| RpcError {
            code,
            message: String::new(),
            data: Some(data),
        };
        let tasks = json!({ "requiredCapabilities": { "extensions": { TASKS_EXTENSION: {} } } });
        assert!(needs_tasks(&refusal(-32021, tasks.clone())));
        assert!(!needs_tasks(&refusal(-32602, tasks)));
        assert!(!needs_tasks(&refusal(
            -32021,
            json!({ "requiredCapabilities": { "sampling": {} } })
        )));
    }

    #[test]
    fn the_poll_interval_is_the_servers_within_bounds() {
        let record = |ms: Value| {
            let Value::Object(record) = json!({ "pollIntervalMs": ms }) else {
                unreachable!()
            };
            record
        };
        assert_eq!(
            poll_interval(&record(json!(250))),
            Some(Duration::from_millis(250))
        );
        assert_eq!(poll_interval(&record(json!(0))), Some(POLL_BOUNDS.0));
        assert_eq!(
            poll_interval(&record(json!(3_600_000))),
            Some(POLL_BOUNDS.1)
        );
        assert_eq!(poll_interval(&Map::new()), None);
    }
}
