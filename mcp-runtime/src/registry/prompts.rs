//! Prompts in a registry, listed by name, rendered with their arguments; and completion of
//! prompt arguments and template variables.

use std::collections::BTreeMap;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use mcp_runtime_core::{ErrorType, PromptDefinition, PromptResult, ToolError};

use super::resources::{Keyed, Lazy, Mount, RekeyError, add_keyed, guarded, mount_keyed};
use super::{ConflictKind, Registry, RegistryProblem};
use crate::context::options::CallOptions;
use crate::registration::{
    Arguments, Completion, CompletionContext, Location, PromptFuture, PromptRegistration,
};
use crate::service::{Kind, Request, Response};
use crate::talk::Asker;

/// How a prompt is rendered: a function of `#[mcp_prompt]` or a closure, given what asks
/// the client for it.
pub(crate) type GetFn = Arc<dyn Fn(Arguments, Asker) -> PromptFuture + Send + Sync>;

/// A prompt in a registry.
#[derive(Clone)]
pub struct RegisteredPrompt {
    name: Arc<str>,
    definition: Arc<Lazy<PromptDefinition>>,
    get: GetFn,
    completions: &'static [Completion],
    location: Location,
}

impl std::fmt::Debug for RegisteredPrompt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegisteredPrompt")
            .field("name", &self.name)
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

impl RegisteredPrompt {
    /// The name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The definition, as `prompts/list` lists it.
    pub fn definition(&self) -> &PromptDefinition {
        self.definition.get()
    }

    /// Where it was defined.
    pub fn location(&self) -> &Location {
        &self.location
    }
}

impl Keyed for RegisteredPrompt {
    const KIND: ConflictKind = ConflictKind::Prompt;
    const NOUN: &'static str = "prompt";

    fn key(&self) -> String {
        self.name.to_string()
    }

    fn defined_at(&self) -> Location {
        self.location
    }

    fn duplicate(name: String, first: Location, second: Location) -> RegistryProblem {
        RegistryProblem::DuplicatePrompt {
            name,
            first,
            second,
        }
    }

    fn rekeyed(&self, name: &str) -> Result<Self, RekeyError> {
        let mut definition = self.definition().clone();
        definition.name = name.to_owned();
        Ok(Self {
            name: name.into(),
            definition: Arc::new(Lazy::Ready(definition)),
            ..self.clone()
        })
    }
}

/// Why a prompt could not be rendered.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PromptError {
    /// No prompt has this name.
    #[error("unknown prompt `{0}`")]
    NotFound(String),
    /// An argument is missing or does not parse.
    #[error("{0}")]
    Invalid(ToolError),
    /// The prompt's function failed.
    #[error("{0}")]
    Failed(ToolError),
}

/// What a completion is asked for: a prompt's argument or a template's variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompletionRef {
    /// An argument of the prompt of this name.
    Prompt(String),
    /// A variable of the resource template written this way.
    Template(String),
}

/// The prompts of a registry, by name.
#[derive(Debug, Clone, Default)]
pub(crate) struct Prompts {
    pub(crate) by_name: BTreeMap<String, RegisteredPrompt>,
}

impl Prompts {
    /// Adds what `#[mcp_prompt]` registered, each definition left to be built when first
    /// needed; duplicates go to `problems`.
    pub(crate) fn inventory(&mut self, problems: &mut Vec<RegistryProblem>) {
        for registration in inventory::iter::<PromptRegistration> {
            let prompt = RegisteredPrompt {
                name: registration.name.into(),
                definition: Arc::new(Lazy::new(registration.definition)),
                get: {
                    let get = registration.get;
                    Arc::new(move |arguments, _| get(arguments))
                },
                completions: registration.completions,
                location: registration.location,
            };
            add_keyed(&mut self.by_name, prompt, problems);
        }
    }

    /// Adds those of `other`; duplicates go to `problems`.
    pub(crate) fn extend(&mut self, other: &Self, problems: &mut Vec<RegistryProblem>) {
        for prompt in other.by_name.values() {
            add_keyed(&mut self.by_name, prompt.clone(), problems);
        }
    }

    /// Adds those of `other` under the mount's prefix: `greet` becomes `prefix.greet`.
    /// What would take a name already here is a conflict instead. Whether any was added.
    pub(crate) fn mount(&mut self, other: &Self, mount: &mut Mount<'_>) -> bool {
        let prefix = mount.prefix;
        let mounted = |name: &str| format!("{prefix}.{name}");
        mount_keyed(&mut self.by_name, &other.by_name, mounted, mount)
    }

