//! [`RegistryBuilder`]: which tools, resources and prompts a [`Registry`] holds, filtered
//! how, run with which limits and policy.

use super::*;
use crate::skills::Skill;

type Filter = Box<dyn Fn(&ToolDefinition) -> bool>;
/// A filter of resources by URI (or template), or of prompts by name.
type KeyFilter = Box<dyn Fn(&str) -> bool>;

/// Builds a [`Registry`]: which tools (every `#[mcp_tool]`, other registries, dynamic
/// tools), filtered how, run with which limits and policy.
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::Registry;
///
/// let registry = Registry::builder()
///     .inventory()
///     .category("filesystem")
///     .default_timeout(Some(Duration::from_secs(10)))
///     .allow_dangerous(["fs.delete"])
///     .build()?;
/// assert!(registry.list().all(|tool| tool.definition().category() == Some("filesystem")));
/// # Ok::<(), mcp_runtime::RegistryError>(())
/// ```
#[derive(Default)]
pub struct RegistryBuilder {
    tools: Vec<RegisteredTool>,
    pub(super) problems: Vec<RegistryProblem>,
    filters: Vec<Filter>,
    resource_filters: Vec<KeyFilter>,
    prompt_filters: Vec<KeyFilter>,
    settings: Settings,
    resources: resources::Resources,
    prompts: prompts::Prompts,
    pub(super) skills: crate::skills::Skills,
    layers: Vec<layered::Spec>,
}

impl RegistryBuilder {
    /// Adds every `#[mcp_tool]`, `#[mcp_resource]` and `#[mcp_prompt]` linked into the
    /// program.
    #[must_use]
    pub fn inventory(mut self) -> Self {
        self.resources.inventory(&mut self.problems);
        self.prompts.inventory(&mut self.problems);
        self.embedded_skills();
        let source: Arc<str> = FROM_ATTRIBUTE.into();
        for form in inventory::iter::<FormRegistration> {
            if let Err(reason) = (form.check)() {
                self.problems.push(RegistryProblem::Form {
                    location: form.location,
                    form: form.name,
                    reason: reason.to_string(),
                });
            }
        }
        for registration in inventory::iter::<ToolRegistration> {
            match RegisteredTool::registered(registration, &source) {
                Ok(tool) => self.tools.push(tool),
                Err(source) => self.problems.push(RegistryProblem::Definition {
                    location: registration.location,
                    source,
                }),
            }
        }
        self
    }

    /// Adds the enabled tools, the resources and the prompts of `registry`, and the states
    /// it was given of types this builder has none of. A URI or a prompt name already
    /// added is a problem [`RegistryBuilder::build`] reports, as a tool name is.
    #[must_use]
    pub fn registry(mut self, registry: &Registry) -> Self {
        self.settings.states.merge(&registry.settings.states);
        self.tools.extend(registry.list().cloned());
        self.resources
            .extend(&registry.resources, &mut self.problems);
        self.prompts.extend(&registry.prompts, &mut self.problems);
        for folder in registry.skills.folders() {
            self.skills.add_folder(folder.clone());
        }
        self.add_skills(registry.skills.iter().map(|skill| Skill::clone(skill)));
        self.layers.extend(registry.layers.specs().iter().cloned());
        self
    }

    /// Adds a dynamic tool; see [`Registry::register`].
    #[must_use]
    #[track_caller]
    pub fn tool<F, Fut>(mut self, definition: ToolDefinition, tool: F) -> Self
    where
        F: Fn(Arguments, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, ToolError>> + Send + 'static,
    {
        self.tools.push(RegisteredTool::new(
            definition,
            dynamic(tool),
            Location::caller(),
            FROM_DYNAMIC,
        ));
        self
    }

    /// Gives the tools `value`: a tool taking a [`State<T>`](crate::State) parameter gets
    /// it, and [`ToolContext::state`] reads it. One value per type: a second of the same
    /// type replaces the first. Build the registry without a state a tool takes, and
    /// [`RegistryBuilder::build`] refuses it, naming the tool and the type.
    ///
    /// A value that several parts of the application share is given as it is and shared
    /// by the registry: `T` is often a handle that is cheap to clone itself (a pool, an
    /// HTTP client), or a type holding atomics or a lock.
    ///
    /// ```standalone_crate
    /// use mcp_runtime::{MCPToolCall, Registry, State, mcp_tool};
    ///
    /// /// The server's settings.
    /// struct Config {
    ///     greeting: String,
    /// }
    ///
    /// /// Greets someone, as configured.
    /// #[mcp_tool(namespace = "demo", inline)]
    /// fn greet(config: State<Config>, name: String) -> String {
    ///     format!("{}, {name}!", config.greeting)
    /// }
    ///
    /// let registry = Registry::builder()
    ///     .inventory()
    ///     .state(Config { greeting: "Hello".to_owned() })
    ///     .build()?;
    /// let call = MCPToolCall::new("demo.greet", serde_json::json!({ "name": "Ada" }))?;
    /// let result = registry.call_blocking(call);
    /// assert_eq!(result.data().unwrap()["result"], "Hello, Ada!");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.settings.states.insert(Arc::new(value));
        self
    }

