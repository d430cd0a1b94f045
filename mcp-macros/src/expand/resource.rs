//! `#[mcp_resource]`: the definition, the function that reads the resource from the
//! request, its completion functions and the registration.

use proc_macro2::{Ident, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::{
    call_user_fn, common_definition, completions, item_name, local, location, private_path,
    read_inputs, shielded,
};
use crate::attr::{self, LastModified, ResourceArgs};
use crate::model::Item;
use crate::valid;

pub(crate) fn mcp_resource(args: TokenStream, item: TokenStream) -> TokenStream {
    super::expand(
        args,
        item,
        super::Misplaced {
            attribute: "#[mcp_resource]",
            example: "#[mcp_resource(uri = \"app://about\")] fn about() -> String { … }",
        },
        attr::parse_resource,
        Item::from_item,
        |resource| &resource.item,
        valid::check_resource,
        resource_registration,
    )
}

/// Generic functions through which every use of the user's types goes. Each is bounded by
/// the trait whose `on_unimplemented` message says what is wrong, and is called with the
/// user's type token, so that a type lacking a trait is one error, on that token, and not
/// again wherever the type is used. A failure comes back as the future the registry gets.
///
/// The helper of the definition, those of the read, and the locals they bind.
fn resource_helpers(private: &TokenStream) -> (TokenStream, TokenStream, Vec<Ident>) {
    let locals = [
        "request",
        "name",
        "description",
        "schema",
        "value",
        "uri",
        "mime_type",
        "err",
    ]
    .map(local);
    let [
        request,
        name,
        description,
        schema,
        value,
        uri,
        mime_type,
        err,
    ] = &locals;
    // Unused by a resource at a fixed URI, which has no variables.
    let definition_helpers = quote! {
        #[allow(dead_code)]
        fn __mcp_variable_schema<T: #private::VariableSchema>(
            #description: ::core::option::Option<&str>,
        ) -> #private::Value {
            let mut #schema = #private::variable_schema::<T>();
            if let (#private::Value::Object(#schema), ::core::option::Option::Some(#description)) =
                (&mut #schema, #description)
            {
                #schema.insert(
                    ::std::string::String::from("description"),
                    #private::Value::from(#description),
                );
            }
            #schema
        }
    };
    let read_helpers = quote! {
        #[allow(dead_code)]
        fn __mcp_template_variable<T: #private::FromArgument>(
            #request: &#private::ReadRequest,
            #name: &str,
        ) -> ::core::result::Result<T, #private::ResourceFuture> {
            #private::template_variable::<T>(#request, #name)
                .map_err(|#err| #private::resource_ready(::core::result::Result::Err(#err)))
        }

        fn __mcp_resource_contents<T: #private::IntoResourceContents>(
            #value: T,
            #uri: &str,
            #mime_type: ::core::option::Option<&str>,
        ) -> #private::ResourceFuture {
            #private::resource_ready(#private::IntoResourceContents::into_contents(#value, #uri, #mime_type))
        }
    };
    (definition_helpers, read_helpers, locals.to_vec())
}

fn resource_registration(item: &Item, args: &ResourceArgs) -> TokenStream {
    let private = private_path(args.common.krate.as_ref());
    let helpers = resource_helpers(&private);
    let completions = completions(item, &private);
    let location = location(item, &private);
    let shape = Shape::of(item, args, &private);
    let definition_fn = definition_fn(item, args, &private, &shape, &helpers);
    let read = read_fn(item, args, &private, &helpers);
    let (last_modified_fn, with_last_modified) = last_modified_from(args, &private);
    let Shape {
        kind,
        key,
        definition_type,
        ..
    } = shape;

    quote! {
        const _: () = {

            const __MCP_DEFINITION: fn() -> #definition_type = #definition_fn;

            const __MCP_READ: fn(#private::ReadRequest) -> #private::ResourceFuture = #read;

            #completions
            #last_modified_fn

            #private::inventory::submit! {
                #private::ResourceRegistration::new(
                    #private::ResourceKind::#kind(__MCP_DEFINITION),
                    #key,
                    __MCP_READ,
                    __MCP_COMPLETIONS,
                    #location,
                )
                #with_last_modified
            }
        };
    }
}

/// What `resource_helpers` gives: the helpers of the definition, those of the read, and
/// the locals they name.
type Helpers = (TokenStream, TokenStream, Vec<Ident>);

/// A fixed resource's or a template's: which kind it is, the key it is registered under,
/// how its definition starts, and its template's variables.
struct Shape {
    /// `Fixed` or `Template`, as `ResourceKind` names them.
    kind: TokenStream,
    /// The URI, or the template.
    key: String,
    /// The definition's constructor, with the size of a fixed resource.
    new_definition: TokenStream,
    /// A template's variables added to the definition.
    variables: Option<TokenStream>,
    /// `ResourceDefinition` or `ResourceTemplateDefinition`.
    definition_type: TokenStream,
}

