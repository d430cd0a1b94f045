//! Resources and resource templates in a registry: listed in URI order, read by URI.

use std::collections::BTreeMap;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use futures_util::FutureExt;
use mcp_core::{ResourceContents, ResourceDefinition, ResourceTemplateDefinition, ToolError};
use uri_template_ex::UriTemplate;

use super::{Registry, RegistryProblem};
use crate::registration::{
    Completion, Location, ReadRequest, ResourceFuture, ResourceKind, ResourceRegistration,
};

/// How a resource is read: a function of `#[mcp_resource]` or a closure.
pub(crate) type ReadFn = Arc<dyn Fn(ReadRequest) -> ResourceFuture + Send + Sync>;

/// A resource at a fixed URI.
#[derive(Clone)]
pub struct RegisteredResource {
    uri: Arc<str>,
    definition: Arc<Lazy<ResourceDefinition>>,
    read: ReadFn,
    location: Location,
}

/// A resource template: a URI template whose variables pick the resource.
#[derive(Clone)]
pub struct RegisteredTemplate {
    template: Arc<UriTemplate>,
    definition: Arc<Lazy<ResourceTemplateDefinition>>,
    read: ReadFn,
    completions: &'static [Completion],
    location: Location,
}

/// A definition built when first needed.
pub(crate) struct Lazy<T> {
    make: Option<fn() -> T>,
    built: OnceLock<T>,
}

impl<T> Lazy<T> {
    pub(crate) fn new(make: fn() -> T) -> Self {
        Self {
            make: Some(make),
            built: OnceLock::new(),
        }
    }

    pub(crate) fn ready(value: T) -> Self {
        Self {
            make: None,
            built: OnceLock::from(value),
        }
    }

    pub(crate) fn get(&self) -> &T {
        // A value without a maker was built when registered.
        self.built
            .get_or_init(|| (self.make.expect("a lazy definition has a maker"))())
    }
}

impl std::fmt::Debug for RegisteredResource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegisteredResource")
            .field("uri", &self.uri)
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for RegisteredTemplate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegisteredTemplate")
            .field("uri_template", &self.template.to_string())
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

impl RegisteredResource {
    /// The URI.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// The definition, as `resources/list` lists it.
    pub fn definition(&self) -> &ResourceDefinition {
        self.definition.get()
    }

    /// Where it was defined.
    pub fn location(&self) -> &Location {
        &self.location
    }
}

impl RegisteredTemplate {
    /// The URI template.
    pub fn uri_template(&self) -> String {
        self.template.to_string()
    }

    /// The definition, as `resources/templates/list` lists it.
    pub fn definition(&self) -> &ResourceTemplateDefinition {
        self.definition.get()
    }

    /// Where it was defined.
    pub fn location(&self) -> &Location {
        &self.location
    }

    /// The names of its variables, in order.
    pub fn variables(&self) -> Vec<String> {
        self.template.var_names().map(str::to_owned).collect()
    }

    pub(crate) fn completions(&self) -> &'static [Completion] {
        self.completions
    }

    /// The variables of `uri` if it is one of this template's resources.
    fn matches(&self, uri: &str) -> Option<Vec<(String, String)>> {
        let captures = self.template.captures(uri)?;
        captures
            .iter()
            .map(|(name, found)| {
                let value = found.map_or(Ok(String::new()), |found| {
                    found.value().map(|value| value.into_owned())
                });
                value.ok().map(|value| (name.to_owned(), value))
            })
            .collect()
    }
}

/// Why a resource could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReadError {
    /// No resource has this URI, and no template matches it.
    #[error("resource not found: {0}")]
    NotFound(String),
    /// The resource's function failed, or its template variables did not parse.
    #[error("{0}")]
    Failed(ToolError),
}

/// A template that does not parse, with the reason.
pub(crate) fn parse_template(template: &str) -> Result<UriTemplate, String> {
    UriTemplate::new(template).map_err(|err| err.to_string())
}

/// The resources and templates of a registry.
#[derive(Debug, Clone, Default)]
pub(crate) struct Resources {
    pub(crate) fixed: BTreeMap<String, RegisteredResource>,
    /// Sorted by template.
    pub(crate) templates: Vec<RegisteredTemplate>,
}

