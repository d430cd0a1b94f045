//! The gateway: another MCP server's tools, mounted into a [`Registry`] under a prefix, so
//! that they are listed, checked, specified, called and served like local ones.
//!
//! A remote tool's name becomes `{prefix}.{name}`, its name made a valid invocation name
//! (`getTinyImage` becomes `get_tiny_image`); a call of it is a call of the remote tool,
//! its progress passed on, its log messages passed on (their logger under the prefix), its
//! cancellation passed on, its result the remote result.
//!
//! Its resources and prompts are mounted too (`docs://prefix/...`, `prefix.name`), and so
//! are its skills (the skills extension): `skill://PATH/SKILL.md` is served as
//! `skill://prefix/PATH/SKILL.md`, each file read from the server behind and checked
//! against the entry it listed before it is passed on (see the `skills` module).

use std::sync::Arc;

use mcp_runtime_core::{
    DefinitionError, ErrorType, LogMessage, MCPErrorDetail, MCPToolResult, PromptDefinition,
    PromptResult, ResourceContents, ResourceDefinition, ResourceTemplateDefinition,
    ToolAnnotations, ToolDefinition, ToolError, ToolName,
};
use serde_json::{Map, Value};

use super::{Client, ClientError, ClientManager, RequestOptions, SkillEntry, SkillError, Tool};
use crate::registration::{Handler, Output};
use crate::registry::{Registry, RegistryError, ToolConflict};

mod follow;
mod skills;

pub use follow::{follow, follow_managed};

/// What [`mount`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Mounted {
    /// The local names of the tools mounted.
    pub tools: Vec<String>,
    /// The tools not mounted because the name was taken, as [`Registry::mount`] reports them.
    pub conflicts: Vec<ToolConflict>,
    /// The tools not mounted because their definition could not be made, and why; and the
    /// resources, prompts and skills not mounted, and why.
    pub skipped: Vec<(String, String)>,
    /// The skills mounted: the URIs of their `SKILL.md` as served here
    /// (`skill://prefix/PATH/SKILL.md`).
    pub skills: Vec<String>,
}

/// Mounts the tools `client`'s server lists into `registry` under `prefix`.
///
/// ```
/// use std::sync::Arc;
/// use mcp_runtime::client::{self, Client};
/// use mcp_runtime::server::Server;
/// use mcp_runtime::{MCPToolCall, Registry, mcp_tool};
/// use serde_json::json;
///
/// /// Adds two numbers.
/// #[mcp_tool(namespace = "near")]
/// fn sum(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// # #[tokio::main(flavor = "multi_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// // Any MCP server; this one in memory.
/// let upstream = Client::builder().in_memory(Server::new(Registry::global())).await?;
/// let mut gateway = Registry::builder().build()?;
/// let mounted = client::mount(&mut gateway, "far", Arc::new(upstream)).await?;
/// assert!(mounted.tools.contains(&"far.near.sum".to_owned()));
/// let result = gateway.call(MCPToolCall::new("far.near.sum", json!({ "a": 1, "b": 2 }))?).await;
/// assert_eq!(result.data().unwrap()["result"], 3);
/// # Ok(()) }
/// ```
pub async fn mount(
    registry: &mut Registry,
    prefix: &str,
    client: Arc<Client>,
) -> Result<Mounted, ClientError> {
    let listed = client.list_tools().await?;
    let catalog = Catalog::list(&client).await?;
    let upstream = Arc::new(Upstream::Client(client));
    let mut mounted = mount_listed(registry, prefix, listed, &upstream);
    catalog.mount(registry, prefix, &upstream, &mut mounted);
    Ok(mounted)
}

/// Mounts the tools the server `server` of `manager` lists into `registry` under `prefix`:
/// its calls go through the manager, which reconnects to a server that died, and retries
/// what is safe to retry.
pub async fn mount_managed(
    registry: &mut Registry,
    prefix: &str,
    manager: Arc<ClientManager>,
    server: &str,
) -> Result<Mounted, ClientError> {
    let listed = manager.list_tools(server).await?;
    let catalog = Catalog::list(manager.client(server).await?.as_ref()).await?;
    let upstream = Arc::new(Upstream::Managed {
        manager,
        server: server.to_owned(),
    });
    let mut mounted = mount_listed(registry, prefix, listed, &upstream);
    catalog.mount(registry, prefix, &upstream, &mut mounted);
    Ok(mounted)
}

/// Where a tool mounted under `prefix` comes from, as its registration says.
fn source_of(prefix: &str) -> String {
    format!("mounted under `{prefix}` from an MCP server")
}

