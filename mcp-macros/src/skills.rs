//! `skills!("skills/")`: a folder of Agent Skills embedded at compile time. The argument is
//! read (`$NAME` at its start taken from the environment), the folder walked
//! (`folder.rs`), each skill checked with the very reader the server uses
//! (`mcp_runtime_core::skill`), and each registered with `inventory`, its files through
//! `include_bytes!`. Every error sits on the argument and names the file at fault
//! (`error.rs`); all of them are reported together.

mod error;
mod folder;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::env;
use std::fs;
use std::path::{Component, Path, PathBuf};

use mcp_runtime_core::skill::{MAX_RESOURCES_PER_SKILL, MAX_TOTAL_SIZE, SKILL_FILE, front_matter};
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::LitStr;

use error::SkillsError;
use folder::{Found, FoundFile, join};

/// A skill that passed every check.
struct Skill {
    name: String,
    /// Its folder, relative to the macro's folder.
    folder: String,
    /// `SKILL.md` first, then in path order.
    files: Vec<FoundFile>,
}

/// The folder the argument names, and the environment variable it begins with, if any.
struct Root {
    path: PathBuf,
    variable: Option<String>,
}

/// The macro: the registrations, or every error on the argument.
pub(crate) fn skills(input: TokenStream) -> TokenStream {
    let literal: LitStr = match syn::parse2(input) {
        Ok(literal) => literal,
        Err(error) => {
            let message = "expected the path of a folder of skills, as `skills!(\"skills/\")`";
            return syn::Error::new(error.span(), message).to_compile_error();
        }
    };
    match read(&literal.value()) {
        Ok((root, skills)) => registrations(&literal, &root, &skills),
        Err(errors) => {
            let mut all = errors
                .into_iter()
                .map(|error| syn::Error::new(literal.span(), error));
            let mut first = all.next().unwrap_or_else(|| {
                syn::Error::new(literal.span(), SkillsError::NoSkill(literal.value()))
            });
            all.for_each(|error| first.combine(error));
            first.to_compile_error()
        }
    }
}

/// The folder the argument names, walked and checked.
fn read(argument: &str) -> Result<(Root, Vec<Skill>), Vec<SkillsError>> {
    let root = root(argument).map_err(|error| vec![error])?;
    let skills = read_folder(&root.path, argument)?;
    Ok((root, skills))
}

/// The skills of the folder at `path`, which the macro's argument spells `argument`.
fn read_folder(path: &Path, argument: &str) -> Result<Vec<Skill>, Vec<SkillsError>> {
    let found = folder::walk(path, argument).map_err(|error| vec![error])?;
    if found.is_empty() {
        return Err(vec![SkillsError::NoSkill(argument.to_owned())]);
    }
    let shown = |folder: &str| shown(argument, folder);
    let mut skills = Vec::new();
    let mut errors = Vec::new();
    for skill in found {
        match check(skill, path, &shown) {
            Ok(skill) => skills.push(skill),
            Err(mut more) => errors.append(&mut more),
        }
    }
    let mut seen: BTreeMap<&str, &str> = BTreeMap::new();
    for skill in &skills {
        if let Some(first) = seen.insert(&skill.name, &skill.folder) {
            errors.push(SkillsError::Duplicate {
                name: skill.name.clone(),
                first: shown(first),
                second: shown(&skill.folder),
            });
        }
    }
    if errors.is_empty() {
        Ok(skills)
    } else {
        Err(errors)
    }
}

/// A path relative to the macro's folder, as the argument spells it.
fn shown(argument: &str, relative: &str) -> String {
    let root = argument.trim_end_matches('/');
    match (root.is_empty(), relative.is_empty()) {
        (_, true) => argument.to_owned(),
        (true, false) => relative.to_owned(),
        (false, false) => format!("{root}/{relative}"),
    }
}

/// Where the argument points: under the crate's manifest folder, or under the value of the
/// environment variable it begins with (`$OUT_DIR/skills`).
fn root(argument: &str) -> Result<Root, SkillsError> {
    let Some(rest) = argument.strip_prefix('$') else {
        let manifest = env::var_os("CARGO_MANIFEST_DIR").ok_or(SkillsError::NoManifestDir)?;
        return Ok(Root {
            path: Path::new(&manifest).join(argument),
            variable: None,
        });
    };
    let (name, tail) = rest.split_once('/').unwrap_or((rest, ""));
    let well_formed = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !well_formed {
        return Err(SkillsError::Variable(argument.to_owned()));
    }
    let value = env::var_os(name).ok_or_else(|| SkillsError::Unset(name.to_owned()))?;
    Ok(Root {
        path: Path::new(&value).join(tail),
        variable: Some(name.to_owned()),
    })
}

