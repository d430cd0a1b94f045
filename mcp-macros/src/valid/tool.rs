//! The checks of `#[mcp_tool]`: its signature, parameters, headers, name and attributes.

use std::collections::HashMap;

use proc_macro2::Span;
use syn::{FnArg, Type};

use super::{TOKEN_SYMBOLS, check_plain_fn, find_reference, is_segment, suggest_segment};
use crate::attr::{self, Args, Errors, Header};
use crate::model::{ParamKind, Tool};

/// The longest invocation name, as in MCP's tool-name rule.
const MAX_NAME_LEN: usize = 128;

/// The top-level capabilities of MCP's `ClientCapabilities` (revision 2026-07-28), as
/// `mcp_runtime_core::CLIENT_CAPABILITIES` lists them.
const CLIENT_CAPABILITIES: [&str; 5] = [
    "elicitation",
    "experimental",
    "extensions",
    "roots",
    "sampling",
];

/// Checks `tool` and the attribute's `args`, adding every problem to `errors`.
pub(crate) fn check(tool: &Tool, args: &Args, errors: &mut Errors) {
    check_signature(tool, errors);
    check_params(tool, errors);
    check_sandbox(tool, args, errors);
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
    check_plain_fn(
        sig,
        "`#[mcp_tool]`",
        "a tool's schema must be known",
        "a tool is called with arguments from outside",
        errors,
    );
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
        // A state's name is no argument's: any pattern will do.
        if param.ident.is_none() && !matches!(param.kind, ParamKind::State { .. }) {
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
            ParamKind::State { mutable: true, .. } => errors.push(syn::Error::new_spanned(
                &param.ty,
                "a tool's state is shared by every call: take it as `State<T>` or `&State<T>`, and put what changes behind a `Mutex` or an atomic",
            )),
            ParamKind::State { .. } => {}
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

/// A tool marked `requires_sandbox` runs in a worker process, which no state of the
/// server's process reaches.
fn check_sandbox(tool: &Tool, args: &Args, errors: &mut Errors) {
    if !args
        .requires_sandbox
        .as_ref()
        .is_some_and(|flag| flag.value)
    {
        return;
    }
    for param in &tool.params {
        if let ParamKind::State { .. } = param.kind {
            errors.push(syn::Error::new_spanned(
                &param.original,
                "a tool marked `requires_sandbox` cannot take shared state: it runs in a worker process of its own, which only the call's arguments reach",
            ));
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
        let not_an_argument = match param.kind {
            ParamKind::Context { .. } => Some("the tool context"),
            ParamKind::State { .. } => Some("a tool's state"),
            ParamKind::Argument => None,
        };
        if let Some(what) = not_an_argument {
            errors.push(syn::Error::new(
                *key,
                format!(
                    "{what} is not an argument, so it has no header: remove `#[mcp(header = …)]` from it"
                ),
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

fn check_name(tool: &Tool, args: &Args, errors: &mut Errors) {
    let ident = tool.item.sig.ident.to_string();
    let ident = ident.strip_prefix("r#").unwrap_or(&ident);
    let (namespace, tool_part, span) = match &args.common.name {
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
        let message = if args.common.name.is_some() {
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
    check_values(args, errors);
    check_combinations(tool, args, errors);
    check_description(tool, args, errors);
}

/// `version` a semantic version, each `example` a JSON object, `timeout` a positive
/// duration.
fn check_values(args: &Args, errors: &mut Errors) {
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
}

/// Keys that cannot go together: `inline` on an `async fn` or with a task, `read_only`
/// with `destructive`.
fn check_combinations(tool: &Tool, args: &Args, errors: &mut Errors) {
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
    if let (Some(task), Some(inline)) = (&args.task, &args.inline) {
        if inline.value && task.value != attr::Task::Forbidden {
            errors.push(syn::Error::new(
                task.span,
                format!(
                    "`task = \"{}\"` cannot go with `inline`: a task runs in the background, while an `inline` tool runs to its end where it is called; drop one of them",
                    task.value.as_str()
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
}

/// A description, from the attribute or the doc comment, that says something.
fn check_description(tool: &Tool, args: &Args, errors: &mut Errors) {
    if let Some(description) = &args.common.description {
        if description.value.trim().is_empty() {
            errors.push(syn::Error::new(
                description.span,
                "the description is empty: say what the tool does, for the model that chooses it",
            ));
        }
    } else if tool.doc.description.is_none() && !args.failed.iter().any(|key| key == "description")
    {
        errors.push(syn::Error::new(
            tool.item.sig.ident.span(),
            "this tool has no description: add a doc comment (`/// What the tool does.`) or `description = \"…\"`; models choose tools by it",
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_capabilities_are_those_mcp_runtime_core_knows() {
        // mcp-core's list is the one tied to the official schema.
        assert_eq!(CLIENT_CAPABILITIES, mcp_runtime_core::CLIENT_CAPABILITIES);
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
    fn token_symbols_are_rfc_9110s_less_letters_and_digits() {
        // RFC 9110 §5.6.2, in the order it lists them.
        assert_eq!(TOKEN_SYMBOLS, "!#$%&'*+-.^_`|~");
        assert_eq!(spaced("ab"), "a b");
    }
}