impl Resources {
    /// Adds what `#[mcp_resource]` registered; problems go to `problems`.
    pub(crate) fn inventory(&mut self, problems: &mut Vec<RegistryProblem>) {
        for registration in inventory::iter::<ResourceRegistration> {
            let read: ReadFn = Arc::new(registration.read);
            match registration.kind {
                ResourceKind::Fixed(make) => {
                    let definition = Lazy::new(make);
                    let uri = definition.get().uri.clone();
                    self.add_fixed(
                        RegisteredResource {
                            uri: uri.into(),
                            definition: Arc::new(definition),
                            read,
                            location: registration.location,
                        },
                        problems,
                    );
                }
                ResourceKind::Template(make) => {
                    let definition = Lazy::new(make);
                    let source = definition.get().uri_template.clone();
                    match parse_template(&source) {
                        Ok(template) => self.add_template(
                            RegisteredTemplate {
                                template: Arc::new(template),
                                definition: Arc::new(definition),
                                read,
                                completions: registration.completions,
                                location: registration.location,
                            },
                            problems,
                        ),
                        Err(reason) => problems.push(RegistryProblem::Resource {
                            location: registration.location,
                            reason: format!("the URI template `{source}` does not parse: {reason}"),
                        }),
                    }
                }
            }
        }
    }

    fn add_fixed(&mut self, resource: RegisteredResource, problems: &mut Vec<RegistryProblem>) {
        match self.fixed.get(resource.uri.as_ref()) {
            Some(existing) => problems.push(RegistryProblem::DuplicateResource {
                uri: resource.uri.to_string(),
                first: existing.location.min(resource.location),
                second: existing.location.max(resource.location),
            }),
            None => {
                self.fixed.insert(resource.uri.to_string(), resource);
            }
        }
    }

    fn add_template(&mut self, template: RegisteredTemplate, problems: &mut Vec<RegistryProblem>) {
        let source = template.uri_template();
        match self
            .templates
            .binary_search_by(|other| other.uri_template().cmp(&source))
        {
            Ok(found) => {
                let existing = &self.templates[found];
                problems.push(RegistryProblem::DuplicateResource {
                    uri: source,
                    first: existing.location.min(template.location),
                    second: existing.location.max(template.location),
                });
            }
            Err(position) => self.templates.insert(position, template),
        }
    }

    /// The fixed resource at `uri`, or the first template (in template order) that matches.
    pub(crate) fn find(&self, uri: &str) -> Option<(ReadFn, ReadRequest)> {
        if let Some(resource) = self.fixed.get(uri) {
            return Some((
                Arc::clone(&resource.read),
                ReadRequest::new(uri, Vec::new()),
            ));
        }
        self.templates.iter().find_map(|template| {
            let variables = template.matches(uri)?;
            Some((Arc::clone(&template.read), ReadRequest::new(uri, variables)))
        })
    }
}

impl Registry {
    /// The resources at fixed URIs, sorted by URI.
    pub fn resources(&self) -> impl Iterator<Item = &RegisteredResource> {
        self.resources.fixed.values()
    }

    /// The resource templates, sorted by template.
    pub fn resource_templates(&self) -> impl Iterator<Item = &RegisteredTemplate> {
        self.resources.templates.iter()
    }