/// A server's resources, templates, prompts and skills, as listed.
#[derive(Default)]
struct Catalog {
    resources: Vec<Value>,
    templates: Vec<Value>,
    prompts: Vec<Value>,
    /// `None` when the server does not declare the skills extension.
    skills: Option<Vec<SkillEntry>>,
}

impl Catalog {
    /// What the server lists of the kinds its capabilities name.
    async fn list(client: &Client) -> Result<Self, ClientError> {
        let capabilities = &client.server().capabilities;
        let mut catalog = Self::default();
        if capabilities.get("resources").is_some() {
            catalog.resources = client.list_resources().await?;
            catalog.templates = client.list_resource_templates().await?;
        }
        if capabilities.get("prompts").is_some() {
            catalog.prompts = client.list_prompts().await?;
        }
        if client.skills().offered() {
            let skills = client.skills().list().await.map_err(|err| match err {
                SkillError::Client(err) => err,
                other => ClientError::Malformed(other.to_string()),
            })?;
            // Its skills' files are passed on as skills, not as resources besides.
            let skill_scheme = format!("{}://", mcp_runtime_core::skill::SCHEME);
            catalog.resources.retain(|resource| {
                !resource
                    .get("uri")
                    .and_then(Value::as_str)
                    .is_some_and(|uri| uri.starts_with(&skill_scheme))
            });
            catalog.skills = Some(skills);
        }
        Ok(catalog)
    }

    /// Mounts them under `prefix` as [`Registry::mount`] mounts a registry's: URIs as
    /// `scheme://prefix/rest`, prompts as `prefix.name`; conflicts reported the same way.
    fn mount(
        self,
        registry: &mut Registry,
        prefix: &str,
        upstream: &Arc<Upstream>,
        mounted: &mut Mounted,
    ) {
        let Ok(mut remote) = Registry::builder().build() else {
            return;
        };
        add_each(
            self.resources,
            "resource",
            mounted,
            |definition: ResourceDefinition| {
                let (upstream, uri) = (Arc::clone(upstream), definition.uri.clone());
                remote.register_resource(definition, move |_| {
                    let (upstream, uri) = (Arc::clone(&upstream), uri.clone());
                    async move { contents(upstream.read(&uri).await) }
                })
            },
        );
        add_each(
            self.templates,
            "resource template",
            mounted,
            |definition: ResourceTemplateDefinition| {
                let (upstream, prefix) = (Arc::clone(upstream), prefix.to_owned());
                remote.register_resource_template(definition, move |request| {
                    let upstream = Arc::clone(&upstream);
                    let uri = unmounted(&prefix, request.uri());
                    async move { contents(upstream.read(&uri).await) }
                })
            },
        );
        add_each(
            self.prompts,
            "prompt",
            mounted,
            |definition: PromptDefinition| {
                let (upstream, name) = (Arc::clone(upstream), definition.name.clone());
                remote.register_prompt(definition, move |arguments| {
                    let (upstream, name) = (Arc::clone(&upstream), name.clone());
                    async move {
                        let rendered = upstream
                            .prompt(&name, arguments)
                            .await
                            .map_err(prompt_error)?;
                        serde_json::from_value::<PromptResult>(Value::Object(rendered)).map_err(
                            |err| {
                                ToolError::execution(format!("the remote prompt's answer: {err}"))
                            },
                        )
                    }
                })
            },
        );
        match registry.mount(prefix, &remote) {
            Ok(conflicts) => mounted.conflicts.extend(conflicts),
            Err(err) => mounted.skipped.push((prefix.to_owned(), err.to_string())),
        }
        if let Some(entries) = &self.skills {
            skills::mount_skills(registry, prefix, upstream, entries, mounted);
        }
    }
}

/// Adds each listed entry of a kind with `add`; one that is not of the kind, or that `add`
/// refuses, is skipped with the reason.
fn add_each<D: serde::de::DeserializeOwned>(
    entries: Vec<Value>,
    kind: &str,
    mounted: &mut Mounted,
    mut add: impl FnMut(D) -> Result<(), RegistryError>,
) {
    for entry in entries {
        let added = serde_json::from_value::<D>(entry.clone())
            .map_err(|err| format!("not a {kind}: {err}"))
            .and_then(|definition| add(definition).map_err(|err| err.to_string()));
        if let Err(reason) = added {
            mounted.skipped.push((entry.to_string(), reason));
        }
    }
}

/// A remote read's contents, or why there are none.
fn contents(read: Result<Vec<Value>, ClientError>) -> Result<Vec<ResourceContents>, ToolError> {
    read.map_err(|err| remote_error(err, super::Lookup::Resource))?
        .into_iter()
        .map(|content| {
            serde_json::from_value(content).map_err(|err| {
                ToolError::execution(format!("the remote resource's contents: {err}"))
            })
        })
        .collect()
}

