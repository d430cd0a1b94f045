//! A call as a [`tower::Service`]: what the layers around a tool call, a resource read or a
//! prompt get see ([`Request`]), what they answer ([`Response`]), and how an error of theirs
//! becomes a failure the client reads ([`failure`]).
//!
//! The registry builds one stack per item: the item's own layer (`#[mcp_tool(layer = …)]`)
//! innermost, then the layers of [`RegistryBuilder::layer_for`](crate::RegistryBuilder::layer_for)
//! and [`RegistryBuilder::layer`](crate::RegistryBuilder::layer), the first added outermost,
//! as `tower::ServiceBuilder` stacks them. At the bottom of every stack is [`Innermost`],
//! which runs what the registry put in the request.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use mcp_runtime_core::{ErrorType, MCPToolResult, PromptResult, ResourceContents, ToolError};
use serde_json::{Map, Value};
use tower::Service;
use tower::util::BoxCloneSyncService;

use crate::auth::{AuthInfo, Caller};
use crate::context::options::CallOptions;

/// The error of a layer: any error, as tower's own layers return them.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A stack of layers around one item, its innermost service included.
pub type Stack = BoxCloneSyncService<Request, Response, BoxError>;

/// The future a [`Request`]'s runner returns.
pub type Running = Pin<Box<dyn Future<Output = Response> + Send>>;

/// What the bottom of the stack runs: the item itself, given the arguments and options as
/// the layers left them.
type Runner = Box<dyn FnOnce(Map<String, Value>, CallOptions) -> Running + Send>;

/// What kind of item a request calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `tools/call`.
    Tool,
    /// `resources/read`.
    Resource,
    /// `prompts/get`.
    Prompt,
}

impl Kind {
    /// The kind's name as the selectors and messages write it: `tool`, `resource`, `prompt`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Tool => "tool",
            Self::Resource => "resource",
            Self::Prompt => "prompt",
        }
    }
}

/// One call as the layers see it: which item, with which arguments, by whom, cancelled how.
/// A layer may change the arguments ([`Request::arguments_mut`]) before it calls on.
pub struct Request {
    kind: Kind,
    name: Arc<str>,
    arguments: Map<String, Value>,
    options: CallOptions,
    timeout: Option<Duration>,
    run: Option<Runner>,
}

impl Request {
    /// A request of the item `name` of `kind`, which `run` runs at the bottom of the stack.
    pub(crate) fn new(
        kind: Kind,
        name: Arc<str>,
        arguments: Map<String, Value>,
        options: CallOptions,
        run: impl FnOnce(Map<String, Value>, CallOptions) -> Running + Send + 'static,
    ) -> Self {
        Self {
            kind,
            name,
            arguments,
            options,
            timeout: None,
            run: Some(Box::new(run)),
        }
    }

    /// This request, of an item that runs within `timeout`.
    pub(crate) fn with_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.timeout = timeout;
        self
    }

    /// How long the item may run: a tool's own `timeout`, else the registry's default;
    /// `None` with no limit. A layer that makes a call wait (for a permit, a slot) waits
    /// at most this long.
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// What kind of item it calls.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The item's name: the tool's or the prompt's name, or the URI read.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The call's arguments: a tool's or a prompt's; none for a resource read.
    pub fn arguments(&self) -> &Map<String, Value> {
        &self.arguments
    }

    /// The arguments, for a layer that changes them before it calls on.
    pub fn arguments_mut(&mut self) -> &mut Map<String, Value> {
        &mut self.arguments
    }

    /// Who calls, for the limits that count per caller.
    pub fn caller(&self) -> Caller {
        self.options.caller()
    }

    /// Who calls, as an access token says; `None` without one.
    pub fn auth(&self) -> Option<&AuthInfo> {
        self.options.auth().map(Arc::as_ref)
    }

    /// The call's `_meta`, if any.
    pub fn meta(&self) -> Option<&Map<String, Value>> {
        self.options.meta()
    }

    /// The token that cancels the call, if the caller gave one.
    pub fn cancellation(&self) -> Option<&tokio_util::sync::CancellationToken> {
        self.options.cancellation()
    }
}

impl fmt::Debug for Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Request")
            .field("kind", &self.kind)
            .field("name", &self.name)
            .field("arguments", &self.arguments)
            .field("caller", &self.caller())
            .finish_non_exhaustive()
    }
}

