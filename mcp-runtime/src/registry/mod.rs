//! The registry: the application's tools, resources and prompts, looked up by name (or
//! URI), listed in order, run.

mod builder;
mod dispatch;
pub(crate) use dispatch::Passed;
mod generated;
mod layered;
mod prompts;
mod resources;
mod skills;

pub use builder::RegistryBuilder;
pub use generated::*;
pub use prompts::{CompletionRef, PromptError, RegisteredPrompt};
use resources::Mount;
pub use resources::{ReadError, RegisteredResource, RegisteredTemplate};

use std::collections::BTreeSet;
use std::fmt;
use std::future::Future;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use mcp_runtime_core::{
    DefinitionError, ErrorType, MCPToolCall, MCPToolResult, ToolDefinition, ToolError, ToolName,
    ToolNameError,
};
use rustc_hash::FxHashMap;
use serde_json::{Map, Value};

use crate::context::ToolContext;
use crate::context::options::{CallOptions, NoOptions};
use crate::execute::Settings;
use crate::policy::DangerousPolicy;
use crate::registration::{
    Arguments, Failure, FormRegistration, Handler, Location, Output, ToolRegistration,
};
#[cfg(feature = "cli")]
use crate::state::States;
pub use crate::tool::RegisteredTool;

/// One reason a registry could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryProblem {
    /// A tool's definition is invalid.
    #[error("the tool defined at {location} is invalid: {source}")]
    Definition {
        /// Where the tool was defined.
        location: Location,
        /// What is wrong with it.
        source: DefinitionError,
    },
    /// Two tools have the same name.
    #[error(
        "two tools are named `{name}`: one at {first}, one at {second}; give one of them another `name` or `namespace`"
    )]
    Duplicate {
        /// The name.
        name: String,
        /// Where the first was defined.
        first: Location,
        /// Where the second was defined.
        second: Location,
    },
    /// A resource or template is invalid.
    #[error("the resource defined at {location} is invalid: {reason}")]
    Resource {
        /// Where it was defined.
        location: Location,
        /// What is wrong with it.
        reason: String,
    },
    /// Two resources have the same URI, or two templates the same template.
    #[error(
        "two resources have the URI `{uri}`: one at {first}, one at {second}; give one of them another URI"
    )]
    DuplicateResource {
        /// The URI or template.
        uri: String,
        /// Where the first was defined.
        first: Location,
        /// Where the second was defined.
        second: Location,
    },
    /// A `#[derive(Form)]` type whose JSON Schema is not one a form can have, though its
    /// fields' types are: a `JsonSchema` written by hand, or a field's `schema_with`.
    #[error("`{form}` derives `Form` at {location}, but cannot be one: {reason}")]
    Form {
        /// Where the type was defined.
        location: Location,
        /// The type.
        form: &'static str,
        /// Which field, and why.
        reason: String,
    },
    /// A tool takes a state type (a `State<T>` parameter) the registry was not given.
    #[error(
        "tool `{tool}` needs state `{state}`, which was never provided; add it with `Registry::builder().state(…)`, or `cli::app!().state(…)` for the command line (the tool is defined at {location})"
    )]
    MissingState {
        /// The tool's name.
        tool: String,
        /// The state's type, as `std::any::type_name` gives it.
        state: &'static str,
        /// Where the tool was defined.
        location: Location,
    },
    /// Two prompts have the same name.
    #[error(
        "two prompts are named `{name}`: one at {first}, one at {second}; give one of them another `name`"
    )]
    DuplicatePrompt {
        /// The name.
        name: String,
        /// Where the first was defined.
        first: Location,
        /// Where the second was defined.
        second: Location,
    },
    /// A skill of a folder that cannot be served: its `SKILL.md`, its name, its size.
    #[error("a skill cannot be served: {0}")]
    Skill(crate::skills::SkillProblem),
    /// An embedded skill that cannot be served.
    #[error(transparent)]
    EmbeddedSkill(crate::skills::EmbedProblem),
    /// A folder of skills that cannot be read at all.
    #[error(transparent)]
    SkillsFolder(crate::skills::FolderError),
    /// Two skills at one skill path.
    #[error(transparent)]
    DuplicateSkill(crate::skills::DuplicateSkill),
    /// A selector of [`RegistryBuilder::layer_for`] picks no tool, resource or prompt.
    #[error("the layer's selector `{selector}` picks nothing{}", nearest_suffix(.nearest.as_deref()))]
    UnmatchedSelector {
        /// The selector, as written.
        selector: String,
        /// The name of the tool closest to it, if any is close.
        nearest: Option<String>,
    },
}

