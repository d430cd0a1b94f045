//! The checks of `#[mcp_resource]` and `#[mcp_prompt]`: their signatures, inputs, URIs
//! and URI templates, and their attributes.

use proc_macro2::Span;
use syn::{FnArg, Type};

use super::{TOKEN_SYMBOLS, check_plain_fn, find_reference, suggest_segment};
use crate::attr::{self, Errors, PromptArgs, ResourceArgs};
use crate::model::Item;

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
    check_texts(
        args.common.name.as_ref(),
        args.common.description.as_ref(),
        errors,
    );
}

/// Checks `item` and `#[mcp_prompt]`'s `args`, adding every problem to `errors`.
pub(crate) fn check_prompt(item: &Item, args: &PromptArgs, errors: &mut Errors) {
    check_item_signature(item, Kind::Prompt, errors);
    check_inputs(item, Kind::Prompt, errors);
    check_texts(
        args.common.name.as_ref(),
        args.common.description.as_ref(),
        errors,
    );
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
    check_plain_fn(
        sig,
        attribute,
        "the registry calls them with the types they name",
        "it is called with values from outside",
        errors,
    );
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
    let Some(parsed) = parse_template(template, errors) else {
        return;
    };
    // The parameters are compared with the variables only once the variables are right.
    if let Some(variables) = template_variables(&parsed, template.span, errors) {
        match_parameters(item, template, &variables, errors);
    }
}

/// The template parsed, or `None` after an error saying why it does not parse.
fn parse_template(
    template: &attr::Spanned<String>,
    errors: &mut Errors,
) -> Option<uri_template_ex::UriTemplate> {
    let span = template.span;
    let text = &template.value;
    let before_variables = text.split('{').next().unwrap_or_default();
    if !before_variables.contains(':') || scheme_problem(before_variables).is_some() {
        errors.push(syn::Error::new(
            span,
            format!("`{text}` has no scheme: a resource's URI template starts with one, before any variable, e.g. `app://users/{{id}}`"),
        ));
        return None;
    }
    match uri_template_ex::UriTemplate::new(text) {
        Ok(parsed) => Some(parsed),
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
            None
        }
    }
}

/// The template's variables, each a plain `{name}` given once; `None` after an error on
/// each that is not.
fn template_variables<'a>(
    parsed: &'a uri_template_ex::UriTemplate,
    span: proc_macro2::Span,
    errors: &mut Errors,
) -> Option<Vec<&'a str>> {
    let mut variables: Vec<&str> = Vec::new();
    let mut problems = 0;
    for raw in parsed.var_names() {
        let problem = variable_problem(raw, &variables);
        match problem {
            Some(problem) => {
                errors.push(syn::Error::new(span, problem));
                problems += 1;
            }
            None => variables.push(raw),
        }
    }
    (problems == 0).then_some(variables)
}

/// What is wrong with the variable `raw` of a template, given the variables before it.
fn variable_problem(raw: &str, variables: &[&str]) -> Option<String> {
    if raw.is_empty() {
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
        None
    }
}

/// Each variable has a parameter of its name, and each parameter a variable.
fn match_parameters(
    item: &Item,
    template: &attr::Spanned<String>,
    variables: &[&str],
    errors: &mut Errors,
) {
    let (span, text) = (template.span, &template.value);
    let names: Vec<(String, &crate::model::Input)> = item
        .inputs
        .iter()
        .filter_map(|input| input.name().map(|name| (name, input)))
        .collect();
    for variable in variables {
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
    check_size_and_priority(args, errors);
    check_audience(args, errors);
    check_cache(args, errors);
    check_time_and_mime_type(args, errors);
}

/// `size` only on a fixed resource; `priority` from 0 to 1.
fn check_size_and_priority(args: &ResourceArgs, errors: &mut Errors) {
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
}

/// Each of the audience a role, and once.
fn check_audience(args: &ResourceArgs, errors: &mut Errors) {
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
}

/// `cache_scope` one of the scopes; `ttl` a duration in whole milliseconds.
fn check_cache(args: &ResourceArgs, errors: &mut Errors) {
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
}

/// `last_modified` a time in RFC 3339; `mime_type` a MIME type.
fn check_time_and_mime_type(args: &ResourceArgs, errors: &mut Errors) {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
