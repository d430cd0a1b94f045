//! Resources and resource templates in a registry: listed in URI order, read by URI.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::collections::btree_map::Entry;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use futures_util::FutureExt;
use mcp_runtime_core::{
    ResourceAnnotations, ResourceContents, ResourceDefinition, ResourceTemplateDefinition,
    ToolError,
};
use uri_template_ex::UriTemplate;

use super::{ConflictKind, KEPT_EXISTING, Registry, RegistryProblem, ToolConflict};
use crate::context::options::CallOptions;
use crate::registration::{
    Completion, LastModifiedFn, Location, ReadRequest, ResourceFuture, ResourceKind,
    ResourceRegistration,
};
use crate::service::{Kind, Response};

/// How a resource is read: a function of `#[mcp_resource]` or a closure.
pub(crate) type ReadFn = Arc<dyn Fn(ReadRequest) -> ResourceFuture + Send + Sync>;

/// A resource at a fixed URI.
#[derive(Clone)]
pub struct RegisteredResource {
    uri: Arc<str>,
    definition: Arc<Lazy<ResourceDefinition>>,
    read: ReadFn,
    last_modified: Option<LastModifiedFn>,
    location: Location,
}

/// A resource template: a URI template whose variables pick the resource.
#[derive(Clone)]
pub struct RegisteredTemplate {
    template: Arc<UriTemplate>,
    definition: Arc<Lazy<ResourceTemplateDefinition>>,
    read: ReadFn,
    completions: &'static [Completion],
    last_modified: Option<LastModifiedFn>,
    location: Location,
}

/// A definition: given when registered at run time, built when first needed for one of
/// `inventory`, since a server answers its first request before most are needed.
pub(crate) enum Lazy<T> {
    /// Given when registered.
    Ready(T),
    /// Built by `make` when first needed.
    Deferred { make: fn() -> T, built: OnceLock<T> },
}

impl<T> Lazy<T> {
    pub(crate) fn new(make: fn() -> T) -> Self {
        Self::Deferred {
            make,
            built: OnceLock::new(),
        }
    }

    pub(crate) fn get(&self) -> &T {
        match self {
            Self::Ready(value) => value,
            Self::Deferred { make, built } => built.get_or_init(*make),
        }
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

    /// The definition as given; [`RegisteredResource::listed`] adds what changes.
    pub fn definition(&self) -> &ResourceDefinition {
        self.definition.get()
    }

    /// The definition as `resources/list` lists it now: with `lastModified` from the
    /// resource's `last_modified` function, when it has one.
    pub fn listed(&self) -> Cow<'_, ResourceDefinition> {
        with_last_modified(self.definition(), self.last_modified, |definition| {
            &mut definition.info.annotations
        })
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

    /// The definition as given; [`RegisteredTemplate::listed`] adds what changes.
    pub fn definition(&self) -> &ResourceTemplateDefinition {
        self.definition.get()
    }

    /// The definition as `resources/templates/list` lists it now: with `lastModified`
    /// from the template's `last_modified` function, when it has one.
    pub fn listed(&self) -> Cow<'_, ResourceTemplateDefinition> {
        with_last_modified(self.definition(), self.last_modified, |definition| {
            &mut definition.info.annotations
        })
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

/// `definition`, with `lastModified` set from `last_modified` when there is such a
/// function and it gives a time.
fn with_last_modified<'a, D: Clone>(
    definition: &'a D,
    last_modified: Option<LastModifiedFn>,
    annotations: impl FnOnce(&mut D) -> &mut ResourceAnnotations,
) -> Cow<'a, D> {
    let Some(when) = last_modified
        .and_then(|last_modified| std::panic::catch_unwind(last_modified).ok().flatten())
    else {
        return Cow::Borrowed(definition);
    };
    let mut definition = definition.clone();
    annotations(&mut definition).last_modified = Some(when);
    Cow::Owned(definition)
}

