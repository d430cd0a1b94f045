//! Reads the user's function into a model: its parameters, their documentation and
//! attributes, the kind of value it returns, and its documentation. A tool's is a
//! [`Tool`]; a resource's or a prompt's, whose parameters are read one by one from strings,
//! an [`Item`].

use crate::attr::{self, Complete, Errors, Header};
use syn::{
    Attribute, Expr, ExprLit, FnArg, GenericArgument, Ident, ItemFn, Lit, LitStr, Meta, Pat,
    PathArguments, ReturnType, Type,
};

/// What a parameter is to the tool.
pub(crate) enum ParamKind {
    /// An argument: a property of the input schema.
    Argument,
    /// The injected `ToolContext`, by reference or by value.
    Context {
        /// Taken as `&ToolContext`.
        by_ref: bool,
        /// Taken as `&mut ToolContext`, which is refused.
        mutable: bool,
    },
    /// A value the registry shares with its tools: `State<T>` (by any path ending in
    /// `State`, with one type argument), by reference or by value.
    State {
        /// The type taken, less a reference: `State<T>`.
        ty: Box<Type>,
        /// `T`.
        inner: Box<Type>,
        /// Taken as `&State<T>`.
        by_ref: bool,
        /// Taken as `&mut State<T>`, which is refused.
        mutable: bool,
    },
}

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
    /// `#[mcp(header = "…")]`: the HTTP header the argument is mirrored into.
    pub(crate) header: Option<Header>,
    /// Argument or context.
    pub(crate) kind: ParamKind,
}

impl Param {
    /// The property names this argument is read from: its serde name and aliases.
    pub(crate) fn property_names(&self) -> Vec<String> {
        let mut name = self.ident.as_ref().map(|ident| {
            let name = ident.to_string();
            name.strip_prefix("r#").unwrap_or(&name).to_owned()
        });
        let mut aliases = Vec::new();
        for_each_serde_meta(&self.field_attrs, |meta| match meta {
            Meta::NameValue(nv) if nv.path.is_ident("rename") => {
                if let Some(value) = lit_str(&nv.value) {
                    name = Some(value.value());
                }
            }
            Meta::List(list) if list.path.is_ident("rename") => {
                let _ = list.parse_nested_meta(|nested| {
                    let value: LitStr = nested.value()?.parse()?;
                    if nested.path.is_ident("deserialize") {
                        name = Some(value.value());
                    }
                    Ok(())
                });
            }
            Meta::NameValue(nv) if nv.path.is_ident("alias") => {
                if let Some(value) = lit_str(&nv.value) {
                    aliases.push(value.value());
                }
            }
            _ => {}
        });
        name.into_iter().chain(aliases).collect()
    }

    /// Whether the schema lists exactly the names this argument is read from: no
    /// `#[serde(alias)]`, `flatten` or `rename(…)` with names per direction, and no
    /// `#[schemars]` attribute, which could give the schema a name of its own.
    pub(crate) fn names_exact(&self) -> bool {
        let mut exact = !self
            .field_attrs
            .iter()
            .any(|attr| attr.path().is_ident("schemars"));
        for_each_serde_meta(&self.field_attrs, |meta| match meta {
            Meta::NameValue(nv) if nv.path.is_ident("alias") => exact = false,
            Meta::Path(path) if path.is_ident("flatten") => exact = false,
            Meta::List(list) if list.path.is_ident("rename") => exact = false,
            _ => {}
        });
        exact
    }

    /// Whether a serde attribute ties the field to its exact type (`default`, which calls
    /// the type's `Default` or a function returning it, or a `deserialize_with`/`with`
    /// module), so it cannot be generic.
    pub(crate) fn needs_concrete_type(&self) -> bool {
        let mut concrete = false;
        for_each_serde_meta(&self.field_attrs, |meta| {
            let path = meta.path();
            if path.is_ident("default")
                || path.is_ident("deserialize_with")
                || path.is_ident("with")
            {
                concrete = true;
            }
        });
        concrete
    }
}