fn nearest_suffix(nearest: Option<&str>) -> String {
    nearest.map_or_else(
        || ": no tool, resource or prompt has that name, tag or category".to_owned(),
        |nearest| format!("; did you mean `{nearest}`?"),
    )
}

/// Why a registry could not be built: every problem found, not just the first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistryError {
    problems: Vec<RegistryProblem>,
}

impl RegistryError {
    /// `Ok` when there are no problems.
    pub(crate) fn of(problems: Vec<RegistryProblem>) -> Result<(), Self> {
        if problems.is_empty() {
            Ok(())
        } else {
            Err(Self { problems })
        }
    }

    /// The problems.
    pub fn problems(&self) -> &[RegistryProblem] {
        &self.problems
    }
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the registry has {} problem(s):", self.problems.len())?;
        for problem in &self.problems {
            write!(f, "\n  - {problem}")?;
        }
        Ok(())
    }
}

impl std::error::Error for RegistryError {}

/// A tool, resource, template or prompt that was not mounted because its name (or URI)
/// was taken (a prefix conflict, `ToolConflict`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolConflict {
    /// What kind of thing was not mounted.
    pub kind: ConflictKind,
    /// The name both would have: a tool's or a prompt's name, a resource's URI, a
    /// template's URI template.
    pub tool_name: String,
    /// Where the one that was not mounted comes from.
    pub source: String,
    /// What holds the name.
    pub shadowed_by: String,
    /// How the conflict was resolved.
    pub resolution: String,
}

/// What kind of thing a [`ToolConflict`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConflictKind {
    /// A tool.
    Tool,
    /// A resource at a fixed URI.
    Resource,
    /// A resource template.
    ResourceTemplate,
    /// A prompt.
    Prompt,
}

/// What the one not mounted gave way to.
const KEPT_EXISTING: &str = "kept the one already registered; the mounted one is not available";

/// What to check when a registry has no tools.
pub const EMPTY_REGISTRY_HINT: &str = "no tools are registered. Tools are functions marked `#[mcp_tool]` \
in a crate linked into this binary. A library crate of tools that the binary never references may not be \
linked at all: use something from it (e.g. `use my_tools as _;` in main.rs, or call one of its functions).";

/// Where `#[mcp_tool]` tools come from, in [`RegisteredTool::source`].
const FROM_ATTRIBUTE: &str = "#[mcp_tool]";
/// Where dynamic tools come from.
const FROM_DYNAMIC: &str = "dynamic";