/// A remote prompt's failure, as the mounted prompt's.
fn prompt_error(err: ClientError) -> ToolError {
    remote_error(err, super::Lookup::Prompt)
}

/// An upstream's refusal of a read or a prompt that looked up `of`, told by its code and
/// data (never by its message): its "no such resource or prompt" stays one, its invalid
/// params (a template variable or an argument that does not parse) a validation error
/// carrying its data, anything else a failure of the server behind.
fn remote_error(err: ClientError, of: super::Lookup) -> ToolError {
    use super::Refused;
    let ClientError::Rpc(error) = err else {
        return ToolError::execution(format!("the MCP server behind this one: {err}"));
    };
    match error.refused(of) {
        Refused::NotFound { .. } => ToolError::new(ErrorType::ResourceNotFound, error.message),
        Refused::InvalidParams => {
            let invalid = ToolError::validation(error.message);
            match error.data {
                Some(data) => invalid.with_details(data),
                None => invalid,
            }
        }
        Refused::Other => ToolError::execution(format!(
            "the MCP server behind this one: {}",
            ClientError::Rpc(error)
        )),
    }
}

/// Whether a prompt's name or a resource's URI is one [`Registry::mount`] put under `prefix`.
fn key_under(prefix: &str, key: &str) -> bool {
    key.strip_prefix(prefix)
        .is_some_and(|rest| rest.starts_with('.'))
        || unmounted(prefix, key) != key
}

/// The URI [`Registry::mount`] gives the resource `uri` under `prefix`: `docs://guide`
/// becomes `docs://prefix/guide`, `urn:isbn:1` becomes `urn:prefix/isbn:1`.
fn mounted(prefix: &str, uri: &str) -> String {
    if let Some((scheme, rest)) = uri.split_once("://") {
        format!("{scheme}://{prefix}/{rest}")
    } else if let Some((scheme, rest)) = uri.split_once(':') {
        format!("{scheme}:{prefix}/{rest}")
    } else {
        format!("{prefix}/{uri}")
    }
}

/// The URI `uri` had upstream, before [`Registry::mount`] put `prefix` in it.
fn unmounted(prefix: &str, uri: &str) -> String {
    let strip = |rest: &str| {
        rest.strip_prefix(prefix)
            .and_then(|rest| rest.strip_prefix('/'))
            .map(str::to_owned)
    };
    if let Some((scheme, rest)) = uri.split_once("://") {
        if let Some(rest) = strip(rest) {
            return format!("{scheme}://{rest}");
        }
    } else if let Some((scheme, rest)) = uri.split_once(':') {
        if let Some(rest) = strip(rest) {
            return format!("{scheme}:{rest}");
        }
    }
    strip(uri).unwrap_or_else(|| uri.to_owned())
}

/// What a mounted tool's call, resource's read or prompt's rendering goes through.
enum Upstream {
    /// One client's server.
    Client(Arc<Client>),
    /// A server of a [`ClientManager`].
    Managed {
        manager: Arc<ClientManager>,
        server: String,
    },
}

impl Upstream {
    /// Calls the remote tool `remote`; through a manager, which reconnects to a server
    /// that died and retries what is safe to retry.
    async fn call(
        &self,
        remote: &str,
        arguments: Map<String, Value>,
        options: RequestOptions,
    ) -> Result<MCPToolResult, ClientError> {
        match self {
            Self::Client(client) => client.call_tool_with(remote, arguments, options).await,
            Self::Managed { manager, server } => {
                manager.call_tool(server, remote, arguments, options).await
            }
        }
    }

    /// The client to ask now: a managed server's, reconnected if it died.
    async fn client(&self) -> Result<Arc<Client>, ClientError> {
        match self {
            Self::Client(client) => Ok(Arc::clone(client)),
            Self::Managed { manager, server } => manager.client(server).await,
        }
    }

    async fn read(&self, uri: &str) -> Result<Vec<Value>, ClientError> {
        self.client().await?.read_resource(uri).await
    }

