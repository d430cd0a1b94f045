//! A `tools/call` as a server takes it: checked and its tool found ([`Server::begin_call`]),
//! run at once when it is inline ([`Server::call_now`]), or awaited with what it may send
//! meanwhile: progress, log messages, requests to the client ([`Server::finish`]).

use std::collections::HashMap;
use std::sync::Arc;

use mcp_runtime_core::method::Method;
use mcp_runtime_core::{LoggingLevel, MCPToolCall, TaskSupport, ToolStatus};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::fault::Status;
use super::fault::{Fault, Refusal};
use super::jsonrpc::{self, CallArguments, CallParams, Id, Retry};
use super::rounds::round_context;
use super::served::Snapshot;
use super::stateless::{self, Mirrored};
use super::{Answer, Notifier, Peer, Server, Step, admit, fault_response, in_flight_key, tasks};
use crate::context::options::CallOptions;
use crate::execute::Ran;
use crate::outbound::{Asks, Round, TaskSlot, Way};
use crate::registry::{Passed, closest_names, did_you_mean};

impl Server {
    /// Checks a call's parameters and finds its tool; the error answer otherwise.
    pub(super) fn begin_call(
        &self,
        id: Id,
        params: CallParams,
        peer: &Peer<'_>,
        mirrored: Option<&Mirrored<'_>>,
    ) -> Result<PendingCall, Answer> {
        let stateless = admit(&Method::ToolsCall, params.meta.as_ref(), mirrored)
            .map_err(|refusal| Answer::refused(&id, refusal))?;
        let caller = Caller {
            id: &id,
            stateless,
            peer,
            mirrored,
        };
        let snapshot = self.served.load_full();
        let (sent_name, canonical) = tool_name(&snapshot, caller, params.name)?;
        let name = canonical.as_deref().unwrap_or(&sent_name);
        // An object's text is read into a tree only when something but the tool reads it:
        // at 2026-07-28, the headers that mirror it and the round it binds.
        let (arguments, text) = match params.arguments {
            None => (Map::new(), None),
            Some(CallArguments::Text(text)) if !stateless => (Map::new(), Some(text)),
            Some(arguments) => (object_of(&id, arguments)?, None),
        };
        let (call, task) = admit_tool(
            &snapshot,
            caller,
            (name, &sent_name),
            arguments,
            params.meta.as_ref(),
        )?;
        let meta = match params.meta {
            Some(Value::Object(meta)) => Some(meta),
            _ => None,
        };
        // At 2026-07-28 each request says what it wants logged; on the handshake's
        // revisions the connection said it once (`logging/setLevel`).
        let log_level = if stateless {
            meta.as_ref().and_then(stateless::log_level)
        } else {
            peer.log_level
        };
        let retry = params.retry.map(|retry| *retry).unwrap_or_default();
        let asks = self.call_round(&snapshot, caller, (&call, &sent_name), meta.as_ref(), retry)?;
        let capabilities = if stateless {
            None
        } else {
            peer.capabilities.clone()
        };
        let caller = snapshot.registry.has_layers().then(|| peer.caller());
        Ok(PendingCall {
            task,
            snapshot,
            id,
            stateless,
            call,
            meta,
            log_level,
            asks,
            capabilities,
            // Copied only when the call waits (`call_now`), the one time it is read.
            client: String::new(),
            auth: peer.auth.clone(),
            caller,
            passed: None,
            stream_close: None,
            text,
        })
    }

    /// The round a 2026-07-28 call of a tool that can ask begins, with the answers and
    /// state its retry carries; none for any other call. A tool that cannot ask (it cannot
    /// await) takes no round: nothing to bind, seal or open.
    fn call_round(
        &self,
        snapshot: &Snapshot,
        caller: Caller<'_>,
        (call, sent_name): (&MCPToolCall, &str),
        meta: Option<&Map<String, Value>>,
        retry: Retry,
    ) -> Result<Option<Arc<Asks>>, Answer> {
        if !caller.stateless || !snapshot.registry.may_ask_user(call.tool_name.as_str()) {
            return Ok(None);
        }
        let context = round_context(Method::ToolsCall.as_str(), sent_name, &call.arguments);
        let round = self
            .round(&context, retry.input_responses, retry.request_state)
            .map_err(|refused| invalid(caller.id, refused.to_string()))?;
        Ok(Some(Arc::new(Asks {
            capabilities: meta
                .and_then(|meta| meta.get(stateless::CLIENT_CAPABILITIES_KEY))
                .and_then(Value::as_object)
                .map(|capabilities| Arc::new(capabilities.clone())),
            way: Way::Round { round, context },
            task: TaskSlot::default(),
        })))
    }

