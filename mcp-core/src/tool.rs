//! The tool model: what a tool is called, what it does, what it accepts and returns.

use std::time::Duration;

use schemars::Schema;
use serde_json::{Map, Value};

use crate::header::{self, HeaderError, HeaderParam};
use crate::message::ErrorType;
use crate::name::{ToolName, ToolNameError};
use crate::sandbox::SandboxPolicy;
use crate::schema::{OutputSchema, has_object_root};

/// The key under which fields MCP's `Tool` lacks travel in its `_meta`.
pub const META_KEY: &str = "mcp-runtime/tool";

/// Hints about a tool's behaviour. The first four are MCP's annotations (unset means MCP's
/// default); `dangerous` and `requires_sandbox` are the tool annotations' safety flags.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ToolAnnotations {
    /// The tool does not modify its environment (`readOnlyHint`).
    pub read_only: Option<bool>,
    /// The tool may destroy data (`destructiveHint`).
    pub destructive: Option<bool>,
    /// Repeating a call with the same arguments has no further effect (`idempotentHint`).
    pub idempotent: Option<bool>,
    /// The tool reaches entities outside a closed domain (`openWorldHint`).
    pub open_world: Option<bool>,
    /// The tool needs the caller's confirmation before it runs.
    pub dangerous: bool,
    /// The tool should run in an isolated environment.
    pub requires_sandbox: bool,
}

/// The policy of a sandboxed tool that states none.
static STRICT: SandboxPolicy = SandboxPolicy::STRICT;

/// Why a tool definition is not acceptable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DefinitionError {
    /// The name is not a valid invocation name.
    #[error("tool name {0}")]
    Name(#[from] ToolNameError),
    /// The version is not semantic versioning.
    #[error("tool `{tool}`: version `{version}` is not a semantic version (X.Y.Z): {reason}")]
    Version {
        /// The tool.
        tool: String,
        /// The rejected version.
        version: String,
        /// What the semver parser said.
        reason: String,
    },
    /// A schema's root is not `"type": "object"`, as MCP requires.
    #[error("tool `{tool}`: the {which} schema's root must be `\"type\": \"object\"`")]
    NotAnObjectSchema {
        /// The tool.
        tool: String,
        /// `input` or `output`.
        which: &'static str,
    },
    /// An `x-mcp-header` annotation of the input schema breaks MCP's rules for it.
    #[error("tool `{tool}`: the `x-mcp-header` annotation at `{at}` of the input schema {error}")]
    HeaderAnnotation {
        /// The tool.
        tool: String,
        /// The JSON pointer, within the input schema, of the schema carrying the annotation:
        /// `/properties/region` for the argument `region`.
        at: String,
        /// What is wrong.
        error: HeaderError,
    },
    /// A required client capability is not an object, as MCP's `ClientCapabilities` has it.
    #[error(
        "tool `{tool}`: the required client capability `{capability}` must be an object, e.g. `{{}}`"
    )]
    ClientCapability {
        /// The tool.
        tool: String,
        /// The capability's name.
        capability: String,
    },
}

