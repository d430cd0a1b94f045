//! Resources, prompts and completion as a server serves them: `resources/list`,
//! `resources/templates/list`, `resources/read`, `resources/subscribe` and
//! `resources/unsubscribe`, `prompts/list`, `prompts/get`, `completion/complete`.

use std::collections::BTreeSet;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use futures_util::FutureExt;
use mcp_runtime_core::method::Method;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::fault::Refusal;
use super::jsonrpc::{self, Id};
use super::listen::{Listen, ListenGuard};
use super::served::Snapshot;
use super::stateless;
use super::{
    Answer, CacheScope, Fault, Notifier, Peer, Request, STATELESS_VERSION, Server, Step,
    fault_response, in_flight_key,
};
use crate::context::options::CallOptions;
use crate::outbound::{Asks, Round, TaskSlot, Way};
use crate::registration::CompletionContext;
use crate::registry::{CompletionRef, PromptError, ReadError};
use crate::talk::{Asker, StateKey};

pub use mcp_runtime_core::wire::RESOURCE_NOT_FOUND;

/// The most candidates one `completion/complete` answer carries, as MCP allows.
const MAX_COMPLETIONS: usize = 100;

/// A request whose answer is awaited: a resource read or a prompt whose function is
/// `async`.
pub(crate) struct Awaiting {
    pub(super) id: Id,
    pub(super) stateless: bool,
    /// Whether the reply is the whole result already (`resultType` and `_meta` in it).
    pub(super) written: bool,
    pub(super) future: Pin<Box<dyn Future<Output = Reply> + Send + 'static>>,
}

/// A 2026-07-28 request's round, and the key that seals its state.
type Sealing = (Arc<Asks>, StateKey);

/// A result, written once, or the error to answer with.
pub(super) type Reply = Result<Box<RawValue>, Fault>;

/// `result`, written as JSON without a tree of values in between.
fn written<T: Serialize>(result: &T) -> Reply {
    serde_json::value::to_raw_value(result)
        .map_err(|err| Fault::internal(format!("cannot write the result: {err}")))
}

/// -32602 with `message`.
fn invalid(message: impl Into<String>) -> Fault {
    Fault::invalid_params(message)
}

/// The string parameter `name`, or the error naming it.
fn string_param<'a>(params: &'a Map<String, Value>, name: &str) -> Result<&'a str, Fault> {
    params
        .get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| invalid(format!("`{name}` must be a string")))
}

impl Server {
    /// `completion/complete`: refused to a caller not granted the scopes of the prompt or
    /// template it completes, whose candidates may tell what only such a caller should see.
    pub(super) fn completion(&self, snapshot: &Snapshot, request: &Request<'_>) -> Step {
        let Request {
            id, params, peer, ..
        } = *request;
        let needed = completion_ref(params)
            .ok()
            .and_then(|reference| snapshot.registry.completion_scopes(&reference));
        if let Some(needed) = needed.filter(|needed| !peer.allows(needed)) {
            return Step::Answered(Some(Answer::insufficient_scope(id, &needed, peer)));
        }
        Step::Answered(Some(
            self.answered(request, self.complete(snapshot, params)),
        ))
    }

    /// Opens a `subscriptions/listen` stream (2026-07-28 only) once its filter is read. The
    /// updates of a resource need its scopes, as reading it does.
    pub(super) fn begin_listen(&self, snapshot: &Snapshot, request: &Request<'_>) -> Step {
        let (id, params, peer) = (request.id, request.params, request.peer);
        let refused = if request.stateless {
            match Listen::read(id.clone(), params) {
                Ok(listen) => {
                    let needed: BTreeSet<String> = (listen.wants.subscriptions.iter())
                        .filter_map(|uri| snapshot.registry.resource_scopes(uri))
                        .flatten()
                        .collect();
                    let needed = Vec::from_iter(needed);
                    if !peer.allows(&needed) {
                        let refused = Answer::insufficient_scope(id, &needed, peer);
                        return Step::Answered(Some(refused));
                    }
                    return Step::Listen(Box::new(listen));
                }
                Err(err) => Answer::refused(
                    id,
                    Refusal::bad_request(Fault::invalid_params(err.to_string())),
                ),
            }
        } else {
            Answer::ok(fault_response(
                id,
                Fault::method_not_found(format!(
                    "method `{}` exists at protocol version {STATELESS_VERSION} only",
                    Method::SubscriptionsListen
                )),
            ))
        };
        Step::Answered(Some(refused))
    }

