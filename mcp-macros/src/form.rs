//! `#[derive(Form)]`: a struct the user can be asked to fill in (elicitation), or a
//! unit-variant enum a form's field can choose from. What a form cannot hold is refused here,
//! at compile time, on the token at fault; the rest is checked from the type's `JsonSchema`
//! when the form is asked.

use proc_macro2::{TokenStream, TokenTree};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Attribute, Data, DeriveInput, Fields, Ident, LitStr, Path, Type};

pub(crate) fn derive(input: TokenStream) -> TokenStream {
    let input = match syn::parse2::<DeriveInput>(input) {
        Ok(input) => input,
        Err(err) => return err.to_compile_error(),
    };
    match expand(&input) {
        Ok(tokens) => tokens,
        Err(err) => err.to_compile_error(),
    }
}

fn expand(input: &DeriveInput) -> syn::Result<TokenStream> {
    let private = private_path(&input.attrs)?;
    let serde = keys(&input.attrs, "serde")?;
    match &input.data {
        Data::Struct(data) => form_struct(input, data, &serde, &private),
        Data::Enum(data) => choice_enum(input, data, &serde, &private),
        Data::Union(data) => Err(syn::Error::new(
            data.union_token.span,
            format!(
                "`{}` cannot be a form: a form is a struct of named fields",
                input.ident
            ),
        )),
    }
}

/// A struct of named fields: a form, its fields' types checked where it is defined, or,
/// when generic, where it is used.
fn form_struct(
    input: &DeriveInput,
    data: &syn::DataStruct,
    serde: &[(Ident, Option<TokenStream>)],
    private: &TokenStream,
) -> syn::Result<TokenStream> {
    let name = &input.ident;
    if let Some((key, _)) = serde.iter().find(|(key, _)| key == "transparent") {
        return Err(syn::Error::new(
            key.span(),
            "a form is a struct of named fields: `#[serde(transparent)]` makes it its one field",
        ));
    }
    let Fields::Named(fields) = &data.fields else {
        return Err(syn::Error::new(
            name.span(),
            format!(
                "`{name}` cannot be a form: a form is a struct of named fields, each a question to the user"
            ),
        ));
    };
    let mut checked = Vec::new();
    for field in &fields.named {
        if let Some(ty) = field_type(field)? {
            checked.push(ty);
        }
    }
    if input.generics.params.is_empty() {
        Ok(registered_form(name, &checked, private))
    } else {
        Ok(generic_form(input, &checked, private))
    }
}

/// A generic form: a field whose type names a parameter is checked where the form is used.
fn generic_form(input: &DeriveInput, checked: &[Type], private: &TokenStream) -> TokenStream {
    let name = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let mut bounds = where_clause
        .map(|clause| clause.predicates.iter().map(|p| quote!(#p)).collect())
        .unwrap_or_else(Vec::new);
    bounds.push(quote! {
        Self: #private::schemars::JsonSchema + #private::serde::de::DeserializeOwned
    });
    bounds.extend(checked.iter().map(|ty| {
        quote_spanned! {ty.span()=> #ty: #private::FormField }
    }));
    let seal = seal(private);
    quote! {
        impl #impl_generics #private::Form for #name #ty_generics where #(#bounds),* {
            #seal
        }
    }
}

/// A form of no parameters: its fields checked here, and registered, so that it is checked
/// again when the registry is built.
fn registered_form(name: &Ident, checked: &[Type], private: &TokenStream) -> TokenStream {
    let checks = checked.iter().map(|ty| {
        quote_spanned! {ty.span()=> #private::assert_form_field::<#ty>(); }
    });
    let location = quote_spanned! {name.span()=>
        #private::Location {
            file: ::core::file!(),
            line: ::core::line!(),
            column: ::core::column!(),
            module_path: ::core::module_path!(),
        }
    };
    let type_name = name.to_string();
    let seal = seal(private);
    quote! {
        impl #private::Form for #name {
            #seal
        }
        const _: () = {
            #(#checks)*
            #private::inventory::submit! {
                #private::FormRegistration::new(
                    #type_name,
                    #private::form_check::<#name>,
                    #location,
                )
            }
        };
    }
}

