//! Checks what cannot become a tool, a resource or a prompt, each error on the token at
//! fault.

use std::collections::HashMap;

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{FnArg, Type};

use crate::attr::{self, Args, Errors, Header, PromptArgs, ResourceArgs};
use crate::model::{Item, ParamKind, Tool};

/// The longest invocation name, as in MCP's tool-name rule.
const MAX_NAME_LEN: usize = 128;

/// The top-level capabilities of MCP's `ClientCapabilities` (revision 2026-07-28), as
/// `mcp_core::CLIENT_CAPABILITIES` lists them.
const CLIENT_CAPABILITIES: [&str; 5] = [
    "elicitation",
    "experimental",
    "extensions",
    "roots",
    "sampling",
];

/// The characters of an HTTP token besides ASCII letters and digits (RFC 9110 `tchar`),
/// which a header's name is made of.
const TOKEN_SYMBOLS: &str = "!#$%&'*+-.^_`|~";

/// Checks `tool` and the attribute's `args`, adding every problem to `errors`.
pub(crate) fn check(tool: &Tool, args: &Args, errors: &mut Errors) {
    check_signature(tool, errors);
    check_params(tool, errors);
    check_headers(tool, errors);
    check_name(tool, args, errors);
    check_requires_client(args, errors);
    check_attributes(tool, args, errors);
}

fn check_signature(tool: &Tool, errors: &mut Errors) {
    let sig = &tool.item.sig;
    if let syn::ReturnType::Type(_, ty) = &sig.output {
        if let Type::ImplTrait(_) = &**ty {
            errors.push(syn::Error::new_spanned(
                ty,
                "a tool cannot return `impl Trait`: the output schema needs a concrete type; name the type",
            ));
        }
    }
    if sig.generics.lt_token.is_some() || sig.generics.where_clause.is_some() {
        // `Generics` spans nothing of a `where` clause alone: point at the clause then.
        let at: &dyn quote::ToTokens = match (&sig.generics.lt_token, &sig.generics.where_clause) {
            (None, Some(clause)) => clause,
            _ => &sig.generics,
        };
        errors.push(syn::Error::new_spanned(
            at,
            "`#[mcp_tool]` functions cannot be generic: a tool's schema must be known; use concrete types",
        ));
    }
    if let Some(constness) = sig.constness {
        errors.push(syn::Error::new(
            constness.span(),
            "`#[mcp_tool]` cannot be used on a `const fn`: remove `const`",
        ));
    }
    if let Some(unsafety) = sig.unsafety {
        errors.push(syn::Error::new(
            unsafety.span(),
            "`#[mcp_tool]` cannot be used on an `unsafe fn`: a tool is called with arguments from outside; make it a safe function",
        ));
    }
    if let Some(abi) = &sig.abi {
        errors.push(syn::Error::new_spanned(
            abi,
            "`#[mcp_tool]` cannot be used on an `extern` function: remove the ABI",
        ));
    }
    if let Some(variadic) = &sig.variadic {
        errors.push(syn::Error::new(
            variadic.span(),
            "`#[mcp_tool]` functions cannot be variadic",
        ));
    }
}

fn check_params(tool: &Tool, errors: &mut Errors) {
    let mut context_seen = false;
    let mut properties: HashMap<String, String> = HashMap::new();
    for param in &tool.params {
        let pat_type = match &param.original {
            FnArg::Receiver(receiver) => {
                errors.push(syn::Error::new_spanned(
                    receiver,
                    "`#[mcp_tool]` works on free functions, not methods: move the tool out of the `impl` block and take what it needs as parameters",
                ));
                continue;
            }
            FnArg::Typed(pat_type) => pat_type,
        };
        if param.ident.is_none() {
            errors.push(syn::Error::new_spanned(
                &pat_type.pat,
                "tool parameters must be plain names, e.g. `point: Point`, because the name becomes the argument's name; destructure inside the function",
            ));
        }
        match param.kind {
            ParamKind::Context { mutable: true, .. } => errors.push(syn::Error::new_spanned(
                &param.ty,
                "the tool context is shared: take it as `&ToolContext` or `ToolContext`",
            )),
            ParamKind::Context { .. } if context_seen => errors.push(syn::Error::new_spanned(
                &param.original,
                "a tool takes the `ToolContext` once: remove this second context parameter",
            )),
            ParamKind::Context { .. } => context_seen = true,
            ParamKind::Argument => check_argument_type(&param.ty, errors),
        }
        if matches!(param.kind, ParamKind::Argument) && param.ident.is_some() {
            let ident = param
                .ident
                .as_ref()
                .map(ToString::to_string)
                .unwrap_or_default();
            for property in param.property_names() {
                match properties.get(&property) {
                    Some(other) => errors.push(syn::Error::new_spanned(
                        &param.original,
                        format!(
                            "parameters `{other}` and `{ident}` are both read from the argument `{property}`: give one of them another `#[serde(rename = \"…\")]`"
                        ),
                    )),
                    None => {
                        properties.insert(property, ident.clone());
                    }
                }
            }
        }
    }
}