/// Calls `f` with every item of every `#[serde(...)]` attribute in `attrs`.
fn for_each_serde_meta(attrs: &[Attribute], mut f: impl FnMut(&Meta)) {
    let parser = syn::punctuated::Punctuated::<Meta, syn::Token![,]>::parse_terminated;
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("serde")) {
        if let Ok(items) = attr.parse_args_with(parser) {
            items.iter().for_each(&mut f);
        }
    }
}

fn lit_str(expr: &Expr) -> Option<&LitStr> {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => Some(s),
        _ => None,
    }
}

/// What the function returns, which decides how its value becomes a result.
pub(crate) enum Returns {
    /// Nothing: a success without data.
    Unit,
    /// A value that is serialized as the data.
    Value(Type),
    /// A `Result<T, E>` (or an alias of one): `Ok` is the data, `Err` a failure. The `Ok`
    /// and `Err` types are given when written out, for errors that point at them.
    Result {
        ty: Box<Type>,
        ok: Option<Box<Type>>,
        err: Option<Box<Type>>,
    },
    /// An `MCPToolResult`, passed through unchanged.
    ToolResult,
}

impl Returns {
    /// The type written as the return type, when its value becomes the data.
    pub(crate) fn output_type(&self) -> Option<&Type> {
        match self {
            Self::Value(ty) => Some(ty),
            Self::Result { ty, .. } => Some(ty),
            Self::Unit | Self::ToolResult => None,
        }
    }
}

/// The function as the attribute sees it.
pub(crate) struct Tool {
    pub(crate) item: ItemFn,
    pub(crate) params: Vec<Param>,
    pub(crate) returns: Returns,
    /// The function's doc comment.
    pub(crate) doc: Doc,
}

impl Tool {
    /// Reads `item`, taking the field attributes and `#[mcp(...)]` off its parameters: the
    /// function the user keeps is `item` as it is afterwards. Errors in `#[mcp(...)]` are
    /// added to `errors`.
    pub(crate) fn from_item(mut item: ItemFn, errors: &mut Errors) -> Self {
        let params = item
            .sig
            .inputs
            .iter_mut()
            .map(|arg| param(arg, errors))
            .collect();
        let returns = returns(&item.sig.output);
        let doc = split_doc(&doc_lines(&item.attrs));
        Self {
            item,
            params,
            returns,
            doc,
        }
    }

    /// The parameters that are arguments.
    pub(crate) fn arguments(&self) -> impl Iterator<Item = &Param> {
        self.params
            .iter()
            .filter(|param| matches!(param.kind, ParamKind::Argument))
    }
}

fn param(arg: &mut FnArg, errors: &mut Errors) -> Param {
    let original = arg.clone();
    match arg {
        FnArg::Typed(pat_type) => {
            let (field_attrs, kept): (Vec<_>, Vec<_>) =
                pat_type.attrs.drain(..).partition(is_field_attr);
            let (mcp_attrs, kept): (Vec<_>, Vec<_>) = kept
                .into_iter()
                .partition(|attr| attr.path().is_ident("mcp"));
            pat_type.attrs = kept;
            let header = attr::parse_param(&mcp_attrs, &attr::TOOL_PARAM_KEYS, errors).header;
            let ident = match &*pat_type.pat {
                Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => {
                    Some(pat.ident.clone())
                }
                _ => None,
            };
            Param {
                ident,
                original,
                kind: param_kind(&pat_type.ty),
                ty: (*pat_type.ty).clone(),
                field_attrs,
                header,
            }
        }
        FnArg::Receiver(receiver) => Param {
            ident: None,
            original,
            ty: (*receiver.ty).clone(),
            field_attrs: Vec::new(),
            header: None,
            kind: ParamKind::Argument,
        },
    }
}

fn is_field_attr(attr: &Attribute) -> bool {
    ["doc", "serde", "schemars"]
        .iter()
        .any(|name| attr.path().is_ident(name))
}