/// What the stack answers: the kind of the request's item, with its result.
#[derive(Debug, Clone)]
pub enum Response {
    /// A tool's result.
    Tool(MCPToolResult),
    /// A resource's contents, or why it could not be read.
    Resource(Result<Vec<ResourceContents>, ToolError>),
    /// A rendered prompt, or why it could not be rendered.
    Prompt(Result<PromptResult, ToolError>),
}

impl Response {
    /// The failure of a request of `kind`: what a layer's error becomes.
    pub fn failure(kind: Kind, error: ToolError) -> Self {
        match kind {
            Kind::Tool => Self::Tool(MCPToolResult::failure(error)),
            Kind::Resource => Self::Resource(Err(error)),
            Kind::Prompt => Self::Prompt(Err(error)),
        }
    }

    /// Whether it is a failure.
    pub fn is_failure(&self) -> bool {
        match self {
            Self::Tool(result) => !result.is_success(),
            Self::Resource(result) => result.is_err(),
            Self::Prompt(result) => result.is_err(),
        }
    }
}

/// What a layer's error says to the client, as a failure of the fitting type: a
/// [`ToolError`] as it is (a layer refuses with one to choose the type and details);
/// tower's timeout as a `TimeoutError`; tower's load shedding as `ApiLimitExceeded`; any
/// other error as a `ToolExecutionError` with its message.
pub fn failure(name: &str, error: &BoxError) -> ToolError {
    if let Some(error) = error.downcast_ref::<ToolError>() {
        return error.clone();
    }
    if error.is::<tower::timeout::error::Elapsed>() {
        return ToolError::new(
            ErrorType::TimeoutError,
            format!("`{name}` did not finish within the time a layer allows"),
        );
    }
    if error.is::<tower::load_shed::error::Overloaded>() {
        return ToolError::new(
            ErrorType::ApiLimitExceeded,
            format!("`{name}` is overloaded: too many calls at once; try again shortly"),
        );
    }
    ToolError::execution(format!("a layer around `{name}` failed: {error}"))
}

/// The bottom of every stack: runs the item the request names, with the request's
/// arguments and options as the layers above left them. Always ready.
#[derive(Debug, Clone, Copy, Default)]
pub struct Innermost;

impl Service<Request> for Innermost {
    type Response = Response;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Response, BoxError>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, mut request: Request) -> Self::Future {
        let kind = request.kind;
        match request.run.take() {
            Some(run) => {
                let running = run(request.arguments, request.options);
                Box::pin(async move { Ok(running.await) })
            }
            // A layer that cloned the request's parts into a new one: nothing to run.
            None => Box::pin(async move {
                Ok(Response::failure(
                    kind,
                    ToolError::execution(
                        "a layer passed on a request the registry did not make: nothing to run",
                    ),
                ))
            }),
        }
    }
}

/// What a layer that only admits or refuses a call (a limit) is asked about the call: the
/// item, who calls, how long it may run, and how the caller cancels.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Item<'a> {
    pub(crate) name: &'a Arc<str>,
    pub(crate) caller: &'a Caller,
    pub(crate) timeout: Option<Duration>,
    pub(crate) cancellation: Option<&'a tokio_util::sync::CancellationToken>,
}

impl<'a> Item<'a> {
    /// The item of `request`, called by `caller`.
    pub(crate) fn of(request: &'a Request, caller: &'a Caller) -> Self {
        Self {
            name: &request.name,
            caller,
            timeout: request.timeout,
            cancellation: request.cancellation(),
        }
    }
}

/// What a call holds while it runs, once a layer admitted it: nothing, or a slot that is
/// free again when the call ends.
#[derive(Debug)]
pub(crate) enum Ticket {
    Free,
    Slot(
        // Never read: held, and given back when dropped.
        #[allow(dead_code)] crate::base::slots::Slot,
    ),
}

/// A layer's decision, made at once.
#[derive(Debug)]
pub(crate) enum Admission {
    /// The call goes on, holding the ticket until it ends.
    Go(Ticket),
    /// The call fails with this.
    Refused(ToolError),
    /// The layer cannot decide without waiting (a slot to free, a store to ask); nothing
    /// was taken.
    Later,
}

/// The future of a decision that waits.
pub(crate) type Deciding<'a> = Pin<Box<dyn Future<Output = Result<Ticket, ToolError>> + Send + 'a>>;