/// `#[mcp(header = "…")]`: on an argument, a valid name, unique regardless of case, as MCP
/// requires of `x-mcp-header`. Whether the type can be mirrored is a trait bound.
fn check_headers(tool: &Tool, errors: &mut Errors) {
    // Lower-cased name → the parameter and the name as it wrote it.
    let mut seen: Vec<(String, String, &str)> = Vec::new();
    for param in &tool.params {
        let Some(Header { name, key }) = &param.header else {
            continue;
        };
        if let ParamKind::Context { .. } = param.kind {
            errors.push(syn::Error::new(
                *key,
                "the tool context is not an argument, so it has no header: remove `#[mcp(header = …)]` from it",
            ));
            continue;
        }
        if let Some(problem) = header_name_problem(&name.value) {
            errors.push(syn::Error::new(name.span, problem));
            continue;
        }
        let lower = name.value.to_ascii_lowercase();
        let ident = param
            .ident
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default();
        match seen.iter().find(|(seen, _, _)| *seen == lower) {
            Some((_, other, other_name)) => errors.push(syn::Error::new(
                name.span,
                format!(
                    "parameter `{other}` is already mirrored into the header `{other_name}`, and header names are compared case-insensitively: give `{ident}` another header"
                ),
            )),
            None => seen.push((lower, ident, &name.value)),
        }
    }
}

/// What is wrong with a header's name, if anything: it must be an HTTP token.
fn header_name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some(
            "the header name is empty: give the part after `Mcp-Param-`, e.g. `header = \"Region\"`"
                .to_owned(),
        );
    }
    let bad = name
        .chars()
        .find(|c| !c.is_ascii_alphanumeric() && !TOKEN_SYMBOLS.contains(*c))?;
    Some(format!(
        "`{name}` is not a valid header name: {bad:?} is not allowed; use ASCII letters, digits and any of {} (the token characters of RFC 9110)",
        spaced(TOKEN_SYMBOLS)
    ))
}

/// `abc` → `a b c`.
fn spaced(chars: &str) -> String {
    chars
        .chars()
        .map(String::from)
        .collect::<Vec<_>>()
        .join(" ")
}

/// `requires_client(…)`: each a capability of MCP's `ClientCapabilities`, once.
fn check_requires_client(args: &Args, errors: &mut Errors) {
    let Some(names) = &args.requires_client else {
        return;
    };
    let mut seen: Vec<String> = Vec::new();
    for ident in names {
        let name = ident.to_string();
        if !CLIENT_CAPABILITIES.contains(&name.as_str()) {
            let expected = attr::key_list(&CLIENT_CAPABILITIES);
            let message = match attr::closest(&name, &CLIENT_CAPABILITIES) {
                Some(candidate) => format!(
                    "unknown client capability `{name}`; did you mean `{candidate}`? MCP's client capabilities are {expected}"
                ),
                None => format!(
                    "unknown client capability `{name}`; MCP's client capabilities are {expected}"
                ),
            };
            errors.push(syn::Error::new(ident.span(), message));
        } else if seen.contains(&name) {
            errors.push(syn::Error::new(
                ident.span(),
                format!("client capability `{name}` is already required; give it once"),
            ));
        } else {
            seen.push(name);
        }
    }
}

