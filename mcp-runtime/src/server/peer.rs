//! Who sent a message, as its transport knows them, and what the handshake's requests tell
//! a transport to keep of a connection or session: the capabilities declared at
//! `initialize`, the log level of `logging/setLevel`, the resources subscribed to.

use std::sync::Arc;

use mcp_runtime_core::LoggingLevel;
use mcp_runtime_core::method::Method;
use serde_json::{Map, Value};

use super::jsonrpc::Incoming;
use super::{Fault, stateless};

/// Who sent a message, as its transport knows them.
#[derive(Debug, Clone, Default)]
pub(crate) struct Peer<'a> {
    /// Who may cancel their calls: an address over HTTP; on stdio, the one client.
    pub(crate) client: &'a str,
    /// The HTTP session the request came in, when the server knows it.
    pub(crate) session: Option<&'a str>,
    /// The log level the connection (or the HTTP session) set with `logging/setLevel`.
    pub(crate) log_level: Option<LoggingLevel>,
    /// What the connection (or the HTTP session) declared at `initialize`.
    pub(crate) capabilities: Option<Arc<Map<String, Value>>>,
    /// Who sent the request, as its access token says.
    pub(crate) auth: Option<Arc<crate::auth::AuthInfo>>,
    /// Whether listings show it only the items its scopes let it use.
    pub(crate) hide_unauthorized: bool,
}

impl Peer<'_> {
    /// Who calls, for the limits that count per caller (the subject of an access token
    /// comes before these, in [`CallOptions::caller`](crate::CallOptions::caller)): the
    /// session, else the client's address, else the stdio connection.
    pub(crate) fn caller(&self) -> crate::auth::Caller {
        use crate::auth::Caller;
        match (self.session, self.client) {
            (Some(session), _) => Caller::Session(session.into()),
            (None, "") => Caller::Connection,
            (None, address) => Caller::Address(address.into()),
        }
    }

    /// Whether the caller may use an item that needs the OAuth scopes `needed`: it was
    /// granted every one, or no access token describes it (stdio, or a server that takes
    /// none), so that scopes do not apply.
    pub(crate) fn allows(&self, needed: &[String]) -> bool {
        self.auth
            .as_deref()
            .is_none_or(|caller| needed.iter().all(|scope| caller.has_scope(scope)))
    }

    /// Whether a listing shows the caller an item that needs the OAuth scopes `needed`:
    /// always, unless the server hides what a caller may not use.
    pub(crate) fn shows(&self, needed: &[String]) -> bool {
        !self.hide_unauthorized || self.allows(needed)
    }
}

/// The capabilities an `initialize` request declares.
pub(crate) fn declared_capabilities(incoming: &Incoming) -> Option<Arc<Map<String, Value>>> {
    match incoming {
        Incoming::Request {
            method: Method::Initialize,
            params,
            ..
        } => capabilities_in(params),
        _ => None,
    }
}

/// The `capabilities` of an `initialize` request's `params`.
fn capabilities_in(params: &Map<String, Value>) -> Option<Arc<Map<String, Value>>> {
    params
        .get("capabilities")
        .and_then(Value::as_object)
        .map(|capabilities| Arc::new(capabilities.clone()))
}

/// What an `initialize` request tells of the session it opens.
#[cfg(feature = "http")]
#[derive(Debug, Clone)]
pub(crate) struct Opening {
    /// The revision the server answers with.
    pub(crate) revision: &'static str,
    /// The capabilities it declares.
    pub(crate) capabilities: Option<Arc<Map<String, Value>>>,
    /// Its `clientInfo`.
    pub(crate) client_info: Option<Value>,
}

/// What `incoming` tells of the session it opens, when it is an `initialize`.
#[cfg(feature = "http")]
pub(crate) fn opening(incoming: &Incoming) -> Option<Opening> {
    let revision = super::observe::negotiated(incoming)?;
    let Incoming::Request { params, .. } = incoming else {
        return None;
    };
    Some(Opening {
        revision,
        capabilities: capabilities_in(params),
        client_info: params.get("clientInfo").cloned(),
    })
}

/// The resource a handshake revision's `resources/subscribe` (`true`) or
/// `resources/unsubscribe` (`false`) names.
pub(crate) fn subscribes(incoming: &Incoming) -> Option<(String, bool)> {
    match incoming {
        Incoming::Request { method, params, .. }
            if matches!(
                method,
                Method::ResourcesSubscribe | Method::ResourcesUnsubscribe
            ) && !stateless::is_stateless(method, params.get("_meta"), None) =>
        {
            params
                .get("uri")
                .and_then(Value::as_str)
                .map(|uri| (uri.to_owned(), *method == Method::ResourcesSubscribe))
        }
        _ => None,
    }
}

/// The level a handshake revision's `logging/setLevel` sets, when it is one that sets a
/// valid level (the server answers the others with an error).
pub(crate) fn sets_level(incoming: &Incoming) -> Option<LoggingLevel> {
    match incoming {
        Incoming::Request { method, params, .. }
            if *method == Method::LoggingSetLevel
                && !stateless::is_stateless(method, params.get("_meta"), None) =>
        {
            set_level(params).ok()
        }
        _ => None,
    }
}

/// The level a `logging/setLevel` request sets, or why it sets none.
pub(crate) fn set_level(params: &Map<String, Value>) -> Result<LoggingLevel, Fault> {
    let level = params.get("level").ok_or_else(|| {
        Fault::invalid_params(format!("{} needs `level`", Method::LoggingSetLevel))
    })?;
    level
        .as_str()
        .ok_or_else(|| "`level` must be a string".to_owned())
        .and_then(|level| {
            level
                .parse()
                .map_err(|err: mcp_runtime_core::UnknownLevel| err.to_string())
        })
        .map_err(Fault::invalid_params)
}
