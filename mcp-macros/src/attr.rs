//! Parses the attributes' arguments, `#[mcp_tool(namespace = "calculator", read_only,
//! tags("a"))]`, `#[mcp_resource(uri = "app://about")]`, `#[mcp_prompt(name = "review")]`,
//! and those of a parameter, `#[mcp(header = "Region")]` or `#[mcp(complete = languages)]`.

use proc_macro2::{Span, TokenStream};
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned as _;
use syn::{Attribute, Ident, Path};

mod sandbox;
mod values;

use sandbox::requires_sandbox;
pub(crate) use sandbox::{SandboxArgs, SandboxNetwork};
use values::*;
pub(crate) use values::{closest, key_list};

/// What the attribute is called in messages.
const TOOL: &str = "`mcp_tool` argument";

/// What a parameter's attribute is called in messages.
const PARAM: &str = "`mcp` parameter argument";

/// A key that `#[mcp_tool]`, `#[mcp_resource]` and `#[mcp_prompt]` all take.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum CommonKey {
    Name,
    Title,
    Description,
    Scopes,
    Crate,
}

/// A key of `#[mcp_tool]`. Its names are in [`TOOL_KEYS`] alone, and the parser matches on
/// this enum, so that a key cannot be listed without being parsed, nor parsed unlisted.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum ToolKey {
    Common(CommonKey),
    Namespace,
    Version,
    Category,
    Tags,
    ReadOnly,
    Destructive,
    Idempotent,
    OpenWorld,
    Dangerous,
    RequiresSandbox,
    Inline,
    Timeout,
    Layer,
    Task,
    Deprecated,
    Errors,
    Example,
    RequiresClient,
}

/// Each key of `#[mcp_tool]` with its name, in the order messages list them.
const TOOL_KEYS: [(&str, ToolKey); 23] = [
    ("name", ToolKey::Common(CommonKey::Name)),
    ("namespace", ToolKey::Namespace),
    ("title", ToolKey::Common(CommonKey::Title)),
    ("description", ToolKey::Common(CommonKey::Description)),
    ("version", ToolKey::Version),
    ("category", ToolKey::Category),
    ("tags", ToolKey::Tags),
    ("read_only", ToolKey::ReadOnly),
    ("destructive", ToolKey::Destructive),
    ("idempotent", ToolKey::Idempotent),
    ("open_world", ToolKey::OpenWorld),
    ("dangerous", ToolKey::Dangerous),
    ("requires_sandbox", ToolKey::RequiresSandbox),
    ("inline", ToolKey::Inline),
    ("timeout", ToolKey::Timeout),
    ("layer", ToolKey::Layer),
    ("task", ToolKey::Task),
    ("deprecated", ToolKey::Deprecated),
    ("crate", ToolKey::Common(CommonKey::Crate)),
    ("errors", ToolKey::Errors),
    ("example", ToolKey::Example),
    ("requires_client", ToolKey::RequiresClient),
    ("scopes", ToolKey::Common(CommonKey::Scopes)),
];

/// The keys the attribute accepts, as [`TOOL_KEYS`] names them.
const KEYS: [&str; 23] = names(&TOOL_KEYS);

/// What `#[mcp_resource]`'s arguments are called in messages.
const RESOURCE: &str = "`mcp_resource` argument";

/// What `#[mcp_prompt]`'s arguments are called in messages.
const PROMPT: &str = "`mcp_prompt` argument";

/// A key of `#[mcp_resource]`; its names are in [`RESOURCE_KEY_TABLE`] alone.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum ResourceKey {
    Common(CommonKey),
    Uri,
    UriTemplate,
    MimeType,
    Size,
    Audience,
    Priority,
    Ttl,
    CacheScope,
    LastModified,
}

