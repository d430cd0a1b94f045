//! What `#[mcp_tool]`, `#[mcp_resource]` and `#[mcp_prompt]` register: a definition, how
//! to run it, and where it was written.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use mcp_runtime_core::{
    DefinitionError, MCPToolResult, PromptDefinition, PromptResult, ResourceContents,
    ResourceDefinition, ResourceTemplateDefinition, ToolDefinition, ToolError,
};
use serde_json::{Map, Value};

use crate::context::{Invocation, ToolContext};
use crate::layers::BoxLayer;
use crate::state::StateNeedFn;

/// A dynamic tool's arguments: the `arguments` object of the call.
pub type Arguments = Map<String, Value>;

/// What a tool produced: its value, serialized, or a whole result it built itself.
#[derive(Debug)]
pub enum Output {
    /// The serialized return value; `null` for a tool returning `()`.
    Value(Value),
    /// The return value serialized as JSON text, by a tool called with its arguments'
    /// text ([`Handler::InlineText`]).
    Text(String),
    /// A result the tool built itself (it returned `MCPToolResult`); boxed, as the rare case.
    Result(Box<MCPToolResult>),
}

/// Arguments that did not deserialize: where, and serde's message.
#[derive(Debug)]
pub struct ArgumentsError {
    /// JSON pointer of the value at fault.
    pub(crate) path: String,
    /// serde's message, which may quote the value; it is cleaned before anyone sees it.
    pub(crate) message: String,
}

/// Why a tool produced no output.
#[derive(Debug)]
pub enum Failure {
    /// The arguments did not deserialize into the tool's parameters.
    Arguments(ArgumentsError),
    /// The tool returned an error; boxed, so that outcomes stay small to move.
    Tool(Box<ToolError>),
}

impl From<ToolError> for Failure {
    fn from(err: ToolError) -> Self {
        Self::Tool(Box::new(err))
    }
}

/// A tool's outcome before it becomes an `MCPToolResult`.
pub type Outcome = Result<Output, Failure>;

/// The future an async tool returns.
pub type ToolFuture = Pin<Box<dyn Future<Output = Outcome> + Send + 'static>>;

/// A dynamic tool: a closure over the arguments object.
pub(crate) type DynamicHandler = Arc<dyn Fn(Arguments, ToolContext) -> ToolFuture + Send + Sync>;