    /// Gives the tools `states`, those of a type this builder has none of.
    #[cfg(feature = "cli")]
    pub(crate) fn states(mut self, states: &States) -> Self {
        self.settings.states.merge(states);
        self
    }

    /// Keeps only the tools of `category`.
    #[must_use]
    pub fn category(self, category: impl Into<String>) -> Self {
        let category = category.into();
        self.filter(move |definition| definition.category() == Some(category.as_str()))
    }

    /// Keeps only the tools with at least one of `tags`.
    #[must_use]
    pub fn tags<I, S>(self, tags: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let tags: BTreeSet<String> = tags.into_iter().map(Into::into).collect();
        self.filter(move |definition| definition.tags().iter().any(|tag| tags.contains(tag)))
    }

    /// Keeps only the tools named here.
    #[must_use]
    pub fn names<I, S>(self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let names: BTreeSet<String> = names.into_iter().map(Into::into).collect();
        self.filter(move |definition| names.contains(definition.name().as_str()))
    }

    /// Keeps only the tools whose name starts with `prefix` (e.g. `file_utility.`).
    #[must_use]
    pub fn prefix(self, prefix: impl Into<String>) -> Self {
        let prefix = prefix.into();
        self.filter(move |definition| definition.name().starts_with(prefix.as_str()))
    }

    /// Keeps only the tools `keep` accepts. Filters add up: a tool must pass them all.
    /// [`RegistryBuilder::category`], [`tags`](RegistryBuilder::tags),
    /// [`names`](RegistryBuilder::names) and [`prefix`](RegistryBuilder::prefix) are
    /// filters of tools too; resources and prompts have their own.
    #[must_use]
    pub fn filter(mut self, keep: impl Fn(&ToolDefinition) -> bool + 'static) -> Self {
        self.filters.push(Box::new(keep));
        self
    }

    /// Keeps only the resources whose URI, and the templates whose URI template, `keep`
    /// accepts. Filters add up. A definition need not be built to be filtered.
    ///
    /// ```
    /// use mcp_runtime::Registry;
    ///
    /// let registry = Registry::builder()
    ///     .inventory()
    ///     .filter_resources(|uri| uri.starts_with("docs://"))
    ///     .filter_prompts(|_| false)
    ///     .build()?;
    /// assert!(registry.resources().all(|resource| resource.uri().starts_with("docs://")));
    /// assert_eq!(registry.prompts().count(), 0);
    /// # Ok::<(), mcp_runtime::RegistryError>(())
    /// ```
    #[must_use]
    pub fn filter_resources(mut self, keep: impl Fn(&str) -> bool + 'static) -> Self {
        self.resource_filters.push(Box::new(keep));
        self
    }

    /// Keeps only the prompts whose name `keep` accepts. Filters add up.
    #[must_use]
    pub fn filter_prompts(mut self, keep: impl Fn(&str) -> bool + 'static) -> Self {
        self.prompt_filters.push(Box::new(keep));
        self
    }