/// Each key of `#[mcp_resource]` with its name, in the order messages list them.
const RESOURCE_KEY_TABLE: [(&str, ResourceKey); 14] = [
    ("uri", ResourceKey::Uri),
    ("uri_template", ResourceKey::UriTemplate),
    ("name", ResourceKey::Common(CommonKey::Name)),
    ("title", ResourceKey::Common(CommonKey::Title)),
    ("description", ResourceKey::Common(CommonKey::Description)),
    ("mime_type", ResourceKey::MimeType),
    ("size", ResourceKey::Size),
    ("audience", ResourceKey::Audience),
    ("priority", ResourceKey::Priority),
    ("ttl", ResourceKey::Ttl),
    ("cache_scope", ResourceKey::CacheScope),
    ("last_modified", ResourceKey::LastModified),
    ("scopes", ResourceKey::Common(CommonKey::Scopes)),
    ("crate", ResourceKey::Common(CommonKey::Crate)),
];

/// The keys `#[mcp_resource]` accepts, as [`RESOURCE_KEY_TABLE`] names them.
const RESOURCE_KEYS: [&str; 14] = names(&RESOURCE_KEY_TABLE);

/// Each key of `#[mcp_prompt]` with its name: the common ones alone.
const PROMPT_KEY_TABLE: [(&str, CommonKey); 5] = [
    ("name", CommonKey::Name),
    ("title", CommonKey::Title),
    ("description", CommonKey::Description),
    ("scopes", CommonKey::Scopes),
    ("crate", CommonKey::Crate),
];

/// The keys `#[mcp_prompt]` accepts, as [`PROMPT_KEY_TABLE`] names them.
const PROMPT_KEYS: [&str; 5] = names(&PROMPT_KEY_TABLE);

/// The names of a table's keys, in its order.
const fn names<K: Copy, const N: usize>(table: &[(&'static str, K); N]) -> [&'static str; N] {
    let mut names = [""; N];
    let mut i = 0;
    while i < N {
        names[i] = table[i].0;
        i += 1;
    }
    names
}

/// The key `meta` is at, found in `table`, whose names are `keys`; any other is unknown to
/// `what`.
fn known_key<K: Copy>(
    meta: &ParseNestedMeta<'_>,
    what: &str,
    table: &[(&str, K)],
    keys: &[&str],
) -> syn::Result<K> {
    let key = key_at(meta, what, keys)?;
    table
        .iter()
        .find(|(name, _)| *name == key)
        .map(|(_, found)| *found)
        .ok_or_else(|| meta.error(unknown_key(what, keys, &key)))
}

/// The keys a tool parameter's `#[mcp(...)]` accepts.
pub(crate) const TOOL_PARAM_KEYS: [&str; 1] = ["header"];

/// The keys a resource's or a prompt's parameter's `#[mcp(...)]` accepts.
pub(crate) const ITEM_PARAM_KEYS: [&str; 1] = ["complete"];

/// A value with the span of its source, for errors that point at it.
pub(crate) struct Spanned<T> {
    pub(crate) value: T,
    pub(crate) span: Span,
}

/// The arguments every attribute takes, a tool's, a resource's or a prompt's, as written.
#[derive(Default)]
pub(crate) struct CommonArgs {
    pub(crate) name: Option<Spanned<String>>,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<Spanned<String>>,
    /// `scopes("notes:read", …)`: the OAuth scopes a caller needs, checked.
    pub(crate) scopes: Option<Vec<String>>,
    pub(crate) krate: Option<Path>,
}

/// The attribute's arguments as written.
#[derive(Default)]
pub(crate) struct Args {
    /// `name`, `title`, `description`, `scopes` and `crate`.
    pub(crate) common: CommonArgs,
    pub(crate) namespace: Option<Spanned<String>>,
    pub(crate) version: Option<Spanned<String>>,
    pub(crate) category: Option<String>,
    pub(crate) tags: Option<Vec<String>>,
    pub(crate) read_only: Option<Spanned<bool>>,
    pub(crate) destructive: Option<Spanned<bool>>,
    pub(crate) idempotent: Option<Spanned<bool>>,
    pub(crate) open_world: Option<Spanned<bool>>,
    pub(crate) dangerous: Option<Spanned<bool>>,
    /// `requires_sandbox`, `requires_sandbox = false` or `requires_sandbox(...)`, which means
    /// true.
    pub(crate) requires_sandbox: Option<Spanned<bool>>,
    /// `requires_sandbox(read = [...], ...)`: the policy, when the tool states one.
    pub(crate) sandbox: Option<SandboxArgs>,
    pub(crate) inline: Option<Spanned<bool>>,
    pub(crate) timeout: Option<Spanned<String>>,
    /// `layer = path::to::function`: the function that makes the layer around the tool's
    /// calls.
    pub(crate) layer: Option<Path>,
    /// `task = "optional"`: whether the tool runs as a task, with the span of the `task` key.
    pub(crate) task: Option<Spanned<Task>>,
    pub(crate) deprecated: Option<String>,
    pub(crate) errors: Option<Vec<String>>,
    /// `example = r#"{…}"#`, any number of times: example arguments, as JSON.
    pub(crate) examples: Vec<Spanned<String>>,
    /// `requires_client(sampling, …)`: the client capabilities the tool needs, as written.
    pub(crate) requires_client: Option<Vec<Ident>>,
    /// Keys whose values could not be read (already reported).
    pub(crate) failed: Vec<String>,
}

/// `task = "…"`: whether a tool runs as a task (MCP's tasks extension), as
/// `mcp_runtime_core::TaskSupport` says it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Task {
    Forbidden,
    Optional,
    Required,
}

impl Task {
    /// Each value with what `task = "…"` calls it, in the order messages list them.
    const ALL: [(&'static str, Self); 3] = [
        ("forbidden", Self::Forbidden),
        ("optional", Self::Optional),
        ("required", Self::Required),
    ];

    /// What `task = "…"` calls it.
    pub(crate) fn as_str(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, task)| *task == self)
            .map_or("", |(name, _)| name)
    }
}