fn check_argument_type(ty: &Type, errors: &mut Errors) {
    if let Type::ImplTrait(_) = ty {
        errors.push(syn::Error::new_spanned(
            ty,
            "tool parameters cannot be `impl Trait`: the input schema needs a concrete type",
        ));
        return;
    }
    if let Some(reference) = find_reference(ty) {
        let suggestion = match &*reference.elem {
            Type::Path(path) if path.path.is_ident("str") => "use `String` instead of `&str`",
            Type::Slice(_) => "use `Vec<T>` instead of `&[T]`",
            Type::Path(path)
                if path
                    .path
                    .segments
                    .last()
                    .is_some_and(|last| last.ident == "Path") =>
            {
                "use `PathBuf` instead of `&Path`"
            }
            _ => "take the value itself instead of a reference",
        };
        errors.push(syn::Error::new_spanned(
            reference,
            format!(
                "tool parameters must be owned, since arguments are deserialized for each call: {suggestion}"
            ),
        ));
    }
}

/// The first reference in `ty`, also inside generic arguments (`Option<&str>`).
fn find_reference(ty: &Type) -> Option<&syn::TypeReference> {
    match ty {
        Type::Reference(reference) => Some(reference),
        Type::Paren(inner) => find_reference(&inner.elem),
        Type::Group(inner) => find_reference(&inner.elem),
        Type::Slice(inner) => find_reference(&inner.elem),
        Type::Array(inner) => find_reference(&inner.elem),
        Type::Tuple(tuple) => tuple.elems.iter().find_map(find_reference),
        Type::Path(path) => {
            path.path
                .segments
                .iter()
                .find_map(|segment| match &segment.arguments {
                    syn::PathArguments::AngleBracketed(args) => {
                        args.args.iter().find_map(|arg| match arg {
                            syn::GenericArgument::Type(ty) => find_reference(ty),
                            _ => None,
                        })
                    }
                    _ => None,
                })
        }
        _ => None,
    }
}

fn check_name(tool: &Tool, args: &Args, errors: &mut Errors) {
    let ident = tool.item.sig.ident.to_string();
    let ident = ident.strip_prefix("r#").unwrap_or(&ident);
    let (namespace, tool_part, span) = match &args.name {
        Some(name) => match name.value.rsplit_once('.') {
            Some((namespace, tool_part)) => {
                if args.namespace.is_some() {
                    errors.push(syn::Error::new(
                        name.span,
                        "`name` already holds a namespace (it contains `.`): drop `namespace`, or give `name` without one",
                    ));
                }
                check_namespace(namespace, name.span, errors);
                (Some(namespace), tool_part, name.span)
            }
            None => (None, name.value.as_str(), name.span),
        },
        None => (None, ident, tool.item.sig.ident.span()),
    };
    if !is_segment(tool_part) {
        let message = if args.name.is_some() {
            format!(
                "invalid tool name `{tool_part}`: use lower-case letters, digits and `_`, e.g. `{}`",
                suggest_segment(tool_part)
            )
        } else {
            format!(
                "the function name `{ident}` is not a valid tool name: use lower-case letters, digits and `_`, or set `name = \"{}\"`",
                suggest_segment(ident)
            )
        };
        errors.push(syn::Error::new(span, message));
    }
    let namespace = namespace.or(args.namespace.as_ref().map(|ns| ns.value.as_str()));
    if let Some(namespace) = &args.namespace {
        check_namespace(&namespace.value, namespace.span, errors);
    }
    // With the default namespace (the crate's name) the full length is checked at start-up.
    let full_len = namespace.map_or(0, |ns| ns.chars().count() + 1) + tool_part.chars().count();
    if full_len > MAX_NAME_LEN {
        errors.push(syn::Error::new(
            span,
            format!(
                "the tool name is {full_len} characters long; at most {MAX_NAME_LEN} are allowed"
            ),
        ));
    }
}

fn check_namespace(namespace: &str, span: Span, errors: &mut Errors) {
    if !namespace.split('.').all(is_segment) {
        errors.push(syn::Error::new(
            span,
            format!(
                "invalid namespace `{namespace}`: use lower-case letters, digits and `_`, with `.` between segments, e.g. `{}`",
                namespace
                    .split('.')
                    .map(suggest_segment)
                    .collect::<Vec<_>>()
                    .join(".")
            ),
        ));
    }
}

