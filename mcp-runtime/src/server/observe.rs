//! What telemetry is told of each request a transport takes: the operation, read from the
//! message before it is handled (its method, what it is about, its id, its revision, the
//! trace its `_meta` carries), and its end, read from the answer. While telemetry is off,
//! one atomic load and nothing else.

use std::borrow::Cow;
use std::future::Future;

use futures_util::future::Either;
use mcp_runtime_core::method::Method;
use serde_json::{Map, Value};

use super::jsonrpc::{Id, Incoming};
use super::stateless::{Mirrored, PROTOCOL_VERSION_KEY};
use crate::telemetry::{self, Operation, Outcome, ServerOperation, Target, Transport};

/// Begins the record of `incoming`, a request from `session` (where the transport has
/// sessions) over `transport`, whose connection `negotiated` a revision at `initialize`
/// (stdio); `None` for anything but a request, or while telemetry is off.
#[inline]
pub(crate) fn begin(
    incoming: &Incoming,
    transport: Transport,
    session: Option<&str>,
    mirrored: Option<&Mirrored<'_>>,
    negotiated: Option<&'static str>,
) -> Option<ServerOperation> {
    if !telemetry::enabled() {
        return None;
    }
    let (id, method, params, target) = match incoming {
        Incoming::Call { id, params } => (
            id,
            Method::ToolsCall.as_str(),
            params.meta.as_ref().and_then(Value::as_object),
            params
                .name
                .as_ref()
                .and_then(Value::as_str)
                .map_or(Target::None, Target::Tool),
        ),
        Incoming::Request { id, method, params } => {
            let meta = params.get("_meta").and_then(Value::as_object);
            (id, method.as_str(), meta, target(method, params))
        }
        Incoming::Cancelled { .. } | Incoming::Notification { .. } | Incoming::Response { .. } => {
            return None;
        }
    };
    let request_id = request_id(id);
    let operation = Operation::new(method, transport)
        .with_target(target)
        .with_session_id(session)
        .with_protocol_version(protocol_version(incoming, params, mirrored).or(negotiated));
    let operation = match &request_id {
        Some(id) => operation.with_request_id(id),
        None => operation,
    };
    telemetry::server_operation(&operation, params)
}

/// Ends `operation` with what `answer` tells; a request left unanswered (a call its
/// client cancelled) ends as cancelled.
#[inline]
pub(crate) fn end(operation: Option<ServerOperation>, answer: Option<&str>) {
    if let Some(operation) = operation {
        match answer {
            Some(answer) => operation.end_with_response(answer),
            None => operation.end(Outcome::Cancelled),
        }
    }
}

/// Ends `operation` with `answer`: the outcome its maker knew, else what its text tells.
#[inline]
pub(crate) fn answered(operation: Option<ServerOperation>, answer: &super::Answer) {
    if let Some(operation) = operation {
        match answer.outcome {
            Some(outcome) => operation.end(outcome),
            None => operation.end_with_response(&answer.text),
        }
    }
}

/// Ends `operation` as a success: a stream opened, its acknowledgement sent.
#[inline]
pub(crate) fn succeeded(operation: Option<ServerOperation>) {
    if let Some(operation) = operation {
        operation.end(Outcome::Success);
    }
}

/// `future`, run within `operation`'s span where there is one: what it starts (a call to
/// another server) continues the trace. Not an `async fn`: one would hold `future` twice,
/// as its argument and as what it awaits, and a call's future is some 6 KiB.
pub(crate) fn scoped<F: Future>(
    operation: &Option<ServerOperation>,
    future: F,
) -> Either<telemetry::Scoped<F>, F> {
    match operation {
        Some(operation) => Either::Left(operation.scope(future)),
        None => Either::Right(future),
    }
}

/// What a request other than a call is about: a prompt by its name, a resource by its URI.
fn target<'a>(method: &Method, params: &'a Map<String, Value>) -> Target<'a> {
    let field = |name: &str| params.get(name).and_then(Value::as_str);
    match method {
        Method::PromptsGet => field("name").map_or(Target::None, Target::Prompt),
        Method::ResourcesRead | Method::ResourcesSubscribe | Method::ResourcesUnsubscribe => {
            field("uri").map_or(Target::None, Target::Resource)
        }
        _ => Target::None,
    }
}

/// The revision a request speaks, where it says: in `_meta` (2026-07-28), in the
/// `MCP-Protocol-Version` header, or, for `initialize`, the one it asks for.
fn protocol_version<'a>(
    incoming: &'a Incoming,
    meta: Option<&'a Map<String, Value>>,
    mirrored: Option<&'a Mirrored<'a>>,
) -> Option<&'a str> {
    meta.and_then(|meta| meta.get(PROTOCOL_VERSION_KEY))
        .and_then(Value::as_str)
        .or_else(|| mirrored.and_then(|headers| headers.version))
        .or_else(|| match incoming {
            Incoming::Request {
                method: Method::Initialize,
                params,
                ..
            } => params.get("protocolVersion").and_then(Value::as_str),
            _ => None,
        })
}

/// The revision the server answers an `initialize` that asks for `requested` with: the
/// one asked for, when the server speaks it, else its newest.
pub(crate) fn negotiated(incoming: &Incoming) -> Option<&'static str> {
    let Incoming::Request {
        method: Method::Initialize,
        params,
        ..
    } = incoming
    else {
        return None;
    };
    Some(super::negotiated(
        params.get("protocolVersion").and_then(Value::as_str),
    ))
}

/// `jsonrpc.request.id`: a string id as itself, a number as written.
fn request_id(id: &Id) -> Option<Cow<'_, str>> {
    let written = id.written()?;
    if written.starts_with('"') {
        id.as_string().map(Cow::Owned)
    } else {
        // A number, as it was written: no copy.
        Some(Cow::Borrowed(written))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_future_run_in_an_operations_span_is_held_once() {
        let big = [7_u8; 4096];
        let future = async move { big.iter().map(|&byte| u64::from(byte)).sum::<u64>() };
        let alone = std::mem::size_of_val(&future);
        let scoped = scoped(&None, future);
        // One future, and what tells the span's from none: not the future twice.
        assert!(
            std::mem::size_of_val(&scoped) < alone + 64,
            "{} bytes for a future of {alone}",
            std::mem::size_of_val(&scoped)
        );
        let sum = futures_util::FutureExt::now_or_never(scoped);
        assert_eq!(sum, Some(7 * 4096));
    }
}