    /// Keeps those whose name `keep` accepts.
    pub(crate) fn retain(&mut self, keep: &dyn Fn(&str) -> bool) {
        self.by_name.retain(|name, _| keep(name));
    }
}

impl Registry {
    /// The prompts, sorted by name.
    pub fn prompts(&self) -> impl Iterator<Item = &RegisteredPrompt> {
        self.prompts.by_name.values()
    }

    /// The prompt named `name`.
    pub fn prompt(&self, name: &str) -> Option<&RegisteredPrompt> {
        self.prompts.by_name.get(name)
    }

    /// Registers a prompt at run time: its definition and a closure that renders it from
    /// its arguments.
    ///
    /// ```
    /// use mcp_runtime::{PromptDefinition, PromptMessage, PromptResult, Registry, ToolError};
    ///
    /// let mut registry = Registry::builder().build()?;
    /// registry.register_prompt(PromptDefinition::new("greet"), |_arguments| async {
    ///     Ok::<_, ToolError>(PromptResult::new(vec![PromptMessage::user("Say hello.")]))
    /// })?;
    /// let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    /// let rendered = runtime.block_on(registry.get_prompt("greet", Default::default()))?;
    /// assert_eq!(rendered.messages.len(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[track_caller]
    pub fn register_prompt<F, Fut>(
        &mut self,
        definition: PromptDefinition,
        get: F,
    ) -> Result<(), super::RegistryError>
    where
        F: Fn(Arguments) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<PromptResult, ToolError>> + Send + 'static,
    {
        self.add_prompt(
            definition,
            Arc::new(move |arguments, _| Box::pin(get(arguments))),
            Location::caller(),
        )
    }

    /// Registers a prompt at run time that may ask the client while it renders (elicitation,
    /// sampling, roots) through the [`Asker`] it is given. At 2026-07-28 a `prompts/get`
    /// that asks is answered over rounds, as a tool's call is ([`crate::ToolContext::ask`]).
    ///
    /// ```
    /// use mcp_runtime::{PromptDefinition, PromptMessage, PromptResult, Registry, ToolError};
    ///
    /// let mut registry = Registry::builder().build()?;
    /// registry.register_prompt_asking(PromptDefinition::new("brief"), |_arguments, asker| async move {
    ///     let topic = asker
    ///         .elicit_with("topic", "Brief on what?", serde_json::json!({
    ///             "type": "object",
    ///             "properties": { "topic": { "type": "string" } },
    ///             "required": ["topic"],
    ///         }))
    ///         .await?;
    ///     let topic = topic.accepted().and_then(|form| form.get("topic").cloned()).unwrap_or_default();
    ///     Ok::<_, ToolError>(PromptResult::new(vec![PromptMessage::user(format!("Brief me on {topic}."))]))
    /// })?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[track_caller]
    pub fn register_prompt_asking<F, Fut>(
        &mut self,
        definition: PromptDefinition,
        get: F,
    ) -> Result<(), super::RegistryError>
    where
        F: Fn(Arguments, Asker) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<PromptResult, ToolError>> + Send + 'static,
    {
        self.add_prompt(
            definition,
            Arc::new(move |arguments, asker| Box::pin(get(arguments, asker))),
            Location::caller(),
        )
    }

    fn add_prompt(
        &mut self,
        definition: PromptDefinition,
        get: GetFn,
        location: Location,
    ) -> Result<(), super::RegistryError> {
        let prompt = RegisteredPrompt {
            name: definition.name.clone().into(),
            definition: Arc::new(Lazy::Ready(definition)),
            get,
            completions: &[],
            location,
        };
        let mut problems = Vec::new();
        add_keyed(&mut self.prompts.by_name, prompt, &mut problems);
        self.versions.prompts += 1;
        super::RegistryError::of(problems)
    }

    /// Removes the prompt named `name`; whether there was one.
    pub fn unregister_prompt(&mut self, name: &str) -> bool {
        let removed = self.prompts.by_name.remove(name).is_some();
        if removed {
            self.versions.prompts += 1;
        }
        removed
    }