fn check_attributes(tool: &Tool, args: &Args, errors: &mut Errors) {
    if let Some(version) = &args.version {
        if semver::Version::parse(&version.value).is_err() {
            errors.push(syn::Error::new(
                version.span,
                format!(
                    "`{}` is not a semantic version: write `X.Y.Z`, e.g. `1.0.0`",
                    version.value
                ),
            ));
        }
    }
    for example in &args.examples {
        match serde_json::from_str::<serde_json::Value>(&example.value) {
            Ok(serde_json::Value::Object(_)) => {}
            Ok(_) => errors.push(syn::Error::new(
                example.span,
                "an example is the tool's arguments: a JSON object, e.g. `example = r#\"{\"a\": 1}\"#`",
            )),
            Err(err) => errors.push(syn::Error::new(
                example.span,
                format!("this example is not JSON ({err}): write the arguments as a JSON object"),
            )),
        }
    }
    if let Some(timeout) = &args.timeout {
        match humantime::parse_duration(&timeout.value) {
            Ok(duration) if duration.is_zero() => errors.push(syn::Error::new(
                timeout.span,
                "a timeout of zero would fail every call: give a positive duration, e.g. `30s`",
            )),
            Ok(_) => {}
            Err(err) => errors.push(syn::Error::new(
                timeout.span,
                format!(
                    "`{}` is not a duration ({err}): write e.g. `500ms`, `30s` or `2m`",
                    timeout.value
                ),
            )),
        }
    }
    if let (Some(inline), Some(asyncness)) = (&args.inline, &tool.item.sig.asyncness) {
        if inline.value {
            errors.push(syn::Error::new(
                inline.span,
                format!(
                    "`inline` is for synchronous tools; an `{}` fn already runs on the caller's task",
                    quote::quote!(#asyncness)
                ),
            ));
        }
    }
    if let (Some(read_only), Some(destructive)) = (&args.read_only, &args.destructive) {
        if read_only.value && destructive.value {
            errors.push(syn::Error::new(
                destructive.span,
                "a tool cannot be both `read_only` and `destructive`: a read-only tool changes nothing",
            ));
        }
    }
    if let Some(description) = &args.description {
        if description.value.trim().is_empty() {
            errors.push(syn::Error::new(
                description.span,
                "the description is empty: say what the tool does, for the model that chooses it",
            ));
        }
    } else if tool.doc_description.is_none() && !args.failed.iter().any(|key| key == "description")
    {
        errors.push(syn::Error::new(
            tool.item.sig.ident.span(),
            "this tool has no description: add a doc comment (`/// What the tool does.`) or `description = \"…\"`; models choose tools by it",
        ));
    }
}

/// Which attribute an [`Item`] carries, for the wording of messages.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Resource,
    Prompt,
}

impl Kind {
    fn attribute(self) -> &'static str {
        match self {
            Self::Resource => "`#[mcp_resource]`",
            Self::Prompt => "`#[mcp_prompt]`",
        }
    }
}

/// The roles a resource's `audience` may name.
const ROLES: [&str; 2] = ["user", "assistant"];

/// The values of a resource's `cache_scope`.
const CACHE_SCOPES: [&str; 2] = ["public", "private"];

/// The operators of RFC 6570 expressions beyond level 2's `+` and `#`.
const LEVEL_3_OPERATORS: &str = "./;?&=,!@|";

/// Checks `item` and `#[mcp_resource]`'s `args`, adding every problem to `errors`.
pub(crate) fn check_resource(item: &Item, args: &ResourceArgs, errors: &mut Errors) {
    check_item_signature(item, Kind::Resource, errors);
    check_inputs(item, Kind::Resource, errors);
    check_uri(item, args, errors);
    check_resource_keys(args, errors);
    check_texts(args.name.as_ref(), args.description.as_ref(), errors);
}

/// Checks `item` and `#[mcp_prompt]`'s `args`, adding every problem to `errors`.
pub(crate) fn check_prompt(item: &Item, args: &PromptArgs, errors: &mut Errors) {
    check_item_signature(item, Kind::Prompt, errors);
    check_inputs(item, Kind::Prompt, errors);
    check_texts(args.name.as_ref(), args.description.as_ref(), errors);
}