/// `uri` (or a URI template) under `prefix`: `docs://guide` becomes `docs://prefix/guide`,
/// and `urn:isbn:1` becomes `urn:prefix/isbn:1`.
fn mounted_uri(prefix: &str, uri: &str) -> String {
    if let Some((scheme, rest)) = uri.split_once("://") {
        format!("{scheme}://{prefix}/{rest}")
    } else if let Some((scheme, rest)) = uri.split_once(':') {
        format!("{scheme}:{prefix}/{rest}")
    } else {
        format!("{prefix}/{uri}")
    }
}

/// A prompt, resource or template as a registry keeps it: under a key (a prompt's name, a
/// resource's URI, a template as written) that no other of its kind may have.
pub(crate) trait Keyed: Clone {
    /// What a conflict over its key is about.
    const KIND: ConflictKind;
    /// What a conflict's message calls it.
    const NOUN: &'static str;

    /// The key.
    fn key(&self) -> String;

    /// Where it was defined.
    fn defined_at(&self) -> Location;

    /// The problem of two of its kind under `key`.
    fn duplicate(key: String, first: Location, second: Location) -> RegistryProblem;

    /// The same under `key`, its definition saying so too; when it cannot be, why, as a
    /// conflict's `shadowed_by` says it.
    fn rekeyed(&self, key: &str) -> Result<Self, RekeyError>;
}

/// Why an entry cannot take the key a mount gives it.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RekeyError {
    /// The new key of a template is not a URI template.
    #[error("the URI template: {0}")]
    Template(#[from] TemplateError),
}

/// A URI template that does not parse.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub(crate) struct TemplateError(#[from] uri_template_ex::Error);

impl Keyed for RegisteredResource {
    const KIND: ConflictKind = ConflictKind::Resource;
    const NOUN: &'static str = "resource";

    fn key(&self) -> String {
        self.uri.to_string()
    }

    fn defined_at(&self) -> Location {
        self.location
    }

    fn duplicate(uri: String, first: Location, second: Location) -> RegistryProblem {
        RegistryProblem::DuplicateResource { uri, first, second }
    }

    fn rekeyed(&self, uri: &str) -> Result<Self, RekeyError> {
        let mut definition = self.definition().clone();
        definition.uri = uri.to_owned();
        Ok(Self {
            uri: uri.into(),
            definition: Arc::new(Lazy::Ready(definition)),
            ..self.clone()
        })
    }
}

impl Keyed for RegisteredTemplate {
    const KIND: ConflictKind = ConflictKind::ResourceTemplate;
    const NOUN: &'static str = "template";

    fn key(&self) -> String {
        self.uri_template()
    }

    fn defined_at(&self) -> Location {
        self.location
    }

    fn duplicate(uri: String, first: Location, second: Location) -> RegistryProblem {
        RegistryProblem::DuplicateResource { uri, first, second }
    }

    fn rekeyed(&self, written: &str) -> Result<Self, RekeyError> {
        let template = parse_template(written)?;
        let mut definition = self.definition().clone();
        definition.uri_template = written.to_owned();
        Ok(Self {
            template: Arc::new(template),
            definition: Arc::new(Lazy::Ready(definition)),
            ..self.clone()
        })
    }
}

/// Adds `entry` to `entries`, unless one there has its key: then the problem goes to
/// `problems`.
pub(crate) fn add_keyed<E: Keyed>(
    entries: &mut BTreeMap<String, E>,
    entry: E,
    problems: &mut Vec<RegistryProblem>,
) {
    match entries.entry(entry.key()) {
        Entry::Occupied(existing) => {
            let (first, second) = (existing.get().defined_at(), entry.defined_at());
            problems.push(E::duplicate(
                existing.key().clone(),
                first.min(second),
                first.max(second),
            ));
        }
        Entry::Vacant(vacant) => {
            vacant.insert(entry);
        }
    }
}

/// One [`Registry::mount`] under way: the prefix, where the entries come from, and the
/// conflicts found so far.
pub(crate) struct Mount<'a> {
    pub(crate) prefix: &'a str,
    pub(crate) source: &'a str,
    pub(crate) conflicts: Vec<ToolConflict>,
}