/// How to run a tool.
#[derive(Clone)]
pub enum Handler {
    /// A synchronous function that returns at once, run on the caller's task.
    Inline(fn(&Value, Invocation<'_>) -> Outcome),
    /// An [`Handler::Inline`] function that also reads its arguments straight from their
    /// JSON text: a server runs a call whose arguments that text reads into the
    /// function's parameters without building a JSON tree for them.
    InlineText(
        fn(&Value, Invocation<'_>) -> Outcome,
        fn(&str, Invocation<'_>) -> Outcome,
    ),
    /// A synchronous function that may block, run on the blocking thread pool.
    Blocking(fn(&Value, Invocation<'_>) -> Outcome),
    /// An `async fn`.
    Async(fn(&Value, Invocation<'_>) -> ToolFuture),
    /// A closure registered at run time; its arguments are checked by the schema alone.
    Dynamic(DynamicHandler),
}

impl Handler {
    /// Whether the tool deserializes its arguments into Rust types.
    pub(crate) fn is_typed(&self) -> bool {
        !matches!(self, Self::Dynamic(_))
    }
}

impl fmt::Debug for Handler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Inline(_) => "Handler::Inline",
            Self::InlineText(..) => "Handler::InlineText",
            Self::Blocking(_) => "Handler::Blocking",
            Self::Async(_) => "Handler::Async",
            Self::Dynamic(_) => "Handler::Dynamic",
        })
    }
}

/// Where a tool was defined, for messages about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Location {
    /// Source file.
    pub file: &'static str,
    /// Line of the function's name (or of the call that registered a dynamic tool).
    pub line: u32,
    /// Column of the same.
    pub column: u32,
    /// Module path of the function; empty for a dynamic tool.
    pub module_path: &'static str,
}

impl Location {
    /// The place of the caller of a `#[track_caller]` function.
    #[track_caller]
    pub(crate) fn caller() -> Self {
        let caller = std::panic::Location::caller();
        Self {
            file: caller.file(),
            line: caller.line(),
            column: caller.column(),
            module_path: "",
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)?;
        if !self.module_path.is_empty() {
            write!(f, " ({})", self.module_path)?;
        }
        Ok(())
    }
}

/// One tool as `#[mcp_tool]` registers it with `inventory`.
#[derive(Debug)]
pub struct ToolRegistration {
    pub(crate) name: &'static str,
    pub(crate) definition: fn() -> Result<ToolDefinition, DefinitionError>,
    pub(crate) handler: Handler,
    pub(crate) location: Location,
    /// Whether the arguments struct refuses every name the input schema does not list.
    pub(crate) exact_names: bool,
    /// The state types the tool takes, which the registry must be given.
    pub(crate) states: &'static [StateNeedFn],
    /// The layer of `#[mcp_tool(layer = …)]`, innermost of the tool's stack.
    pub(crate) layer: Option<fn() -> BoxLayer>,
}

impl ToolRegistration {
    /// A registration; generated code calls this in a static.
    pub const fn new(
        name: &'static str,
        definition: fn() -> Result<ToolDefinition, DefinitionError>,
        handler: Handler,
        location: Location,
    ) -> Self {
        Self {
            name,
            definition,
            handler,
            location,
            exact_names: false,
            states: &[],
            layer: None,
        }
    }

    /// This registration, with the layer that `layer` makes around the tool's calls
    /// (`#[mcp_tool(layer = path::to::function)]`).
    pub const fn with_layer(mut self, layer: fn() -> BoxLayer) -> Self {
        self.layer = Some(layer);
        self
    }

    /// This registration, its arguments struct known to refuse every name the input schema
    /// does not list (no parameter has a `#[serde(alias)]`, nor an attribute that changes
    /// its name in the schema alone): the registry then leaves the names to it.
    #[must_use]
    pub const fn with_exact_names(mut self) -> Self {
        self.exact_names = true;
        self
    }

    /// This registration, its tool taking the state types `states` (its `State<T>`
    /// parameters): a registry not given one of them is not built.
    #[must_use]
    pub const fn with_states(mut self, states: &'static [StateNeedFn]) -> Self {
        self.states = states;
        self
    }
}

inventory::collect!(ToolRegistration);

/// One elicitation form as `#[derive(Form)]` registers it with `inventory`: its schema is
/// checked when the registry is built, so that a form whose `JsonSchema` disagrees with the
/// fields the derive checked (written by hand, or a field's `schema_with`) is refused then,
/// not when a tool asks it.
#[derive(Debug)]
pub struct FormRegistration {
    pub(crate) name: &'static str,
    pub(crate) check: fn() -> Result<(), crate::talk::FormSchemaError>,
    pub(crate) location: Location,
}

impl FormRegistration {
    /// A registration; generated code calls this in a static.
    pub const fn new(
        name: &'static str,
        check: fn() -> Result<(), crate::talk::FormSchemaError>,
        location: Location,
    ) -> Self {
        Self {
            name,
            check,
            location,
        }
    }
}

inventory::collect!(FormRegistration);

/// The future a resource read returns: its contents, or why there are none.
pub type ResourceFuture =
    Pin<Box<dyn Future<Output = Result<Vec<ResourceContents>, ToolError>> + Send + 'static>>;

/// The future a prompt returns: the rendered prompt, or why there is none.
pub type PromptFuture =
    Pin<Box<dyn Future<Output = Result<PromptResult, ToolError>> + Send + 'static>>;

/// A read of one resource: its URI, and for a template the value of each variable,
/// decoded.
#[derive(Debug, Clone, Default)]
pub struct ReadRequest {
    pub(crate) uri: String,
    pub(crate) variables: Vec<(String, String)>,
    pub(crate) asker: crate::talk::Asker,
}

impl ReadRequest {
    /// A read of `uri`, with the template's variables as matched.
    pub fn new(uri: impl Into<String>, variables: Vec<(String, String)>) -> Self {
        Self {
            uri: uri.into(),
            variables,
            asker: crate::talk::Asker::default(),
        }
    }

    /// What asks the client on behalf of this read: a resource registered at run time may
    /// ask (elicitation, sampling, roots) while it reads, and at 2026-07-28 a
    /// `resources/read` that asks is answered over rounds, as a tool's call is.
    pub fn asker(&self) -> &crate::talk::Asker {
        &self.asker
    }

    /// The URI read.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// The value of the template variable `name`, decoded.
    pub fn variable(&self, name: &str) -> Option<&str> {
        self.variables
            .iter()
            .find(|(variable, _)| variable == name)
            .map(|(_, value)| value.as_str())
    }
}

/// What a completion function is given besides the prefix: the other arguments (or
/// template variables) the client has already filled in.
#[derive(Debug, Clone, Default)]
pub struct CompletionContext {
    pub(crate) arguments: Map<String, Value>,
}

impl CompletionContext {
    /// A context of these arguments.
    pub fn new(arguments: Map<String, Value>) -> Self {
        Self { arguments }
    }

    /// The value already given for `name`, if any.
    pub fn argument(&self, name: &str) -> Option<&str> {
        self.arguments.get(name).and_then(Value::as_str)
    }
}

/// A completion function: candidates for an argument, from the prefix typed so far.
pub type CompleteFn = fn(&str, &CompletionContext) -> Vec<String>;

/// Which completion function serves which argument or template variable.
#[derive(Debug, Clone, Copy)]
pub struct Completion {
    pub(crate) argument: &'static str,
    pub(crate) complete: CompleteFn,
}

impl Completion {
    /// `complete` serves `argument`; generated code calls this in a static.
    pub const fn new(argument: &'static str, complete: CompleteFn) -> Self {
        Self { argument, complete }
    }
}

/// A resource's definition: a fixed URI, or a template.
#[derive(Debug, Clone, Copy)]
pub enum ResourceKind {
    /// One resource at a fixed URI.
    Fixed(fn() -> ResourceDefinition),
    /// A family of resources picked by a URI template's variables.
    Template(fn() -> ResourceTemplateDefinition),
}

/// When a resource last changed, in ISO 8601, as its function says at each listing.
pub type LastModifiedFn = fn() -> Option<String>;

/// One resource or resource template as `#[mcp_resource]` registers it with `inventory`.
#[derive(Debug)]
pub struct ResourceRegistration {
    pub(crate) kind: ResourceKind,
    /// The URI, or the URI template: what the registry keys it by before the definition
    /// is built.
    pub(crate) key: &'static str,
    pub(crate) read: fn(ReadRequest) -> ResourceFuture,
    pub(crate) completions: &'static [Completion],
    pub(crate) last_modified: Option<LastModifiedFn>,
    pub(crate) location: Location,
}

impl ResourceRegistration {
    /// A registration; generated code calls this in a static.
    pub const fn new(
        kind: ResourceKind,
        key: &'static str,
        read: fn(ReadRequest) -> ResourceFuture,
        completions: &'static [Completion],
        location: Location,
    ) -> Self {
        Self {
            kind,
            key,
            read,
            completions,
            last_modified: None,
            location,
        }
    }

    /// With `lastModified` from `last_modified` at each listing.
    #[must_use]
    pub const fn with_last_modified(mut self, last_modified: LastModifiedFn) -> Self {
        self.last_modified = Some(last_modified);
        self
    }
}

inventory::collect!(ResourceRegistration);

/// One prompt as `#[mcp_prompt]` registers it with `inventory`.
#[derive(Debug)]
pub struct PromptRegistration {
    /// The name: what the registry keys it by before the definition is built.
    pub(crate) name: &'static str,
    pub(crate) definition: fn() -> PromptDefinition,
    pub(crate) get: fn(Arguments) -> PromptFuture,
    pub(crate) completions: &'static [Completion],
    pub(crate) location: Location,
}

impl PromptRegistration {
    /// A registration; generated code calls this in a static.
    pub const fn new(
        name: &'static str,
        definition: fn() -> PromptDefinition,
        get: fn(Arguments) -> PromptFuture,
        completions: &'static [Completion],
        location: Location,
    ) -> Self {
        Self {
            name,
            definition,
            get,
            completions,
            location,
        }
    }
}

inventory::collect!(PromptRegistration);

/// One file of a skill that `mcp_runtime::skills!` embeds: its path within the skill's
/// folder (`/`-separated, `SKILL.md` at the top) and its bytes.
#[derive(Debug, Clone, Copy)]
pub struct SkillFile {
    pub(crate) path: &'static str,
    pub(crate) bytes: &'static [u8],
}

impl SkillFile {
    /// A file; generated code calls this in a static.
    pub const fn new(path: &'static str, bytes: &'static [u8]) -> Self {
        Self { path, bytes }
    }

    /// The path within the skill's folder.
    pub fn path(&self) -> &'static str {
        self.path
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &'static [u8] {
        self.bytes
    }
}

/// One skill (a folder holding a `SKILL.md`) as `mcp_runtime::skills!` embeds it at
/// compile time, registered with `inventory`: its name (the folder's, which its front
/// matter repeats, checked when it was embedded), its files, and where it was embedded.
#[derive(Debug)]
pub struct SkillRegistration {
    pub(crate) name: &'static str,
    pub(crate) files: &'static [SkillFile],
    pub(crate) location: Location,
}

impl SkillRegistration {
    /// A registration; generated code calls this in a static.
    pub const fn new(name: &'static str, files: &'static [SkillFile], location: Location) -> Self {
        Self {
            name,
            files,
            location,
        }
    }

    /// The skill's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Its files, `SKILL.md` among them.
    pub fn files(&self) -> &'static [SkillFile] {
        self.files
    }

    /// Where it was embedded.
    pub fn location(&self) -> Location {
        self.location
    }
}

inventory::collect!(SkillRegistration);