fn check_item_signature(item: &Item, kind: Kind, errors: &mut Errors) {
    let attribute = kind.attribute();
    let sig = &item.item.sig;
    match &item.output {
        None => errors.push(syn::Error::new(
            sig.ident.span(),
            match kind {
                Kind::Resource => {
                    "a resource returns its contents: add a return type, e.g. `-> String`"
                }
                Kind::Prompt => {
                    "a prompt returns its messages: add a return type, e.g. `-> String`"
                }
            },
        )),
        Some(ty @ Type::ImplTrait(_)) => errors.push(syn::Error::new_spanned(
            ty,
            format!(
                "{attribute} functions cannot return `impl Trait`: name the type, e.g. `String`"
            ),
        )),
        Some(_) => {}
    }
    if sig.generics.lt_token.is_some() || sig.generics.where_clause.is_some() {
        let at: &dyn quote::ToTokens = match (&sig.generics.lt_token, &sig.generics.where_clause) {
            (None, Some(clause)) => clause,
            _ => &sig.generics,
        };
        errors.push(syn::Error::new_spanned(
            at,
            format!("{attribute} functions cannot be generic: the registry calls them with the types they name; use concrete types"),
        ));
    }
    if let Some(constness) = sig.constness {
        errors.push(syn::Error::new(
            constness.span(),
            format!("{attribute} cannot be used on a `const fn`: remove `const`"),
        ));
    }
    if let Some(unsafety) = sig.unsafety {
        errors.push(syn::Error::new(
            unsafety.span(),
            format!("{attribute} cannot be used on an `unsafe fn`: it is called with values from outside; make it a safe function"),
        ));
    }
    if let Some(abi) = &sig.abi {
        errors.push(syn::Error::new_spanned(
            abi,
            format!("{attribute} cannot be used on an `extern` function: remove the ABI"),
        ));
    }
    if let Some(variadic) = &sig.variadic {
        errors.push(syn::Error::new(
            variadic.span(),
            format!("{attribute} functions cannot be variadic"),
        ));
    }
}

/// Each parameter a plain name of an owned, named type.
fn check_inputs(item: &Item, kind: Kind, errors: &mut Errors) {
    let (what, example) = match kind {
        Kind::Resource => ("template variables", "id: String"),
        Kind::Prompt => ("prompt arguments", "code: String"),
    };
    for input in &item.inputs {
        let pat_type = match &input.original {
            FnArg::Receiver(receiver) => {
                errors.push(syn::Error::new_spanned(
                    receiver,
                    format!("{} works on free functions, not methods: move the function out of the `impl` block", kind.attribute()),
                ));
                continue;
            }
            FnArg::Typed(pat_type) => pat_type,
        };
        if input.ident.is_none() {
            errors.push(syn::Error::new_spanned(
                &pat_type.pat,
                format!("the parameters of {} functions must be plain names, e.g. `{example}`, because the name is that of the {}; destructure inside the function", kind.attribute(), &what[..what.len() - 1]),
            ));
        }
        if let Type::ImplTrait(_) = &input.ty {
            errors.push(syn::Error::new_spanned(
                &input.ty,
                format!("{what} cannot be `impl Trait`: name the type"),
            ));
            continue;
        }
        if let Some(reference) = find_reference(&input.ty) {
            let suggestion = match &*reference.elem {
                Type::Path(path) if path.path.is_ident("str") => "use `String` instead of `&str`",
                Type::Slice(_) => "use `Vec<T>` instead of `&[T]`",
                _ => "take the value itself instead of a reference",
            };
            errors.push(syn::Error::new_spanned(
                reference,
                format!(
                    "{what} must be owned, since they are read from each request: {suggestion}"
                ),
            ));
        }
    }
}