    /// Starts the stream of a `subscriptions/listen` request from `client`: its
    /// acknowledgement goes to `send` at once, then each change it asked for, until the
    /// guard is dropped or the client cancels the request.
    pub(crate) fn listen(&self, listen: &Listen, client: &str, send: Notifier) -> ListenGuard {
        let key = in_flight_key(client, &listen.id);
        self.listeners.listen(listen, key, send)
    }

    /// `resources/subscribe` and `resources/unsubscribe` of the handshake's revisions: the
    /// transport that keeps the connection records them, unless refused here; here they
    /// are checked and acknowledged. A subscription to a resource needs its scopes, as a
    /// read does: its updates tell what only such a caller should know. Leaving one never
    /// does.
    pub(super) fn subscription(
        &self,
        snapshot: &Snapshot,
        request: &Request<'_>,
        on: bool,
    ) -> Step {
        let scopes = |uri: &str| snapshot.registry.resource_scopes(uri).filter(|_| on);
        if let Err(refused) = self.named(request, "uri", scopes) {
            return refused;
        }
        Step::Answered(Some(self.answered(request, Ok(json!({})))))
    }

    /// The string parameter `param` of `request`, the name of what it reads or gets, with
    /// the scopes `scopes` says that needs (none for a name of nothing known); or the step
    /// refusing it: a name that is not a string, or at 2026-07-28 not the one the transport
    /// mirrored, or a caller not granted every one of those scopes.
    fn named<'a>(
        &self,
        request: &Request<'a>,
        param: &str,
        scopes: impl FnOnce(&str) -> Option<Vec<String>>,
    ) -> Result<(&'a str, Vec<String>), Step> {
        let id = request.id;
        let name = string_param(request.params, param).map_err(|fault| self.fault(id, fault))?;
        if request.stateless {
            stateless::admit_name(name, request.mirrored)
                .map_err(|refusal| Step::Answered(Some(Answer::refused(id, refusal))))?;
        }
        let needed = scopes(name).unwrap_or_default();
        if !request.peer.allows(&needed) {
            let refused = Answer::insufficient_scope(id, &needed, request.peer);
            return Err(Step::Answered(Some(refused)));
        }
        Ok((name, needed))
    }

    /// `resources/read`: answered at once when the resource's function is not `async`.
    pub(super) fn read(&self, snapshot: &Snapshot, request: &Request<'_>) -> Step {
        let (id, params, stateless) = (request.id, request.params, request.stateless);
        // The scopes of the resource, or of the template whose resource it is.
        let scopes = |uri: &str| snapshot.registry.resource_scopes(uri);
        let (uri, needed) = match self.named(request, "uri", scopes) {
            Ok(named) => named,
            Err(refused) => return refused,
        };
        let hints = stateless.then(|| {
            let mut hints = Map::new();
            let own = snapshot.registry.cache_meta(uri);
            self.hint(&mut hints, own.as_ref(), self.cache_scope(request.peer));
            if !needed.is_empty() {
                // What not every caller may read is never shared between callers, even
                // where the resource says `public`.
                hints.insert("cacheScope".to_owned(), json!(CacheScope::Private));
            }
            hints
        });
        // At 2026-07-28 a resource that asks the client is answered over rounds.
        let (asker, round) =
            match self.round_of(stateless, &Method::ResourcesRead, uri, &Map::new(), params) {
                Ok(round) => round,
                Err(fault) => return self.fault(id, fault),
            };
        // Only a round's answer names the server.
        let server_info = round.as_ref().map(|_| self.server_info());
        let options = layer_options(snapshot, request.peer);
        let read = snapshot.registry.read_resource_asking(uri, asker, options);
        let uri = uri.to_owned();
        let future = async move {
            let read = read.await;
            if let Some(asked) = input_required(round, server_info.as_ref()) {
                return asked;
            }
            match read {
                Ok(contents) => {
                    #[derive(Serialize)]
                    struct Read {
                        contents: Vec<mcp_runtime_core::ResourceContents>,
                        #[serde(flatten)]
                        hints: Option<Map<String, Value>>,
                    }
                    written(&Read { contents, hints })
                }
                Err(ReadError::NotFound(_)) => {
                    // 2026-07-28 (SEP-2164) made it invalid params; before, its own code.
                    let code = if stateless {
                        jsonrpc::INVALID_PARAMS
                    } else {
                        RESOURCE_NOT_FOUND
                    };
                    Err(Fault::new(code, format!("resource not found: {uri}"))
                        .with_data(json!({ "uri": uri })))
                }
                // Invalid params too, but never naming a URI in `data.uri`: that is what
                // tells a missing resource apart.
                Err(ReadError::Failed(err))
                    if *err.error_type() == mcp_runtime_core::ErrorType::ValidationError =>
                {
                    Err(Fault {
                        data: invalid_data(&err, "uri"),
                        ..Fault::invalid_params(err.message())
                    })
                }
                Err(ReadError::Failed(err)) => Err(failure(&err)),
            }
        };
        self.awaiting(id, stateless, Box::pin(future))
    }

    /// `prompts/get`: answered at once when the prompt's function is not `async`.
    pub(super) fn get(&self, snapshot: &Snapshot, request: &Request<'_>) -> Step {
        let (id, params, stateless) = (request.id, request.params, request.stateless);
        let scopes = |name: &str| Some(snapshot.registry.prompt(name)?.definition().scopes());
        let name = match self.named(request, "name", scopes) {
            Ok((name, _)) => name,
            Err(refused) => return refused,
        };
        let arguments = match params.get("arguments") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(arguments)) => arguments.clone(),
            Some(_) => return self.fault(id, invalid("`arguments` must be an object")),
        };
        // At 2026-07-28 a prompt that asks the client is answered over rounds.
        let (asker, round) =
            match self.round_of(stateless, &Method::PromptsGet, name, &arguments, params) {
                Ok(round) => round,
                Err(fault) => return self.fault(id, fault),
            };
        // Only a round's answer names the server.
        let server_info = round.as_ref().map(|_| self.server_info());
        let options = layer_options(snapshot, request.peer);
        let get = snapshot
            .registry
            .get_prompt_asking(name, arguments, asker, options);
        let future = async move {
            let got = get.await;
            if let Some(asked) = input_required(round, server_info.as_ref()) {
                return asked;
            }
            match got {
                Ok(result) => written(&result),
                Err(PromptError::NotFound(name)) => {
                    Err(Fault::invalid_params(format!("unknown prompt `{name}`"))
                        .with_data(json!({ "name": name })))
                }
                Err(PromptError::Invalid(err)) => Err(Fault {
                    data: invalid_data(&err, "name"),
                    ..Fault::invalid_params(err.message())
                }),
                Err(PromptError::Failed(err)) => Err(failure(&err)),
            }
        };
        self.awaiting(id, stateless, Box::pin(future))
    }

    /// The round a 2026-07-28 request of `method` for `name` begins, and what asks the
    /// client for it; no round before 2026-07-28.
    fn round_of(
        &self,
        stateless: bool,
        method: &Method,
        name: &str,
        arguments: &Map<String, Value>,
        params: &Map<String, Value>,
    ) -> Result<(Asker, Option<Sealing>), Fault> {
        if !stateless {
            return Ok((Asker::default(), None));
        }
        let context = super::round_context(method.as_str(), name, arguments);
        let round = self
            .round(
                &context,
                params.get("inputResponses").cloned(),
                params.get("requestState").cloned(),
            )
            .map_err(|refused| invalid(refused.to_string()))?;
        let key = self
            .state_key()
            .cloned()
            .map_err(|err| Fault::internal(err.to_string()))?;
        let asks = Arc::new(Asks {
            capabilities: params
                .get("_meta")
                .and_then(|meta| meta.get(stateless::CLIENT_CAPABILITIES_KEY))
                .and_then(Value::as_object)
                .map(|capabilities| Arc::new(capabilities.clone())),
            way: Way::Round { round, context },
            task: TaskSlot::default(),
        });
        Ok((asks.asker(), Some((asks, key))))
    }

    /// `completion/complete`: candidates for a prompt's argument or a template's variable.
    fn complete(&self, snapshot: &Snapshot, params: &Map<String, Value>) -> Result<Value, Fault> {
        let reference = completion_ref(params)?;
        let argument = params
            .get("argument")
            .and_then(Value::as_object)
            .ok_or_else(|| invalid("`argument` must be an object with `name` and `value`"))?;
        let (name, value) = (
            string_param(argument, "name")?,
            string_param(argument, "value")?,
        );
        let context = params
            .get("context")
            .and_then(|context| context.get("arguments"))
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let mut values = snapshot
            .registry
            .complete(&reference, name, value, &CompletionContext::new(context))
            .ok_or_else(|| match &reference {
                CompletionRef::Prompt(name) => {
                    invalid(format!("unknown prompt `{name}`")).with_data(json!({ "name": name }))
                }
                CompletionRef::Template(uri) => {
                    invalid(format!("unknown resource template `{uri}`"))
                        .with_data(json!({ "uri": uri }))
                }
            })?;
        let total = values.len();
        values.truncate(MAX_COMPLETIONS);
        Ok(json!({
            "completion": { "values": values, "total": total, "hasMore": total > MAX_COMPLETIONS }
        }))
    }

    fn fault(&self, id: &Id, fault: Fault) -> Step {
        Step::Answered(Some(Answer::ok(super::fault_response(id, fault))))
    }

    /// Answers at once when `future` is already done; leaves it to be awaited otherwise.
    fn awaiting(
        &self,
        id: &Id,
        stateless: bool,
        mut future: Pin<Box<dyn Future<Output = Reply> + Send + 'static>>,
    ) -> Step {
        match (&mut future).now_or_never() {
            Some(done) => Step::Answered(Some(self.answer(id, stateless, done))),
            None => Step::Await(Box::new(Awaiting {
                id: id.clone(),
                stateless,
                written: false,
                future,
            })),
        }
    }

    fn answer(&self, id: &Id, stateless: bool, done: Reply) -> Answer {
        match done {
            Ok(result) if !stateless => Answer::ok(self.respond(id, false, &result)),
            // A 2026-07-28 answer adds members to the result, which serde cannot do to
            // JSON already written: read it back.
            Ok(result) => match serde_json::from_str::<Map<String, Value>>(result.get()) {
                // A round that ended on asks: already an `InputRequiredResult`.
                Ok(result)
                    if result.get("resultType").and_then(Value::as_str)
                        == Some("input_required") =>
                {
                    Answer::ok(jsonrpc::result_response(id, &result))
                }
                Ok(result) => Answer::ok(self.respond(id, true, &result)),
                Err(err) => Answer::ok(super::fault_response(
                    id,
                    Fault::internal(format!("cannot write the result: {err}")),
                )),
            },
            Err(fault) => Answer::ok(super::fault_response(id, fault)),
        }
    }

    /// Awaits what [`Server::read`], [`Server::get`] or [`Server::task_request`] left to
    /// await, and answers.
    pub(crate) async fn finish_awaiting(&self, awaiting: Box<Awaiting>) -> String {
        let Awaiting {
            id,
            stateless,
            written,
            future,
        } = *awaiting;
        match (written, future.await) {
            (true, Ok(result)) => jsonrpc::result_response(&id, &result),
            (_, done) => self.answer(&id, stateless, done).text,
        }
    }

    /// Tells every client subscribed to `uri` that the resource changed
    /// (`notifications/resources/updated`): the handshake's connections that sent
    /// `resources/subscribe`, and the `subscriptions/listen` streams that named it. With
    /// sessions in Redis (`SessionStore::redis`, features `http` and `redis`), those that
    /// every other replica of the server holds too.
    pub fn notify_resource_updated(&self, uri: &str) {
        (self.updates)(uri);
    }

    /// Where the calls' tools tell of the resources they updated.
    pub(crate) fn update_sink(&self) -> &crate::context::UpdateSink {
        &self.updates
    }
}

