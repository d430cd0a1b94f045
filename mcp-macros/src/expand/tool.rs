//! `#[mcp_tool]`: the arguments struct, the checks, the definition, the invoke function
//! and the registration.

use proc_macro2::{Group, Ident, Span, TokenStream, TokenTree};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{GenericArgument, Path, PathArguments, Type};

use super::{common_definition, local, path_string, shielded};
use crate::attr::{self, Args};
use crate::model::{ParamKind, Returns, Tool};
use crate::valid;

pub(crate) fn mcp_tool(args: TokenStream, item: TokenStream) -> TokenStream {
    super::expand(
        args,
        item,
        super::Misplaced {
            attribute: "#[mcp_tool]",
            example: "#[mcp_tool] fn name(arg: Type) -> Output { … }",
        },
        attr::parse,
        Tool::from_item,
        |tool| &tool.item,
        valid::check,
        registration,
    )
}

fn registration(tool: &Tool, args: &Args) -> TokenStream {
    let krate: Path = args
        .common
        .krate
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::mcp_runtime));
    let private = quote!(#krate::__private);
    let serde_path = format!("{}::__private::serde", path_string(&krate));
    let schemars_path = format!("{}::__private::schemars", path_string(&krate));

    let arguments_struct = arguments_struct(tool, &private, &serde_path, &schemars_path);
    let checks = checks(tool, &private);
    let definition = definition(tool, args, &private);
    let invoke = invoke(tool, args, &private);

    let name = tool_name(tool, args);
    // The arguments struct refuses unknown names; when it reads no name the schema leaves
    // out, the registry need not check them again.
    let exact_names = tool
        .arguments()
        .all(|param| param.names_exact())
        .then(|| quote!(.with_exact_names()));
    // The state types the tool takes, which the registry checks it was given.
    let states: Vec<&Type> = tool
        .params
        .iter()
        .filter_map(|param| match &param.kind {
            ParamKind::State { inner, .. } => Some(&**inner),
            _ => None,
        })
        .collect();
    let states = (!states.is_empty())
        .then(|| quote!(.with_states(&[#(#private::StateNeed::of::<#states>),*])));
    let (layer_fn, with_layer) = layer_from(args, &private);
    let span = tool.item.sig.ident.span();
    let location = quote_spanned! {span=>
        #private::Location {
            file: ::core::file!(),
            line: ::core::line!(),
            column: ::core::column!(),
            module_path: ::core::module_path!(),
        }
    };

    quote! {
        const _: () = {
            #[allow(unused_imports)]
            use #private::{
                ProbeParse as _, ProbeParseFallback as _, ProbeSchema as _, ProbeSchemaFallback as _,
                ProbeSerialize as _, ProbeSerializeFallback as _, ProbeResult as _,
                ProbeResultFallback as _, ProbeResultSchema as _, ProbeResultSchemaFallback as _,
                ProbeState as _, ProbeStateFallback as _,
                ErrorKindInto as _, ErrorKindStd as _, ErrorKindDynSend as _, ErrorKindDyn as _,
                ErrorKindDisplay as _, ErrorKindNone as _,
            };

            #arguments_struct

            fn __mcp_definition() -> ::core::result::Result<#private::ToolDefinition, #private::DefinitionError> {
                #checks
                #definition
            }

            #invoke
            #layer_fn

            #private::inventory::submit! {
                #private::ToolRegistration::new(#name, __mcp_definition, __MCP_HANDLER, #location)#exact_names #states #with_layer
            }
        };
    }
}

/// `layer = path::to::function`: the function that boxes the layer it returns, spanned on
/// the path, so that a function returning no layer is one error, there; and the
/// registration's `.with_layer(…)`.
fn layer_from(args: &Args, private: &TokenStream) -> (Option<TokenStream>, Option<TokenStream>) {
    let Some(path) = &args.layer else {
        return (None, None);
    };
    let layer_fn = quote_spanned! {path.span()=>
        fn __mcp_layer() -> #private::BoxLayer {
            #private::boxed_layer(#path())
        }
    };
    (Some(layer_fn), Some(quote!(.with_layer(__mcp_layer))))
}