/// `uri` or `uri_template`, exactly one; a URI with a scheme; a template that parses, of
/// RFC 6570 level 1 or 2, whose variables are the parameters.
fn check_uri(item: &Item, args: &ResourceArgs, errors: &mut Errors) {
    if args
        .failed
        .iter()
        .any(|key| key == "uri" || key == "uri_template")
    {
        // Already reported; which URI was meant, and so which parameters, is unknown.
        return;
    }
    match (&args.uri, &args.uri_template) {
        (Some(uri), _) => {
            if uri.value.contains('{') {
                errors.push(syn::Error::new(
                    uri.span,
                    "`uri` is one fixed URI; for a URI with `{variables}` write `uri_template = \"…\"`",
                ));
            } else if let Some(problem) = scheme_problem(&uri.value) {
                errors.push(syn::Error::new(uri.span, problem));
            }
            if !item.inputs.is_empty() {
                errors.push(syn::Error::new_spanned(
                    &item.item.sig.inputs,
                    "a resource at a fixed `uri` takes no parameters: to pick resources by parts of the URI, write `uri_template = \"scheme://…/{name}\"` with a parameter for each variable",
                ));
            }
        }
        (None, Some(template)) => check_template(item, template, errors),
        (None, None) => errors.push(syn::Error::new(
            Span::call_site(),
            "`#[mcp_resource]` needs a URI: `uri = \"app://about\"` for one resource, or `uri_template = \"app://users/{id}\"` for a family of resources",
        )),
    }
}

/// What is wrong with the scheme of `uri`, if anything (RFC 3986: a letter, then letters,
/// digits, `+`, `-` or `.`, then `:`).
fn scheme_problem(uri: &str) -> Option<String> {
    let scheme = uri.split_once(':').map(|(scheme, _)| scheme);
    let valid = scheme.is_some_and(|scheme| {
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    });
    (!valid).then(|| {
        format!("`{uri}` has no scheme: a resource's URI starts with one, e.g. `app://about` or `file:///notes.txt`")
    })
}

fn check_template(item: &Item, template: &attr::Spanned<String>, errors: &mut Errors) {
    let span = template.span;
    let text = &template.value;
    let before_variables = text.split('{').next().unwrap_or_default();
    if !before_variables.contains(':') || scheme_problem(before_variables).is_some() {
        errors.push(syn::Error::new(
            span,
            format!("`{text}` has no scheme: a resource's URI template starts with one, before any variable, e.g. `app://users/{{id}}`"),
        ));
        return;
    }
    let parsed = match uri_template_ex::UriTemplate::new(text) {
        Ok(parsed) => parsed,
        Err(_) => {
            let message = match text.rfind('{') {
                Some(open) if !text[open..].contains('}') => format!(
                    "this URI template does not parse: the `{{` at byte {open} is never closed; write each variable as `{{name}}`"
                ),
                _ => {
                    "this URI template does not parse (RFC 6570): check its `%` escapes and braces"
                        .to_owned()
                }
            };
            errors.push(syn::Error::new(span, message));
            return;
        }
    };
    let mut variables: Vec<&str> = Vec::new();
    let mut problems = 0;
    for raw in parsed.var_names() {
        let problem = if raw.is_empty() {
            Some(
                "this URI template has an empty expression `{}`: name the variable, e.g. `{id}`"
                    .to_owned(),
            )
        } else if let Some(op) = raw
            .chars()
            .next()
            .filter(|c| LEVEL_3_OPERATORS.contains(*c))
        {
            Some(format!(
                "the operator `{op}` in `{{{op}…}}` is RFC 6570 level 3, which resource templates do not support: write `{{name}}`, `{{+name}}` or `{{#name}}`"
            ))
        } else if raw.contains(',') {
            Some(format!(
                "`{{{raw}}}` names several variables (RFC 6570 level 3), which resource templates do not support: give each its own braces"
            ))
        } else if raw.contains(':') || raw.ends_with('*') {
            Some(format!(
                "`{{{raw}}}` has a prefix or explode modifier (RFC 6570 level 4), which resource templates do not support: write `{{name}}`"
            ))
        } else if !is_identifier(raw) {
            Some(format!(
                "template variable `{raw}` is not a Rust identifier, so no parameter can take it: use ASCII letters, digits and `_`, e.g. `{{{}}}`",
                suggest_segment(raw)
            ))
        } else if variables.contains(&raw) {
            Some(format!(
                "template variable `{raw}` appears twice: each variable picks one part of the URI; rename one"
            ))
        } else {
            variables.push(raw);
            None
        };
        if let Some(problem) = problem {
            errors.push(syn::Error::new(span, problem));
            problems += 1;
        }
    }
    if problems > 0 {
        // The parameters are compared with the variables only once the variables are right.
        return;
    }
    let names: Vec<(String, &crate::model::Input)> = item
        .inputs
        .iter()
        .filter_map(|input| input.name().map(|name| (name, input)))
        .collect();
    for variable in &variables {
        if !names.iter().any(|(name, _)| name == variable) {
            errors.push(syn::Error::new(
                span,
                format!("template variable `{variable}` has no parameter: add `{variable}: String` (or another type) to the function"),
            ));
        }
    }
    for (name, input) in &names {
        if !variables.contains(&name.as_str()) {
            let at: &dyn quote::ToTokens = match &input.ident {
                Some(ident) => ident,
                None => &input.original,
            };
            errors.push(syn::Error::new_spanned(
                at,
                format!("parameter `{name}` is not a variable of the template `{text}`: add `{{{name}}}` to the template, or remove the parameter"),
            ));
        }
    }
}