/// The application's tools, sorted by name, and how they run.
///
/// [`Registry::global`] holds every `#[mcp_tool]` linked into the program; a
/// [`RegistryBuilder`] makes others: a subset, more tools, other limits and policies.
///
/// ```
/// use mcp_runtime::{MCPToolCall, Registry, mcp_tool};
///
/// /// Adds one.
/// #[mcp_tool(namespace = "demo", inline)]
/// fn increment(n: i64) -> i64 {
///     n + 1
/// }
///
/// let registry = Registry::global();
/// assert!(registry.has_tool("demo.increment"));
/// let call = MCPToolCall::new("demo.increment", serde_json::json!({ "n": 41 }))?;
/// let result = registry.call_blocking(call);
/// assert_eq!(result.data().unwrap()["result"], 42);
/// # Ok::<(), mcp_runtime::MessageError>(())
/// ```
#[derive(Debug, Default, Clone)]
pub struct Registry {
    /// By name. Fx hashing: the keys are the registry's own names, which callers cannot
    /// add to, so a faster hash than SipHash costs no resistance to flooding.
    tools: FxHashMap<String, RegisteredTool>,
    /// Every name, sorted.
    order: Vec<String>,
    /// Shared with the calls that run through layers, which own what they use.
    settings: Arc<Settings>,
    /// The layers around calls, and each item's stack.
    layers: layered::Layers,
    resources: resources::Resources,
    prompts: prompts::Prompts,
    /// The skills it serves (the skills extension).
    skills: crate::skills::Skills,
    /// Counts changes of each kind, so that a server tells listeners only of the kinds
    /// that changed.
    versions: Versions,
}

/// How many times each kind of a registry has changed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Versions {
    pub(crate) tools: u64,
    pub(crate) resources: u64,
    pub(crate) prompts: u64,
}