    async fn prompt(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<Map<String, Value>, ClientError> {
        self.client().await?.get_prompt(name, arguments).await
    }
}

fn mount_listed(
    registry: &mut Registry,
    prefix: &str,
    listed: Vec<Tool>,
    upstream: &Arc<Upstream>,
) -> Mounted {
    let source = source_of(prefix);
    let mut mounted = Mounted::default();
    let mut tools = Vec::new();
    for tool in listed {
        let name = format!("{prefix}.{}", local_name(&tool.name));
        match definition(&name, &tool) {
            Ok(definition) => {
                let handler = handler(Arc::clone(upstream), prefix, tool.name.clone());
                tools.push((definition, handler));
                mounted.tools.push(name);
            }
            Err(reason) => mounted
                .skipped
                .push((tool.name.clone(), reason.to_string())),
        }
    }
    mounted.conflicts = registry.mount_remote(tools, &source);
    mounted.tools.retain(|name| {
        !mounted
            .conflicts
            .iter()
            .any(|conflict| &conflict.tool_name == name)
    });
    mounted
}

/// A remote name as an invocation name's segments: lower case, a word break (`getTiny`,
/// `get-tiny`) an underscore; dots kept, as namespaces.
fn local_name(remote: &str) -> String {
    let mut name = String::with_capacity(remote.len() + 4);
    let mut previous: Option<char> = None;
    for c in remote.chars() {
        if c.is_ascii_uppercase() {
            if previous.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit()) {
                name.push('_');
            }
            name.push(c.to_ascii_lowercase());
        } else if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '.' || c == '_' {
            name.push(c);
        } else {
            name.push('_');
        }
        previous = Some(c);
    }
    name
}