/// `#[mcp_resource]`'s arguments as written.
#[derive(Default)]
pub(crate) struct ResourceArgs {
    /// `uri = "…"`: one resource at a fixed URI.
    pub(crate) uri: Option<Spanned<String>>,
    /// `uri_template = "…"`: a family of resources.
    pub(crate) uri_template: Option<Spanned<String>>,
    /// `name`, `title`, `description`, `scopes` and `crate`.
    pub(crate) common: CommonArgs,
    pub(crate) mime_type: Option<Spanned<String>>,
    /// `size = 1024`, with the span of the `size` key.
    pub(crate) size: Option<Spanned<u64>>,
    /// `audience = "user"` or `audience("user", "assistant")`, each as written.
    pub(crate) audience: Option<Vec<Spanned<String>>>,
    pub(crate) priority: Option<Spanned<f64>>,
    pub(crate) ttl: Option<Spanned<String>>,
    pub(crate) cache_scope: Option<Spanned<String>>,
    pub(crate) last_modified: Option<LastModified>,
    /// Keys whose values could not be read (already reported).
    pub(crate) failed: Vec<String>,
}

/// `last_modified = "2025-01-12T15:00:58Z"`, or `last_modified = path::to_fn`.
pub(crate) enum LastModified {
    /// A fixed time, as written.
    At(Spanned<String>),
    /// A function called at each listing.
    From(Path),
}

/// `#[mcp_prompt]`'s arguments as written.
#[derive(Default)]
pub(crate) struct PromptArgs {
    /// `name`, `title`, `description`, `scopes` and `crate`: all a prompt takes.
    pub(crate) common: CommonArgs,
    /// Keys whose values could not be read (already reported).
    pub(crate) failed: Vec<String>,
}

/// Parses `tokens`, collecting every error (each on the token at fault) instead of
/// stopping at the first.
pub(crate) fn parse(tokens: TokenStream) -> (Args, Option<syn::Error>) {
    let (mut args, failed, error) = parse_all(tokens, parse_one);
    args.failed = failed;
    (args, error)
}