/// Adds the entries of `other` to `entries`, each under the key `mounted` makes of its
/// own. One whose new key is taken, or cannot be its key, goes to the mount's conflicts
/// instead. Whether any was added.
pub(crate) fn mount_keyed<E: Keyed>(
    entries: &mut BTreeMap<String, E>,
    other: &BTreeMap<String, E>,
    mounted: impl Fn(&str) -> String,
    mount: &mut Mount<'_>,
) -> bool {
    let mut added = false;
    for (key, entry) in other {
        let new_key = mounted(key);
        let rekeyed = match entries.get(&new_key) {
            Some(existing) => Err(format!(
                "the {} defined at {}",
                E::NOUN,
                existing.defined_at()
            )),
            None => entry.rekeyed(&new_key).map_err(|err| err.to_string()),
        };
        match rekeyed {
            Ok(rekeyed) => {
                entries.insert(new_key, rekeyed);
                added = true;
            }
            Err(shadowed_by) => mount.conflicts.push(ToolConflict {
                kind: E::KIND,
                tool_name: new_key,
                source: format!("`{key}` ({}, {})", mount.source, entry.defined_at()),
                shadowed_by,
                resolution: KEPT_EXISTING.to_owned(),
            }),
        }
    }
    added
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
pub(crate) fn parse_template(template: &str) -> Result<UriTemplate, TemplateError> {
    Ok(UriTemplate::new(template)?)
}

/// The resources and templates of a registry.
#[derive(Debug, Clone, Default)]
pub(crate) struct Resources {
    pub(crate) fixed: BTreeMap<String, RegisteredResource>,
    /// By template, as written.
    pub(crate) templates: BTreeMap<String, RegisteredTemplate>,
}

impl Resources {
    /// Adds what `#[mcp_resource]` registered, each definition left to be built when
    /// first needed; problems go to `problems`.
    pub(crate) fn inventory(&mut self, problems: &mut Vec<RegistryProblem>) {
        for registration in inventory::iter::<ResourceRegistration> {
            let read: ReadFn = Arc::new(registration.read);
            match registration.kind {
                ResourceKind::Fixed(make) => add_keyed(
                    &mut self.fixed,
                    RegisteredResource {
                        uri: registration.key.into(),
                        definition: Arc::new(Lazy::new(make)),
                        read,
                        last_modified: registration.last_modified,
                        location: registration.location,
                    },
                    problems,
                ),
                ResourceKind::Template(make) => match parse_template(registration.key) {
                    Ok(template) => add_keyed(
                        &mut self.templates,
                        RegisteredTemplate {
                            template: Arc::new(template),
                            definition: Arc::new(Lazy::new(make)),
                            read,
                            completions: registration.completions,
                            last_modified: registration.last_modified,
                            location: registration.location,
                        },
                        problems,
                    ),
                    Err(reason) => problems.push(RegistryProblem::Resource {
                        location: registration.location,
                        reason: format!(
                            "the URI template `{}` does not parse: {reason}",
                            registration.key
                        ),
                    }),
                },
            }
        }
    }

    /// Adds those of `other`; problems go to `problems`.
    pub(crate) fn extend(&mut self, other: &Self, problems: &mut Vec<RegistryProblem>) {
        for resource in other.fixed.values() {
            add_keyed(&mut self.fixed, resource.clone(), problems);
        }
        for template in other.templates.values() {
            add_keyed(&mut self.templates, template.clone(), problems);
        }
    }

    /// How many resources and templates.
    pub(crate) fn len(&self) -> usize {
        self.fixed.len() + self.templates.len()
    }

    /// Adds those of `other` under the mount's prefix; what would take a URI or template
    /// already here is a conflict instead. Whether any was added.
    pub(crate) fn mount(&mut self, other: &Self, mount: &mut Mount<'_>) -> bool {
        let prefix = mount.prefix;
        let mounted = |uri: &str| mounted_uri(prefix, uri);
        let fixed = mount_keyed(&mut self.fixed, &other.fixed, mounted, mount);
        let templates = mount_keyed(&mut self.templates, &other.templates, mounted, mount);
        fixed || templates
    }

    /// Keeps those whose URI, or URI template, `keep` accepts.
    pub(crate) fn retain(&mut self, keep: &dyn Fn(&str) -> bool) {
        self.fixed.retain(|uri, _| keep(uri));
        self.templates.retain(|template, _| keep(template));
    }

    /// Every fixed URI and every template.
    pub(crate) fn keys(&self) -> impl Iterator<Item = &str> {
        self.fixed
            .keys()
            .chain(self.templates.keys())
            .map(String::as_str)
    }

    /// The fixed resource at `uri`, or the first template (in template order) that
    /// matches, with its key: the URI, or the template.
    pub(crate) fn find(&self, uri: &str) -> Option<(ReadFn, ReadRequest, &str)> {
        if let Some((key, resource)) = self.fixed.get_key_value(uri) {
            return Some((
                Arc::clone(&resource.read),
                ReadRequest::new(uri, Vec::new()),
                key,
            ));
        }
        self.templates.iter().find_map(|(key, template)| {
            let variables = template.matches(uri)?;
            Some((
                Arc::clone(&template.read),
                ReadRequest::new(uri, variables),
                key.as_str(),
            ))
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
        self.resources.templates.values()
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
            definition: Arc::new(Lazy::Ready(definition)),
            read: Arc::new(move |request| Box::pin(read(request))),
            last_modified: None,
            location: Location::caller(),
        };
        let mut problems = Vec::new();
        add_keyed(&mut self.resources.fixed, resource, &mut problems);
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
            definition: Arc::new(Lazy::Ready(definition)),
            read: Arc::new(move |request| Box::pin(read(request))),
            completions: &[],
            last_modified: None,
            location,
        };
        let mut problems = Vec::new();
        add_keyed(&mut self.resources.templates, template, &mut problems);
        self.versions.resources += 1;
        super::RegistryError::of(problems)
    }

    /// The cache hints of the resource at `uri`, or of the template it matches, from its
    /// definition's `_meta` (`#[mcp_resource(ttl = …, cache_scope = …)]`).
    pub(crate) fn cache_meta(&self, uri: &str) -> Option<serde_json::Value> {
        const CACHE_META: &str = "mcp-runtime/cache";
        self.resource_meta(uri)?.get(CACHE_META).cloned()
    }

    /// The OAuth scopes a caller needs to read the resource at `uri`: those of the
    /// resource, or of the template that matches it (the one a read would use); `None`
    /// when nothing is at `uri`.
    pub(crate) fn resource_scopes(&self, uri: &str) -> Option<Vec<String>> {
        if let Some(resource) = self.resources.fixed.get(uri) {
            return Some(resource.definition().scopes());
        }
        self.resources
            .templates
            .values()
            .find(|template| template.matches(uri).is_some())
            .map(|template| template.definition().scopes())
    }

    /// The `_meta` of the resource at `uri`, or of the template that matches it.
    fn resource_meta(&self, uri: &str) -> Option<&serde_json::Map<String, serde_json::Value>> {
        if let Some(resource) = self.resources.fixed.get(uri) {
            return Some(&resource.definition().meta);
        }
        self.resources
            .templates
            .values()
            .find(|template| template.matches(uri).is_some())
            .map(|template| &template.definition().meta)
    }

    /// Removes the resource at `uri`, or the template written `uri`; whether there was one.
    pub fn unregister_resource(&mut self, uri: &str) -> bool {
        let fixed = self.resources.fixed.remove(uri).is_some();
        let template = self.resources.templates.remove(uri).is_some();
        let removed = fixed || template;
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
        self.read_resource_asking(uri, crate::talk::Asker::default(), CallOptions::new())
    }

    /// [`Registry::read_resource`], the function's asks going through `asker`; at
    /// 2026-07-28 an ask still open ends the read (the server answers with the asks). The
    /// layers around it see who reads as `options` say.
    pub(crate) fn read_resource_asking(
        &self,
        uri: &str,
        asker: crate::talk::Asker,
        options: CallOptions,
    ) -> impl Future<Output = Result<Vec<ResourceContents>, ReadError>> + Send + 'static {
        let found = self.resources.find(uri);
        // A `skill://` URI no resource has is a skill's file.
        let skill = found.is_none().then(|| self.read_skill(uri)).flatten();
        let stack = found
            .as_ref()
            .and_then(|(_, _, key)| self.layers.for_item(Kind::Resource, key));
        let found = found.map(|(read, request, _)| (read, request));
        let timeout = self.settings.default_timeout;
        let uri = uri.to_owned();
        async move {
            if let Some(skill) = skill {
                return skill.await;
            }
            let Some((read, request)) = found else {
                return Err(ReadError::NotFound(uri));
            };
            let read = read_found(read, request, asker, uri.clone(), timeout);
            let read = match stack {
                None => read.await,
                Some(stack) => {
                    let name: Arc<str> = uri.as_str().into();
                    let request = crate::service::Request::new(
                        Kind::Resource,
                        name,
                        serde_json::Map::new(),
                        options,
                        move |_, _| Box::pin(async move { Response::Resource(read.await) }),
                    )
                    .with_timeout(timeout);
                    match crate::service::through(&stack, request).await {
                        Response::Resource(read) => read,
                        _ => Err(ToolError::execution(
                            "a layer answered a resource read with another kind's response",
                        )),
                    }
                }
            };
            match read {
                Ok(contents) => Ok(contents),
                // A template's function saying there is no such resource.
                Err(err) if *err.error_type() == mcp_runtime_core::ErrorType::ResourceNotFound => {
                    Err(ReadError::NotFound(uri))
                }
                Err(err) => Err(ReadError::Failed(err)),
            }
        }
    }
}

