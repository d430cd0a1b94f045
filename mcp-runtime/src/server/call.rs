//! A `tools/call` as a server takes it: checked and its tool found ([`Server::begin_call`]),
//! run at once when it is inline ([`Server::call_now`]), or awaited with what it may send
//! meanwhile: progress, log messages, requests to the client ([`Server::finish`]).

use std::collections::HashMap;
use std::sync::Arc;

use futures_util::FutureExt;
use mcp_runtime_core::{LoggingLevel, MCPToolCall};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::jsonrpc::{self, CallParams, Id};
use super::rounds::round_context;
use super::served::Snapshot;
use super::stateless::Status;
use super::stateless::{self, Mirrored};
use super::{Answer, Notifier, Peer, Server, Step, admit, fault_response, in_flight_key, tasks};
use crate::execute::CallOptions;
use crate::outbound::{Asks, Round, TaskSlot, Way};
use crate::registry::{closest_names, did_you_mean};

impl Server {
    /// Checks a call's parameters and finds its tool; the error answer otherwise.
    pub(super) fn begin_call(
        &self,
        id: Id,
        params: CallParams,
        peer: &Peer<'_>,
        mirrored: Option<&Mirrored<'_>>,
    ) -> Result<PendingCall, Answer> {
        let stateless = match admit("tools/call", params.meta.as_ref(), mirrored) {
            Ok(stateless) => stateless,
            Err(refusal) => return Err(Answer::refused(&id, refusal)),
        };
        let invalid = |message: String| {
            Err(Answer::ok(fault_response(
                &id,
                (jsonrpc::INVALID_PARAMS, message, None),
            )))
        };
        let sent_name = match params.name {
            Some(Value::String(name)) => name,
            _ => return invalid("`name` must be the tool's name".to_owned()),
        };
        if stateless {
            if let Err(refusal) = stateless::admit_name(&sent_name, mirrored) {
                return Err(Answer::refused(&id, refusal));
            }
        }
        let snapshot = self.served.load_full();
        let name = match &snapshot.llm_names {
            Some(names) => match names.to_canonical.get(&sent_name) {
                Some(canonical) => canonical.clone(),
                None => {
                    let near =
                        closest_names(&sent_name, names.to_canonical.keys().map(String::as_str));
                    return invalid(format!("Unknown tool: {sent_name}{}", did_you_mean(&near)));
                }
            },
            None => sent_name.clone(),
        };
        let arguments = match params.arguments {
            None => Map::new(),
            Some(Value::Object(arguments)) => arguments,
            Some(_) => return invalid("`arguments` must be an object".to_owned()),
        };
        // The registry's own name: a valid name, not checked again.
        let task;
        let call = match snapshot.registry.get(&name) {
            Some(tool) if tool.is_enabled() => {
                // A caller an access token describes needs every scope the tool asks.
                let needed = tool.definition().scopes();
                if !peer.allows(needed) {
                    return Err(Answer::insufficient_scope(&id, needed, peer));
                }
                if stateless {
                    let admitted = stateless::admit_call(
                        tool.definition(),
                        &arguments,
                        params.meta.as_ref(),
                        mirrored,
                    );
                    if let Err(refusal) = admitted {
                        return Err(Answer::refused(&id, refusal));
                    }
                } else if let Some(declared) = &peer.capabilities {
                    // The handshake's client declared its capabilities once, at
                    // `initialize`: a tool that needs one it lacks does not run.
                    if let Err(fault) = stateless::requires(tool.definition(), declared) {
                        return Err(Answer::ok(fault_response(&id, fault)));
                    }
                }
                // A task tool runs as a task for a client that supports tasks; one that
                // requires a task is refused to any other.
                task = match tool.definition().task_support() {
                    mcp_runtime_core::TaskSupport::Forbidden => false,
                    support => {
                        let declared = tasks::declares_tasks(params.meta.as_ref(), peer);
                        if !declared && support == mcp_runtime_core::TaskSupport::Required {
                            let fault = tasks::missing_tasks(&format!("tool `{sent_name}`"));
                            // 400 at 2026-07-28, as its other refusals; a JSON-RPC error
                            // on the handshake's revisions.
                            let status = if stateless {
                                Status::BadRequest
                            } else {
                                Status::Ok
                            };
                            return Err(Answer::refused(&id, (fault, status)));
                        }
                        declared
                    }
                };
                MCPToolCall {
                    tool_name: tool.name().clone(),
                    arguments,
                }
            }
            _ => {
                let near = match &snapshot.llm_names {
                    Some(_) => Vec::new(),
                    None => snapshot.registry.closest(&sent_name),
                };
                return invalid(format!("Unknown tool: {sent_name}{}", did_you_mean(&near)));
            }
        };
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
        // At 2026-07-28 a call that asks the client is answered over rounds. A tool that
        // cannot ask (it cannot await) takes no round: nothing to bind, seal or open.
        let asks = if stateless && snapshot.registry.may_ask_user(call.tool_name.as_str()) {
            let context = round_context("tools/call", &sent_name, &call.arguments);
            let retry = params.retry.map(|retry| *retry).unwrap_or_default();
            match self.round(&context, retry.input_responses, retry.request_state) {
                Ok(round) => Some(Arc::new(Asks {
                    capabilities: meta
                        .as_ref()
                        .and_then(|meta| meta.get(stateless::CLIENT_CAPABILITIES_KEY))
                        .and_then(Value::as_object)
                        .map(|capabilities| Arc::new(capabilities.clone())),
                    way: Way::Round { round, context },
                    task: TaskSlot::default(),
                })),
                Err(refused) => return invalid(refused.to_string()),
            }
        } else {
            None
        };
        let capabilities = if stateless {
            None
        } else {
            peer.capabilities.clone()
        };
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
            client: peer.client.to_owned(),
            auth: peer.auth.clone(),
        })
    }

    /// Runs an inline call that reports no progress right here; any other is left to
    /// [`Server::finish`].
    pub(super) fn call_now(&self, pending: PendingCall) -> Step {
        let reports_progress = pending.reports();
        let registry = &pending.snapshot.registry;
        let inline = registry
            .get(pending.call.tool_name.as_str())
            .is_some_and(|tool| tool.runs_inline() && !registry.awaits_before(tool.built()));
        if reports_progress || !inline || pending.task {
            return Step::Call(Box::new(pending));
        }
        let mut options = CallOptions::new();
        if let Some(meta) = pending.meta {
            options = options.with_meta(meta);
        }
        if let Some(auth) = pending.auth {
            options = options.with_auth(auth);
        }
        // An inline tool runs to its end within the first poll: there is nothing to await,
        // and nothing a cancellation could stop.
        match pending
            .snapshot
            .registry
            .call_with(pending.call, options)
            .now_or_never()
        {
            Some(result) => Step::Answered(Some(Answer::ok(self.respond_call(
                &pending.id,
                pending.stateless,
                result,
            )))),
            None => Step::Answered(Some(Answer::ok(fault_response(
                &pending.id,
                (
                    jsonrpc::INTERNAL_ERROR,
                    "an inline tool did not finish at once".to_owned(),
                    None,
                ),
            )))),
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
        let mut options = CallOptions::new().with_cancellation(token.clone());
        if let (Some(least), Some(notify)) = (pending.log_level, &notify) {
            let notify = Arc::clone(notify);
            options = options.with_log(least, move |message| {
                notify(jsonrpc::notification(
                    "notifications/message",
                    json!(message),
                ));
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
                notify(jsonrpc::notification("notifications/progress", params));
            });
        }
        // The handshake's revisions: a tool's asks are requests on the call's stream.
        let options = self.call_options(&mut pending, notify, options);
        let id = &pending.id;
        let key = in_flight_key(&pending.client, &id.key());
        let serial = self
            .serial
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.lock_in_flight()
            .insert(key.clone(), (serial, token.clone()));
        let result = pending
            .snapshot
            .registry
            .call_with(pending.call, options)
            .await;
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
            pending.asks = capabilities.map(|capabilities| self.handshake_asks(capabilities, send));
        }
        if let Some(asks) = &pending.asks {
            options = options.with_asks(Arc::clone(asks));
        }
        if let Some(meta) = pending.meta.take() {
            options = options.with_meta(meta);
        }
        if let Some(auth) = pending.auth.take() {
            options = options.with_auth(auth);
        }
        options
    }

    /// How a call's asks reach a client of the handshake's revisions that declared
    /// `capabilities` at `initialize`: requests on the call's stream, `send`, if it has one.
    pub(super) fn handshake_asks(
        &self,
        capabilities: Arc<Map<String, Value>>,
        send: Option<Notifier>,
    ) -> Arc<Asks> {
        Arc::new(Asks {
            // Shared with the connection's, not copied for each call.
            capabilities: Some(capabilities),
            way: Way::Send {
                send,
                outgoing: Arc::clone(&self.outgoing),
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
    /// Who sent it: only they can cancel it.
    client: String,
    /// Who sent it, as its access token says.
    pub(super) auth: Option<Arc<crate::AuthInfo>>,
}

impl PendingCall {
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
            .is_some_and(crate::RegisteredTool::starts_at_once)
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
