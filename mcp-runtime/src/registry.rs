//! The registry: every tool of the application, looked up by name, listed in name order.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, OnceLock};

use mcp_core::{
    DefinitionError, ErrorType, MCPToolCall, MCPToolResult, ToolDefinition, ToolError, ToolName,
};

use crate::context::ToolContext;
use crate::execute;
use crate::registration::{Handler, Location, ToolRegistration};

/// A tool in a registry: its definition, how to run it, and where it was defined.
#[derive(Debug)]
pub struct RegisteredTool {
    name: Arc<ToolName>,
    definition: ToolDefinition,
    handler: Handler,
    location: Location,
}

impl RegisteredTool {
    /// The definition.
    pub fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    /// Where the tool was defined.
    pub fn location(&self) -> &Location {
        &self.location
    }

    fn context(&self) -> ToolContext {
        ToolContext::new(Arc::clone(&self.name))
    }
}

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
}

/// Why a registry could not be built: every problem found, not just the first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistryError {
    problems: Vec<RegistryProblem>,
}

impl RegistryError {
    /// The problems.
    pub fn problems(&self) -> &[RegistryProblem] {
        &self.problems
    }
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the tool registry has {} problem(s):",
            self.problems.len()
        )?;
        for problem in &self.problems {
            write!(f, "\n  - {problem}")?;
        }
        Ok(())
    }
}

impl std::error::Error for RegistryError {}

/// What to check when a registry has no tools.
pub const EMPTY_REGISTRY_HINT: &str = "no tools are registered. Tools are functions marked `#[mcp_tool]` \
in a crate linked into this binary. A library crate of tools that the binary never references may not be \
linked at all: use something from it (e.g. `use my_tools as _;` in main.rs, or call one of its functions).";

/// Every tool of the application, sorted by name.
///
/// ```
/// use mcp_runtime::{MCPToolCall, Registry, mcp_tool};
///
/// /// Adds one.
/// #[mcp_tool(namespace = "demo")]
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
#[derive(Debug, Default)]
pub struct Registry {
    tools: Vec<RegisteredTool>,
    index: HashMap<String, usize>,
}

impl Registry {
    /// The registry of every `#[mcp_tool]` linked into the program, built on first use.
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
        static GLOBAL: OnceLock<Result<Registry, RegistryError>> = OnceLock::new();
        GLOBAL.get_or_init(Self::from_inventory).as_ref()
    }

    /// A new registry of every `#[mcp_tool]` linked into the program.
    pub fn from_inventory() -> Result<Registry, RegistryError> {
        let mut problems = Vec::new();
        let mut tools = Vec::new();
        for registration in inventory::iter::<ToolRegistration> {
            match (registration.definition)() {
                Ok(definition) => tools.push(RegisteredTool {
                    name: Arc::new(definition.name().clone()),
                    definition,
                    handler: registration.handler,
                    location: registration.location,
                }),
                Err(source) => problems.push(RegistryProblem::Definition {
                    location: registration.location,
                    source,
                }),
            }
        }
        // inventory's order is unspecified: sort by name, then by place for stable messages.
        tools.sort_by(|a, b| {
            (a.definition.name(), a.location.file, a.location.line).cmp(&(
                b.definition.name(),
                b.location.file,
                b.location.line,
            ))
        });
        for pair in tools.windows(2) {
            if pair[0].definition.name() == pair[1].definition.name() {
                problems.push(RegistryProblem::Duplicate {
                    name: pair[0].definition.name().to_string(),
                    first: pair[0].location,
                    second: pair[1].location,
                });
            }
        }
        if !problems.is_empty() {
            return Err(RegistryError { problems });
        }
        let index = tools
            .iter()
            .enumerate()
            .map(|(i, tool)| (tool.definition.name().to_string(), i))
            .collect();
        Ok(Registry { tools, index })
    }

    /// The tool named `name`.
    pub fn get(&self, name: &str) -> Option<&RegisteredTool> {
        self.index.get(name).map(|&i| &self.tools[i])
    }

    /// Whether a tool named `name` is registered.
    pub fn has_tool(&self, name: &str) -> bool {
        self.index.contains_key(name)
    }

    /// The number of tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether there are no tools (see [`EMPTY_REGISTRY_HINT`] for why that may be).
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The tools, sorted by name.
    pub fn list(&self) -> impl ExactSizeIterator<Item = &RegisteredTool> {
        self.tools.iter()
    }

    /// Runs `call` and answers with a result, whatever happens: an unknown tool is a
    /// `ResourceNotFound` failure naming the closest tools, bad arguments a `ValidationError`
    /// naming the argument, a panic a `ToolExecutionError`.
    pub async fn call(&self, call: MCPToolCall) -> MCPToolResult {
        match self.get(&call.tool_name) {
            Some(tool) => {
                execute::run(
                    &tool.definition,
                    tool.handler,
                    call.arguments,
                    tool.context(),
                )
                .await
            }
            None => self.unknown_tool(&call.tool_name),
        }
    }

    /// [`Registry::call`] for synchronous callers. Synchronous tools run on the calling
    /// thread; async ones on a runtime of this crate's.
    ///
    /// # Panics
    ///
    /// When called from within an async runtime's worker with an async tool: use
    /// [`Registry::call`] there.
    pub fn call_blocking(&self, call: MCPToolCall) -> MCPToolResult {
        let Some(tool) = self.get(&call.tool_name) else {
            return self.unknown_tool(&call.tool_name);
        };
        match tool.handler {
            Handler::Sync(invoke) => {
                execute::run_sync(&tool.definition, invoke, call.arguments, tool.context())
            }
            Handler::Async(_) => blocking_runtime().block_on(execute::run(
                &tool.definition,
                tool.handler,
                call.arguments,
                tool.context(),
            )),
        }
    }

    fn unknown_tool(&self, name: &str) -> MCPToolResult {
        let closest = self.closest(name);
        let mut message = format!("no tool is named `{name}`");
        if !closest.is_empty() {
            message.push_str(&format!("; did you mean `{}`?", closest.join("`, `")));
        } else if self.is_empty() {
            message.push_str(&format!("; {EMPTY_REGISTRY_HINT}"));
        }
        MCPToolResult::failure(
            ToolError::new(ErrorType::ResourceNotFound, message)
                .with_details(serde_json::json!({ "tool_name": name, "closest": closest })),
        )
    }

    /// Up to three registered names closest to `name`.
    fn closest(&self, name: &str) -> Vec<&str> {
        let mut scored: Vec<(f64, &str)> = self
            .tools
            .iter()
            .map(|tool| {
                let candidate = tool.definition.name().as_str();
                (strsim::jaro_winkler(name, candidate), candidate)
            })
            .filter(|(score, _)| *score >= 0.7)
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
        scored.into_iter().take(3).map(|(_, name)| name).collect()
    }
}

fn blocking_runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        match tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            Ok(runtime) => runtime,
            // Building a current-thread runtime fails only when the OS refuses its I/O driver.
            Err(err) => panic!("cannot start the runtime for blocking calls: {err}"),
        }
    })
}