/// Reads `uri` with its resource's function `read`, the function's asks going through
/// `asker`, within `timeout`.
fn read_found(
    read: ReadFn,
    mut request: ReadRequest,
    asker: crate::talk::Asker,
    uri: String,
    timeout: Option<Duration>,
) -> Pin<Box<dyn Future<Output = Result<Vec<ResourceContents>, ToolError>> + Send>> {
    Box::pin(async move {
        let round = crate::outbound::Asks::of(&asker);
        request.asker = asker;
        let make = || {
            crate::outbound::ends_round(read(request), round, || {
                Err(ToolError::execution(
                    "the read waits for the client's input",
                ))
            })
        };
        // What it is doing, written out only for a timeout's message.
        let running = || format!("reading `{uri}`");
        guarded(&uri, running, timeout, make).await
    })
}

/// Makes the future of a resource's or prompt's function and awaits it: a panic in either
/// is a failure, and so is a future that outlasts `timeout`, when it has one. A future done
/// at the first poll, as most are, takes no timer. `what` names it in a panic's message,
/// `running` in a timeout's.
pub(crate) async fn guarded<T>(
    what: &str,
    running: impl FnOnce() -> String,
    timeout: Option<Duration>,
    make: impl FnOnce() -> Pin<Box<dyn Future<Output = Result<T, ToolError>> + Send>>,
) -> Result<T, ToolError> {
    let future = crate::panics::caught(make).map_err(|panic| panicked(what, &*panic))?;
    let mut guarded = AssertUnwindSafe(crate::panics::Caught(future)).catch_unwind();
    let outcome = match ((&mut guarded).now_or_never(), timeout) {
        (Some(outcome), _) => outcome,
        (None, Some(limit)) => tokio::time::timeout(limit, guarded).await.map_err(|_| {
            ToolError::new(
                mcp_runtime_core::ErrorType::TimeoutError,
                format!("{} took longer than {limit:?}", running()),
            )
        })?,
        (None, None) => guarded.await,
    };
    outcome.unwrap_or_else(|panic| Err(panicked(what, &*panic)))
}

/// A failure for a panic while serving `what`: its message logged, not sent (see
/// [`crate::panics`]).
pub(crate) fn panicked(what: &str, panic: &(dyn std::any::Any + Send)) -> ToolError {
    crate::panics::report(&format!("`{what}`"), panic, false)
}