    /// Runs an inline call that reports no progress right here, when every layer around
    /// it admits it at once; any other is left to [`Server::finish`].
    pub(super) fn call_now(&self, mut pending: PendingCall, client: &str) -> Step {
        let reports_progress = pending.reports();
        if reports_progress || pending.task {
            if let Err(answer) = pending.read_text() {
                return Step::Answered(Some(answer));
            }
            pending.client = client.to_owned();
            return Step::Call(Box::new(pending));
        }
        // A tool that awaits is left as a layer that must wait leaves it.
        let options = pending.given_up(CallOptions::new().with_update_sink(self.update_sink()));
        let mut passed = Passed::default();
        if let Some(text) = &pending.text {
            let registry = &pending.snapshot.registry;
            match registry.call_text_at_once(&pending.call.tool_name, text.get(), &options) {
                Ok(ran) => {
                    let (id, stateless) = (&pending.id, pending.stateless);
                    let (text, failed) = match ran {
                        Ran::Data(data) => (self.respond_data(id, stateless, data), false),
                        Ran::Result(result) => {
                            let failed = result.status() == ToolStatus::Failure;
                            (self.respond_call(id, stateless, result), failed)
                        }
                    };
                    return Step::Answered(Some(Answer::called(text, failed)));
                }
                Err(left) => passed = left,
            }
            if let Err(answer) = pending.read_text() {
                return Step::Answered(Some(answer));
            }
        }
        match pending
            .snapshot
            .registry
            .call_at_once(&mut pending.call, &options, passed)
        {
            Ok(result) => {
                let failed = result.status() == ToolStatus::Failure;
                let text = self.respond_call(&pending.id, pending.stateless, result);
                Step::Answered(Some(Answer::called(text, failed)))
            }
            // A layer must wait (a slot to free, a store to ask): the call goes on as any
            // awaited call, past the layers it has passed.
            Err(passed) => {
                pending.passed = Some((passed, options));
                pending.client = client.to_owned();
                Step::Call(Box::new(pending))
            }
        }
    }

