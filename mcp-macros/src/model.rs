//! Reads the user's function into a model: its parameters, their documentation and
//! attributes, the kind of value it returns, and its documentation.

use syn::{Attribute, FnArg, Ident, ItemFn, Pat, ReturnType, Type};

/// One parameter of the tool function.
pub(crate) struct Param {
    /// The parameter's name (the pattern, when it is a plain identifier).
    pub(crate) ident: Option<Ident>,
    /// The original parameter, for errors that point at it.
    pub(crate) original: FnArg,
    /// Its type.
    pub(crate) ty: Type,
    /// `#[doc]`, `#[serde]` and `#[schemars]` attributes, moved to the arguments struct.
    pub(crate) field_attrs: Vec<Attribute>,
}

/// What the function returns, which decides how its value becomes a result.
pub(crate) enum Returns {
    /// Nothing: a success without data.
    Unit,
    /// A value that is serialized as the data.
    Value(Type),
    /// A `Result<T, E>` (or an alias of one): `Ok` is the data, `Err` a failure.
    Result(Type),
    /// An `MCPToolResult`, passed through unchanged.
    ToolResult,
}

/// The function as the attribute sees it.
pub(crate) struct Tool {
    pub(crate) item: ItemFn,
    pub(crate) params: Vec<Param>,
    pub(crate) returns: Returns,
    /// The title from a leading `# Heading` of the doc comment.
    pub(crate) doc_title: Option<String>,
    /// The doc comment, less a leading heading.
    pub(crate) doc_description: Option<String>,
}

impl Tool {
    /// Reads `item`, taking the field attributes off its parameters: the function the user
    /// keeps is `item` as it is afterwards.
    pub(crate) fn from_item(mut item: ItemFn) -> Self {
        let params = item
            .sig
            .inputs
            .iter_mut()
            .map(|arg| {
                let original = arg.clone();
                match arg {
                    FnArg::Typed(pat_type) => {
                        let (field_attrs, kept) = pat_type.attrs.drain(..).partition(is_field_attr);
                        pat_type.attrs = kept;
                        let ident = match &*pat_type.pat {
                            Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => {
                                Some(pat.ident.clone())
                            }
                            _ => None,
                        };
                        Param {
                            ident,
                            original,
                            ty: (*pat_type.ty).clone(),
                            field_attrs,
                        }
                    }
                    FnArg::Receiver(receiver) => Param {
                        ident: None,
                        original,
                        ty: (*receiver.ty).clone(),
                        field_attrs: Vec::new(),
                    },
                }
            })
            .collect();
        let returns = returns(&item.sig.output);
        let (doc_title, doc_description) = split_doc(&doc_lines(&item.attrs));
        Self {
            item,
            params,
            returns,
            doc_title,
            doc_description,
        }
    }
}

fn is_field_attr(attr: &Attribute) -> bool {
    ["doc", "serde", "schemars"]
        .iter()
        .any(|name| attr.path().is_ident(name))
}

fn returns(output: &ReturnType) -> Returns {
    let ty = match output {
        ReturnType::Default => return Returns::Unit,
        ReturnType::Type(_, ty) => &**ty,
    };
    match ty {
        Type::Tuple(tuple) if tuple.elems.is_empty() => Returns::Unit,
        Type::Path(path) if path.qself.is_none() => match path.path.segments.last() {
            Some(last) if last.ident == "Result" => Returns::Result(ty.clone()),
            Some(last) if last.ident == "MCPToolResult" => Returns::ToolResult,
            _ => Returns::Value(ty.clone()),
        },
        _ => Returns::Value(ty.clone()),
    }
}

/// The lines of the `///` comments, with the one space after `///` removed.
fn doc_lines(attrs: &[Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter(|attr| attr.path().is_ident("doc"))
        .filter_map(|attr| match &attr.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .flat_map(|text| text.lines().map(str::to_owned).collect::<Vec<_>>())
        .map(|line| line.strip_prefix(' ').map(str::to_owned).unwrap_or(line))
        .collect()
}

/// A leading `# Heading` becomes the title; the rest, trimmed, the description.
fn split_doc(lines: &[String]) -> (Option<String>, Option<String>) {
    let mut rest = lines
        .iter()
        .map(|line| line.trim_end())
        .skip_while(|line| line.trim().is_empty());
    let mut title = None;
    let mut body: Vec<&str> = Vec::new();
    if let Some(first) = rest.next() {
        match first.trim_start().strip_prefix("# ") {
            Some(heading) => title = Some(heading.trim().to_owned()),
            None => body.push(first),
        }
    }
    body.extend(rest);
    let description = body.join("\n").trim().to_owned();
    (title, (!description.is_empty()).then_some(description))
}