/// Everything a client needs to know about a tool. It serializes to MCP's `Tool` object;
/// what MCP has no field for (version, category, tags, timeout, deprecation, declared error
/// types, `dangerous`, `requires_sandbox`, the required client capabilities) travels in
/// `_meta` under [`META_KEY`].
///
/// Every byte of the listing lands in a model's context, so it says each thing once and
/// leaves out what says nothing: the title when it is the description's summary line, a
/// package's version (see [`with_package_version`](Self::with_package_version)), flags that
/// are off, and `_meta` when nothing is left in it.
///
/// ```
/// use mcp_runtime_core::ToolDefinition;
/// use serde_json::json;
///
/// let input = schemars::json_schema!({ "type": "object", "properties": {} });
/// let tool = ToolDefinition::new("clock.now", input)?
///     .with_description("The current time.")
///     .with_version("1.2.0")?;
/// let wire = serde_json::to_value(&tool)?;
/// assert_eq!(wire["name"], "clock.now");
/// assert_eq!(wire["_meta"]["mcp-runtime/tool"]["version"], "1.2.0");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDefinition {
    name: ToolName,
    title: Option<String>,
    description: Option<String>,
    version: semver::Version,
    /// Whether the version is the tool's own, rather than its package's.
    version_stated: bool,
    category: Option<String>,
    tags: Vec<String>,
    annotations: ToolAnnotations,
    input_schema: Schema,
    output: Option<OutputSchema>,
    timeout: Option<Duration>,
    deprecated: Option<String>,
    errors: Vec<ErrorType>,
    examples: Vec<Map<String, Value>>,
    required_client_capabilities: Map<String, Value>,
    scopes: Vec<String>,
    task_support: TaskSupport,
    /// The policy of a tool that requires a sandbox, when it is not the strict default.
    sandbox: Option<Box<SandboxPolicy>>,
    /// `_meta` members listed as given (see [`with_meta`](Self::with_meta)).
    carried_meta: Map<String, Value>,
}

/// Whether a tool runs as a task (MCP's tasks extension, `io.modelcontextprotocol/tasks`):
/// its call answered at once with a task handle the client polls, for work that outlasts a
/// request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TaskSupport {
    /// Never: every call is answered with its result (the default).
    #[default]
    Forbidden,
    /// When the client supports tasks: a call from one that does not is answered with its
    /// result.
    Optional,
    /// Always: a call from a client that does not support tasks is refused (-32021).
    Required,
}

impl TaskSupport {
    /// `forbidden`, `optional` or `required`, as the wire's `execution.taskSupport` says it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Forbidden => "forbidden",
            Self::Optional => "optional",
            Self::Required => "required",
        }
    }
}

impl std::fmt::Display for TaskSupport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl ToolDefinition {
    /// A tool named `name` accepting arguments described by `input_schema` (an object root).
    /// The version starts at `0.0.0`.
    ///
    /// The schema's `x-mcp-header` annotations (see [`header_params`](Self::header_params))
    /// must follow MCP's rules: a valid header name, unique regardless of case, on a
    /// top-level property of type string, integer or boolean. A schema breaking them is a
    /// [`DefinitionError::HeaderAnnotation`].
    pub fn new(name: &str, input_schema: Schema) -> Result<Self, DefinitionError> {
        let name: ToolName = name.parse()?;
        if !has_object_root(&input_schema) {
            return Err(DefinitionError::NotAnObjectSchema {
                tool: name.into_string(),
                which: "input",
            });
        }
        if let Err(header::Misplaced { at, error }) = header::check(input_schema.as_value()) {
            return Err(DefinitionError::HeaderAnnotation {
                tool: name.into_string(),
                at,
                error,
            });
        }
        Ok(Self::bare(name, input_schema))
    }

    /// A definition standing in for one that could not be built: an input schema that
    /// is any object, and `reason` in its description.
    pub fn unavailable(name: ToolName, reason: impl std::fmt::Display) -> Self {
        Self {
            description: Some(format!("This tool is unavailable: {reason}")),
            ..Self::bare(name, schemars::json_schema!({ "type": "object" }))
        }
    }

    /// A definition of `name` and `input_schema` alone, every other field at its default.
    fn bare(name: ToolName, input_schema: Schema) -> Self {
        Self {
            name,
            title: None,
            description: None,
            version: semver::Version::new(0, 0, 0),
            version_stated: false,
            category: None,
            tags: Vec::new(),
            annotations: ToolAnnotations::default(),
            input_schema,
            output: None,
            timeout: None,
            deprecated: None,
            errors: Vec::new(),
            examples: Vec::new(),
            required_client_capabilities: Map::new(),
            scopes: Vec::new(),
            task_support: TaskSupport::Forbidden,
            sandbox: None,
            carried_meta: Map::new(),
        }
    }