    /// Runs a call that must be awaited; `None` when the client cancelled it, as MCP asks
    /// that a cancelled call not be answered.
    pub(crate) async fn finish(
        &self,
        pending: Box<PendingCall>,
        notify: Option<Notifier>,
    ) -> Option<String> {
        if pending.task {
            return Some(self.start_task(*pending).await);
        }
        let mut pending = *pending;
        let token = CancellationToken::new();
        // A call deferred by `call_now` comes with its options already made.
        let (options, passed) = match pending.passed.take() {
            Some((passed, options)) => (options, Some(passed)),
            None => (
                CallOptions::new().with_update_sink(self.update_sink()),
                None,
            ),
        };
        let mut options = options.with_cancellation(token.clone());
        if let Some(close) = pending.stream_close.take() {
            options = options.with_stream_close(close);
        }
        if let (Some(least), Some(notify)) = (pending.log_level, &notify) {
            let notify = Arc::clone(notify);
            options = options.with_log(least, move |message| {
                notify(jsonrpc::notification(&Method::Message, json!(message)));
            });
        }
        let progress_token = pending
            .meta
            .as_ref()
            .and_then(|meta| meta.get("progressToken"));
        if let (Some(progress_token), Some(notify)) = (progress_token, &notify) {
            let (progress_token, notify) = (progress_token.clone(), Arc::clone(notify));
            options = options.with_progress(move |report| {
                let mut params = json!({
                    "progressToken": progress_token,
                    "progress": report.progress,
                });
                if let Some(total) = report.total {
                    params["total"] = json!(total);
                }
                if let Some(message) = report.message {
                    params["message"] = json!(message);
                }
                notify(jsonrpc::notification(&Method::Progress, params));
            });
        }
        // The handshake's revisions: a tool's asks are requests on the call's stream.
        let options = self.call_options(&mut pending, notify, options);
        let id = &pending.id;
        let key = in_flight_key(&pending.client, id);
        let serial = self
            .serial
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.lock_in_flight()
            .insert(key.clone(), (serial, token.clone()));
        let registry = &pending.snapshot.registry;
        let result = match passed {
            Some(passed) => registry.call_passed(pending.call, options, passed).await,
            None => registry.call_with(pending.call, options).await,
        };
        {
            // A client that reused the id of a call in flight replaced its entry: leave
            // the newer one alone.
            let mut in_flight = self.lock_in_flight();
            if in_flight.get(&key).is_some_and(|(mine, _)| *mine == serial) {
                in_flight.remove(&key);
            }
        }
        if token.is_cancelled() {
            return None;
        }
        let asks = pending.asks.as_ref();
        if let Some(asks) = asks.filter(|asks| asks.round().is_some_and(Round::is_open)) {
            return Some(self.input_required(id, asks));
        }
        Some(self.respond_call(id, pending.stateless, result))
    }

    /// `options` with what came with `pending`: its `_meta` and who sent it, which it gives
    /// up, and its asks. On the handshake's revisions a client that declared capabilities at
    /// `initialize` is asked through `send`, and `pending` keeps those asks too.
    pub(super) fn call_options(
        &self,
        pending: &mut PendingCall,
        send: Option<Notifier>,
        mut options: CallOptions,
    ) -> CallOptions {
        let capabilities = pending.capabilities.take();
        if pending.asks.is_none() {
            let related = pending.id.to_value();
            pending.asks =
                capabilities.map(|capabilities| self.handshake_asks(capabilities, send, related));
        }
        if let Some(asks) = &pending.asks {
            options = options.with_asks(Arc::clone(asks));
        }
        pending.given_up(options)
    }

    /// How a call's asks reach a client of the handshake's revisions that declared
    /// `capabilities` at `initialize`: requests on the call's stream, `send`, if it has one,
    /// each naming the call, `related`.
    pub(super) fn handshake_asks(
        &self,
        capabilities: Arc<Map<String, Value>>,
        send: Option<Notifier>,
        related: Option<Value>,
    ) -> Arc<Asks> {
        Arc::new(Asks {
            // Shared with the connection's, not copied for each call.
            capabilities: Some(capabilities),
            way: Way::Send {
                send,
                outgoing: Arc::clone(&self.outgoing),
                related,
            },
            task: TaskSlot::default(),
        })
    }