    /// Registers a resource at run time: its definition and a closure that reads it.
    ///
    /// ```
    /// use mcp_runtime::{Registry, ResourceContents, ResourceDefinition, ToolError};
    ///
    /// let mut registry = Registry::builder().build()?;
    /// registry.register_resource(ResourceDefinition::new("app://motd", "motd"), |request| async move {
    ///     Ok::<_, ToolError>(vec![ResourceContents::text(request.uri(), "hello")])
    /// })?;
    /// let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    /// let read = runtime.block_on(registry.read_resource("app://motd"))?;
    /// assert_eq!(read[0], ResourceContents::text("app://motd", "hello"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[track_caller]
    pub fn register_resource<F, Fut>(
        &mut self,
        definition: ResourceDefinition,
        read: F,
    ) -> Result<(), super::RegistryError>
    where
        F: Fn(ReadRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<ResourceContents>, ToolError>> + Send + 'static,
    {
        let resource = RegisteredResource {
            uri: definition.uri.clone().into(),
            definition: Arc::new(Lazy::ready(definition)),
            read: Arc::new(move |request| Box::pin(read(request))),
            location: Location::caller(),
        };
        let mut problems = Vec::new();
        self.resources.add_fixed(resource, &mut problems);
        self.versions.resources += 1;
        super::RegistryError::of(problems)
    }

    /// Registers a resource template at run time: its definition and a closure that reads
    /// the resource a URI names (its variables in [`ReadRequest::variable`]).
    #[track_caller]
    pub fn register_resource_template<F, Fut>(
        &mut self,
        definition: ResourceTemplateDefinition,
        read: F,
    ) -> Result<(), super::RegistryError>
    where
        F: Fn(ReadRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<ResourceContents>, ToolError>> + Send + 'static,
    {
        let location = Location::caller();
        let template = parse_template(&definition.uri_template).map_err(|reason| {
            super::RegistryError::of(vec![RegistryProblem::Resource {
                location,
                reason: format!(
                    "the URI template `{}` does not parse: {reason}",
                    definition.uri_template
                ),
            }])
            .unwrap_err()
        })?;
        let template = RegisteredTemplate {
            template: Arc::new(template),
            definition: Arc::new(Lazy::ready(definition)),
            read: Arc::new(move |request| Box::pin(read(request))),
            completions: &[],
            location,
        };
        let mut problems = Vec::new();
        self.resources.add_template(template, &mut problems);
        self.versions.resources += 1;
        super::RegistryError::of(problems)
    }

    /// The cache hints of the resource at `uri`, or of the template it matches, from its
    /// definition's `_meta` (`#[mcp_resource(ttl = …, cache_scope = …)]`).
    pub(crate) fn cache_meta(&self, uri: &str) -> Option<serde_json::Value> {
        const CACHE_META: &str = "mcp-runtime/cache";
        if let Some(resource) = self.resources.fixed.get(uri) {
            return resource.definition().meta.get(CACHE_META).cloned();
        }
        self.resources
            .templates
            .iter()
            .find(|template| template.matches(uri).is_some())
            .and_then(|template| template.definition().meta.get(CACHE_META).cloned())
    }

    /// Removes the resource at `uri`, or the template written `uri`; whether there was one.
    pub fn unregister_resource(&mut self, uri: &str) -> bool {
        let before = self.resources.fixed.len() + self.resources.templates.len();
        self.resources.fixed.remove(uri);
        self.resources
            .templates
            .retain(|template| template.uri_template() != uri);
        let removed = before != self.resources.fixed.len() + self.resources.templates.len();
        if removed {
            self.versions.resources += 1;
        }
        removed
    }

    /// Reads the resource at `uri`: a fixed resource of that URI, else the first template
    /// that matches. A function that fails with `ResourceNotFound` (a template whose
    /// variables name nothing) makes it [`ReadError::NotFound`]. A panic in the resource's function is a failure, and so is a read that
    /// outlasts the registry's timeout (which needs a Tokio runtime with its time driver,
    /// as [`Registry::call`] does).
    pub fn read_resource(
        &self,
        uri: &str,
    ) -> impl Future<Output = Result<Vec<ResourceContents>, ReadError>> + Send + 'static {
        let found = self.resources.find(uri);
        let timeout = self.settings.default_timeout;
        let uri = uri.to_owned();
        async move {
            let Some((read, request)) = found else {
                return Err(ReadError::NotFound(uri));
            };
            let running = format!("reading `{uri}`");
            match guarded(&uri, &running, timeout, || read(request)).await {
                Ok(contents) => Ok(contents),
                // A template's function saying there is no such resource.
                Err(err) if *err.error_type() == mcp_core::ErrorType::ResourceNotFound => {
                    Err(ReadError::NotFound(uri))
                }
                Err(err) => Err(ReadError::Failed(err)),
            }
        }
    }
}

/// Makes the future of a resource's or prompt's function and awaits it: a panic in either
/// is a failure, and so is a future that outlasts `timeout`, when it has one. A future done
/// at the first poll, as most are, takes no timer. `what` names it in a panic's message,
/// `running` in a timeout's.
pub(crate) async fn guarded<T>(
    what: &str,
    running: &str,
    timeout: Option<Duration>,
    make: impl FnOnce() -> Pin<Box<dyn Future<Output = Result<T, ToolError>> + Send>>,
) -> Result<T, ToolError> {
    let future = std::panic::catch_unwind(AssertUnwindSafe(make))
        .map_err(|panic| panicked(what, &*panic))?;
    let mut guarded = AssertUnwindSafe(future).catch_unwind();
    let outcome = match ((&mut guarded).now_or_never(), timeout) {
        (Some(outcome), _) => outcome,
        (None, Some(limit)) => tokio::time::timeout(limit, guarded).await.map_err(|_| {
            ToolError::new(
                mcp_core::ErrorType::TimeoutError,
                format!("{running} took longer than {limit:?}"),
            )
        })?,
        (None, None) => guarded.await,
    };
    outcome.unwrap_or_else(|panic| Err(panicked(what, &*panic)))
}

/// A failure for a panic while serving `what`.
pub(crate) fn panicked(what: &str, panic: &(dyn std::any::Any + Send)) -> ToolError {
    let message = panic
        .downcast_ref::<&str>()
        .map(|text| (*text).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_owned());
    ToolError::execution(format!("`{what}` panicked: {message}"))
}