/// Why a remote tool has no local definition.
#[derive(Debug, thiserror::Error)]
enum Unmountable {
    /// Its input schema is not an object.
    #[error("its input schema is not a JSON object")]
    SchemaNotAnObject,
    /// The definition refused its name or schema.
    #[error(transparent)]
    Definition(#[from] DefinitionError),
}

/// The local definition of a remote tool.
fn definition(name: &str, tool: &Tool) -> Result<ToolDefinition, Unmountable> {
    let schema = schemars::Schema::try_from(tool.input_schema.clone())
        .map_err(|_| Unmountable::SchemaNotAnObject)?;
    let mut definition = ToolDefinition::new(name, schema)?;
    if let Some(description) = &tool.description {
        definition = definition.with_description(description.clone());
    }
    if let Some(title) = &tool.title {
        definition = definition.with_title(title.clone());
    }
    if let Some(hints) = &tool.annotations {
        let hint = |key: &str| hints.get(key).and_then(Value::as_bool);
        let annotations = ToolAnnotations {
            read_only: hint("readOnlyHint"),
            destructive: hint("destructiveHint"),
            idempotent: hint("idempotentHint"),
            open_world: hint("openWorldHint"),
            ..ToolAnnotations::default()
        };
        definition = definition.with_annotations(annotations);
    }
    // A remote tool that runs as a task runs as one upstream whatever the caller supports
    // (the gateway's client polls it): here, it may run as a task, for a caller that
    // supports them, and is awaited for any other.
    if tool.task_support() != mcp_runtime_core::TaskSupport::Forbidden {
        definition = definition.with_task_support(mcp_runtime_core::TaskSupport::Optional);
    }
    // Its `_meta` listed as the server behind lists it, and its version (a server of this
    // framework says it there) the one the manifest and specifications give; a version
    // that is not one is carried all the same, and the tool mounted.
    if let Some(Value::Object(meta)) = tool.raw.get("_meta") {
        let version = meta
            .get(mcp_runtime_core::META_KEY)
            .and_then(|ours| ours.get("version"))
            .and_then(Value::as_str);
        if let Some(version) = version {
            match definition.clone().with_version(version) {
                Ok(versioned) => definition = versioned,
                Err(err) => {
                    tracing::debug!(tool = %tool.name, error = %err, "a remote tool's version is not used")
                }
            }
        }
        definition = definition.with_meta(meta.clone());
    }
    Ok(definition)
}

/// What runs a call of the remote tool `remote`, mounted under `prefix`, through `upstream`.
fn handler(upstream: Arc<Upstream>, prefix: &str, remote: String) -> Handler {
    let prefix: Arc<str> = Arc::from(prefix);
    Handler::Dynamic(Arc::new(move |arguments, context| {
        let (upstream, remote) = (Arc::clone(&upstream), remote.clone());
        let prefix = Arc::clone(&prefix);
        Box::pin(async move {
            // What the server behind asks (2026-07-28) is asked of this call's client, with
            // the capabilities that client declared.
            let asker = context.asker();
            let capabilities = asker
                .capabilities()
                .map(|capabilities| Value::Object((*capabilities).clone()));
            let mut options = RequestOptions {
                asker: Some(asker),
                capabilities,
                ..RequestOptions::default()
            };
            // Log messages are asked of the server behind at the level the caller asked
            // for, if it asked; each says where it came from.
            if let Some(least) = context.log_level() {
                let (context, prefix) = (context.clone(), Arc::clone(&prefix));
                options = options.on_log(least, move |message| {
                    context.pass_log(mounted_log(&prefix, context.tool_name(), message));
                });
            }
            // Progress is asked of the server behind only for a caller who asked for it: a
            // call that reports none is one the server can answer at once.
            if context.wants_progress() {
                options = options.on_progress(move |progress| {
                    context.progress(
                        progress.progress,
                        progress.total,
                        progress.message.as_deref(),
                    );
                });
            }
            let result = match upstream.call(&remote, arguments, options).await {
                Ok(result) => result,
                Err(err) => failure(&prefix, &remote, &err),
            };
            Ok(Output::Result(Box::new(result)))
        })
    }))
}

/// A log message of the server behind, as the gateway's client gets it: its logger under
/// the prefix (`up.test.tool`, as the tool that logged is mounted, for a server that names
/// the tool, as this framework does); the mounted tool's name for one that names none.
fn mounted_log(prefix: &str, tool: &ToolName, mut message: LogMessage) -> LogMessage {
    message.logger = Some(match message.logger {
        Some(logger) => format!("{prefix}.{logger}"),
        None => tool.to_string(),
    });
    message
}

/// A failed remote call as a result: the server unreachable, silent, or refusing; the
/// message names the tool as the server behind calls it, and the mount, `prefix`.
fn failure(prefix: &str, remote: &str, err: &ClientError) -> MCPToolResult {
    let error_type = match err {
        ClientError::Timeout { .. } => ErrorType::TimeoutError,
        ClientError::Rpc(error) if error.code == -32602 => ErrorType::ValidationError,
        ClientError::Http {
            status: 401 | 403, ..
        } => ErrorType::AuthenticationError,
        _ => ErrorType::ToolExecutionError,
    };
    let why = match err {
        // Its connection ended with the call in flight: the server died, or closed it.
        ClientError::Closed(_) => format!(
            "the connection to the server mounted as `{prefix}` was lost during the call \
             ({err}); a call made once it is back goes to it again"
        ),
        ClientError::Connect(_) => format!(
            "the server mounted as `{prefix}` could not be reached ({err}); a call made once \
             it is back goes to it again"
        ),
        _ => format!("the server mounted as `{prefix}` said: {err}"),
    };
    MCPToolResult::failure(MCPErrorDetail::new(
        error_type,
        format!("the remote tool `{remote}` could not be called: {why}"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_mount_put_under_a_prefix_is_told_apart() {
        assert!(key_under("far", "far.greet"));
        assert!(key_under("far", "docs://far/guide/1"));
        assert!(!key_under("far", "farther.greet"));
        assert!(!key_under("far", "docs://near/guide"));
    }

    #[test]
    fn a_mounted_uri_is_read_upstream_as_it_was() {
        assert_eq!(unmounted("far", "docs://far/guide/1"), "docs://guide/1");
        assert_eq!(unmounted("far", "urn:far/x"), "urn:x");
        assert_eq!(unmounted("far", "other://near/x"), "other://near/x");
    }

    #[test]
    fn an_updated_uri_is_passed_on_as_it_is_mounted() {
        for (upstream, local) in [
            ("docs://guide/1", "docs://far/guide/1"),
            ("urn:isbn:1", "urn:far/isbn:1"),
            ("plain", "far/plain"),
        ] {
            assert_eq!(mounted("far", upstream), local);
            assert_eq!(unmounted("far", local), upstream);
        }
    }

    #[test]
    fn a_log_message_passed_on_says_where_it_came_from() {
        let tool = ToolName::new("up.test.tool_with_logging").unwrap();
        let message = |logger: Option<&str>| LogMessage {
            level: mcp_runtime_core::LoggingLevel::Info,
            logger: logger.map(str::to_owned),
            data: serde_json::json!("hello"),
        };
        let named = mounted_log("up", &tool, message(Some("test.tool_with_logging")));
        assert_eq!(named.logger.as_deref(), Some("up.test.tool_with_logging"));
        assert_eq!(named.data, "hello");
        let unnamed = mounted_log("up", &tool, message(None));
        assert_eq!(unnamed.logger.as_deref(), Some("up.test.tool_with_logging"));
    }

    #[test]
    fn remote_names_become_invocation_names() {
        assert_eq!(local_name("getTinyImage"), "get_tiny_image");
        assert_eq!(local_name("my-hyphenated-tool"), "my_hyphenated_tool");
        assert_eq!(local_name("add_numbers"), "add_numbers");
        assert_eq!(local_name("math.add"), "math.add");
        assert_eq!(local_name("HTTPGet2"), "httpget2");
    }
}
