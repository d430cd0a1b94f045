//! Writes the code: the user's function as it was, and beside it, in an anonymous const, the
//! arguments struct, the checks, the definition, the invoke function and the registration.
//! For a resource or a prompt, the definition, the function that reads or renders it from
//! the request, its completion functions and the registration.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, ItemFn, Path, Type};

use crate::attr::{self, Args, Errors, LastModified, PromptArgs, ResourceArgs};
use crate::model::{Item, ParamKind, Returns, Tool};
use crate::valid;

pub(crate) fn mcp_resource(args: TokenStream, item: TokenStream) -> TokenStream {
    let item_fn: ItemFn = match syn::parse2(item.clone()) {
        Ok(item_fn) => item_fn,
        Err(_) => {
            let err = syn::Error::new(
                Span::call_site(),
                "`#[mcp_resource]` goes on a function: `#[mcp_resource(uri = \"app://about\")] fn about() -> String { … }`",
            )
            .to_compile_error();
            return quote! { #err #item };
        }
    };
    let (args, attr_error) = attr::parse_resource(args);
    let mut errors = Errors::default();
    if let Some(err) = attr_error {
        errors.push(err);
    }
    let resource = Item::from_item(item_fn, &mut errors);
    valid::check_resource(&resource, &args, &mut errors);
    let user_fn = &resource.item;
    match errors.into_error() {
        // The function is always emitted, so one mistake gives one error, not a cascade.
        Some(err) => {
            let err = err.to_compile_error();
            quote! { #err #user_fn }
        }
        None => {
            let registration = resource_registration(&resource, &args);
            quote! { #user_fn #registration }
        }
    }
}

pub(crate) fn mcp_prompt(args: TokenStream, item: TokenStream) -> TokenStream {
    let item_fn: ItemFn = match syn::parse2(item.clone()) {
        Ok(item_fn) => item_fn,
        Err(_) => {
            let err = syn::Error::new(
                Span::call_site(),
                "`#[mcp_prompt]` goes on a function: `#[mcp_prompt] fn review(code: String) -> String { … }`",
            )
            .to_compile_error();
            return quote! { #err #item };
        }
    };
    let (args, attr_error) = attr::parse_prompt(args);
    let mut errors = Errors::default();
    if let Some(err) = attr_error {
        errors.push(err);
    }
    let prompt = Item::from_item(item_fn, &mut errors);
    valid::check_prompt(&prompt, &args, &mut errors);
    let user_fn = &prompt.item;
    match errors.into_error() {
        Some(err) => {
            let err = err.to_compile_error();
            quote! { #err #user_fn }
        }
        None => {
            let registration = prompt_registration(&prompt, &args);
            quote! { #user_fn #registration }
        }
    }
}

/// `::mcp_runtime::__private`, or the path `crate = …` gives.
fn private_path(krate: Option<&Path>) -> TokenStream {
    let krate: Path = krate
        .cloned()
        .unwrap_or_else(|| syn::parse_quote!(::mcp_runtime));
    quote!(#krate::__private)
}

/// Where the function was written, for messages about it.
fn location(item: &Item, private: &TokenStream) -> TokenStream {
    let span = item.item.sig.ident.span();
    quote_spanned! {span=>
        #private::Location {
            file: ::core::file!(),
            line: ::core::line!(),
            column: ::core::column!(),
            module_path: ::core::module_path!(),
        }
    }
}

/// Generic functions through which every use of the user's types goes. Each is bounded by
/// the trait whose `on_unimplemented` message says what is wrong, and is called with the
/// user's type token, so that a type lacking a trait is one error, on that token, and not
/// again wherever the type is used. A failure comes back as the future the registry gets.
fn resource_helpers(private: &TokenStream) -> TokenStream {
    quote! {
        #[allow(dead_code)]
        fn __mcp_template_variable<T: #private::FromArgument>(
            request: &#private::ReadRequest,
            name: &str,
        ) -> ::core::result::Result<T, #private::ResourceFuture> {
            #private::template_variable::<T>(request, name)
                .map_err(|err| #private::resource_ready(::core::result::Result::Err(err)))
        }

        #[allow(dead_code)]
        fn __mcp_variable_schema<T: #private::VariableSchema>(
            description: ::core::option::Option<&str>,
        ) -> #private::Value {
            let mut schema = #private::variable_schema::<T>();
            if let (#private::Value::Object(schema), ::core::option::Option::Some(description)) =
                (&mut schema, description)
            {
                schema.insert(
                    ::std::string::String::from("description"),
                    #private::Value::from(description),
                );
            }
            schema
        }

        fn __mcp_resource_contents<T: #private::IntoResourceContents>(
            value: T,
            uri: &str,
            mime_type: ::core::option::Option<&str>,
        ) -> #private::ResourceFuture {
            #private::resource_ready(#private::IntoResourceContents::into_contents(value, uri, mime_type))
        }
    }
}

/// As [`resource_helpers`], for a prompt.
fn prompt_helpers(private: &TokenStream) -> TokenStream {
    quote! {
        #[allow(dead_code)]
        fn __mcp_prompt_argument<T: #private::FromArgument>(
            arguments: &#private::Arguments,
            name: &str,
        ) -> ::core::result::Result<T, #private::PromptFuture> {
            #private::prompt_argument::<T>(arguments, name)
                .map_err(|err| #private::prompt_ready(::core::result::Result::Err(err)))
        }

        #[allow(dead_code)]
        fn __mcp_optional_prompt_argument<T: #private::FromArgument>(
            arguments: &#private::Arguments,
            name: &str,
        ) -> ::core::result::Result<::core::option::Option<T>, #private::PromptFuture> {
            #private::optional_prompt_argument::<T>(arguments, name)
                .map_err(|err| #private::prompt_ready(::core::result::Result::Err(err)))
        }

        fn __mcp_prompt_result<T: #private::IntoPromptResult>(value: T) -> #private::PromptFuture {
            #private::prompt_ready(#private::IntoPromptResult::into_prompt(value))
        }
    }
}

