//! What a caller attaches to one call: its `_meta`, where its progress and log messages go,
//! who calls, how it is cancelled.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use mcp_runtime_core::{LogMessage, LoggingLevel};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::auth::{AuthInfo, Caller};
use crate::context::{Progress, Reports};

/// What a caller may attach to one call.
///
/// ```
/// use mcp_runtime::CallOptions;
///
/// let options = CallOptions::new()
///     .with_progress(|report| eprintln!("{} of {:?}", report.progress, report.total));
/// ```
#[derive(Clone, Default)]
pub struct CallOptions {
    pub(crate) meta: Option<Arc<Map<String, Value>>>,
    pub(crate) reports: Reports,
    pub(crate) cancellation: Option<CancellationToken>,
    pub(crate) caller: Option<Caller>,
}

/// The options of a call given none, for the calls that borrow them.
static NO_OPTIONS: CallOptions = CallOptions {
    meta: None,
    reports: Reports::NONE,
    cancellation: None,
    caller: None,
};

/// The options of a call as the registry takes them: given, or none at all, which costs
/// the call's future no room.
pub(crate) trait Options: Send {
    /// The options, borrowed by a tool that runs inline.
    fn borrowed(&self) -> &CallOptions;
    /// The options, owned by a tool that runs on its own future.
    fn owned(self) -> CallOptions;
}

/// No options: [`Registry::call`](crate::Registry::call)'s.
#[derive(Default)]
pub(crate) struct NoOptions;

impl Options for NoOptions {
    fn borrowed(&self) -> &CallOptions {
        &NO_OPTIONS
    }

    fn owned(self) -> CallOptions {
        CallOptions::default()
    }
}

impl Options for CallOptions {
    fn borrowed(&self) -> &CallOptions {
        self
    }

    fn owned(self) -> CallOptions {
        self
    }
}

impl CallOptions {
    /// No metadata, no progress reports, no cancellation but dropping the call.
    pub fn new() -> Self {
        Self::default()
    }

    /// The call's metadata, which the tool reads with [`ToolContext::meta`](crate::ToolContext::meta).
    #[must_use]
    pub fn with_meta(mut self, meta: Map<String, Value>) -> Self {
        self.meta = Some(Arc::new(meta));
        self
    }

    /// Where the tool's progress reports go.
    #[must_use]
    pub fn with_progress(mut self, sink: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        self.reports.progress = Some(Arc::new(sink));
        self
    }

    /// Where the tool's log messages at `least` or above go
    /// ([`ToolContext::log`](crate::ToolContext::log)); the others are dropped.
    #[must_use]
    pub fn with_log(
        mut self,
        least: LoggingLevel,
        sink: impl Fn(LogMessage) + Send + Sync + 'static,
    ) -> Self {
        self.reports.log = Some((least, Arc::new(sink)));
        self
    }

    /// Where the tool's [`ToolContext::notify_resource_updated`](crate::ToolContext::notify_resource_updated)
    /// goes: the URI of each resource it updated.
    #[must_use]
    pub fn with_resource_updates(mut self, sink: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.reports.updates = Some(Arc::new(sink));
        self
    }

    /// Where the tool tells of the resources it updated: a sink made once, shared.
    pub(crate) fn with_update_sink(mut self, sink: &crate::context::UpdateSink) -> Self {
        self.reports.updates = Some(Arc::clone(sink));
        self
    }

    /// What ends the SSE stream the call's answer would go on
    /// ([`ToolContext::close_sse_stream`](crate::ToolContext::close_sse_stream)).
    pub(crate) fn with_stream_close(mut self, close: CancellationToken) -> Self {
        self.reports.stream_close = Some(close);
        self
    }

    /// Who calls, which the tool reads with [`ToolContext::auth`](crate::ToolContext::auth).
    #[must_use]
    pub fn with_auth(mut self, auth: Arc<AuthInfo>) -> Self {
        self.reports.auth = Some(auth);
        self
    }

    /// Who calls, for the limits that count per caller, when no access token names its
    /// subject: the HTTP session, the client's address or the stdio connection.
    #[must_use]
    pub fn with_caller(mut self, caller: Caller) -> Self {
        self.caller = Some(caller);
        self
    }

    /// Who calls: the subject of its access token, else the caller given with
    /// [`CallOptions::with_caller`], else [`Caller::Local`].
    pub fn caller(&self) -> Caller {
        let subject = self.reports.auth.as_deref().and_then(AuthInfo::subject);
        match (subject, &self.caller) {
            (Some(subject), _) => Caller::Subject(subject.into()),
            (None, Some(caller)) => caller.clone(),
            (None, None) => Caller::Local,
        }
    }

    /// Who calls, as its access token says; `None` without one.
    pub fn auth(&self) -> Option<&Arc<AuthInfo>> {
        self.reports.auth.as_ref()
    }

    /// The call's metadata (`_meta`), if it came with any.
    pub fn meta(&self) -> Option<&Map<String, Value>> {
        self.meta.as_deref()
    }

    /// The token that cancels the call, if it was given one.
    pub fn cancellation(&self) -> Option<&CancellationToken> {
        self.cancellation.as_ref()
    }

    /// How the call's asks reach the client.
    pub(crate) fn with_asks(mut self, asks: Arc<crate::outbound::Asks>) -> Self {
        self.reports.asks = Some(asks);
        self
    }

    /// A flag raised when the tool panics.
    pub(crate) fn with_panic_flag(mut self, flag: Arc<AtomicBool>) -> Self {
        self.reports.panicked = Some(flag);
        self
    }

    /// A token that cancels the call: the tool's own token is a child of it, and the call
    /// answers as soon as it is cancelled.
    #[must_use]
    pub fn with_cancellation(mut self, token: CancellationToken) -> Self {
        self.cancellation = Some(token);
        self
    }
}

impl std::fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallOptions")
            .field("meta", &self.meta)
            .field("progress", &self.reports.progress.is_some())
            .field(
                "log_level",
                &self.reports.log.as_ref().map(|(level, _)| *level),
            )
            .field("cancellation", &self.cancellation)
            .field("caller", &self.caller)
            .finish()
    }
}