/// The `InputRequiredResult` of a request whose round ended on asks still open, if it did.
fn input_required(round: Option<Sealing>, server_info: Option<&Value>) -> Option<Reply> {
    let (asks, key) = round.filter(|(asks, _)| asks.round().is_some_and(Round::is_open))?;
    let server_info = server_info?;
    Some(
        super::input_required_result(&key, &asks, server_info)
            .map_err(|err| Fault::internal(err.to_string()))
            .and_then(|result| written(&result)),
    )
}

/// What a `completion/complete` request completes: a prompt, or a resource template.
fn completion_ref(params: &Map<String, Value>) -> Result<CompletionRef, Fault> {
    let reference = params
        .get("ref")
        .and_then(Value::as_object)
        .ok_or_else(|| invalid("`ref` must be an object"))?;
    match reference.get("type").and_then(Value::as_str) {
        Some("ref/prompt") => Ok(CompletionRef::Prompt(
            string_param(reference, "name")?.to_owned(),
        )),
        Some("ref/resource") => Ok(CompletionRef::Template(
            string_param(reference, "uri")?.to_owned(),
        )),
        _ => Err(invalid(
            "`ref.type` must be \"ref/prompt\" or \"ref/resource\"",
        )),
    }
}

/// A failure of a resource's or prompt's function: an internal error with its message.
/// The `data` of invalid params for `err`: its details, which must not name what a missing
/// resource or prompt names in the member `key` (`uri`, `name`), since that member is what
/// tells a missing one apart (`client::Refused`); details that would are put under
/// `details`.
fn invalid_data(err: &mcp_runtime_core::ToolError, key: &str) -> Option<Value> {
    let details = json!(err.details()?);
    Some(match details {
        Value::Object(fields) if !fields.contains_key(key) => Value::Object(fields),
        other => json!({ "details": other }),
    })
}

fn failure(err: &mcp_runtime_core::ToolError) -> Fault {
    Fault::internal(err.message()).with_data(json!({ "type": err.error_type() }))
}

/// What tells `listeners`, and through `fanout` the other replicas', that a resource was
/// updated: made once for a server, shared by every call's tool.
pub(super) fn update_sink(
    listeners: &Arc<super::listen::Listeners>,
    fanout: &Arc<super::listen::Fanouts>,
) -> crate::context::UpdateSink {
    let (listeners, fanout) = (Arc::clone(listeners), Arc::clone(fanout));
    Arc::new(move |uri: &str| {
        listeners.updated(uri);
        fanout.resource_updated(uri);
    })
}

/// What the layers around a read or a prompt see of who asks: the caller the limits count
/// by, and the access token; nothing for a registry without layers, which no one asks.
fn layer_options(snapshot: &Snapshot, peer: &Peer<'_>) -> CallOptions {
    if !snapshot.registry.has_layers() {
        return CallOptions::new();
    }
    let options = CallOptions::new().with_caller(peer.caller());
    match &peer.auth {
        Some(auth) => options.with_auth(Arc::clone(auth)),
        None => options,
    }
}