impl Registry {
    /// The registry of every `#[mcp_tool]` linked into the program, built on first use,
    /// with the default settings: a 60 s timeout, dangerous tools refused, data checked
    /// against the output schema in debug builds. It holds no state, unless the program runs
    /// its command line with states ([`cli::App::state`](crate::cli::App::state)) before
    /// its first use: then it is the registry the command line runs, with them.
    ///
    /// # Panics
    ///
    /// If two tools share a name or a definition is invalid; the message lists every
    /// problem with its source location. [`Registry::try_global`] returns it instead.
    pub fn global() -> &'static Registry {
        match Self::try_global() {
            Ok(registry) => registry,
            Err(err) => panic!("{err}"),
        }
    }

    /// The registry of every `#[mcp_tool]` linked into the program, or why it cannot be built.
    pub fn try_global() -> Result<&'static Registry, &'static RegistryError> {
        Self::global_cell()
            .get_or_init(|| Self::builder().inventory().build())
            .as_ref()
    }

    /// The registry of every `#[mcp_tool]` with `states`: the global one, built with them
    /// unless it was built before; otherwise one of its own, kept for the process.
    #[cfg(feature = "cli")]
    pub(crate) fn global_with(states: &States) -> Result<&'static Registry, RegistryError> {
        let build = || Self::builder().inventory().states(states).build();
        match Self::global_cell().get_or_init(build) {
            Ok(registry) if registry.settings.states == *states => Ok(registry),
            _ => build().map(|registry| &*Box::leak(Box::new(registry))),
        }
    }

    fn global_cell() -> &'static OnceLock<Result<Registry, RegistryError>> {
        static GLOBAL: OnceLock<Result<Registry, RegistryError>> = OnceLock::new();
        &GLOBAL
    }

    /// How many times each kind has changed.
    pub(crate) fn versions(&self) -> Versions {
        self.versions
    }

    /// A builder of a registry.
    pub fn builder() -> RegistryBuilder {
        RegistryBuilder::default()
    }

    /// The tool named `name`, enabled or not.
    pub fn get(&self, name: &str) -> Option<&RegisteredTool> {
        self.tools.get(name)
    }

    /// Whether an enabled tool named `name` is registered.
    pub fn has_tool(&self, name: &str) -> bool {
        self.tools.get(name).is_some_and(|tool| tool.enabled)
    }

    /// The number of enabled tools.
    pub fn len(&self) -> usize {
        self.tools.values().filter(|tool| tool.enabled).count()
    }

    /// Whether there are no enabled tools (see [`EMPTY_REGISTRY_HINT`] for why that may be).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The enabled tools, sorted by name.
    pub fn list(&self) -> impl Iterator<Item = &RegisteredTool> {
        self.order
            .iter()
            .filter_map(|name| self.tools.get(name))
            .filter(|tool| tool.enabled)
    }

    /// The enabled tools of `category`, sorted by name.
    pub fn list_category<'a>(
        &'a self,
        category: &'a str,
    ) -> impl Iterator<Item = &'a RegisteredTool> {
        self.list()
            .filter(move |tool| tool.definition().category() == Some(category))
    }

    /// The categories of the enabled tools, sorted, each once.
    pub fn list_categories(&self) -> Vec<&str> {
        let categories: BTreeSet<&str> = self
            .list()
            .filter_map(|tool| tool.definition().category())
            .collect();
        categories.into_iter().collect()
    }

    /// Registers a tool at run time: a hand-given definition and a closure over the
    /// arguments object. Its arguments are checked against the definition's input schema
    /// before it runs; its value is the data (wrapped as `{"result": …}` when it is not an
    /// object).
    ///
    /// ```
    /// use mcp_runtime::{MCPToolCall, Registry, ToolDefinition, ToolError};
    /// use serde_json::json;
    ///
    /// let schema = schemars::json_schema!({
    ///     "type": "object",
    ///     "properties": { "text": { "type": "string" } },
    ///     "required": ["text"],
    /// });
    /// let mut registry = Registry::builder().build()?;
    /// registry.register(ToolDefinition::new("text.shout", schema)?, |arguments, _ctx| async move {
    ///     let text = arguments["text"].as_str().unwrap_or_default();
    ///     Ok::<_, ToolError>(json!({ "text": text.to_uppercase() }))
    /// })?;
    /// let result = registry.call_blocking(MCPToolCall::new("text.shout", json!({ "text": "hi" }))?);
    /// assert_eq!(result.data().unwrap()["text"], "HI");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[track_caller]
    pub fn register<F, Fut>(
        &mut self,
        definition: ToolDefinition,
        tool: F,
    ) -> Result<(), RegistryError>
    where
        F: Fn(Arguments, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, ToolError>> + Send + 'static,
    {
        let tool = RegisteredTool::new(definition, dynamic(tool), Location::caller(), FROM_DYNAMIC);
        if let Some(existing) = self.tools.get(tool.name.as_str()) {
            return Err(RegistryError {
                problems: vec![RegistryProblem::Duplicate {
                    name: tool.name.to_string(),
                    first: existing.location,
                    second: tool.location,
                }],
            });
        }
        self.insert(tool);
        Ok(())
    }

    /// Removes the tool named `name`, returning it.
    pub fn unregister(&mut self, name: &str) -> Option<RegisteredTool> {
        let tool = self.tools.remove(name)?;
        self.order.retain(|other| other != name);
        self.versions.tools += 1;
        Some(tool)
    }

    /// Enables the tool named `name`; false if there is none.
    pub fn enable(&mut self, name: &str) -> bool {
        self.set_enabled(name, true)
    }

    /// Disables the tool named `name`: it is no longer listed or called. False if there is none.
    pub fn disable(&mut self, name: &str) -> bool {
        self.set_enabled(name, false)
    }

    fn set_enabled(&mut self, name: &str, enabled: bool) -> bool {
        match self.tools.get_mut(name) {
            Some(tool) => {
                if tool.enabled != enabled {
                    tool.enabled = enabled;
                    self.versions.tools += 1;
                }
                true
            }
            None => false,
        }
    }

    /// Adds everything of `other` under `prefix`:
    /// - the tool `files.read` becomes `prefix.files.read`, and so does a prompt's name;
    /// - the resource `docs://guide` becomes `docs://prefix/guide`, and the template
    ///   `docs://pages/{n}` becomes `docs://prefix/pages/{n}`; their functions are given
    ///   the URI the client read.
    ///
    /// A tool keeps its own layer (`#[mcp_tool(layer = …)]`). The layers `other` was built
    /// with stay with `other`: this registry's layers wrap what it mounts, by the new names.
    ///
    /// A name or URI already taken is not overwritten: the one already there stays, and
    /// the conflict is reported (a prefix conflict, `ToolConflict`). A prefix that
    /// cannot begin a tool name (`a-z`, digits, `_`, `-`, dots between) is refused before
    /// anything is added.
    ///
    /// ```
    /// use mcp_runtime::{PromptDefinition, PromptMessage, PromptResult, Registry, ToolError};
    ///
    /// let mut remote = Registry::builder().build()?;
    /// remote.register_prompt(PromptDefinition::new("greet"), |_| async {
    ///     Ok::<_, ToolError>(PromptResult::new(vec![PromptMessage::user("Hello.")]))
    /// })?;
    /// let mut registry = Registry::builder().build()?;
    /// let conflicts = registry.mount("remote", &remote)?;
    /// assert!(conflicts.is_empty());
    /// assert!(registry.prompt("remote.greet").is_some());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn mount(
        &mut self,
        prefix: &str,
        other: &Registry,
    ) -> Result<Vec<ToolConflict>, ToolNameError> {
        // The prefix as a tool name's namespace, whether or not `other` has tools.
        ToolName::new(format!("{prefix}.x"))?;
        let source = format!("mounted under `{prefix}`");
        let mut mount = Mount {
            prefix,
            source: &source,
            conflicts: Vec::new(),
        };
        // The mounted tools' states, those of a type this registry has none of: `other` was
        // built, so every state its tools take is among them.
        Arc::make_mut(&mut self.settings)
            .states
            .merge(&other.settings.states);
        for tool in other.list() {
            let name = ToolName::new(format!("{prefix}.{}", tool.name))?;
            if let Some(existing) = self.tools.get(name.as_str()) {
                mount.conflicts.push(ToolConflict {
                    kind: ConflictKind::Tool,
                    tool_name: name.to_string(),
                    source: format!("`{}` ({}, {})", tool.name, source, tool.location),
                    shadowed_by: format!("{} ({})", existing.source(), existing.location),
                    resolution: KEPT_EXISTING.to_owned(),
                });
                continue;
            }
            self.insert(tool.renamed(name, &source));
        }
        if self.resources.mount(&other.resources, &mut mount) {
            self.versions.resources += 1;
        }
        if self.prompts.mount(&other.prompts, &mut mount) {
            self.versions.prompts += 1;
        }
        Ok(mount.conflicts)
    }

    /// Adds tools served elsewhere (the gateway's), each with its definition and the
    /// handler that calls it there: a name already taken keeps its tool, and the conflict
    /// is reported as [`Registry::mount`] reports it.
    #[cfg(feature = "client")]
    pub(crate) fn mount_remote(
        &mut self,
        tools: Vec<(ToolDefinition, Handler)>,
        source: &str,
    ) -> Vec<ToolConflict> {
        let mut conflicts = Vec::new();
        for (definition, handler) in tools {
            let mut tool = RegisteredTool::new(definition, handler, Location::caller(), source);
            tool.relayed = true;
            if let Some(existing) = self.tools.get(tool.name.as_str()) {
                conflicts.push(ToolConflict {
                    kind: ConflictKind::Tool,
                    tool_name: tool.name.to_string(),
                    source: source.to_owned(),
                    shadowed_by: format!("{} ({})", existing.source(), existing.location),
                    resolution: KEPT_EXISTING.to_owned(),
                });
                continue;
            }
            self.insert(tool);
        }
        conflicts
    }

    fn insert(&mut self, tool: RegisteredTool) {
        self.versions.tools += 1;
        self.layers.note(&tool);
        let name = tool.name.to_string();
        if let Err(position) = self.order.binary_search(&name) {
            self.order.insert(position, name.clone());
        }
        self.tools.insert(name, tool);
    }

    /// Runs `call` and answers with a result, whatever happens: an unknown tool is a
    /// `ResourceNotFound` failure naming the closest tools; arguments that break the input
    /// schema a `ValidationError` listing every violation; a panic a `ToolExecutionError`;
    /// a call past its timeout a `TimeoutError`; a dangerous tool the policy does not allow
    /// a `PermissionError`. Dropping the future cancels the call.
    ///
    /// A tool that runs as a task (`task = "optional"` or `"required"`) is awaited to its
    /// end, as a client awaits a task: in process the future is the task's handle (its
    /// progress goes to the options' sink, dropping it cancels the tool), and no record is
    /// kept, since no one else could poll it. A task tool mounted from another server
    /// (`client::mount`) runs as a task there, polled by the mount's client.
    ///
    /// Timeouts and blocking tools need a Tokio runtime with its time driver
    /// (`#[tokio::main]` has one); [`Registry::call_blocking`] brings its own.
    pub fn call(&self, call: MCPToolCall) -> impl Future<Output = MCPToolResult> + Send + '_ {
        // No options to make, move or drop: an inline tool borrows the empty ones, and the
        // future is the smaller for holding none.
        dispatch::Dispatch::new(self, call, NoOptions)
    }

    /// [`Registry::call`] with metadata, a progress sink or a cancellation token.
    pub fn call_with(
        &self,
        call: MCPToolCall,
        options: CallOptions,
    ) -> impl Future<Output = MCPToolResult> + Send + '_ {
        dispatch::Dispatch::new(self, call, options)
    }

    /// [`Registry::call`] for synchronous callers, on a runtime of this crate's. Called
    /// from inside an async runtime, where it cannot block, it answers with a failure
    /// saying to use [`Registry::call`].
    pub fn call_blocking(&self, call: MCPToolCall) -> MCPToolResult {
        if tokio::runtime::Handle::try_current().is_ok() {
            return MCPToolResult::failure(ToolError::execution(
                "`Registry::call_blocking` cannot block inside an async runtime: use `Registry::call(..).await`",
            ));
        }
        match blocking_runtime() {
            Ok(runtime) => runtime.block_on(self.call(call)),
            Err(err) => MCPToolResult::failure(ToolError::execution(format!(
                "cannot start the runtime for blocking calls: {err}"
            ))),
        }
    }

    /// Wraps the calls of the items `selector` picks (every call, with none) in `layer`,
    /// inside the layers it has: [`RegistryBuilder::layer_for`] for a registry already
    /// built, as the command line's `--tool-rate-limit` and its kin do. A selector that
    /// picks nothing is an error naming the closest tool, and leaves the registry as it was.
    pub fn add_layer(
        &mut self,
        selector: Option<crate::service::Selector>,
        layer: crate::layers::BoxLayer,
    ) -> Result<(), RegistryError> {
        let spec = layered::Spec { selector, layer };
        let mut problems = Vec::new();
        let tools: Vec<RegisteredTool> = self.tools.values().cloned().collect();
        builder::unmatched_selectors(
            std::slice::from_ref(&spec),
            &tools,
            &self.resources,
            &self.prompts,
            &mut problems,
        );
        RegistryError::of(problems)?;
        self.layers = self.layers.with(spec);
        // What wraps each tool is found again, by the new layers.
        for tool in self.tools.values_mut() {
            tool.wrapped = std::sync::OnceLock::new();
        }
        Ok(())
    }

    /// Whether any call goes through layers: the builder was given one, or a tool has its
    /// own.
    pub(crate) fn has_layers(&self) -> bool {
        self.layers.any()
    }

    /// How long a call of `tool` may run: its own timeout, else the registry's.
    pub(crate) fn timeout_of(&self, tool: &RegisteredTool) -> Option<std::time::Duration> {
        tool.definition()
            .timeout()
            .or(self.settings.default_timeout)
    }

    /// Whether a call of the tool named `name` may ask the client: the tool can (it awaits),
    /// or its user must confirm it first.
    pub(crate) fn may_ask_user(&self, name: &str) -> bool {
        self.get(name)
            .is_some_and(|tool| tool.may_ask() || self.asks_user_before(tool.built()))
    }

    /// Whether a call of the tool `built` describes first asks the client's user to
    /// confirm it.
    pub(crate) fn asks_user_before(&self, built: &crate::tool::Built) -> bool {
        self.settings.dangerous.asks_user(&built.definition)
    }

    /// Whether a call of the tool `built` describes must await before it ends, though the
    /// tool itself runs inline: its user confirms it first, or it runs in a sandbox worker.
    pub(crate) fn awaits_before(&self, built: &crate::tool::Built) -> bool {
        self.asks_user_before(built)
            || (built.definition.annotations().requires_sandbox && !crate::isolation::in_worker())
    }

    /// The timeout of its tools that set none; `None` for no limit.
    pub fn default_timeout(&self) -> Option<std::time::Duration> {
        self.settings.default_timeout
    }

    /// How this registry runs its sandboxed tools.
    pub fn sandboxing(&self) -> &crate::isolation::Sandboxing {
        &self.settings.sandbox
    }

    fn unknown_tool(&self, name: &str) -> MCPToolResult {
        let closest = self.closest(name);
        let mut message = format!("no tool is named `{name}`");
        if self.tools.contains_key(name) {
            message = format!("tool `{name}` is disabled");
        } else if !closest.is_empty() {
            message.push_str(&did_you_mean(&closest));
        } else if self.is_empty() {
            message.push_str(&format!("; {EMPTY_REGISTRY_HINT}"));
        }
        MCPToolResult::failure(
            ToolError::new(ErrorType::ResourceNotFound, message)
                .with_details(serde_json::json!({ "tool_name": name, "closest": closest })),
        )
    }

    /// Up to three enabled names closest to `name`.
    pub(crate) fn closest(&self, name: &str) -> Vec<&str> {
        closest_names(name, self.list().map(|tool| tool.name.as_str()))
    }
}