/// One skill's checks: its size, its `SKILL.md`'s front matter, its name against its
/// folder's. Its files come out `SKILL.md` first, then in path order.
fn check(
    found: Found,
    root: &Path,
    shown: &dyn Fn(&str) -> String,
) -> Result<Skill, Vec<SkillsError>> {
    let Found { folder, mut files } = found;
    let mut errors = Vec::new();
    if files.len() > MAX_RESOURCES_PER_SKILL {
        errors.push(SkillsError::TooManyFiles {
            shown: shown(&folder),
            count: files.len(),
        });
    }
    let size: u64 = files.iter().map(|file| file.size).sum();
    if size > MAX_TOTAL_SIZE {
        errors.push(SkillsError::TooLarge {
            shown: shown(&folder),
            size,
        });
    }
    let folder_name = match folder.rsplit('/').next().filter(|name| !name.is_empty()) {
        Some(name) => name.to_owned(),
        None => root_name(root).unwrap_or_default(),
    };
    let skill_file = shown(&join(&folder, SKILL_FILE));
    match read_name(root, &folder, &skill_file) {
        Ok(name) if name == folder_name => {}
        Ok(name) => errors.push(SkillsError::NameMismatch {
            shown: skill_file,
            name,
            folder: folder_name.clone(),
        }),
        Err(error) => errors.push(error),
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    files.sort_by(|a, b| {
        (a.path != SKILL_FILE, a.path.as_str()).cmp(&(b.path != SKILL_FILE, b.path.as_str()))
    });
    Ok(Skill {
        name: folder_name,
        folder,
        files,
    })
}

/// The name of the macro's folder itself, when it is the skill: its last component.
fn root_name(root: &Path) -> Option<String> {
    let last = root
        .components()
        .rev()
        .find(|c| !matches!(c, Component::CurDir));
    match last {
        Some(Component::Normal(name)) => name.to_str().map(str::to_owned),
        _ => fs::canonicalize(root)
            .ok()?
            .file_name()?
            .to_str()
            .map(str::to_owned),
    }
}

/// The `name` in a skill's `SKILL.md`, its front matter checked.
fn read_name(root: &Path, folder: &str, skill_file: &str) -> Result<String, SkillsError> {
    let path = root.join(folder).join(SKILL_FILE);
    let bytes = fs::read(&path).map_err(|source| SkillsError::Io {
        shown: skill_file.to_owned(),
        source,
    })?;
    let text = String::from_utf8(bytes).map_err(|_| SkillsError::NotUtf8(skill_file.to_owned()))?;
    let front = front_matter(&text).map_err(|source| SkillsError::FrontMatter {
        shown: skill_file.to_owned(),
        source,
    })?;
    Ok(front.name().to_owned())
}

/// One `inventory::submit!` per skill, each file through `include_bytes!` of its path on
/// disk (cargo then rebuilds the crate when one changes), and a use of the environment
/// variable the path began with (cargo then rebuilds it when the variable changes).
fn registrations(literal: &LitStr, root: &Root, skills: &[Skill]) -> TokenStream {
    let private = quote!(::mcp_runtime::__private);
    let span = literal.span();
    let location = quote_spanned! {span=>
        #private::Location {
            file: ::core::file!(),
            line: ::core::line!(),
            column: ::core::column!(),
            module_path: ::core::module_path!(),
        }
    };
    let variable = root.variable.as_ref().map(|name| {
        quote!(
            const _: &str = ::core::env!(#name);
        )
    });
    let mut submitted = Vec::new();
    for (index, skill) in skills.iter().enumerate() {
        let files_static = format_ident!("__MCP_SKILL_FILES_{}", index);
        let files = match skill_files(skill, literal) {
            Ok(files) => files,
            Err(error) => return syn::Error::new(span, error).to_compile_error(),
        };
        let count = files.len();
        let name = &skill.name;
        submitted.push(quote! {
            static #files_static: [#private::SkillFile; #count] = [#(#files),*];
            #private::inventory::submit! {
                #private::SkillRegistration::new(#name, &#files_static, #location)
            }
        });
    }
    quote! {
        const _: () = {
            #variable
            #(#submitted)*
        };
    }
}

/// A skill's files as `SkillFile`s, each with its bytes included from its path on disk.
fn skill_files(skill: &Skill, literal: &LitStr) -> Result<Vec<TokenStream>, SkillsError> {
    let private = quote!(::mcp_runtime::__private);
    let argument = literal.value();
    skill
        .files
        .iter()
        .map(|file| {
            let absolute = file.absolute.to_str().ok_or_else(|| {
                SkillsError::NotUtf8Path(shown(&argument, &join(&skill.folder, &file.path)))
            })?;
            let path = &file.path;
            Ok(quote!(#private::SkillFile::new(#path, ::core::include_bytes!(#absolute))))
        })
        .collect()
}