/// Parses `#[mcp_resource]`'s arguments, as [`parse`] does the tool's.
pub(crate) fn parse_resource(tokens: TokenStream) -> (ResourceArgs, Option<syn::Error>) {
    let (mut args, failed, error) = parse_all(tokens, parse_resource_one);
    args.failed = failed;
    (args, error)
}

/// Parses `#[mcp_prompt]`'s arguments, as [`parse`] does the tool's.
pub(crate) fn parse_prompt(tokens: TokenStream) -> (PromptArgs, Option<syn::Error>) {
    let (mut args, failed, error) = parse_all(tokens, parse_prompt_one);
    args.failed = failed;
    (args, error)
}

/// Parses `tokens` with `one` for each argument; also gives the keys whose values could
/// not be read, so that checks of what they would have said stay silent.
fn parse_all<A: Default>(
    tokens: TokenStream,
    one: fn(&mut A, &ParseNestedMeta<'_>) -> syn::Result<()>,
) -> (A, Vec<String>, Option<syn::Error>) {
    let mut args = A::default();
    let mut failed = Vec::new();
    let mut errors = Errors::default();
    let parser = syn::meta::parser(|meta| {
        if let Err(err) = one(&mut args, &meta) {
            errors.push(err);
            if let Some(key) = meta.path.get_ident() {
                failed.push(key.to_string());
            }
            skip_argument(&meta)?;
        }
        Ok(())
    });
    if let Err(err) = syn::parse::Parser::parse2(parser, tokens) {
        errors.push(err);
    }
    (args, failed, errors.into_error())
}

/// A parameter's `#[mcp(header = "Region")]`.
pub(crate) struct Header {
    /// The header's name after `Mcp-Param-`, with the span of its literal.
    pub(crate) name: Spanned<String>,
    /// The span of the `header` key.
    pub(crate) key: Span,
}

/// A parameter's `#[mcp(complete = path::to_fn)]`.
pub(crate) struct Complete {
    /// The completion function.
    pub(crate) path: Path,
}

/// The arguments of a parameter's `#[mcp(...)]` attributes, all of them together.
#[derive(Default)]
pub(crate) struct ParamArgs {
    pub(crate) header: Option<Header>,
    pub(crate) complete: Option<Complete>,
}

/// Parses the `#[mcp(...)]` attributes of one parameter, accepting the keys `keys`, adding
/// every error to `errors`.
pub(crate) fn parse_param(
    attrs: &[Attribute],
    keys: &'static [&'static str],
    errors: &mut Errors,
) -> ParamArgs {
    let mut args = ParamArgs::default();
    for attr in attrs {
        let result = attr.parse_nested_meta(|meta| {
            if let Err(err) = parse_param_one(&mut args, keys, &meta) {
                errors.push(err);
                skip_argument(&meta)?;
            }
            Ok(())
        });
        if let Err(err) = result {
            errors.push(err);
        }
    }
    args
}

fn parse_param_one(
    args: &mut ParamArgs,
    keys: &[&str],
    meta: &ParseNestedMeta<'_>,
) -> syn::Result<()> {
    let key = key_at(meta, PARAM, keys)?;
    if !keys.contains(&key.as_str()) {
        return Err(meta.error(unknown_key(PARAM, keys, &key)));
    }
    match key.as_str() {
        "complete" => {
            let path = match value_expr(meta, "complete = path::to_fn")? {
                syn::Expr::Path(path) if path.qself.is_none() => path.path,
                other => {
                    return Err(syn::Error::new_spanned(
                        other,
                        "`complete` takes the path of a function `fn(&str, &CompletionContext) -> Vec<String>`: `complete = path::to_fn`",
                    ));
                }
            };
            set(meta, PARAM, &mut args.complete, Complete { path })
        }
        "header" => {
            let key = meta
                .path
                .get_ident()
                .map_or_else(Span::call_site, Ident::span);
            let name = spanned_string(meta)?;
            set(meta, PARAM, &mut args.header, Header { name, key })
        }
        _ => Err(meta.error(unknown_key(PARAM, keys, &key))),
    }
}