/// The arguments struct. Its fields are generic where they can be, so that a type lacking
/// `Deserialize` or `JsonSchema` is reported once, by the checks, and not again inside the
/// derived code; `__McpArguments` names it with the user's types.
fn arguments_struct(
    tool: &Tool,
    private: &TokenStream,
    serde_path: &str,
    schemars_path: &str,
) -> TokenStream {
    let mut generics = Vec::new();
    let mut generic_types = Vec::new();
    let fields: Vec<TokenStream> = tool
        .arguments()
        .enumerate()
        .map(|(i, param)| {
            let ident = &param.ident;
            let mut attrs = param.field_attrs.clone();
            if let Some(header) = &param.header {
                let name = &header.name.value;
                attrs.push(syn::parse_quote!(#[schemars(extend("x-mcp-header" = #name))]));
            }
            let ty = &param.ty;
            if param.needs_concrete_type() {
                quote! { #(#attrs)* #ident: #ty, }
            } else {
                let generic = format_ident!("__McpT{}", i);
                let field = quote! { #(#attrs)* #ident: #generic, };
                generics.push(generic);
                generic_types.push(ty);
                field
            }
        })
        .collect();
    quote! {
        #[derive(#private::serde::Deserialize, #private::schemars::JsonSchema)]
        #[serde(crate = #serde_path, deny_unknown_fields)]
        #[schemars(crate = #schemars_path)]
        struct __McpToolArguments<#(#generics),*> {
            #(#fields)*
        }

        type __McpArguments = __McpToolArguments<#(#generic_types),*>;
    }
}

/// Calls that do nothing but fail to compile, on the user's own type, when a type lacks a
/// trait it needs.
fn checks(tool: &Tool, private: &TokenStream) -> TokenStream {
    let mut checks = TokenStream::new();
    for param in &tool.params {
        if let ParamKind::State { ty, inner, .. } = &param.kind {
            checks.extend(quote_spanned! {ty.span()=> #private::assert_state_parameter::<#ty>(); });
            checks.extend(
                quote_spanned! {inner.span()=> #private::assert_shared_state::<#inner>(); },
            );
        }
    }
    for param in tool.arguments() {
        checks.extend(element_checks(&param.ty, |ty, span| {
            quote_spanned! {span=>
                #private::assert_parameter::<#ty>();
                #private::assert_parameter_schema::<#ty>();
            }
        }));
        if param.header.is_some() {
            let ty = &param.ty;
            checks.extend(quote_spanned! {ty.span()=> #private::assert_header::<#ty>(); });
        }
    }
    let output = |ty: &Type| {
        element_checks(ty, |ty, span| {
            quote_spanned! {span=>
                #private::assert_output::<#ty>();
                #private::assert_output_schema::<#ty>();
            }
        })
    };
    match &tool.returns {
        Returns::Value(ty) => checks.extend(output(ty)),
        Returns::Result { ty, ok, err } => {
            // Even as `Result<T, E>`: a type of the user's may be named `Result`.
            checks.extend(quote_spanned! {ty.span()=> #private::assert_fallible::<#ty>(); });
            let ok_type: Type = match ok {
                Some(ok) => (**ok).clone(),
                None => {
                    syn::parse_quote_spanned!(ty.span()=> <#ty as #private::FallibleOutput>::Ok)
                }
            };
            checks.extend(output(&ok_type));
            // The error type written out, or the one an alias stands for, through the probe:
            // a return type that is no `Result` is then reported once, above.
            checks.extend(match err {
                Some(err) => quote_spanned! {err.span()=>
                    (&&&&&#private::ErrorKind::<#err>::new()).check();
                },
                None => quote_spanned! {ty.span()=>
                    (&&&&&(&&#private::Probe::<#ty>::new()).error_kind()).check();
                },
            });
        }
        Returns::Unit | Returns::ToolResult => {}
    }
    checks
}

/// The standard containers whose `Deserialize`, `Serialize` and `JsonSchema` need the same
/// of their elements, and how many of their type arguments are elements.
const CONTAINERS: [(&str, usize); 9] = [
    ("Option", 1),
    ("Vec", 1),
    ("VecDeque", 1),
    ("LinkedList", 1),
    ("BinaryHeap", 1),
    ("BTreeSet", 1),
    ("HashSet", 1),
    ("BTreeMap", 2),
    ("HashMap", 2),
];

/// Types a container's element may be that have every trait a tool needs: never the
/// element at fault.
const SCALARS: [&str; 17] = [
    "String", "bool", "char", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32",
    "u64", "u128", "usize", "f32", "f64",
];

/// `assert(ty)`, checks of `ty`, spanned so that a missing trait is reported on the type the
/// user wrote that lacks it: for a container (`Vec<Point>`, `HashMap<String, Point>`,
/// a tuple or an array), on the element (`Point`), with the message for it.
///
/// Each element is checked on its own, then the whole type, for what the container adds (a
/// map's keys are `Ord` or `Hash`), at the element most likely at fault: the compiler
/// reports a failure once when two checks fail for the same reason at the same place.
fn element_checks(ty: &Type, assert: impl Fn(TokenStream, Span) -> TokenStream) -> TokenStream {
    let mut elements = Vec::new();
    collect_elements(ty, &mut elements);
    if let [only] = elements.as_slice() {
        if std::ptr::eq(*only, ty) {
            return assert(ty.to_token_stream(), ty.span());
        }
    }
    let mut checks = TokenStream::new();
    let mut seen = Vec::new();
    for element in &elements {
        let text = element.to_token_stream().to_string();
        if !seen.contains(&text) {
            checks.extend(assert(element.to_token_stream(), element.span()));
            seen.push(text);
        }
    }
    let blame = elements
        .iter()
        .rev()
        .find(|element| !is_scalar(element))
        .or(elements.last())
        .map_or_else(|| ty.span(), |element| element.span());
    checks.extend(assert(respan(ty.to_token_stream(), blame), blame));
    checks
}

/// The element types of `ty`, through standard containers, tuples and arrays; `ty` itself
/// when it is none of them.
fn collect_elements<'a>(ty: &'a Type, elements: &mut Vec<&'a Type>) {
    match ty {
        Type::Paren(inner) => collect_elements(&inner.elem, elements),
        Type::Group(inner) => collect_elements(&inner.elem, elements),
        Type::Array(array) => collect_elements(&array.elem, elements),
        Type::Tuple(tuple) if !tuple.elems.is_empty() => {
            for elem in &tuple.elems {
                collect_elements(elem, elements);
            }
        }
        Type::Path(path) if path.qself.is_none() => {
            let arguments = path.path.segments.last().and_then(|last| {
                let (_, count) = CONTAINERS.iter().find(|(name, _)| last.ident == name)?;
                match &last.arguments {
                    PathArguments::AngleBracketed(args) => Some((args, *count)),
                    _ => None,
                }
            });
            let Some((args, count)) = arguments else {
                elements.push(ty);
                return;
            };
            let types: Vec<&Type> = args
                .args
                .iter()
                .filter_map(|arg| match arg {
                    GenericArgument::Type(ty) => Some(ty),
                    _ => None,
                })
                .take(count)
                .collect();
            if types.is_empty() {
                elements.push(ty);
            }
            for ty in types {
                collect_elements(ty, elements);
            }
        }
        _ => elements.push(ty),
    }
}

fn is_scalar(ty: &Type) -> bool {
    matches!(ty, Type::Path(path) if path.qself.is_none()
    && path.path.segments.last().is_some_and(|last| {
        last.arguments.is_empty() && SCALARS.iter().any(|name| last.ident == name)
    }))
}

/// `tokens` reported at `at`: each token keeps how its names resolve, and takes `at`'s place.
fn respan(tokens: TokenStream, at: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|token| match token {
            TokenTree::Group(group) => {
                let mut respanned = Group::new(group.delimiter(), respan(group.stream(), at));
                respanned.set_span(group.span().located_at(at));
                TokenTree::Group(respanned)
            }
            mut token => {
                token.set_span(token.span().located_at(at));
                token
            }
        })
        .collect()
}

fn definition(tool: &Tool, args: &Args, private: &TokenStream) -> TokenStream {
    let name = tool_name(tool, args);
    let version = version_setter(args);
    let [title, description, scopes] = common_definition(&args.common, &tool.doc);
    let Labels {
        category,
        tags,
        errors,
        examples,
        deprecated,
    } = Labels::of(args, private);
    let required_client = args.requires_client.as_ref().map(|names| {
        let names = names.iter().map(ToString::to_string);
        quote!(.with_required_client_capabilities(#private::client_capabilities(&[#(#names),*]))?)
    });
    let [timeout, task] = execution_setters(args, private);
    let annotations = annotations(args, private);
    // After the annotations, which it would otherwise undo.
    let sandbox = args
        .sandbox
        .as_ref()
        .map(|policy| sandbox_policy(policy, private));
    let definition = quote! {
        #private::ToolDefinition::new(
            #name,
            (&&#private::Probe::<__McpArguments>::new()).arguments_schema(),
        )?
        #version
        #required_client
        #title
        #description
        #category
        #tags
        #errors
        #scopes
        #(#examples)*
        #deprecated
        #timeout
        #task
        #annotations
        #sandbox
    };
    // One expression, which binds no name.
    match output_schema(tool, private) {
        Some(output) => quote!(#definition.with_output(#output)),
        None => quote!(::core::result::Result::Ok(#definition)),
    }
}

/// `.with_version(…)`; a tool that states no version has its package's, which `_meta`
/// leaves out.
fn version_setter(args: &Args) -> TokenStream {
    match &args.version {
        Some(version) => {
            let version = &version.value;
            quote!(.with_version(#version)?)
        }
        None => quote!(.with_package_version(::core::env!("CARGO_PKG_VERSION"))?),
    }
}

/// What the tool's listing says of it besides its name and description, each setter when
/// its key is given.
struct Labels {
    category: Option<TokenStream>,
    tags: Option<TokenStream>,
    errors: Option<TokenStream>,
    examples: Vec<TokenStream>,
    deprecated: Option<TokenStream>,
}

impl Labels {
    fn of(args: &Args, private: &TokenStream) -> Self {
        Self {
            category: args
                .category
                .as_ref()
                .map(|category| quote!(.with_category(#category))),
            tags: args
                .tags
                .as_ref()
                .map(|tags| quote!(.with_tags([#(#tags),*]))),
            errors: args
                .errors
                .as_ref()
                .map(|errors| quote!(.with_errors([#(#errors),*]))),
            examples: args
                .examples
                .iter()
                .map(|example| {
                    let json = &example.value;
                    quote!(.with_example(#private::example_arguments(#json)))
                })
                .collect(),
            deprecated: args
                .deprecated
                .as_ref()
                .map(|note| quote!(.with_deprecated(#note))),
        }
    }
}

/// `.with_timeout(…)` and `.with_task_support(…)`, each when its key is given.
fn execution_setters(args: &Args, private: &TokenStream) -> [Option<TokenStream>; 2] {
    let timeout = args
        .timeout
        .as_ref()
        .and_then(|timeout| humantime::parse_duration(&timeout.value).ok())
        .map(|duration| {
            let nanos = u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX);
            quote!(.with_timeout(#private::Duration::from_nanos(#nanos)))
        });
    let task = args.task.as_ref().map(|task| {
        let variant = match task.value {
            attr::Task::Forbidden => quote!(Forbidden),
            attr::Task::Optional => quote!(Optional),
            attr::Task::Required => quote!(Required),
        };
        quote!(.with_task_support(#private::TaskSupport::#variant))
    });
    [timeout, task]
}

/// `.with_annotations(ToolAnnotations { … })`: the hints as given, and the flags.
fn annotations(args: &Args, private: &TokenStream) -> TokenStream {
    let hint = |hint: &Option<attr::Spanned<bool>>| match hint {
        Some(hint) => {
            let value = hint.value;
            quote!(::core::option::Option::Some(#value))
        }
        None => quote!(::core::option::Option::None),
    };
    let read_only = hint(&args.read_only);
    let destructive = hint(&args.destructive);
    let idempotent = hint(&args.idempotent);
    let open_world = hint(&args.open_world);
    let dangerous = args.dangerous.as_ref().is_some_and(|flag| flag.value);
    let requires_sandbox = args
        .requires_sandbox
        .as_ref()
        .is_some_and(|flag| flag.value);
    quote! {
        .with_annotations(#private::ToolAnnotations {
            read_only: #read_only,
            destructive: #destructive,
            idempotent: #idempotent,
            open_world: #open_world,
            dangerous: #dangerous,
            requires_sandbox: #requires_sandbox,
        })
    }
}

/// The output schema of what the tool returns, if it returns a value.
fn output_schema(tool: &Tool, private: &TokenStream) -> Option<TokenStream> {
    match &tool.returns {
        Returns::Value(ty) => Some(quote!((&&#private::Probe::<#ty>::new()).output_schema())),
        Returns::Result { ty, .. } => {
            Some(quote!((&&#private::Probe::<#ty>::new()).result_output_schema()))
        }
        Returns::Unit | Returns::ToolResult => None,
    }
}

/// `.with_sandbox(SandboxPolicy { … })`: the policy of `requires_sandbox(...)`, each key
/// left out at the core's default.
fn sandbox_policy(policy: &attr::SandboxArgs, private: &TokenStream) -> TokenStream {
    let strings = |list: &Option<Vec<String>>| {
        let items = list.iter().flatten();
        quote!(::std::vec![#(::std::string::String::from(#items)),*])
    };
    let read = strings(&policy.read);
    let write = strings(&policy.write);
    let env = strings(&policy.env);
    let network = match policy.network.unwrap_or(attr::SandboxNetwork::None) {
        attr::SandboxNetwork::None => quote!(None),
        attr::SandboxNetwork::Loopback => quote!(Loopback),
        attr::SandboxNetwork::Any => quote!(Any),
    };
    let memory = policy.memory.map_or_else(
        || quote!(#private::SANDBOX_DEFAULT_MEMORY),
        |bytes| quote!(#bytes),
    );
    let processes = policy.processes.map_or_else(
        || quote!(#private::SANDBOX_DEFAULT_PROCESSES),
        |processes| quote!(#processes),
    );
    quote! {
        .with_sandbox(#private::SandboxPolicy {
            read: #read,
            write: #write,
            network: #private::SandboxNetwork::#network,
            memory: #memory,
            env: #env,
            processes: #processes,
        })
    }
}

/// The invoke function and the `__MCP_HANDLER` constant that names it.
fn invoke(tool: &Tool, args: &Args, private: &TokenStream) -> TokenStream {
    let inline = args.inline.as_ref().is_some_and(|flag| flag.value);
    let names = InvokeLocals::new();
    let InvokeLocals {
        arguments,
        parsed,
        value,
        invocation,
        ctx,
        err,
    } = &names;
    // The context is built only for a tool that takes one.
    let make_context = tool
        .params
        .iter()
        .any(|param| matches!(param.kind, ParamKind::Context { .. }))
        .then(|| quote!(let #ctx = #invocation.context();));
    let CallArguments {
        call_args,
        state_types,
        states,
    } = CallArguments::of(tool, private, &names);
    let fn_ident = super::placement::user_fn(&tool.item);
    let call = quote! { #fn_ident(#(#call_args),*) };
    let body = InvokeBody {
        parse: quote! {
            (&&#private::Probe::<__McpArguments>::new()).parse_arguments(#arguments)
        },
        states: &states,
        make_context,
        convert: convert_output(tool, private, value, quote!(__MCP_TEXT)),
    };
    let (item, tail) = match tool.item.sig.asyncness {
        Some(asyncness) => (
            async_invoke(asyncness.span, quote!(#call.await), body, private, &names),
            quote!(#private::Handler::Async(__mcp_invoke)),
        ),
        None if inline => (
            sync_invoke(call, body, private, &names, true),
            quote!(#private::Handler::InlineText(__mcp_invoke, __mcp_invoke_text)),
        ),
        None => (
            sync_invoke(call, body, private, &names, false),
            quote!(#private::Handler::Blocking(__mcp_invoke)),
        ),
    };
    let locals = [arguments, parsed, value, invocation, ctx, err]
        .into_iter()
        .chain(states.iter().map(|(state, _)| state));
    let handler = shielded(locals, item, tail);
    let output = tool
        .returns
        .output_type()
        .map(|ty| quote!(type __McpOutput = #ty;));
    quote! {
        #output
        #state_types
        const __MCP_HANDLER: #private::Handler = #handler;
    }
}

/// The locals of the invoke function.
struct InvokeLocals {
    arguments: Ident,
    parsed: Ident,
    value: Ident,
    invocation: Ident,
    ctx: Ident,
    err: Ident,
}

impl InvokeLocals {
    fn new() -> Self {
        Self {
            arguments: local("arguments"),
            parsed: local("parsed"),
            value: local("value"),
            invocation: local("invocation"),
            ctx: local("ctx"),
            err: local("err"),
        }
    }
}

/// What the user's function is called with.
struct CallArguments {
    /// One expression per parameter, in order.
    call_args: Vec<TokenStream>,
    /// Each state's type under an alias, declared outside the shielded block.
    state_types: TokenStream,
    /// Each state's local, and the expression that takes it from the registry.
    states: Vec<(Ident, TokenStream)>,
}

impl CallArguments {
    fn of(tool: &Tool, private: &TokenStream, names: &InvokeLocals) -> Self {
        let InvokeLocals {
            parsed,
            invocation,
            ctx,
            ..
        } = names;
        let mut state_types = TokenStream::new();
        let mut states = Vec::new();
        let call_args = tool
            .params
            .iter()
            .map(|param| match &param.kind {
                ParamKind::Context { by_ref: true, .. } => quote!(&#ctx),
                ParamKind::Context { by_ref: false, .. } => quote!(#ctx),
                ParamKind::State { ty, by_ref, .. } => {
                    let alias = format_ident!("__McpState{}", states.len());
                    let state = local(&format!("state_{}", states.len()));
                    state_types.extend(quote!(type #alias = #ty;));
                    let taken = quote!((&&#private::Probe::<#alias>::new()).state(#invocation));
                    let call_arg = if *by_ref {
                        quote!(&#state)
                    } else {
                        quote!(#state)
                    };
                    states.push((state, taken));
                    call_arg
                }
                ParamKind::Argument => {
                    let ident = &param.ident;
                    quote!(#parsed.#ident)
                }
            })
            .collect();
        Self {
            call_args,
            state_types,
            states,
        }
    }
}

/// What the user's function returned, made an outcome. The return type is named through
/// `__McpOutput`: no type of the user's is written in the shielded block. Its error type
/// comes out of the probe, which gives one that converts when the return type is no
/// `Result`.
/// `text` is the expression that says whether the data is serialized as JSON text.
fn convert_output(
    tool: &Tool,
    private: &TokenStream,
    value: &Ident,
    text: TokenStream,
) -> TokenStream {
    match &tool.returns {
        Returns::Unit => quote!(#private::unit_output(#value)),
        Returns::Value(_) => {
            quote!((&&#private::Probe::<__McpOutput>::new()).value_output(#value, #text))
        }
        Returns::Result { .. } => quote! {
            (&&#private::Probe::<__McpOutput>::new()).result_output(
                #value,
                (&&&&&(&&#private::Probe::<__McpOutput>::new()).error_kind()).converter(),
                #text,
            )
        },
        Returns::ToolResult => quote!(#private::tool_result_output(#value)),
    }
}

/// The steps of the invoke function's body: the arguments parsed, the states taken, the
/// context built, and the conversion of what the function returned.
struct InvokeBody<'a> {
    parse: TokenStream,
    states: &'a [(Ident, TokenStream)],
    make_context: Option<TokenStream>,
    convert: TokenStream,
}

/// The invoke function of an `async fn`: the call and the conversion in a boxed future.
fn async_invoke(
    asyncness: Span,
    call: TokenStream,
    body: InvokeBody<'_>,
    private: &TokenStream,
    names: &InvokeLocals,
) -> TokenStream {
    let InvokeLocals {
        arguments,
        parsed,
        value,
        invocation,
        err,
        ..
    } = names;
    let InvokeBody {
        parse,
        states,
        make_context,
        convert,
    } = body;
    // Spanned at `async`, so a future that is not `Send` is reported there.
    let boxed = quote_spanned! {asyncness=>
        ::std::boxed::Box::pin(async move {
            let #value = #call;
            #convert
        })
    };
    let take_states = states.iter().map(|(state, taken)| {
        quote! {
            let #state = match #taken {
                ::core::result::Result::Ok(#state) => #state,
                ::core::result::Result::Err(#err) => return #private::ready(::core::result::Result::Err(#err)),
            };
        }
    });
    quote! {
        #[allow(unused_variables)]
        fn __mcp_invoke(#arguments: &#private::Value, #invocation: #private::Invocation<'_>) -> #private::ToolFuture {
            const __MCP_TEXT: bool = false;
            match #parse {
                ::core::result::Result::Ok(#parsed) => {
                    #(#take_states)*
                    #make_context
                    #boxed
                }
                ::core::result::Result::Err(#err) => #private::ready(::core::result::Result::Err(#err)),
            }
        }
    }
}

/// The invoke function of a plain `fn`, run inline or on a blocking thread; for one run
/// inline (`text`), also the one that reads the arguments from their JSON text, both
/// around the same body.
fn sync_invoke(
    call: TokenStream,
    body: InvokeBody<'_>,
    private: &TokenStream,
    names: &InvokeLocals,
    text: bool,
) -> TokenStream {
    let InvokeLocals {
        arguments,
        parsed,
        value,
        invocation,
        ..
    } = names;
    let InvokeBody {
        parse,
        states,
        make_context,
        convert,
    } = body;
    let take_states = states
        .iter()
        .map(|(state, taken)| quote!(let #state = #taken?;));
    if !text {
        return quote! {
            #[allow(unused_variables)]
            fn __mcp_invoke(#arguments: &#private::Value, #invocation: #private::Invocation<'_>) -> #private::Outcome {
                const __MCP_TEXT: bool = false;
                let #parsed = #parse?;
                #(#take_states)*
                #make_context
                let #value = #call;
                #convert
            }
        };
    }
    quote! {
        #[allow(unused_variables)]
        #[inline(always)]
        fn __mcp_run<const __MCP_TEXT: bool>(
            #parsed: ::core::result::Result<__McpArguments, #private::Failure>,
            #invocation: #private::Invocation<'_>,
        ) -> #private::Outcome {
            let #parsed = #parsed?;
            #(#take_states)*
            #make_context
            let #value = #call;
            #convert
        }
        fn __mcp_invoke(#arguments: &#private::Value, #invocation: #private::Invocation<'_>) -> #private::Outcome {
            __mcp_run::<false>(#parse, #invocation)
        }
        fn __mcp_invoke_text(#arguments: &str, #invocation: #private::Invocation<'_>) -> #private::Outcome {
            __mcp_run::<true>((&&#private::Probe::<__McpArguments>::new()).parse_text(#arguments), #invocation)
        }
    }
}

/// The invocation name: `name` if it holds a namespace, else `namespace.name`, the namespace
/// defaulting to the crate's name and the name to the function's.
fn tool_name(tool: &Tool, args: &Args) -> TokenStream {
    let ident = tool.item.sig.ident.to_string();
    let tool_part = match &args.common.name {
        Some(name) if name.value.contains('.') => {
            let name = &name.value;
            return quote!(#name);
        }
        Some(name) => name.value.clone(),
        None => ident.strip_prefix("r#").unwrap_or(&ident).to_owned(),
    };
    match &args.namespace {
        Some(namespace) => {
            let full = format!("{}.{tool_part}", namespace.value);
            quote!(#full)
        }
        None => {
            let suffix = format!(".{tool_part}");
            quote!(::core::concat!(::core::env!("CARGO_CRATE_NAME"), #suffix))
        }
    }
}