/// Up to three of `candidates` closest to `wanted`, the closest first: hints for a name or
/// URI that is not known. A name whose last part (after its last `.`) is `wanted`'s comes
/// first: `paint` for `nu.paint`, `nu.pain` for `nu.paint` after the near spellings.
pub(crate) fn closest_names<'a>(
    wanted: &str,
    candidates: impl Iterator<Item = &'a str>,
) -> Vec<&'a str> {
    let last = |name: &'a str| name.rsplit('.').next().unwrap_or(name);
    let wanted_last = wanted.rsplit('.').next().unwrap_or(wanted);
    let mut scored: Vec<(f64, &str)> = candidates
        .map(|candidate| {
            let score = if candidate != wanted && last(candidate) == wanted_last {
                1.0
            } else {
                strsim::jaro_winkler(wanted, candidate)
            };
            (score, candidate)
        })
        .filter(|(score, _)| *score >= 0.7)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    scored.into_iter().take(3).map(|(_, name)| name).collect()
}

/// `"; did you mean `a`, `b`?"` for `closest`, or nothing when it is empty.
pub(crate) fn did_you_mean(closest: &[&str]) -> String {
    if closest.is_empty() {
        String::new()
    } else {
        format!("; did you mean `{}`?", closest.join("`, `"))
    }
}

fn dynamic<F, Fut>(tool: F) -> Handler
where
    F: Fn(Arguments, ToolContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Value, ToolError>> + Send + 'static,
{
    Handler::Dynamic(Arc::new(move |arguments, context| {
        let future = tool(arguments, context);
        Box::pin(async move { future.await.map(Output::Value).map_err(Failure::from) })
    }))
}

fn blocking_runtime() -> Result<&'static tokio::runtime::Runtime, &'static std::io::Error> {
    static RUNTIME: OnceLock<std::io::Result<tokio::runtime::Runtime>> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .thread_name("mcp-runtime-blocking")
                .enable_all()
                .build()
        })
        .as_ref()
}