/// A layer that admits or refuses a call and does nothing else around it: the crate's
/// limits. The registry asks it directly, with no tower service and no future, and a call
/// it admits at once runs as it would with no layer at all: an inline tool on the thread
/// that read the request. Its tower form ([`BoxLayer`](crate::layers::BoxLayer)) asks the
/// same questions, for a stack where it sits inside another layer.
pub(crate) trait Admit: Send + Sync {
    /// The decision, when it can be made at once; [`Admission::Later`] takes nothing.
    fn now(&self, item: &Item<'_>) -> Admission;

    /// The decision, waiting as long as it must (within the call's timeout, and until the
    /// caller cancels).
    fn wait<'a>(&'a self, item: Item<'a>) -> Deciding<'a>;

    /// The limit as the stack of the item `name` keeps it: with the item's own state, when
    /// the limit keeps one per item, so that its calls find it without a lookup.
    fn item(self: Arc<Self>, name: &Arc<str>) -> Arc<dyn Admit>;
}

/// The call of a limit's tower form: `request` through `admit`, then through `inner` (the
/// service made ready, which goes with the call; a clone stays for the next one), the
/// ticket held until `inner` answers.
pub(crate) fn admit_then_call<S>(
    admit: Arc<dyn Admit>,
    inner: &mut S,
    request: Request,
) -> Pin<Box<dyn Future<Output = Result<Response, BoxError>> + Send>>
where
    S: Service<Request, Response = Response> + Clone + Send + 'static,
    S::Error: Into<BoxError>,
    S::Future: Send + 'static,
{
    let fresh = inner.clone();
    let mut ready = std::mem::replace(inner, fresh);
    Box::pin(async move {
        let caller = request.caller();
        let _ticket = admitted(&*admit, Item::of(&request, &caller)).await?;
        ready.call(request).await.map_err(Into::into)
    })
}

/// `item` through `admit`: at once if it can, else waiting.
pub(crate) async fn admitted(admit: &dyn Admit, item: Item<'_>) -> Result<Ticket, ToolError> {
    match admit.now(&item) {
        Admission::Go(ticket) => Ok(ticket),
        Admission::Refused(refused) => Err(refused),
        Admission::Later => admit.wait(item).await,
    }
}

/// What wraps one item's calls: the layers asked directly, outermost first, then the
/// tower stack of the others, if there are any.
pub(crate) struct Wrapping {
    /// The item's key: a tool's or prompt's name, a resource's URI or URI template.
    pub(crate) name: Arc<str>,
    pub(crate) admits: Box<[Arc<dyn Admit>]>,
    pub(crate) tower: Option<Stack>,
}

/// What the layers asked directly gave a call so far: the tickets it holds until it ends,
/// and the next layer to ask.
#[derive(Debug, Default)]
pub(crate) struct Admitted {
    /// The first ticket that holds something, in place: most calls hold at most one.
    first: Option<Ticket>,
    more: Vec<Ticket>,
    next: usize,
}

impl Wrapping {
    /// Asks the layers that admit, from the next one `admitted` names, as long as they
    /// decide at once: `Ok(true)` once every one admitted the call, `Ok(false)` when one
    /// must wait; the refusal of one that refused.
    pub(crate) fn admit_now(
        &self,
        item: &Item<'_>,
        admitted: &mut Admitted,
    ) -> Result<bool, ToolError> {
        while let Some(admit) = self.admits.get(admitted.next) {
            match admit.now(item) {
                Admission::Go(ticket) => admitted.hold(ticket),
                Admission::Refused(refused) => return Err(refused),
                Admission::Later => return Ok(false),
            }
        }
        Ok(true)
    }

    /// Asks the layers that admit, from the next one `admitted` names, waiting where one
    /// must: `Ok` once every one admitted the call.
    pub(crate) async fn admit_all(
        &self,
        item: Item<'_>,
        admitted: &mut Admitted,
    ) -> Result<(), ToolError> {
        while let Some(admit) = self.admits.get(admitted.next) {
            let ticket = self::admitted(&**admit, item).await?;
            admitted.hold(ticket);
        }
        Ok(())
    }
}

impl Admitted {
    fn hold(&mut self, ticket: Ticket) {
        if let Ticket::Slot(_) = ticket {
            match self.first {
                None => self.first = Some(ticket),
                Some(_) => self.more.push(ticket),
            }
        }
        self.next += 1;
    }
}

impl std::fmt::Debug for Wrapping {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Wrapping")
            .field("name", &self.name)
            .field("admits", &self.admits.len())
            .field("tower", &self.tower.is_some())
            .finish()
    }
}