    /// The timeout of tools that set none; `None` for no limit. 60 s unless set.
    #[must_use]
    pub fn default_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.settings.default_timeout = timeout;
        self
    }

    /// How many synchronous tools (neither `async` nor `inline`) run at once, each on a
    /// thread of tokio's blocking pool: a call past them waits for one to end, up to its
    /// timeout, then fails with `ApiLimitExceeded`. A burst of calls so grows the pool by
    /// at most `threads`. [`DEFAULT_BLOCKING_THREADS`](crate::DEFAULT_BLOCKING_THREADS)
    /// unless set.
    ///
    /// ```
    /// use std::num::NonZeroUsize;
    /// use mcp_runtime::Registry;
    ///
    /// let registry = Registry::builder()
    ///     .inventory()
    ///     .blocking_threads(NonZeroUsize::new(8).expect("not zero"))
    ///     .build()?;
    /// # Ok::<(), mcp_runtime::RegistryError>(())
    /// ```
    #[must_use]
    pub fn blocking_threads(mut self, threads: std::num::NonZeroUsize) -> Self {
        self.settings.blocking = crate::execute::BlockingSlots::new(threads);
        self
    }

    /// Whether a tool's data is checked against its output schema, a mismatch being a
    /// `ToolExecutionError`. On in debug builds unless set.
    #[must_use]
    pub fn validate_output(mut self, validate: bool) -> Self {
        self.settings.validate_output = validate;
        self
    }

    /// Whether a string holding JSON is read as the object or array the input schema wants
    /// where it stands: models often send nested arguments JSON-encoded. Off unless set.
    /// Nothing else is relaxed, and the result's explanation says what was read, or why a
    /// string that looked like JSON was not; see
    /// [`#[mcp_tool]`](crate::mcp_tool#lenient-arguments).
    #[must_use]
    pub fn lenient_arguments(mut self, lenient: bool) -> Self {
        self.settings.lenient_arguments = lenient;
        self
    }

    /// Whether a tool's panic message reaches the client. Off unless set: a panic message
    /// is a bug report and may hold the call's argument values, so the client gets "the
    /// tool failed unexpectedly" with an incident id, and the log (the `tracing` target
    /// [`PANIC_TARGET`](crate::PANIC_TARGET), or standard error) the message, its place and
    /// the same id. For development.
    #[must_use]
    pub fn expose_panics(mut self, expose: bool) -> Self {
        self.settings.expose_panics = expose;
        self
    }

    /// How the tools marked `requires_sandbox` run: which may run unsandboxed where this
    /// machine cannot isolate them, the operator's policies, the paths policies name, and
    /// how many workers wait ready. By default none runs unsandboxed, each runs with the
    /// policy it states, and every call starts its worker.
    #[must_use]
    pub fn sandboxing(mut self, sandboxing: crate::isolation::Sandboxing) -> Self {
        self.settings.sandbox = sandboxing;
        self
    }

    /// Which `dangerous` tools may run; none unless set.
    #[must_use]
    pub fn dangerous_policy(mut self, policy: DangerousPolicy) -> Self {
        self.settings.dangerous = policy;
        self
    }

    /// Lets the `dangerous` tools named here run.
    #[must_use]
    pub fn allow_dangerous<I, S>(self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.dangerous_policy(DangerousPolicy::Allow(
            names.into_iter().map(Into::into).collect(),
        ))
    }

    /// Puts each call of a `dangerous` tool to `confirm`, which says whether it may run.
    #[must_use]
    pub fn confirm_dangerous(
        self,
        confirm: impl Fn(&ToolDefinition, &Map<String, Value>) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.dangerous_policy(DangerousPolicy::Confirm(Arc::new(confirm)))
    }

    /// Asks the client's user to confirm each call of a `dangerous` tool, through MCP
    /// elicitation ([`DangerousPolicy::AskUser`]).
    #[must_use]
    pub fn ask_user_before_dangerous(self) -> Self {
        self.dangerous_policy(DangerousPolicy::AskUser)
    }

    /// Wraps every call (of a tool, a resource, a prompt) in `layer`: any `tower::Layer`
    /// whose service answers a [`layers::Request`](crate::layers::Request) with a
    /// [`layers::Response`](crate::layers::Response), as tower's own do. Layers given first
    /// are outermost. Each item gets its own instance of the layer's service: a stock layer
    /// keeps its state (a concurrency limit's permits) per item.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp_runtime::Registry;
    ///
    /// let registry = Registry::builder()
    ///     .inventory()
    ///     .layer(tower::timeout::TimeoutLayer::new(Duration::from_secs(5)))
    ///     .build()?;
    /// # Ok::<(), mcp_runtime::RegistryError>(())
    /// ```
    #[must_use]
    pub fn layer<L>(mut self, layer: L) -> Self
    where
        L: tower::Layer<crate::service::Stack> + Send + Sync + 'static,
        L::Service: tower::Service<crate::service::Request, Response = crate::service::Response>
            + Clone
            + Send
            + Sync
            + 'static,
        <L::Service as tower::Service<crate::service::Request>>::Error:
            Into<crate::service::BoxError>,
        <L::Service as tower::Service<crate::service::Request>>::Future: Send + 'static,
    {
        self.layers.push(layered::Spec {
            selector: None,
            layer: crate::layers::BoxLayer::new(layer),
        });
        self
    }

    /// Wraps the calls of the items `selector` picks in `layer` (see
    /// [`RegistryBuilder::layer`]): a name, a `namespace.*` pattern, `tag:NAME` or
    /// `category:NAME` ([`layers::Selector`](crate::layers::Selector)). A selector that
    /// picks nothing makes [`RegistryBuilder::build`] fail, naming the closest tool.
    #[must_use]
    pub fn layer_for(
        mut self,
        selector: crate::service::Selector,
        layer: crate::layers::BoxLayer,
    ) -> Self {
        self.layers.push(layered::Spec {
            selector: Some(selector),
            layer,
        });
        self
    }

    /// The registry, or every problem found: invalid definitions, duplicate names (with
    /// both source locations), a state a tool takes that was never given
    /// ([`RegistryBuilder::state`]).
    pub fn build(self) -> Result<Registry, RegistryError> {
        // Before any tool runs, so that a tool's run only counts itself (see `panics`).
        crate::panics::install();
        let mut problems = self.problems;
        let mut tools: Vec<RegisteredTool> = self
            .tools
            .into_iter()
            .filter(|tool| self.filters.iter().all(|keep| keep(tool.definition())))
            .collect();
        // inventory's order is unspecified: sort by name, then by place for stable messages.
        tools.sort_unstable_by(|a, b| (&a.name, a.location).cmp(&(&b.name, b.location)));
        for tool in &tools {
            for need in tool.states.iter().map(|need| need()) {
                if !self.settings.states.contains(need.id) {
                    problems.push(RegistryProblem::MissingState {
                        tool: tool.name.to_string(),
                        state: need.name,
                        location: tool.location,
                    });
                }
            }
        }
        for pair in tools.windows(2) {
            if pair[0].name == pair[1].name {
                problems.push(RegistryProblem::Duplicate {
                    name: pair[0].name.to_string(),
                    first: pair[0].location,
                    second: pair[1].location,
                });
            }
        }
        let (mut resources, mut prompts) = (self.resources, self.prompts);
        resources.retain(&|uri| self.resource_filters.iter().all(|keep| keep(uri)));
        prompts.retain(&|name| self.prompt_filters.iter().all(|keep| keep(name)));
        unmatched_selectors(&self.layers, &tools, &resources, &prompts, &mut problems);
        if !problems.is_empty() {
            return Err(RegistryError { problems });
        }
        let mut layers = layered::Layers::new(self.layers);
        tools.iter().for_each(|tool| layers.note(tool));
        let order = tools.iter().map(|tool| tool.name.to_string()).collect();
        let tools = tools
            .into_iter()
            .map(|tool| (tool.name.to_string(), tool))
            .collect();
        Ok(Registry {
            tools,
            order,
            settings: Arc::new(self.settings),
            layers,
            resources,
            prompts,
            skills: self.skills,
            versions: Versions::default(),
        })
    }
}