    /// Renames the tool.
    #[must_use]
    pub fn with_name(mut self, name: ToolName) -> Self {
        self.name = name;
        self
    }

    text_setter!(
        /// Sets the human-readable title.
        with_title => title
    );

    text_setter!(
        /// Sets the description shown to models.
        with_description => description
    );

    /// Sets the tool's own version, which must be semantic versioning (`X.Y.Z`). It travels
    /// in `_meta`.
    pub fn with_version(mut self, version: &str) -> Result<Self, DefinitionError> {
        self.version = self.parse_version(version)?;
        self.version_stated = true;
        Ok(self)
    }

    /// Sets the version of the package the tool comes with, for a tool that states none of
    /// its own (what `#[mcp_tool]` does without `version = "…"`). The manifest and the
    /// specification show it; `_meta` leaves it out, as it tells a client nothing about the
    /// tool.
    ///
    /// ```
    /// use mcp_runtime_core::ToolDefinition;
    ///
    /// let input = schemars::json_schema!({ "type": "object", "properties": {} });
    /// let tool = ToolDefinition::new("clock.now", input)?.with_package_version("0.4.1")?;
    /// assert_eq!(tool.version().to_string(), "0.4.1");
    /// let wire = serde_json::to_value(&tool)?;
    /// assert!(wire.get("_meta").is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_package_version(mut self, version: &str) -> Result<Self, DefinitionError> {
        self.version = self.parse_version(version)?;
        self.version_stated = false;
        Ok(self)
    }

    fn parse_version(&self, version: &str) -> Result<semver::Version, DefinitionError> {
        version
            .parse()
            .map_err(|err: semver::Error| DefinitionError::Version {
                tool: self.name.to_string(),
                version: version.to_owned(),
                reason: err.to_string(),
            })
    }

    text_setter!(
        /// Sets the category (`filesystem`, `execution`, `vcs`, …).
        with_category => category
    );

    text_setter!(
        /// Sets the tags.
        with_tags => [tags]
    );

    text_setter!(
        /// Sets the OAuth scopes a caller needs: a server that takes access tokens runs the
        /// tool only for a caller granted every one, and answers the others 403 with the
        /// scopes to ask for.
        with_scopes => [scopes]
    );

    /// Lists `meta` in the tool's `_meta` as given: what the server that lists the tool put
    /// there, for a tool served on its behalf (a gateway's mounted tool). Nothing of it is
    /// read: what the definition sets itself under [`META_KEY`] (its version, …) is
    /// written over the members carried there.
    ///
    /// ```
    /// use mcp_runtime_core::ToolDefinition;
    /// use serde_json::json;
    ///
    /// let input = schemars::json_schema!({ "type": "object" });
    /// let listed = json!({ "vendor/ui": { "card": true }, "mcp-runtime/tool": { "tags": ["a"] } });
    /// let tool = ToolDefinition::new("far.tool", input)?
    ///     .with_meta(listed.as_object().cloned().unwrap_or_default())
    ///     .with_version("2.0.0")?;
    /// let wire = serde_json::to_value(&tool)?;
    /// assert_eq!(wire["_meta"]["vendor/ui"]["card"], true);
    /// assert_eq!(wire["_meta"]["mcp-runtime/tool"], json!({ "tags": ["a"], "version": "2.0.0" }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn with_meta(mut self, meta: Map<String, Value>) -> Self {
        self.carried_meta = meta;
        self
    }

    /// Sets the behaviour hints.
    #[must_use]
    pub fn with_annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.annotations = annotations;
        self
    }

    /// Marks the tool `requires_sandbox`, with `policy` rather than the strict default:
    /// what its isolated worker may reach.
    #[must_use]
    pub fn with_sandbox(mut self, policy: SandboxPolicy) -> Self {
        self.annotations.requires_sandbox = true;
        self.sandbox = (policy != SandboxPolicy::STRICT).then(|| Box::new(policy));
        self
    }

    /// The policy of a tool marked `requires_sandbox` (the strict default unless it was
    /// given one); `None` for a tool that runs in the server's process.
    pub fn sandbox(&self) -> Option<&SandboxPolicy> {
        self.annotations
            .requires_sandbox
            .then(|| self.sandbox.as_deref().unwrap_or(&STRICT))
    }

    /// Sets the output schema; its root must be an object (see
    /// [`output_schema`](crate::schema::output_schema), which wraps other types).
    pub fn with_output(mut self, output: OutputSchema) -> Result<Self, DefinitionError> {
        if !has_object_root(&output.schema) {
            return Err(DefinitionError::NotAnObjectSchema {
                tool: self.name.to_string(),
                which: "output",
            });
        }
        self.output = Some(output);
        Ok(self)
    }

    /// Sets how long a call may run before it fails with a `TimeoutError`.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Marks the tool deprecated, with a note saying what to use instead.
    #[must_use]
    pub fn with_deprecated(mut self, note: impl Into<String>) -> Self {
        self.deprecated = Some(note.into());
        self
    }

    /// Adds an example of the tool's arguments, for its documentation.
    #[must_use]
    pub fn with_example(mut self, arguments: Map<String, Value>) -> Self {
        self.examples.push(arguments);
        self
    }

    /// Declares the error types the tool may fail with, for its documentation.
    #[must_use]
    pub fn with_errors<I, E>(mut self, errors: I) -> Self
    where
        I: IntoIterator<Item = E>,
        E: Into<ErrorType>,
    {
        self.errors = errors.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the client capabilities the tool needs, as an MCP `ClientCapabilities` object:
    /// `{"sampling": {}}` for a tool that samples. Each capability's value must be an
    /// object, `{}` for the capability as such. Replaces what was set before.
    ///
    /// ```
    /// use mcp_runtime_core::ToolDefinition;
    /// use serde_json::json;
    ///
    /// let input = schemars::json_schema!({ "type": "object", "properties": {} });
    /// let required = json!({ "sampling": {} }).as_object().cloned().unwrap_or_default();
    /// let tool = ToolDefinition::new("notes.summarize", input)?
    ///     .with_required_client_capabilities(required)?;
    /// assert!(tool.required_client_capabilities().contains_key("sampling"));
    /// let wire = serde_json::to_value(&tool)?;
    /// assert_eq!(
    ///     wire["_meta"]["mcp-runtime/tool"]["requiredClientCapabilities"],
    ///     json!({ "sampling": {} })
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_required_client_capabilities(
        mut self,
        capabilities: Map<String, Value>,
    ) -> Result<Self, DefinitionError> {
        if let Some((capability, _)) = capabilities.iter().find(|(_, value)| !value.is_object()) {
            return Err(DefinitionError::ClientCapability {
                tool: self.name.to_string(),
                capability: capability.clone(),
            });
        }
        self.required_client_capabilities = capabilities;
        Ok(self)
    }

    /// Whether the tool runs as a task ([`TaskSupport`]).
    #[must_use]
    pub fn with_task_support(mut self, support: TaskSupport) -> Self {
        self.task_support = support;
        self
    }

    /// Whether the tool runs as a task.
    pub fn task_support(&self) -> TaskSupport {
        self.task_support
    }

    /// The invocation name.
    #[inline]
    pub fn name(&self) -> &ToolName {
        &self.name
    }

    /// The title, if any.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// The description, if any.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// The version: the tool's own, or else its package's.
    pub fn version(&self) -> &semver::Version {
        &self.version
    }

    /// The title as MCP's `Tool` carries it: left out when it is only the description's
    /// summary line (its first line, ignoring closing periods), which a model reads in the
    /// description already; this is the title `#[mcp_tool]` takes from a doc comment
    /// without a `# Heading`.
    ///
    /// ```
    /// use mcp_runtime_core::ToolDefinition;
    ///
    /// let input = schemars::json_schema!({ "type": "object", "properties": {} });
    /// let tool = ToolDefinition::new("math.add", input)?
    ///     .with_title("Add two integers")
    ///     .with_description("Add two integers.\n\nFails on overflow.");
    /// assert_eq!(tool.listed_title(), None);
    /// let tool = tool.with_title("Adder");
    /// assert_eq!(tool.listed_title(), Some("Adder"));
    /// # Ok::<(), mcp_runtime_core::DefinitionError>(())
    /// ```
    pub fn listed_title(&self) -> Option<&str> {
        let title = self.title.as_deref()?;
        let bare = |text: &str| text.trim().trim_end_matches('.').trim_end().to_owned();
        let summary = self.description.as_deref().and_then(|d| d.lines().next());
        match summary {
            Some(summary) if bare(summary) == bare(title) => None,
            _ => Some(title),
        }
    }

    /// The category, if any.
    pub fn category(&self) -> Option<&str> {
        self.category.as_deref()
    }

    /// The OAuth scopes a caller needs, if any.
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }

    /// The tags.
    pub fn tags(&self) -> &[String] {
        &self.tags
    }

    /// The behaviour hints.
    #[inline]
    pub fn annotations(&self) -> &ToolAnnotations {
        &self.annotations
    }

    /// The input schema.
    pub fn input_schema(&self) -> &Schema {
        &self.input_schema
    }

    /// The output schema, if the tool declares one.
    pub fn output_schema(&self) -> Option<&Schema> {
        self.output.as_ref().map(|output| &output.schema)
    }

    /// Whether the tool's value is sent wrapped as `{"result": value}`.
    #[inline]
    pub fn wraps_output(&self) -> bool {
        self.output.as_ref().is_some_and(|output| output.wrapped)
    }

    /// The tool's own timeout, if it sets one.
    #[inline]
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// The deprecation note, if the tool is deprecated.
    pub fn deprecated(&self) -> Option<&str> {
        self.deprecated.as_deref()
    }

    /// Examples of the tool's arguments.
    pub fn examples(&self) -> &[Map<String, Value>] {
        &self.examples
    }

    /// The error types the tool declares.
    pub fn errors(&self) -> &[ErrorType] {
        &self.errors
    }

    /// The arguments that clients mirror into HTTP headers (MCP's `x-mcp-header`, on the
    /// Streamable HTTP transport of revision 2026-07-28), in the input schema's order: each
    /// top-level property whose schema carries `"x-mcp-header": "<Name>"`, sent also as the
    /// header `Mcp-Param-<Name>`.
    ///
    /// ```
    /// use mcp_runtime_core::ToolDefinition;
    ///
    /// let input = schemars::json_schema!({
    ///     "type": "object",
    ///     "properties": { "region": { "type": "string", "x-mcp-header": "Region" } }
    /// });
    /// let tool = ToolDefinition::new("sql.execute", input)?;
    /// let params = tool.header_params();
    /// assert_eq!(params[0].property, "region");
    /// assert_eq!(params[0].header_name(), "Mcp-Param-Region");
    /// # Ok::<(), mcp_runtime_core::DefinitionError>(())
    /// ```
    pub fn header_params(&self) -> Vec<HeaderParam> {
        header::header_params(self.input_schema.as_value())
    }

    /// The client capabilities the tool needs, as an MCP `ClientCapabilities` object (empty
    /// when it needs none); see
    /// [`with_required_client_capabilities`](Self::with_required_client_capabilities) and
    /// [`missing_client_capabilities`](crate::missing_client_capabilities).
    pub fn required_client_capabilities(&self) -> &Map<String, Value> {
        &self.required_client_capabilities
    }
}

mod wire;

#[cfg(test)]
mod tests;