/// Runs `request` through `stack`: waits until the stack is ready, calls it, and makes a
/// failure of the request's kind of any error on the way. Never fails.
pub(crate) async fn through(stack: &Stack, request: Request) -> Response {
    let (kind, name) = (request.kind, Arc::clone(&request.name));
    match tower::ServiceExt::oneshot(stack.clone(), request).await {
        Ok(response) => response,
        Err(error) => Response::failure(kind, failure(&name, &error)),
    }
}

/// Which items a layer wraps: a name, a `namespace.*` pattern, `tag:NAME` or
/// `category:NAME`. A name or a pattern matches tools and prompts by name and resources by
/// URI (or URI template); a tag or a category matches the tools that have it.
///
/// ```
/// use mcp_runtime::layers::Selector;
///
/// let selector: Selector = "weather.*".parse()?;
/// assert!(selector.matches_name("weather.forecast"));
/// assert!(!selector.matches_name("weatherman"));
/// assert_eq!(selector.to_string(), "weather.*");
/// # Ok::<(), mcp_runtime::layers::SelectorError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Selector {
    /// One item, by its exact name (or URI).
    Name(String),
    /// Every item whose name starts with this prefix and a dot: `weather.*`.
    Namespace(String),
    /// Every tool with this tag.
    Tag(String),
    /// Every tool of this category.
    Category(String),
}

/// A selector that names nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{0}` is not a selector: write a tool's name, a `namespace.*` pattern, `tag:NAME` or `category:NAME`"
)]
pub struct SelectorError(pub String);

impl std::str::FromStr for Selector {
    type Err = SelectorError;

    fn from_str(text: &str) -> Result<Self, SelectorError> {
        let wrong = || SelectorError(text.to_owned());
        let named = |value: &str| {
            let value = value.trim();
            (!value.is_empty() && !value.contains(char::is_whitespace))
                .then(|| value.to_owned())
                .ok_or_else(wrong)
        };
        if let Some(tag) = text.strip_prefix("tag:") {
            return Ok(Self::Tag(named(tag)?));
        }
        if let Some(category) = text.strip_prefix("category:") {
            return Ok(Self::Category(named(category)?));
        }
        if let Some(namespace) = text.strip_suffix(".*") {
            return Ok(Self::Namespace(named(namespace)?));
        }
        if text.contains('*') {
            return Err(wrong());
        }
        Ok(Self::Name(named(text)?))
    }
}

impl fmt::Display for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Name(name) => f.write_str(name),
            Self::Namespace(namespace) => write!(f, "{namespace}.*"),
            Self::Tag(tag) => write!(f, "tag:{tag}"),
            Self::Category(category) => write!(f, "category:{category}"),
        }
    }
}

impl Selector {
    /// Whether it picks the item named `name` (a tool's, a prompt's, a resource's URI):
    /// by name or pattern; a tag or a category picks no name.
    pub fn matches_name(&self, name: &str) -> bool {
        match self {
            Self::Name(wanted) => wanted == name,
            Self::Namespace(namespace) => name
                .strip_prefix(namespace.as_str())
                .is_some_and(|rest| rest.starts_with('.')),
            Self::Tag(_) | Self::Category(_) => false,
        }
    }

    /// Whether it picks the tool `definition`: by name, pattern, tag or category.
    pub fn matches_tool(&self, definition: &mcp_runtime_core::ToolDefinition) -> bool {
        match self {
            Self::Tag(tag) => definition.tags().iter().any(|have| have == tag),
            Self::Category(category) => definition.category() == Some(category.as_str()),
            _ => self.matches_name(definition.name().as_str()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_parse_each_form_and_refuse_the_rest() {
        assert_eq!("a.b".parse(), Ok(Selector::Name("a.b".into())));
        assert_eq!("a.*".parse(), Ok(Selector::Namespace("a".into())));
        assert_eq!("tag:io".parse(), Ok(Selector::Tag("io".into())));
        assert_eq!("category:net".parse(), Ok(Selector::Category("net".into())));
        for wrong in ["", "tag:", "a*", "*", "category: ", "a b"] {
            let refused = wrong.parse::<Selector>().unwrap_err();
            assert!(
                refused.to_string().contains("namespace.*"),
                "{wrong}: {refused}"
            );
        }
        assert!(Selector::Namespace("a".into()).matches_name("a.b.c"));
        assert!(!Selector::Namespace("a".into()).matches_name("ab.c"));
        assert!(!Selector::Namespace("a".into()).matches_name("a"));
    }
}