impl Shape {
    fn of(item: &Item, args: &ResourceArgs, private: &TokenStream) -> Self {
        let name = item_name(item, &args.common);
        let definition = local("definition");
        let size = args.size.as_ref().map(|size| {
            let size = size.value;
            quote!(.with_size(#size))
        });
        match (&args.uri, &args.uri_template) {
            (Some(uri), _) => {
                let uri = &uri.value;
                Self {
                    kind: quote!(Fixed),
                    key: uri.clone(),
                    new_definition: quote!(#private::ResourceDefinition::new(#uri, #name) #size),
                    variables: None,
                    definition_type: quote!(#private::ResourceDefinition),
                }
            }
            (None, template) => {
                let template = template
                    .as_ref()
                    .map(|t| t.value.as_str())
                    .unwrap_or_default();
                let variables = template_variables(item);
                Self {
                    kind: quote!(Template),
                    key: template.to_owned(),
                    new_definition: quote!(#private::ResourceTemplateDefinition::new(#template, #name)),
                    variables: Some(quote! {
                        let #definition = #private::with_variables(#definition, &[#(#variables),*]);
                    }),
                    definition_type: quote!(#private::ResourceTemplateDefinition),
                }
            }
        }
    }
}

/// A template's variables, one `(name, schema)` per parameter.
fn template_variables(item: &Item) -> Vec<TokenStream> {
    item.inputs
        .iter()
        .map(|input| {
            let name = input.name().unwrap_or_default();
            let ty = &input.ty;
            let doc = match &input.doc {
                Some(doc) => quote!(::core::option::Option::Some(#doc)),
                None => quote!(::core::option::Option::None),
            };
            let schema = quote_spanned! {ty.span()=> __mcp_variable_schema::<#ty>(#doc) };
            quote!((#name, #schema))
        })
        .collect()
}

/// `.with_annotations(…)`, when the audience, the priority or a fixed time is given.
fn annotations(args: &ResourceArgs, private: &TokenStream) -> Option<TokenStream> {
    let fixed_time = match &args.last_modified {
        Some(LastModified::At(at)) => Some(&at.value),
        _ => None,
    };
    (args.audience.is_some() || args.priority.is_some() || fixed_time.is_some()).then(|| {
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
    })
}

/// The function that builds the definition, shielded.
fn definition_fn(
    item: &Item,
    args: &ResourceArgs,
    private: &TokenStream,
    shape: &Shape,
    (definition_helpers, _, helper_locals): &Helpers,
) -> TokenStream {
    let [title, description, scopes] = common_definition(&args.common, &item.doc);
    let with_mime = args
        .mime_type
        .as_ref()
        .map(|mime| &mime.value)
        .map(|mime| quote!(.with_mime_type(#mime)));
    let annotations = annotations(args, private);
    let definition = local("definition");
    let cache = cache_meta(args, private).map(|cache| {
        quote! {
            #definition.meta.insert(::std::string::String::from("mcp-runtime/cache"), #cache);
        }
    });
    let Shape {
        new_definition,
        variables,
        definition_type,
        ..
    } = shape;
    shielded(
        [&definition].into_iter().chain(helper_locals),
        quote! {
            #definition_helpers
            fn __mcp_definition() -> #definition_type {
                #[allow(unused_mut)]
                let mut #definition = #new_definition
                    #title
                    #description
                    #with_mime
                    #annotations
                    #scopes;
                #cache
                #variables
                #definition
            }
        },
        quote!(__mcp_definition),
    )
}

/// The function that reads the resource: the request's variables read, the user's
/// function called, what it returns made contents; shielded.
fn read_fn(
    item: &Item,
    args: &ResourceArgs,
    private: &TokenStream,
    (_, read_helpers, helper_locals): &Helpers,
) -> TokenStream {
    let request = local("request");
    let (reads, locals, bound) = read_inputs(item, &request, true);
    let (value, uri) = (local("value"), local("uri"));
    let mime = match args.mime_type.as_ref().map(|mime| &mime.value) {
        Some(mime) => quote!(::core::option::Option::Some(#mime)),
        None => quote!(::core::option::Option::None),
    };
    let err = local("err");
    let convert = item.output.as_ref().map(|ty| {
        let (rest, ready) = (quote!(, &#uri, #mime), quote!(#private::resource_ready));
        super::returned(
            ty,
            &value,
            &err,
            private,
            "__mcp_resource_contents",
            &rest,
            ready,
        )
    });
    let read_body = call_user_fn(item, &value, &locals, convert);
    shielded(
        [&request, &uri, &value]
            .into_iter()
            .chain(&bound)
            .chain(helper_locals),
        quote! {
            #read_helpers
            fn __mcp_read(#request: #private::ReadRequest) -> #private::ResourceFuture {
                #reads
                let #uri = ::std::string::String::from(#request.uri());
                #read_body
            }
        },
        quote!(__mcp_read),
    )
}

/// `last_modified = path::to_fn`: the function the listing calls, spanned on the path,
/// and the registration's `.with_last_modified(…)`.
fn last_modified_from(
    args: &ResourceArgs,
    private: &TokenStream,
) -> (Option<TokenStream>, Option<TokenStream>) {
    match &args.last_modified {
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