/// A name a parameter can have: ASCII letters, digits and `_`, not starting with a digit,
/// and not `_` alone.
fn is_identifier(name: &str) -> bool {
    name != "_"
        && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn check_resource_keys(args: &ResourceArgs, errors: &mut Errors) {
    if let (Some(size), Some(_)) = (&args.size, &args.uri_template) {
        errors.push(syn::Error::new(
            size.span,
            "`size` is for a resource at a fixed `uri`: the resources of a template differ; remove `size`",
        ));
    }
    if let Some(priority) = &args.priority {
        if !(0.0..=1.0).contains(&priority.value) {
            errors.push(syn::Error::new(
                priority.span,
                "this priority is out of range: a priority goes from 0 (optional) to 1 (required), e.g. `priority = 0.5`",
            ));
        }
    }
    let mut seen: Vec<&str> = Vec::new();
    for role in args.audience.iter().flatten() {
        let value = role.value.as_str();
        if !ROLES.contains(&value) {
            errors.push(syn::Error::new(
                role.span,
                one_of("audience", value, &ROLES),
            ));
        } else if seen.contains(&value) {
            errors.push(syn::Error::new(
                role.span,
                format!("`{value}` is already in the audience; give it once"),
            ));
        } else {
            seen.push(value);
        }
    }
    if let Some(scope) = &args.cache_scope {
        if !CACHE_SCOPES.contains(&scope.value.as_str()) {
            errors.push(syn::Error::new(
                scope.span,
                one_of("cache_scope", &scope.value, &CACHE_SCOPES),
            ));
        }
    }
    if let Some(ttl) = &args.ttl {
        match humantime::parse_duration(&ttl.value) {
            Ok(duration) if duration.subsec_nanos() % 1_000_000 != 0 => {
                errors.push(syn::Error::new(
                    ttl.span,
                    "`ttl` is counted in whole milliseconds: write e.g. `500ms` or `5m`",
                ));
            }
            Ok(_) => {}
            Err(err) => errors.push(syn::Error::new(
                ttl.span,
                format!(
                    "`{}` is not a duration ({err}): write e.g. `500ms`, `30s` or `5m`",
                    ttl.value
                ),
            )),
        }
    }
    if let Some(attr::LastModified::At(at)) = &args.last_modified {
        if let Err(err) = humantime::parse_rfc3339(&at.value) {
            errors.push(syn::Error::new(
                at.span,
                format!(
                    "`{}` is not a time in RFC 3339, UTC ({err}): write e.g. `2025-01-12T15:00:58Z`",
                    at.value
                ),
            ));
        }
    }
    if let Some(mime_type) = &args.mime_type {
        if !is_mime_type(&mime_type.value) {
            errors.push(syn::Error::new(
                mime_type.span,
                format!(
                    "`{}` is not a MIME type: write `type/subtype`, e.g. `text/markdown` or `application/json`",
                    mime_type.value
                ),
            ));
        }
    }
}

/// "`key` is `value` or `other`" with the likely value meant.
fn one_of(key: &str, value: &str, values: &[&str]) -> String {
    let expected = attr::key_list(values).replace(", ", " or ");
    match attr::closest(value, values) {
        Some(candidate) => {
            format!("unknown {key} `{value}`; did you mean `{candidate}`? `{key}` is {expected}")
        }
        None => format!("unknown {key} `{value}`: `{key}` is {expected}"),
    }
}

/// `type/subtype`, each an HTTP token, optionally followed by `;` parameters.
fn is_mime_type(value: &str) -> bool {
    let essence = value.split(';').next().unwrap_or_default().trim();
    let token = |part: &str| {
        !part.is_empty()
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || TOKEN_SYMBOLS.contains(c))
    };
    matches!(essence.split_once('/'), Some((kind, subtype)) if token(kind) && token(subtype))
}