    /// Renders the prompt `name` with `arguments`. A missing or unreadable argument is
    /// [`PromptError::Invalid`]; a panic or a failure of the prompt's function, or one
    /// that outlasts the registry's timeout, is [`PromptError::Failed`]. The timeout needs a
    /// Tokio runtime with its time driver, as [`Registry::call`] does.
    pub fn get_prompt(
        &self,
        name: &str,
        arguments: Arguments,
    ) -> impl Future<Output = Result<PromptResult, PromptError>> + Send + 'static {
        self.get_prompt_asking(name, arguments, Asker::default(), CallOptions::new())
    }

    /// [`Registry::get_prompt`], the prompt's asks going through `asker`; at 2026-07-28 an
    /// ask still open ends the rendering (the server answers with the asks). The layers
    /// around it see who asks as `options` say.
    pub(crate) fn get_prompt_asking(
        &self,
        name: &str,
        arguments: Arguments,
        asker: Asker,
        options: CallOptions,
    ) -> impl Future<Output = Result<PromptResult, PromptError>> + Send + 'static {
        let get = self
            .prompts
            .by_name
            .get(name)
            .map(|prompt| Arc::clone(&prompt.get));
        let stack = get
            .as_ref()
            .and_then(|_| self.layers.for_item(Kind::Prompt, name));
        let timeout = self.settings.default_timeout;
        let name: Arc<str> = name.into();
        async move {
            let Some(get) = get else {
                return Err(PromptError::NotFound(name.to_string()));
            };
            let rendered = match stack {
                None => render(get, arguments, asker, Arc::clone(&name), timeout).await,
                Some(stack) => {
                    let named = Arc::clone(&name);
                    let run = move |arguments, _| -> crate::service::Running {
                        Box::pin(async move {
                            Response::Prompt(render(get, arguments, asker, named, timeout).await)
                        })
                    };
                    let request =
                        Request::new(Kind::Prompt, Arc::clone(&name), arguments, options, run)
                            .with_timeout(timeout);
                    match crate::service::through(&stack, request).await {
                        Response::Prompt(rendered) => rendered,
                        _ => Err(ToolError::execution(
                            "a layer answered a prompt with another kind's response",
                        )),
                    }
                }
            };
            match rendered {
                Ok(result) => Ok(result),
                Err(err) if *err.error_type() == ErrorType::ValidationError => {
                    Err(PromptError::Invalid(err))
                }
                Err(err) => Err(PromptError::Failed(err)),
            }
        }
    }

    /// The OAuth scopes a caller needs to complete an argument of what `reference` names:
    /// those of the prompt, or of the template; `None` when it does not exist.
    pub(crate) fn completion_scopes(&self, reference: &CompletionRef) -> Option<Vec<String>> {
        match reference {
            CompletionRef::Prompt(name) => Some(self.prompt(name)?.definition().scopes()),
            CompletionRef::Template(template) => self
                .resource_templates()
                .find(|candidate| candidate.uri_template() == *template)
                .map(|template| template.definition().scopes()),
        }
    }

    /// Candidates for `argument` of what `reference` names, from the `prefix` typed so
    /// far; `None` when the prompt or template does not exist. An argument without a
    /// completion function has no candidates. A panic in the function gives none.
    pub fn complete(
        &self,
        reference: &CompletionRef,
        argument: &str,
        prefix: &str,
        context: &CompletionContext,
    ) -> Option<Vec<String>> {
        let completions = match reference {
            CompletionRef::Prompt(name) => self.prompts.by_name.get(name)?.completions,
            CompletionRef::Template(template) => {
                self.resources.templates.get(template)?.completions()
            }
        };
        let Some(completion) = completions.iter().find(|c| c.argument == argument) else {
            return Some(Vec::new());
        };
        let complete = completion.complete;
        Some(
            std::panic::catch_unwind(AssertUnwindSafe(|| complete(prefix, context)))
                .unwrap_or_default(),
        )
    }
}

/// Renders the prompt `name` with its function `get`, its asks going through `asker`,
/// within `timeout`.
async fn render(
    get: GetFn,
    arguments: Arguments,
    asker: Asker,
    name: Arc<str>,
    timeout: Option<std::time::Duration>,
) -> Result<PromptResult, ToolError> {
    let round = crate::outbound::Asks::of(&asker);
    let make = || {
        crate::outbound::ends_round(get(arguments, asker), round, || {
            Err(ToolError::execution(
                "the prompt waits for the client's input",
            ))
        })
    };
    // What it is doing, written out only for a timeout's message.
    let running = || format!("prompt `{name}`");
    guarded(&name, running, timeout, make).await
}