/// A problem for each selector of `layers` that picks none of the items.
pub(super) fn unmatched_selectors(
    layers: &[layered::Spec],
    tools: &[RegisteredTool],
    resources: &resources::Resources,
    prompts: &prompts::Prompts,
    problems: &mut Vec<RegistryProblem>,
) {
    for selector in layers.iter().filter_map(|spec| spec.selector.as_ref()) {
        let picks_tool = tools
            .iter()
            .any(|tool| selector.matches_tool(tool.definition()));
        let picks_other = resources.keys().any(|key| selector.matches_name(key))
            || prompts
                .by_name
                .keys()
                .any(|name| selector.matches_name(name));
        if picks_tool || picks_other {
            continue;
        }
        let wanted = selector.to_string();
        let names = tools.iter().map(|tool| tool.name.as_str());
        problems.push(RegistryProblem::UnmatchedSelector {
            nearest: closest_names(&wanted, names)
                .first()
                .map(|name| (*name).to_owned()),
            selector: wanted,
        });
    }
}

impl fmt::Debug for RegistryBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RegistryBuilder")
            .field("tools", &self.tools.len())
            .field("filters", &self.filters.len())
            .field("resources", &self.resources.len())
            .field("resource_filters", &self.resource_filters.len())
            .field("prompts", &self.prompts.by_name.len())
            .field("prompt_filters", &self.prompt_filters.len())
            .field("settings", &self.settings)
            .finish()
    }
}
