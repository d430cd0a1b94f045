//! A tool as a registry holds it: its definition, built when first needed, how it runs,
//! and where it came from. The registry keeps tools; `execute` runs one.

use std::sync::{Arc, OnceLock};

use mcp_runtime_core::{DefinitionError, ToolDefinition, ToolName};

use crate::registration::{Handler, Location, ToolRegistration};
use crate::state::StateNeedFn;
use crate::validate::{Reading, Validation};

/// A tool in a registry: its definition, how to run it, and where it came from.
#[derive(Debug, Clone)]
pub struct RegisteredTool {
    pub(crate) name: Arc<ToolName>,
    described: Arc<Described>,
    pub(crate) handler: Handler,
    pub(crate) location: Location,
    source: Arc<str>,
    pub(crate) enabled: bool,
    /// A mounted tool of another server: up to its first wait, a call only writes the
    /// request to that server.
    pub(crate) relayed: bool,
    /// The state types it takes, which its registry must hold.
    pub(crate) states: &'static [StateNeedFn],
    /// Makes the tool's own layer (`#[mcp_tool(layer = …)]`), innermost of its stack.
    pub(crate) layer: Option<fn() -> crate::layers::BoxLayer>,
    /// What wraps its calls (`None`: nothing does), as the layers of its registry found it,
    /// with their id: set on its first call, and read on each after.
    pub(crate) wrapped: OnceLock<(u64, Option<Arc<crate::service::Wrapping>>)>,
}

/// A tool's definition and its validation state: built when registered for a dynamic
/// tool, on first use for an `#[mcp_tool]`, since generating schemas is most of the cost
/// of starting a program with many tools, and a server answers its first request before
/// any of them is needed.
#[derive(Debug)]
enum Described {
    /// Built when registered.
    Ready(Built),
    /// Built by `make` when first needed.
    Deferred {
        make: fn() -> Result<ToolDefinition, DefinitionError>,
        /// The name, for the stand-in definition when `make` fails.
        name: Arc<ToolName>,
        /// How the handler reads its arguments.
        reading: Reading,
        built: OnceLock<Built>,
    },
}

/// A tool's definition and what follows from it, built once.
#[derive(Debug)]
pub(crate) struct Built {
    pub(crate) definition: ToolDefinition,
    pub(crate) validation: Validation,
    /// Why the definition could not be built; calls are refused with it.
    pub(crate) error: Option<DefinitionError>,
}

impl Built {
    /// Whether a call must pass a check before the tool runs: the dangerous-tool policy or
    /// the input schema (its constraints, or its names).
    pub(crate) fn is_guarded(&self) -> bool {
        self.definition.annotations().dangerous || self.validation.checks_input()
    }

    fn new(definition: ToolDefinition, reading: Reading, error: Option<DefinitionError>) -> Self {
        Self {
            validation: Validation::new(&definition, reading),
            definition,
            error,
        }
    }

    fn made(
        made: Result<ToolDefinition, DefinitionError>,
        name: &ToolName,
        reading: Reading,
    ) -> Self {
        match made {
            Ok(definition) => Self::new(definition, reading, None),
            Err(error) => Self::new(
                ToolDefinition::unavailable(name.clone(), &error),
                Reading::Schema,
                Some(error),
            ),
        }
    }
}

impl Described {
    fn get(&self) -> &Built {
        match self {
            Self::Ready(built) => built,
            Self::Deferred {
                make,
                name,
                reading,
                built,
            } => built.get_or_init(|| Built::made(make(), name, *reading)),
        }
    }
}

impl RegisteredTool {
    /// Whether the tool can ask the client: an `async` or dynamic tool, which can await
    /// the answer.
    pub(crate) fn may_ask(&self) -> bool {
        self.enabled && matches!(self.handler, Handler::Async(_) | Handler::Dynamic(_))
    }

    /// Whether a call is quick to start where it was read: up to its first wait, it only
    /// writes the request to the server whose tool this is.
    pub(crate) fn starts_at_once(&self) -> bool {
        self.enabled && self.relayed
    }

    pub(crate) fn new(
        definition: ToolDefinition,
        handler: Handler,
        location: Location,
        source: &str,
    ) -> Self {
        let reading = Reading::of(handler.is_typed(), false);
        Self {
            name: Arc::new(definition.name().clone()),
            described: Arc::new(Described::Ready(Built::new(definition, reading, None))),
            handler,
            location,
            source: source.into(),
            enabled: true,
            relayed: false,
            states: &[],
            layer: None,
            wrapped: OnceLock::new(),
        }
    }

    /// A tool of `#[mcp_tool]`, its definition left to be built when first needed.
    pub(crate) fn registered(
        registration: &ToolRegistration,
        source: &Arc<str>,
    ) -> Result<Self, DefinitionError> {
        let name = Arc::new(ToolName::new(registration.name)?);
        Ok(Self {
            described: Arc::new(Described::Deferred {
                make: registration.definition,
                name: Arc::clone(&name),
                reading: Reading::of(registration.handler.is_typed(), registration.exact_names),
                built: OnceLock::new(),
            }),
            name,
            handler: registration.handler.clone(),
            location: registration.location,
            source: Arc::clone(source),
            enabled: true,
            relayed: false,
            states: registration.states,
            layer: registration.layer,
            wrapped: OnceLock::new(),
        })
    }

    /// The name.
    pub fn name(&self) -> &ToolName {
        &self.name
    }

    /// The definition.
    pub fn definition(&self) -> &ToolDefinition {
        &self.described.get().definition
    }

    /// Why the tool's definition could not be built, if it could not; such a tool is
    /// listed with a stand-in definition saying so, and its calls are refused.
    pub fn definition_error(&self) -> Option<&DefinitionError> {
        self.described.get().error.as_ref()
    }

    /// Where the tool was defined (or registered, for a dynamic tool).
    pub fn location(&self) -> &Location {
        &self.location
    }

    /// Where the tool comes from: `#[mcp_tool]`, a dynamic registration, or a mount.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Whether the tool is enabled; a disabled tool is neither listed nor called.
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// Whether its arguments are checked against the input schema even when they
    /// deserialize: true when the schema states more than the parameter types do. A name
    /// the schema does not list, such as a `#[serde(alias)]`, is refused either way: by the
    /// arguments struct, or by a look at the names on every call of a tool whose struct
    /// could read one.
    pub fn validates_arguments(&self) -> bool {
        self.validation().validates_input()
    }

    pub(crate) fn handler(&self) -> &Handler {
        &self.handler
    }

    pub(crate) fn validation(&self) -> &Validation {
        &self.described.get().validation
    }

    /// The definition, its validation state and its error in one look: a call reads them
    /// all, and each separate look checks that they were built.
    pub(crate) fn built(&self) -> &Built {
        self.described.get()
    }

    pub(crate) fn shared_name(&self) -> Arc<ToolName> {
        Arc::clone(&self.name)
    }

    pub(crate) fn name_arc(&self) -> &Arc<ToolName> {
        &self.name
    }

    /// The same tool under another name, from `source` (a mount), with its own layer.
    pub(crate) fn renamed(&self, name: ToolName, source: &str) -> Self {
        let definition = self.definition().clone().with_name(name);
        let mut tool = Self::new(definition, self.handler.clone(), self.location, source);
        tool.enabled = self.enabled;
        tool.relayed = self.relayed;
        tool.states = self.states;
        tool.layer = self.layer;
        tool
    }
}