/// The completion functions, each checked where it is named, and the static list of them.
fn completions(item: &Item, private: &TokenStream) -> TokenStream {
    let mut checks = TokenStream::new();
    let mut entries = Vec::new();
    for (i, input) in item.inputs.iter().enumerate() {
        let (Some(complete), Some(name)) = (&input.complete, input.name()) else {
            continue;
        };
        let path = &complete.path;
        let constant = format_ident!("__MCP_COMPLETE_{}", i);
        // Spanned on the path: a function of the wrong signature is one error, there.
        checks.extend(quote_spanned! {path.span()=>
            const #constant: #private::CompleteFn = #path;
        });
        entries.push(quote!(#private::Completion::new(#name, #constant)));
    }
    quote! {
        #checks
        const __MCP_COMPLETIONS: &[#private::Completion] = &[#(#entries),*];
    }
}

/// Reads each parameter from `source`, the read request or the prompt's arguments,
/// returning the failure of the first that does not read.
fn read_inputs(item: &Item, source: &Ident, resource: bool) -> (TokenStream, Vec<Ident>) {
    let failed = local("failed");
    let mut reads = TokenStream::new();
    let mut locals = Vec::new();
    for (i, input) in item.inputs.iter().enumerate() {
        let name = input.name().unwrap_or_default();
        let value = local(&format!("input_{i}"));
        let read = match input.optional() {
            Some(inner) if !resource => quote_spanned! {inner.span()=>
                __mcp_optional_prompt_argument::<#inner>(&#source, #name)
            },
            _ => {
                let ty = &input.ty;
                let function = if resource {
                    quote!(__mcp_template_variable)
                } else {
                    quote!(__mcp_prompt_argument)
                };
                quote_spanned! {ty.span()=> #function::<#ty>(&#source, #name) }
            }
        };
        reads.extend(quote! {
            let #value = match #read {
                ::core::result::Result::Ok(#value) => #value,
                ::core::result::Result::Err(#failed) => return #failed,
            };
        });
        locals.push(value);
    }
    (reads, locals)
}

fn resource_registration(item: &Item, args: &ResourceArgs) -> TokenStream {
    let private = private_path(args.krate.as_ref());
    let helpers = resource_helpers(&private);
    let completions = completions(item, &private);
    let location = location(item, &private);

    let name = args
        .name
        .as_ref()
        .map_or_else(|| item.name(), |name| name.value.clone());
    let title = args.title.as_ref().or(item.doc_title.as_ref());
    let title = title.map(|title| quote!(.with_title(#title)));
    let description = args
        .description
        .as_ref()
        .map(|description| &description.value)
        .or(item.doc_description.as_ref())
        .map(|description| quote!(.with_description(#description)));
    let mime = args.mime_type.as_ref().map(|mime| &mime.value);
    let with_mime = mime.map(|mime| quote!(.with_mime_type(#mime)));
    let size = args.size.as_ref().map(|size| {
        let size = size.value;
        quote!(.with_size(#size))
    });
    let fixed_time = match &args.last_modified {
        Some(LastModified::At(at)) => Some(&at.value),
        _ => None,
    };
    let annotations = (args.audience.is_some() || args.priority.is_some() || fixed_time.is_some())
        .then(|| {
            let audience = args
                .audience
                .iter()
                .flatten()
                .map(|role| match role.value.as_str() {
                    "assistant" => quote!(#private::Role::Assistant),
                    _ => quote!(#private::Role::User),
                });
            let priority = match &args.priority {
                Some(priority) => {
                    let value = priority.value;
                    quote!(::core::option::Option::Some(#value))
                }
                None => quote!(::core::option::Option::None),
            };
            let last_modified = match fixed_time {
                Some(at) => quote!(::core::option::Option::Some(::std::string::String::from(#at))),
                None => quote!(::core::option::Option::None),
            };
            quote! {
                .with_annotations(#private::ResourceAnnotations {
                    audience: ::std::vec![#(#audience),*],
                    priority: #priority,
                    last_modified: #last_modified,
                })
            }
        });
    let definition = local("definition");
    let cache = cache_meta(args, &private).map(|cache| {
        quote! {
            #definition.meta.insert(::std::string::String::from("mcp-runtime/cache"), #cache);
        }
    });

    let (kind, key, new_definition, variables) = match (&args.uri, &args.uri_template) {
        (Some(uri), _) => {
            let uri = &uri.value;
            (
                quote!(Fixed),
                uri.clone(),
                quote!(#private::ResourceDefinition::new(#uri, #name) #size),
                None,
            )
        }
        (None, template) => {
            let template = template
                .as_ref()
                .map(|t| t.value.as_str())
                .unwrap_or_default();
            let variables = item.inputs.iter().map(|input| {
                let name = input.name().unwrap_or_default();
                let ty = &input.ty;
                let doc = match &input.doc {
                    Some(doc) => quote!(::core::option::Option::Some(#doc)),
                    None => quote!(::core::option::Option::None),
                };
                let schema = quote_spanned! {ty.span()=> __mcp_variable_schema::<#ty>(#doc) };
                quote!((#name, #schema))
            });
            (
                quote!(Template),
                template.to_owned(),
                quote!(#private::ResourceTemplateDefinition::new(#template, #name)),
                Some(quote! {
                    let #definition = #private::with_variables(#definition, &[#(#variables),*]);
                }),
            )
        }
    };
    let definition_type = match kind.to_string().as_str() {
        "Fixed" => quote!(#private::ResourceDefinition),
        _ => quote!(#private::ResourceTemplateDefinition),
    };

    let (last_modified_fn, with_last_modified) = match &args.last_modified {
        Some(LastModified::From(path)) => (
            // Spanned on the path: a function of the wrong signature is one error, there.
            Some(quote_spanned! {path.span()=>
                fn __mcp_last_modified() -> ::core::option::Option<::std::string::String> {
                    #private::last_modified(#path())
                }
            }),
            Some(quote!(.with_last_modified(__mcp_last_modified))),
        ),
        _ => (None, None),
    };

    let request = local("request");
    let (reads, locals) = read_inputs(item, &request, true);
    let fn_ident = &item.item.sig.ident;
    let output = item.output.as_ref();
    let (value, uri) = (local("value"), local("uri"));
    let mime = match mime {
        Some(mime) => quote!(::core::option::Option::Some(#mime)),
        None => quote!(::core::option::Option::None),
    };
    let convert = output.map(|ty| {
        quote_spanned! {ty.span()=> __mcp_resource_contents::<#ty>(#value, &#uri, #mime) }
    });
    let read_body = match item.item.sig.asyncness {
        // Spanned at `async`, so a future that is not `Send` is reported there.
        Some(asyncness) => quote_spanned! {asyncness.span=>
            ::std::boxed::Box::pin(async move {
                let #value = #fn_ident(#(#locals),*).await;
                #convert.await
            })
        },
        None => quote! {
            let #value = #fn_ident(#(#locals),*);
            #convert
        },
    };

    quote! {
        const _: () = {
            #helpers

            fn __mcp_definition() -> #definition_type {
                #[allow(unused_mut)]
                let mut #definition = #new_definition
                    #title
                    #description
                    #with_mime
                    #annotations;
                #cache
                #variables
                #definition
            }

            fn __mcp_read(#request: #private::ReadRequest) -> #private::ResourceFuture {
                #reads
                let #uri = ::std::string::String::from(#request.uri());
                #read_body
            }

            #completions
            #last_modified_fn

            #private::inventory::submit! {
                #private::ResourceRegistration::new(
                    #private::ResourceKind::#kind(__mcp_definition),
                    #key,
                    __mcp_read,
                    __MCP_COMPLETIONS,
                    #location,
                )
                #with_last_modified
            }
        };
    }
}

/// `{"ttlMs": …, "cacheScope": …}` for the definition's `_meta`, when either is given.
fn cache_meta(args: &ResourceArgs, private: &TokenStream) -> Option<TokenStream> {
    let ttl = args
        .ttl
        .as_ref()
        .and_then(|ttl| humantime::parse_duration(&ttl.value).ok())
        .map(|duration| {
            let millis = u64::try_from(duration.as_millis()).unwrap_or(u64::MAX);
            quote!(("ttlMs", #private::Value::from(#millis)))
        });
    let scope = args.cache_scope.as_ref().map(|scope| {
        let scope = &scope.value;
        quote!(("cacheScope", #private::Value::from(#scope)))
    });
    if ttl.is_none() && scope.is_none() {
        return None;
    }
    let entries = ttl.into_iter().chain(scope);
    Some(quote! {
        <#private::Value as ::core::iter::FromIterator<(&str, #private::Value)>>::from_iter([#(#entries),*])
    })
}

fn prompt_registration(item: &Item, args: &PromptArgs) -> TokenStream {
    let private = private_path(args.krate.as_ref());
    let helpers = prompt_helpers(&private);
    let completions = completions(item, &private);
    let location = location(item, &private);

    let name = args
        .name
        .as_ref()
        .map_or_else(|| item.name(), |name| name.value.clone());
    let title = args.title.as_ref().or(item.doc_title.as_ref());
    let title = title.map(|title| quote!(.with_title(#title)));
    let description = args
        .description
        .as_ref()
        .map(|description| &description.value)
        .or(item.doc_description.as_ref())
        .map(|description| quote!(.with_description(#description)));
    let arguments = item.inputs.iter().map(|input| {
        let name = input.name().unwrap_or_default();
        let new = if input.optional().is_some() {
            quote!(optional)
        } else {
            quote!(required)
        };
        let description = input
            .doc
            .as_ref()
            .map(|doc| quote!(.with_description(#doc)));
        quote!(.with_argument(#private::PromptArgument::#new(#name) #description))
    });

    let arguments_local = local("arguments");
    let (reads, locals) = read_inputs(item, &arguments_local, false);
    let fn_ident = &item.item.sig.ident;
    let value = local("value");
    let convert = item.output.as_ref().map(|ty| {
        quote_spanned! {ty.span()=> __mcp_prompt_result::<#ty>(#value) }
    });
    let get_body = match item.item.sig.asyncness {
        Some(asyncness) => quote_spanned! {asyncness.span=>
            ::std::boxed::Box::pin(async move {
                let #value = #fn_ident(#(#locals),*).await;
                #convert.await
            })
        },
        None => quote! {
            let #value = #fn_ident(#(#locals),*);
            #convert
        },
    };

    quote! {
        const _: () = {
            #helpers

            fn __mcp_definition() -> #private::PromptDefinition {
                #private::PromptDefinition::new(#name)
                    #title
                    #description
                    #(#arguments)*
            }

            #[allow(unused_variables)]
            fn __mcp_get(#arguments_local: #private::Arguments) -> #private::PromptFuture {
                #reads
                #get_body
            }

            #completions

            #private::inventory::submit! {
                #private::PromptRegistration::new(
                    #name,
                    __mcp_definition,
                    __mcp_get,
                    __MCP_COMPLETIONS,
                    #location,
                )
            }
        };
    }
}

pub(crate) fn mcp_tool(args: TokenStream, item: TokenStream) -> TokenStream {
    let item_fn: ItemFn = match syn::parse2(item.clone()) {
        Ok(item_fn) => item_fn,
        Err(_) => {
            let err = syn::Error::new(
                Span::call_site(),
                "`#[mcp_tool]` goes on a function: `#[mcp_tool] fn name(arg: Type) -> Output { … }`",
            )
            .to_compile_error();
            return quote! { #err #item };
        }
    };
    let (args, attr_error) = attr::parse(args);
    let mut errors = Errors::default();
    if let Some(err) = attr_error {
        errors.push(err);
    }
    let tool = Tool::from_item(item_fn, &mut errors);
    valid::check(&tool, &args, &mut errors);
    let user_fn = &tool.item;
    match errors.into_error() {
        // The function is always emitted, so one mistake gives one error, not a cascade.
        Some(err) => {
            let err = err.to_compile_error();
            quote! { #err #user_fn }
        }
        None => {
            let registration = registration(&tool, &args);
            quote! { #user_fn #registration }
        }
    }
}

fn registration(tool: &Tool, args: &Args) -> TokenStream {
    let krate: Path = args
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
                ProbeResultFallback as _,
            };

            #arguments_struct

            fn __mcp_definition() -> ::core::result::Result<#private::ToolDefinition, #private::DefinitionError> {
                #checks
                #definition
            }

            #invoke

            #private::inventory::submit! {
                #private::ToolRegistration::new(#name, __mcp_definition, __MCP_HANDLER, #location)
            }
        };
    }
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
    for param in tool.arguments() {
        let ty = &param.ty;
        checks.extend(quote_spanned! {ty.span()=>
            #private::assert_parameter::<#ty>();
            #private::assert_parameter_schema::<#ty>();
        });
        if param.header.is_some() {
            checks.extend(quote_spanned! {ty.span()=> #private::assert_header::<#ty>(); });
        }
    }
    let output = |ty: &Type| {
        quote_spanned! {ty.span()=>
            #private::assert_output::<#ty>();
            #private::assert_output_schema::<#ty>();
        }
    };
    match &tool.returns {
        Returns::Value(ty) => checks.extend(output(ty)),
        Returns::Result { ty, ok, err } => {
            if ok.is_none() || err.is_none() {
                checks.extend(quote_spanned! {ty.span()=> #private::assert_fallible::<#ty>(); });
            }
            let ok_type: Type = match ok {
                Some(ok) => (**ok).clone(),
                None => {
                    syn::parse_quote_spanned!(ty.span()=> <#ty as #private::FallibleOutput>::Ok)
                }
            };
            let err_type: Type = match err {
                Some(err) => (**err).clone(),
                None => {
                    syn::parse_quote_spanned!(ty.span()=> <#ty as #private::FallibleOutput>::Err)
                }
            };
            checks.extend(output(&ok_type));
            checks
                .extend(quote_spanned! {err_type.span()=> #private::assert_error::<#err_type>(); });
        }
        Returns::Unit | Returns::ToolResult => {}
    }
    checks
}

fn definition(tool: &Tool, args: &Args, private: &TokenStream) -> TokenStream {
    let definition = local("definition");
    let name = tool_name(tool, args);
    let version = match &args.version {
        Some(version) => {
            let version = &version.value;
            quote!(#version)
        }
        None => quote!(::core::env!("CARGO_PKG_VERSION")),
    };
    let title = args.title.as_ref().or(tool.doc_title.as_ref());
    let title = title.map(|title| quote!(.with_title(#title)));
    let description = args
        .description
        .as_ref()
        .map(|description| &description.value)
        .or(tool.doc_description.as_ref());
    let description = description.map(|description| quote!(.with_description(#description)));
    let category = args
        .category
        .as_ref()
        .map(|category| quote!(.with_category(#category)));
    let tags = args
        .tags
        .as_ref()
        .map(|tags| quote!(.with_tags([#(#tags),*])));
    let errors = args
        .errors
        .as_ref()
        .map(|errors| quote!(.with_errors([#(#errors),*])));
    let scopes = args
        .scopes
        .as_ref()
        .map(|scopes| quote!(.with_scopes([#(#scopes),*])));
    let examples = args.examples.iter().map(|example| {
        let json = &example.value;
        quote!(.with_example(#private::example_arguments(#json)))
    });
    let required_client = args.requires_client.as_ref().map(|names| {
        let names = names.iter().map(ToString::to_string);
        quote!(.with_required_client_capabilities(#private::client_capabilities(&[#(#names),*]))?)
    });
    let deprecated = args
        .deprecated
        .as_ref()
        .map(|note| quote!(.with_deprecated(#note)));
    let timeout = args
        .timeout
        .as_ref()
        .and_then(|timeout| humantime::parse_duration(&timeout.value).ok())
        .map(|duration| {
            let nanos = u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX);
            quote!(.with_timeout(#private::Duration::from_nanos(#nanos)))
        });
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

    let finish = match &tool.returns {
        Returns::Value(ty) => quote! {
            #definition.with_output((&&#private::Probe::<#ty>::new()).output_schema())
        },
        Returns::Result { ty, ok, .. } => {
            let ok = match ok {
                Some(ok) => quote!(#ok),
                None => quote!(<#ty as #private::FallibleOutput>::Ok),
            };
            quote! {
                #definition.with_output((&&#private::Probe::<#ok>::new()).output_schema())
            }
        }
        Returns::Unit | Returns::ToolResult => quote! { ::core::result::Result::Ok(#definition) },
    };

    quote! {
        let #definition = #private::ToolDefinition::new(
            #name,
            (&&#private::Probe::<__McpArguments>::new()).arguments_schema(),
        )?
        .with_version(#version)?
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
        .with_annotations(#private::ToolAnnotations {
            read_only: #read_only,
            destructive: #destructive,
            idempotent: #idempotent,
            open_world: #open_world,
            dangerous: #dangerous,
            requires_sandbox: #requires_sandbox,
        });
        #finish
    }
}

/// The invoke function and the `__MCP_HANDLER` constant that names it.
fn invoke(tool: &Tool, args: &Args, private: &TokenStream) -> TokenStream {
    let mode = if args.inline.as_ref().is_some_and(|flag| flag.value) {
        quote!(Inline)
    } else {
        quote!(Blocking)
    };
    let fn_ident = &tool.item.sig.ident;
    let (arguments, parsed, value, invocation, ctx, err) = (
        local("arguments"),
        local("parsed"),
        local("value"),
        local("invocation"),
        local("ctx"),
        local("err"),
    );
    // The context is built only for a tool that takes one.
    let make_context = tool
        .params
        .iter()
        .any(|param| matches!(param.kind, ParamKind::Context { .. }))
        .then(|| quote!(let #ctx = #invocation.context();));
    let call_args = tool.params.iter().map(|param| match param.kind {
        ParamKind::Context { by_ref: true, .. } => quote!(&#ctx),
        ParamKind::Context { by_ref: false, .. } => quote!(#ctx),
        ParamKind::Argument => {
            let ident = &param.ident;
            quote!(#parsed.#ident)
        }
    });
    let is_async = tool.item.sig.asyncness.is_some();
    let call = quote! { #fn_ident(#(#call_args),*) };
    let call = if is_async { quote!(#call.await) } else { call };
    let convert = match &tool.returns {
        Returns::Unit => quote!(#private::unit_output(#value)),
        Returns::Value(ty) => quote!((&&#private::Probe::<#ty>::new()).value_output(#value)),
        Returns::Result { ty, .. } => {
            quote!((&&#private::Probe::<#ty>::new()).result_output(#value))
        }
        Returns::ToolResult => quote!(#private::tool_result_output(#value)),
    };
    let parse = quote! {
        (&&#private::Probe::<__McpArguments>::new()).parse_arguments(#arguments)
    };
    if let Some(asyncness) = tool.item.sig.asyncness {
        // Spanned at `async`, so a future that is not `Send` is reported there.
        let boxed = quote_spanned! {asyncness.span=>
            ::std::boxed::Box::pin(async move {
                let #value = #call;
                #convert
            })
        };
        quote! {
            #[allow(unused_variables)]
            fn __mcp_invoke(#arguments: &#private::Value, #invocation: #private::Invocation<'_>) -> #private::ToolFuture {
                match #parse {
                    ::core::result::Result::Ok(#parsed) => {
                        #make_context
                        #boxed
                    }
                    ::core::result::Result::Err(#err) => #private::ready(::core::result::Result::Err(#err)),
                }
            }
            const __MCP_HANDLER: #private::Handler = #private::Handler::Async(__mcp_invoke);
        }
    } else {
        quote! {
            #[allow(unused_variables)]
            fn __mcp_invoke(#arguments: &#private::Value, #invocation: #private::Invocation<'_>) -> #private::Outcome {
                let #parsed = #parse?;
                #make_context
                let #value = #call;
                #convert
            }
            const __MCP_HANDLER: #private::Handler = #private::Handler::#mode(__mcp_invoke);
        }
    }
}

/// The invocation name: `name` if it holds a namespace, else `namespace.name`, the namespace
/// defaulting to the crate's name and the name to the function's.
fn tool_name(tool: &Tool, args: &Args) -> TokenStream {
    let ident = tool.item.sig.ident.to_string();
    let tool_part = match &args.name {
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

/// An identifier for a local of generated code: prefixed, since a constant of the same
/// name in the user's module would turn its binding into a pattern, and with a mixed-site
/// span, which keeps it apart from the user's own locals.
fn local(name: &str) -> Ident {
    Ident::new(&format!("__mcp_{name}"), Span::mixed_site())
}

fn path_string(path: &Path) -> String {
    let segments: Vec<String> = path
        .segments
        .iter()
        .map(|segment| segment.ident.to_string())
        .collect();
    let leading = if path.leading_colon.is_some() {
        "::"
    } else {
        ""
    };
    format!("{leading}{}", segments.join("::"))
}