/// Skips the rest of the argument `meta` is at, so that one mistake is one error and the
/// arguments after it are still read.
fn skip_argument(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    while !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
        meta.input.parse::<proc_macro2::TokenTree>()?;
    }
    Ok(())
}

/// The name of the key `meta` is at; a path of several segments is no key of `what`, and
/// the error lists its `keys`.
fn key_at(meta: &ParseNestedMeta<'_>, what: &str, keys: &[&str]) -> syn::Result<String> {
    meta.path
        .get_ident()
        .map(ToString::to_string)
        .ok_or_else(|| meta.error(format!("unknown {what}; {}", expected(keys))))
}

impl CommonArgs {
    /// Reads the argument of a key every attribute takes, for `what`.
    fn parse_one(
        &mut self,
        meta: &ParseNestedMeta<'_>,
        what: &str,
        key: CommonKey,
    ) -> syn::Result<()> {
        match key {
            CommonKey::Name => set(meta, what, &mut self.name, spanned_string(meta)?),
            CommonKey::Title => set(meta, what, &mut self.title, string(meta)?),
            CommonKey::Description => set(meta, what, &mut self.description, spanned_string(meta)?),
            CommonKey::Scopes => set(meta, what, &mut self.scopes, scope_list(meta)?),
            CommonKey::Crate => set(meta, what, &mut self.krate, crate_path(meta)?),
        }
    }
}

fn parse_one(args: &mut Args, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    match known_key(meta, TOOL, &TOOL_KEYS, &KEYS)? {
        ToolKey::Common(key) => args.common.parse_one(meta, TOOL, key),
        ToolKey::Namespace => set(meta, TOOL, &mut args.namespace, spanned_string(meta)?),
        ToolKey::Version => set(meta, TOOL, &mut args.version, spanned_string(meta)?),
        ToolKey::Timeout => set(meta, TOOL, &mut args.timeout, spanned_string(meta)?),
        ToolKey::Layer => set(meta, TOOL, &mut args.layer, layer_path(meta)?),
        ToolKey::Task => set(meta, TOOL, &mut args.task, task(meta)?),
        ToolKey::Category => set(meta, TOOL, &mut args.category, string(meta)?),
        ToolKey::Deprecated => set(meta, TOOL, &mut args.deprecated, string(meta)?),
        ToolKey::Tags => set(meta, TOOL, &mut args.tags, string_list(meta)?),
        ToolKey::Errors => set(meta, TOOL, &mut args.errors, ident_list(meta)?),
        ToolKey::RequiresClient => set(
            meta,
            TOOL,
            &mut args.requires_client,
            capability_list(meta)?,
        ),
        ToolKey::Example => {
            args.examples.push(spanned_string(meta)?);
            Ok(())
        }
        ToolKey::ReadOnly => set(meta, TOOL, &mut args.read_only, flag(meta)?),
        ToolKey::Destructive => set(meta, TOOL, &mut args.destructive, flag(meta)?),
        ToolKey::Idempotent => set(meta, TOOL, &mut args.idempotent, flag(meta)?),
        ToolKey::OpenWorld => set(meta, TOOL, &mut args.open_world, flag(meta)?),
        ToolKey::Dangerous => set(meta, TOOL, &mut args.dangerous, flag(meta)?),
        ToolKey::RequiresSandbox => requires_sandbox(args, meta),
        ToolKey::Inline => set(meta, TOOL, &mut args.inline, flag(meta)?),
    }
}