/// A `name` and a `description`, when given, are not empty.
fn check_texts(
    name: Option<&attr::Spanned<String>>,
    description: Option<&attr::Spanned<String>>,
    errors: &mut Errors,
) {
    if let Some(name) = name {
        if name.value.trim().is_empty() {
            errors.push(syn::Error::new(
                name.span,
                "the name is empty: give one, or leave `name` out to use the function's",
            ));
        }
    }
    if let Some(description) = description {
        if description.value.trim().is_empty() {
            errors.push(syn::Error::new(
                description.span,
                "the description is empty: say what it is, or leave `description` out to use the doc comment",
            ));
        }
    }
}

fn is_segment(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// `ReadFile` → `read_file`, `get-item` → `get_item`.
fn suggest_segment(s: &str) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 && !out.ends_with('_') {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else if c.is_ascii_lowercase() || c.is_ascii_digit() {
            out.push(c);
        } else if !out.ends_with('_') && !out.is_empty() {
            out.push('_');
        }
    }
    let out = out.trim_end_matches('_').to_owned();
    if out.is_empty() {
        "tool".to_owned()
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_capabilities_are_those_mcp_core_knows() {
        // mcp-core's list is the one tied to the official schema.
        assert_eq!(CLIENT_CAPABILITIES, mcp_core::CLIENT_CAPABILITIES);
    }

    #[test]
    fn header_names_are_http_tokens() {
        for valid in ["Region", "tenant-id", "X_1", "0", TOKEN_SYMBOLS] {
            assert_eq!(header_name_problem(valid), None, "{valid}");
        }
        assert!(header_name_problem("").is_some_and(|problem| problem.contains("empty")));
        for (invalid, bad) in [
            ("Tenant Id", "' '"),
            ("a:b", "':'"),
            ("a\r", "'\\r'"),
            ("(x)", "'('"),
            ("a\"", "'\"'"),
            ("Région", "'é'"),
        ] {
            let problem = header_name_problem(invalid).unwrap_or_default();
            assert!(problem.contains(bad), "{invalid:?}: {problem}");
        }
    }

    #[test]
    fn resource_uris_start_with_a_scheme() {
        for valid in [
            "app://about",
            "file:///etc/hosts",
            "urn:isbn:0451450523",
            "a+b.c-d:x",
        ] {
            assert_eq!(scheme_problem(valid), None, "{valid}");
        }
        for invalid in ["/about", "about", "://x", "1app://x", "a b://x", ""] {
            assert!(scheme_problem(invalid).is_some(), "{invalid}");
        }
    }

    #[test]
    fn template_variables_are_identifiers() {
        for valid in ["id", "user_id", "_x", "type", "a1"] {
            assert!(is_identifier(valid), "{valid}");
        }
        for invalid in ["", "_", "1a", "user-id", "a.b", "é"] {
            assert!(!is_identifier(invalid), "{invalid}");
        }
    }

    #[test]
    fn mime_types_are_type_and_subtype() {
        for valid in [
            "text/plain",
            "application/vnd.api+json",
            "text/html; charset=utf-8",
        ] {
            assert!(is_mime_type(valid), "{valid}");
        }
        for invalid in ["text", "text/", "/plain", "text/plain/x", "text /plain", ""] {
            assert!(!is_mime_type(invalid), "{invalid}");
        }
    }

    #[test]
    fn token_symbols_are_rfc_9110s_less_letters_and_digits() {
        // RFC 9110 §5.6.2, in the order it lists them.
        assert_eq!(TOKEN_SYMBOLS, "!#$%&'*+-.^_`|~");
        assert_eq!(spaced("ab"), "a b");
    }
}