    pub(super) fn lock_in_flight(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<String, (u64, CancellationToken)>> {
        // A panic while the lock was held leaves the map as it was: keep using it.
        self.in_flight
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Who a call comes from, and how it came.
#[derive(Clone, Copy)]
struct Caller<'a> {
    id: &'a Id,
    /// Whether it speaks 2026-07-28.
    stateless: bool,
    peer: &'a Peer<'a>,
    /// What its transport mirrored from its body (HTTP's headers).
    mirrored: Option<&'a Mirrored<'a>>,
}

/// The answer to a call whose parameters are wrong.
/// A call's `arguments`, which must be an object; the answer to the call otherwise.
fn object_of(id: &Id, arguments: CallArguments) -> Result<Map<String, Value>, Answer> {
    match arguments.into_value(id) {
        Ok(Value::Object(arguments)) => Ok(arguments),
        Ok(_) => Err(invalid(id, "`arguments` must be an object".to_owned())),
        Err(refusal) => Err(Answer::unread(refusal)),
    }
}

fn invalid(id: &Id, message: String) -> Answer {
    Answer::ok(fault_response(id, Fault::invalid_params(message)))
}

/// The answer to a call of a tool there is none of, by the name it was sent as, with the
/// closest names: invalid params naming it in `data.name`, which is what tells a missing
/// tool apart from other invalid params (`client::Refused`).
fn unknown_tool(id: &Id, sent_name: &str, near: &[&str]) -> Answer {
    let message = format!("Unknown tool: {sent_name}{}", did_you_mean(near));
    let fault = Fault::invalid_params(message).with_data(json!({ "name": sent_name }));
    Answer::ok(fault_response(id, fault))
}

/// The name a call sends, and the registry's name of the tool it calls where that is
/// another: on a server with names for LLM APIs. Refused when it is no string, at
/// 2026-07-28 not the one the transport mirrored, or no tool's name for LLM APIs.
fn tool_name(
    snapshot: &Snapshot,
    caller: Caller<'_>,
    sent: Option<Value>,
) -> Result<(String, Option<String>), Answer> {
    let Some(Value::String(sent_name)) = sent else {
        return Err(invalid(
            caller.id,
            "`name` must be the tool's name".to_owned(),
        ));
    };
    if caller.stateless {
        stateless::admit_name(&sent_name, caller.mirrored)
            .map_err(|refusal| Answer::refused(caller.id, refusal))?;
    }
    let Some(names) = &snapshot.llm_names else {
        return Ok((sent_name, None));
    };
    match names.to_canonical.get(&sent_name) {
        Some(canonical) => {
            let canonical = canonical.clone();
            Ok((sent_name, Some(canonical)))
        }
        None => {
            let near = closest_names(&sent_name, names.to_canonical.keys().map(String::as_str));
            Err(unknown_tool(caller.id, &sent_name, &near))
        }
    }
}

/// The call of the enabled tool `name` (sent as `sent_name`) with `arguments`, and whether
/// it runs as a task; refused when no such tool is enabled, or the caller may not call it:
/// scopes it was not granted, at 2026-07-28 mirrored headers that do not match, or client
/// capabilities it did not declare.
fn admit_tool(
    snapshot: &Snapshot,
    caller: Caller<'_>,
    (name, sent_name): (&str, &str),
    arguments: Map<String, Value>,
    meta: Option<&Value>,
) -> Result<(MCPToolCall, bool), Answer> {
    let Some(tool) = snapshot.registry.get(name).filter(|tool| tool.is_enabled()) else {
        let near = match &snapshot.llm_names {
            Some(_) => Vec::new(),
            None => snapshot.registry.closest(sent_name),
        };
        return Err(unknown_tool(caller.id, sent_name, &near));
    };
    let (id, peer) = (caller.id, caller.peer);
    // A caller an access token describes needs every scope the tool asks.
    let needed = tool.definition().scopes();
    if !peer.allows(needed) {
        return Err(Answer::insufficient_scope(id, needed, peer));
    }
    if caller.stateless {
        stateless::admit_call(tool.definition(), &arguments, meta, caller.mirrored)
            .map_err(|refusal| Answer::refused(id, refusal))?;
    } else if let Some(declared) = &peer.capabilities {
        // The handshake's client declared its capabilities once, at `initialize`: a tool
        // that needs one it lacks does not run.
        stateless::requires(tool.definition(), declared)
            .map_err(|fault| Answer::ok(fault_response(id, fault)))?;
    }
    let task = runs_as_task(tool.definition().task_support(), caller, sent_name, meta)?;
    // The registry's own name: a valid name, not checked again.
    let call = MCPToolCall {
        tool_name: tool.name().clone(),
        arguments,
    };
    Ok((call, task))
}

/// Whether a call of a tool with `support` runs as a task: it does for a client that
/// supports tasks; a tool that requires a task is refused to any other.
fn runs_as_task(
    support: TaskSupport,
    caller: Caller<'_>,
    sent_name: &str,
    meta: Option<&Value>,
) -> Result<bool, Answer> {
    if support == TaskSupport::Forbidden {
        return Ok(false);
    }
    let declared = tasks::declares_tasks(meta, caller.peer);
    if !declared && support == TaskSupport::Required {
        let fault = tasks::missing_tasks(&format!("tool `{sent_name}`"));
        // 400 at 2026-07-28, as its other refusals; a JSON-RPC error on the handshake's
        // revisions.
        let status = if caller.stateless {
            Status::BadRequest
        } else {
            Status::Ok
        };
        return Err(Answer::refused(caller.id, Refusal::new(fault, status)));
    }
    Ok(declared)
}

/// A call checked and ready to run.
pub(crate) struct PendingCall {
    /// Whether it runs as a task (the tasks extension).
    pub(super) task: bool,
    /// What was served when the call came: it runs there, whatever changes meanwhile.
    pub(super) snapshot: Arc<Snapshot>,
    pub(super) id: Id,
    pub(super) stateless: bool,
    pub(super) call: MCPToolCall,
    pub(super) meta: Option<Map<String, Value>>,
    /// The least severe log messages the client wants, if it wants any.
    log_level: Option<LoggingLevel>,
    /// A 2026-07-28 call's round: the answers given so far, the asks still open.
    pub(super) asks: Option<Arc<Asks>>,
    /// What the client declared at `initialize` (the handshake's revisions).
    pub(super) capabilities: Option<Arc<Map<String, Value>>>,
    /// Who sent it: only they can cancel it. Set when the call waits ([`Server::call_now`]).
    client: String,
    /// Who sent it, as its access token says.
    pub(super) auth: Option<Arc<crate::auth::AuthInfo>>,
    /// Who sent it, as the limits that count per caller know them: only for a registry
    /// with layers, which may count.
    pub(super) caller: Option<crate::auth::Caller>,
    /// A call [`Server::call_now`] began and a layer made wait: the layers it passed, and
    /// its options.
    passed: Option<(Passed, CallOptions)>,
    /// What ends the call's SSE stream, for a call answered on one its client can resume.
    pub(super) stream_close: Option<CancellationToken>,
    /// The arguments as written, an object, when they are not yet read into `call`: a
    /// tool that reads its parameters from the text runs with no tree built for them.
    text: Option<Box<RawValue>>,
}

impl PendingCall {
    /// The arguments read from their text into the call, if they were left as text; the
    /// answer to the call if they do not read.
    fn read_text(&mut self) -> Result<(), Answer> {
        if let Some(text) = self.text.take() {
            self.call.arguments = object_of(&self.id, CallArguments::Text(text))?;
        }
        Ok(())
    }

    /// `options` with the call's `_meta` and who sent it, which it gives up.
    fn given_up(&mut self, mut options: CallOptions) -> CallOptions {
        if let Some(meta) = self.meta.take() {
            options = options.with_meta(meta);
        }
        if let Some(auth) = self.auth.take() {
            options = options.with_auth(auth);
        }
        match self.caller.take() {
            Some(caller) => options.with_caller(caller),
            None => options,
        }
    }

    /// Whether the call may send notifications before its answer: it asks for progress
    /// reports (its `_meta` has a `progressToken`), or for log messages.
    pub(crate) fn reports(&self) -> bool {
        self.log_level.is_some()
            || self
                .meta
                .as_ref()
                .is_some_and(|meta| meta.contains_key("progressToken"))
            || self.may_ask()
    }

    /// Whether the call is quick to start where it was read: a mounted tool of another
    /// server, whose call, up to its first wait, only writes the request to that server.
    pub(crate) fn starts_at_once(&self) -> bool {
        self.snapshot
            .registry
            .get(self.call.tool_name.as_str())
            .is_some_and(crate::tool::RegisteredTool::starts_at_once)
    }

    /// Whether the call may send the client requests before its answer: a tool that can
    /// await (only those can ask), called on the handshake's revisions by a client that
    /// can answer some request.
    fn may_ask(&self) -> bool {
        self.capabilities.as_ref().is_some_and(|capabilities| {
            ["elicitation", "sampling", "roots"]
                .iter()
                .any(|capability| capabilities.contains_key(*capability))
        }) && self
            .snapshot
            .registry
            .may_ask_user(self.call.tool_name.as_str())
    }
}