fn parse_resource_one(args: &mut ResourceArgs, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    const WHAT: &str = RESOURCE;
    match known_key(meta, WHAT, &RESOURCE_KEY_TABLE, &RESOURCE_KEYS)? {
        ResourceKey::Common(key) => args.common.parse_one(meta, WHAT, key),
        key @ (ResourceKey::Uri | ResourceKey::UriTemplate) => {
            let value = spanned_string(meta)?;
            let (slot, other) = match key {
                ResourceKey::Uri => (&mut args.uri, &args.uri_template),
                _ => (&mut args.uri_template, &args.uri),
            };
            if slot.is_none() && other.is_some() {
                return Err(meta.error(
                    "give either `uri` (one resource) or `uri_template` (a family of resources), not both",
                ));
            }
            set(meta, WHAT, slot, value)
        }
        ResourceKey::MimeType => set(meta, WHAT, &mut args.mime_type, spanned_string(meta)?),
        ResourceKey::Size => set(meta, WHAT, &mut args.size, size(meta)?),
        ResourceKey::Audience => set(meta, WHAT, &mut args.audience, audience(meta)?),
        ResourceKey::Priority => set(meta, WHAT, &mut args.priority, priority(meta)?),
        ResourceKey::Ttl => set(meta, WHAT, &mut args.ttl, spanned_string(meta)?),
        ResourceKey::CacheScope => set(meta, WHAT, &mut args.cache_scope, spanned_string(meta)?),
        ResourceKey::LastModified => set(meta, WHAT, &mut args.last_modified, last_modified(meta)?),
    }
}

fn parse_prompt_one(args: &mut PromptArgs, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    let key = known_key(meta, PROMPT, &PROMPT_KEY_TABLE, &PROMPT_KEYS)?;
    args.common.parse_one(meta, PROMPT, key)
}

/// Collects errors and combines them into one, so all are reported together.
#[derive(Default)]
pub(crate) struct Errors(Option<syn::Error>);

impl Errors {
    pub(crate) fn push(&mut self, err: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(err),
            None => self.0 = Some(err),
        }
    }

    pub(crate) fn into_error(self) -> Option<syn::Error> {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every key of every attribute.
    fn every_name() -> Vec<&'static str> {
        let mut all: Vec<&str> = KEYS
            .into_iter()
            .chain(RESOURCE_KEYS)
            .chain(PROMPT_KEYS)
            .collect();
        all.sort_unstable();
        all.dedup();
        all
    }

    /// Whether `parse` refuses `key = 0` as an unknown key of its attribute.
    fn unknown<A>(parse: fn(TokenStream) -> (A, Option<syn::Error>), key: &str) -> bool {
        let tokens: TokenStream = format!("{key} = 0").parse().expect("`key = 0` is tokens");
        let (_, error) = parse(tokens);
        error.is_some_and(|error| error.to_string().starts_with("unknown "))
    }

    /// The names of a table are its keys, each once, and its parser accepts exactly those.
    fn parser_accepts_its_table<A>(
        keys: &[&str],
        parse: fn(TokenStream) -> (A, Option<syn::Error>),
    ) {
        let mut distinct = keys.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), keys.len(), "a name twice in {keys:?}");
        for key in every_name().into_iter().chain(["nme", "uri2", "scope"]) {
            assert_eq!(
                unknown(parse, key),
                !keys.contains(&key),
                "`{key}`: the parser and the key list {keys:?} disagree",
            );
        }
    }

    #[test]
    fn the_tool_parser_accepts_exactly_the_keys_of_its_table() {
        parser_accepts_its_table(&KEYS, parse);
    }

    #[test]
    fn the_resource_parser_accepts_exactly_the_keys_of_its_table() {
        parser_accepts_its_table(&RESOURCE_KEYS, parse_resource);
    }

    #[test]
    fn the_prompt_parser_accepts_exactly_the_keys_of_its_table() {
        parser_accepts_its_table(&PROMPT_KEYS, parse_prompt);
    }

    #[test]
    fn task_values_are_those_mcp_runtime_core_knows() {
        // `TaskSupport::as_str` is the one the wire's `execution.taskSupport` uses.
        let core = [
            mcp_runtime_core::TaskSupport::Forbidden,
            mcp_runtime_core::TaskSupport::Optional,
            mcp_runtime_core::TaskSupport::Required,
        ];
        for ((name, task), core) in Task::ALL.into_iter().zip(core) {
            assert_eq!(name, core.as_str());
            assert_eq!(task.as_str(), core.as_str());
        }
    }
}