/// `ToolContext`, `&ToolContext` (by any path ending in `ToolContext`) are the context;
/// `State<T>`, `&State<T>` (by any path ending in `State`, with one type argument) a state.
fn param_kind(ty: &Type) -> ParamKind {
    let (taken, by_ref, mutable) = match ty {
        Type::Reference(reference) => (&*reference.elem, true, reference.mutability.is_some()),
        other => (other, false, false),
    };
    let Type::Path(path) = taken else {
        return ParamKind::Argument;
    };
    let Some(last) = path.path.segments.last().filter(|_| path.qself.is_none()) else {
        return ParamKind::Argument;
    };
    if last.ident == "ToolContext" {
        return ParamKind::Context { by_ref, mutable };
    }
    match &last.arguments {
        PathArguments::AngleBracketed(args) if last.ident == "State" && args.args.len() == 1 => {
            match args.args.first() {
                Some(GenericArgument::Type(inner)) => ParamKind::State {
                    ty: Box::new(taken.clone()),
                    inner: Box::new(inner.clone()),
                    by_ref,
                    mutable,
                },
                _ => ParamKind::Argument,
            }
        }
        _ => ParamKind::Argument,
    }
}

fn returns(output: &ReturnType) -> Returns {
    let ty = match output {
        ReturnType::Default => return Returns::Unit,
        ReturnType::Type(_, ty) => &**ty,
    };
    if let Some((ok, err)) = result_types(ty) {
        return Returns::Result {
            ty: Box::new(ty.clone()),
            ok: ok.map(Box::new),
            err: err.map(Box::new),
        };
    }
    match ty {
        Type::Tuple(tuple) if tuple.elems.is_empty() => Returns::Unit,
        Type::Path(path)
            if path.qself.is_none()
                && path
                    .path
                    .segments
                    .last()
                    .is_some_and(|last| last.ident == "MCPToolResult") =>
        {
            Returns::ToolResult
        }
        _ => Returns::Value(ty.clone()),
    }
}