/// The seal that only this derive writes.
fn seal(private: &TokenStream) -> TokenStream {
    quote!(fn __derived(_: #private::DerivedForm) {})
}

/// An enum of unit variants: a choice among strings.
fn choice_enum(
    input: &DeriveInput,
    data: &syn::DataEnum,
    serde: &[(Ident, Option<TokenStream>)],
    private: &TokenStream,
) -> syn::Result<TokenStream> {
    let name = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    for key in ["untagged", "tag", "content"] {
        if let Some((at, _)) = serde.iter().find(|(seen, _)| seen == key) {
            return Err(syn::Error::new(
                at.span(),
                format!(
                    "a form's choice is a string: `#[serde({key})]` makes `{name}`'s values something else"
                ),
            ));
        }
    }
    for variant in &data.variants {
        if !matches!(variant.fields, Fields::Unit) {
            return Err(syn::Error::new(
                variant.fields.span(),
                format!(
                    "variant `{}` carries data: a form's enum is a choice among unit variants",
                    variant.ident
                ),
            ));
        }
    }
    Ok(quote! {
        impl #impl_generics #private::FormField for #name #ty_generics #where_clause {}
        impl #impl_generics #private::FormChoice for #name #ty_generics #where_clause {}
    })
}

/// The type a field's check is made on: its own, or the one `#[schemars(with = "…")]`
/// describes it as. `None` for a field that is no question to the user (`#[serde(skip)]`)
/// or whose schema a function writes (`schema_with`), which is checked when the form is made.
fn field_type(field: &syn::Field) -> syn::Result<Option<Type>> {
    let serde = keys(&field.attrs, "serde")?;
    if let Some((key, _)) = serde.iter().find(|(key, _)| key == "flatten") {
        return Err(syn::Error::new(
            key.span(),
            "a form is flat: `#[serde(flatten)]` puts a struct inside it",
        ));
    }
    if serde
        .iter()
        .any(|(key, _)| key == "skip" || key == "skip_deserializing")
    {
        return Ok(None);
    }
    let schemars = keys(&field.attrs, "schemars")?;
    if schemars.iter().any(|(key, _)| key == "schema_with") {
        return Ok(None);
    }
    if let Some((_, Some(value))) = schemars.iter().find(|(key, _)| key == "with") {
        let lit: LitStr = syn::parse2(value.clone())?;
        return lit.parse().map(Some);
    }
    Ok(Some(field.ty.clone()))
}

/// The keys of every `#[name(…)]` attribute, each with the tokens after its `=`, if any.
/// Only the keys that matter here are read; the attribute's owner checks the rest.
fn keys(attrs: &[Attribute], name: &str) -> syn::Result<Vec<(syn::Ident, Option<TokenStream>)>> {
    let mut keys = Vec::new();
    for attr in attrs.iter().filter(|attr| attr.path().is_ident(name)) {
        let Ok(list) = attr.meta.require_list() else {
            continue;
        };
        let mut tokens = list.tokens.clone().into_iter().peekable();
        while let Some(token) = tokens.next() {
            let TokenTree::Ident(key) = token else {
                continue;
            };
            let mut value = None;
            if matches!(tokens.peek(), Some(TokenTree::Punct(p)) if p.as_char() == '=') {
                tokens.next();
                let mut taken = TokenStream::new();
                while let Some(token) = tokens
                    .next_if(|token| !matches!(token, TokenTree::Punct(p) if p.as_char() == ','))
                {
                    taken.extend([token]);
                }
                value = Some(taken);
            }
            // Skip to the next key: past a parenthesized list, or the comma.
            for token in tokens.by_ref() {
                if matches!(&token, TokenTree::Punct(p) if p.as_char() == ',') {
                    break;
                }
            }
            keys.push((key, value));
        }
    }
    Ok(keys)
}

/// `::mcp_runtime::__private`, or the path `#[form(crate = …)]` gives.
fn private_path(attrs: &[Attribute]) -> syn::Result<TokenStream> {
    let mut krate: Option<Path> = None;
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("form")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                krate = Some(meta.value()?.parse()?);
                Ok(())
            } else {
                Err(meta.error("the only key of `#[form(…)]` is `crate = path`"))
            }
        })?;
    }
    let krate = krate.unwrap_or_else(|| syn::parse_quote!(::mcp_runtime));
    Ok(quote!(#krate::__private))
}