/// The `Ok` and `Err` types written in a return type named `Result` (the last segment of its
/// path), each when written (`anyhow::Result<T>` writes no `Err`); `None` for any other type.
pub(crate) fn result_types(ty: &Type) -> Option<(Option<Type>, Option<Type>)> {
    let Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    if path.qself.is_some() || last.ident != "Result" {
        return None;
    }
    let mut types = match &last.arguments {
        PathArguments::AngleBracketed(args) => args
            .args
            .iter()
            .filter_map(|arg| match arg {
                GenericArgument::Type(ty) => Some(ty.clone()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
    .into_iter();
    Some((types.next(), types.next()))
}

/// One parameter of a resource or prompt function.
pub(crate) struct Input {
    /// The parameter's name, when it is a plain identifier.
    pub(crate) ident: Option<Ident>,
    /// The original parameter, for errors that point at it.
    pub(crate) original: FnArg,
    /// Its type.
    pub(crate) ty: Type,
    /// Its doc comment, taken off the parameter: the argument's description.
    pub(crate) doc: Option<String>,
    /// `#[mcp(complete = path)]`, taken off the parameter.
    pub(crate) complete: Option<Complete>,
}

impl Input {
    /// The name clients use: the parameter's, less a leading `r#`.
    pub(crate) fn name(&self) -> Option<String> {
        self.ident.as_ref().map(|ident| {
            let name = ident.to_string();
            name.strip_prefix("r#").unwrap_or(&name).to_owned()
        })
    }

    /// `T` when the type is `Option<T>`: an argument that may be left out.
    pub(crate) fn optional(&self) -> Option<&Type> {
        let Type::Path(path) = &self.ty else {
            return None;
        };
        let last = path.path.segments.last()?;
        if path.qself.is_some() || last.ident != "Option" {
            return None;
        }
        match &last.arguments {
            PathArguments::AngleBracketed(args) if args.args.len() == 1 => {
                match args.args.first()? {
                    GenericArgument::Type(ty) => Some(ty),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

/// A resource or prompt function as its attribute sees it.
pub(crate) struct Item {
    pub(crate) item: ItemFn,
    pub(crate) inputs: Vec<Input>,
    /// The return type, if one is written.
    pub(crate) output: Option<Type>,
    /// The function's doc comment, read as a tool's is.
    pub(crate) doc: Doc,
}

impl Item {
    /// Reads `item`, taking doc comments and `#[mcp(...)]` off its parameters: the function
    /// the user keeps is `item` as it is afterwards. Errors in `#[mcp(...)]` are added to
    /// `errors`.
    pub(crate) fn from_item(mut item: ItemFn, errors: &mut Errors) -> Self {
        let inputs = item
            .sig
            .inputs
            .iter_mut()
            .map(|arg| input(arg, errors))
            .collect();
        let output = match &item.sig.output {
            ReturnType::Default => None,
            ReturnType::Type(_, ty) => Some((**ty).clone()),
        };
        let doc = split_doc(&doc_lines(&item.attrs));
        Self {
            item,
            inputs,
            output,
            doc,
        }
    }

    /// The function's name, less a leading `r#`.
    pub(crate) fn name(&self) -> String {
        let ident = self.item.sig.ident.to_string();
        ident.strip_prefix("r#").unwrap_or(&ident).to_owned()
    }
}

fn input(arg: &mut FnArg, errors: &mut Errors) -> Input {
    let original = arg.clone();
    match arg {
        FnArg::Typed(pat_type) => {
            let (docs, kept): (Vec<_>, Vec<_>) = pat_type
                .attrs
                .drain(..)
                .partition(|attr| attr.path().is_ident("doc"));
            let (mcp_attrs, kept): (Vec<_>, Vec<_>) = kept
                .into_iter()
                .partition(|attr| attr.path().is_ident("mcp"));
            pat_type.attrs = kept;
            let complete = attr::parse_param(&mcp_attrs, &attr::ITEM_PARAM_KEYS, errors).complete;
            let doc = doc_lines(&docs).join("\n").trim().to_owned();
            let ident = match &*pat_type.pat {
                Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => {
                    Some(pat.ident.clone())
                }
                _ => None,
            };
            Input {
                ident,
                original,
                ty: (*pat_type.ty).clone(),
                doc: (!doc.is_empty()).then_some(doc),
                complete,
            }
        }
        FnArg::Receiver(receiver) => Input {
            ident: None,
            original,
            ty: (*receiver.ty).clone(),
            doc: None,
            complete: None,
        },
    }
}

/// The lines of the `///` comments, with the one space after `///` removed.
pub(crate) fn doc_lines(attrs: &[Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter(|attr| attr.path().is_ident("doc"))
        .filter_map(|attr| match &attr.meta {
            Meta::NameValue(nv) => lit_str(&nv.value).map(LitStr::value),
            _ => None,
        })
        // A blank `///` line is an empty string, which has no lines: keep it as one.
        .flat_map(|text| match text.is_empty() {
            true => vec![String::new()],
            false => text.lines().map(str::to_owned).collect::<Vec<_>>(),
        })
        .map(|line| line.strip_prefix(' ').map(str::to_owned).unwrap_or(line))
        .collect()
}

/// What a function's doc comment gives its definition.
pub(crate) struct Doc {
    /// The title: a leading `# Heading`, or else the first line.
    pub(crate) title: Option<String>,
    /// The comment, less a leading heading.
    pub(crate) description: Option<String>,
}

/// A leading `# Heading` is the title and the rest the description. Without a heading the
/// first line is the title and the whole comment the description, so that a model reading
/// only the description still reads the summary line.
fn split_doc(lines: &[String]) -> Doc {
    let lines: Vec<&str> = lines
        .iter()
        .map(|line| line.trim_end())
        .skip_while(|line| line.trim().is_empty())
        .collect();
    let Some(first) = lines.first() else {
        return Doc {
            title: None,
            description: None,
        };
    };
    let (title, body) = match first.trim_start().strip_prefix("# ") {
        Some(heading) => (heading.trim().to_owned(), &lines[1..]),
        None => (first.trim().trim_end_matches('.').to_owned(), &lines[..]),
    };
    let description = body.join("\n").trim().to_owned();
    Doc {
        title: (!title.is_empty()).then_some(title),
        description: (!description.is_empty()).then_some(description),
    }
}
