//! `requires_sandbox(read = [...], network = "...", ...)`: the policy a sandboxed tool
//! states, each key checked as it is read, each mistake an error on its token.

use proc_macro2::{Span, TokenStream};
use syn::Ident;
use syn::meta::ParseNestedMeta;

use super::{
    Args, Spanned, TOOL, flag_with, key_at, key_of, one_of, parse_all, set, unknown_key, value_expr,
};

/// What the keys of `requires_sandbox(...)` are called in messages.
const SANDBOX: &str = "`requires_sandbox` key";

/// The keys `requires_sandbox(...)` accepts: those of `mcp_runtime_core::sandbox::SandboxPolicy`.
const SANDBOX_KEYS: [&str; 6] = ["read", "write", "network", "memory", "env", "processes"];

/// The least memory a sandboxed tool may be given: what its worker needs to start, as
/// `mcp_runtime_core::sandbox::parse_memory` says.
const MIN_SANDBOX_MEMORY: u64 = 16 * 1024 * 1024;

/// `requires_sandbox(read = ["/srv/data"], network = "loopback", ...)`: what a sandboxed
/// tool may reach, checked as it is read; each key left out is at its strict default.
#[derive(Default)]
pub(crate) struct SandboxArgs {
    /// Paths it may read, each absolute or starting with `$NAME`.
    pub(crate) read: Option<Vec<String>>,
    /// Paths it may read and write, as `read`'s.
    pub(crate) write: Option<Vec<String>>,
    pub(crate) network: Option<SandboxNetwork>,
    /// In bytes, at least [`MIN_SANDBOX_MEMORY`].
    pub(crate) memory: Option<u64>,
    /// Names of environment variables.
    pub(crate) env: Option<Vec<String>>,
    /// At least 1.
    pub(crate) processes: Option<u32>,
}

/// `network = "…"`: what network a sandboxed tool may reach, as
/// `mcp_runtime_core::sandbox::Network` says it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum SandboxNetwork {
    None,
    Loopback,
    Any,
}

impl SandboxNetwork {
    /// Each value with what `network = "…"` calls it, in the order messages list them.
    const ALL: [(&'static str, Self); 3] = [
        ("none", Self::None),
        ("loopback", Self::Loopback),
        ("any", Self::Any),
    ];
}

/// `requires_sandbox`, `requires_sandbox = false`, or `requires_sandbox(read = [...], ...)`,
/// which means true, with a policy.
pub(super) fn requires_sandbox(args: &mut Args, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if !meta.input.peek(syn::token::Paren) {
        let flag = flag_with(meta, |_| {
            "`requires_sandbox` takes `true` or `false`, stands alone, or gives the sandbox's policy: `requires_sandbox(network = \"loopback\")`".to_owned()
        })?;
        return set(meta, TOOL, &mut args.requires_sandbox, flag);
    }
    let key = meta
        .path
        .get_ident()
        .map_or_else(Span::call_site, Ident::span);
    let policy = sandbox_policy(meta)?;
    set(
        meta,
        TOOL,
        &mut args.requires_sandbox,
        Spanned {
            value: true,
            span: key,
        },
    )?;
    args.sandbox = Some(policy);
    Ok(())
}

/// The parenthesized keys of `requires_sandbox(...)`, every mistake among them reported.
fn sandbox_policy(meta: &ParseNestedMeta<'_>) -> syn::Result<SandboxArgs> {
    let content;
    syn::parenthesized!(content in meta.input);
    // Read apart, so that what one key leaves unread is its own error and no other.
    let tokens: TokenStream = content.parse()?;
    let (policy, _, error) = parse_all(tokens, parse_sandbox_one);
    error.map_or(Ok(policy), Err)
}

fn parse_sandbox_one(policy: &mut SandboxArgs, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    const PATHS: &str = "[\"/srv/data\", \"$SCRATCH/in\"]";
    let key = key_at(meta, SANDBOX, &SANDBOX_KEYS)?;
    match key.as_str() {
        "read" => {
            let paths = sandbox_paths(meta, &format!("read = {PATHS}"))?;
            set(meta, SANDBOX, &mut policy.read, paths)
        }
        "write" => {
            let paths = sandbox_paths(meta, "write = [\"$SCRATCH/out\", \"$OUT\"]")?;
            set(meta, SANDBOX, &mut policy.write, paths)
        }
        "network" => set(meta, SANDBOX, &mut policy.network, network(meta)?),
        "memory" => set(meta, SANDBOX, &mut policy.memory, memory(meta)?),
        "env" => set(meta, SANDBOX, &mut policy.env, env_names(meta)?),
        "processes" => set(meta, SANDBOX, &mut policy.processes, processes(meta)?),
        _ => Err(meta.error(unknown_key(SANDBOX, &SANDBOX_KEYS, &key))),
    }
}

/// `key = ["a", "b"]`: string literals in brackets.
fn string_array(meta: &ParseNestedMeta<'_>, example: &str) -> syn::Result<Vec<syn::LitStr>> {
    let key = key_of(meta);
    match value_expr(meta, example)? {
        syn::Expr::Array(array) => array
            .elems
            .into_iter()
            .map(|item| match item {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(lit),
                    ..
                }) => Ok(lit),
                other => Err(syn::Error::new_spanned(
                    other,
                    format!("`{key}` lists string literals: `{example}`"),
                )),
            })
            .collect(),
        other => Err(syn::Error::new_spanned(
            other,
            format!("`{key}` takes a list in brackets: `{example}`"),
        )),
    }
}

/// `read = ["/srv/data", "$SCRATCH/in"]`: each path absolute, or starting with `$NAME`.
fn sandbox_paths(meta: &ParseNestedMeta<'_>, example: &str) -> syn::Result<Vec<String>> {
    string_array(meta, example)?
        .into_iter()
        .map(|lit| {
            let path = lit.value();
            if is_sandbox_path(&path) {
                Ok(path)
            } else {
                Err(syn::Error::new_spanned(
                    lit,
                    format!(
                        "{path:?} is not a path a sandbox can give: a path is absolute, as \"/srv/data\", or starts with `$SCRATCH` (the call's scratch directory) or `$NAME` (a path the server's configuration gives, `--sandbox-path NAME=DIR`), as \"$SCRATCH/in\" or \"$DATA/images\""
                    ),
                ))
            }
        })
        .collect()
}

/// Whether a policy can give `path`: `/…`, or `$NAME` alone or followed by `/…`.
fn is_sandbox_path(path: &str) -> bool {
    if path.starts_with('/') {
        return true;
    }
    let Some(rest) = path.strip_prefix('$') else {
        return false;
    };
    let name = rest.split_once('/').map_or(rest, |(name, _)| name);
    is_variable_name(name)
}

/// `[A-Za-z_][A-Za-z0-9_]*`: an environment variable's name, or a path's in a policy.
fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `env = ["LANG", "TZ"]`: names of environment variables.
fn env_names(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<String>> {
    string_array(meta, "env = [\"LANG\", \"TZ\"]")?
        .into_iter()
        .map(|lit| {
            let name = lit.value();
            if is_variable_name(&name) {
                Ok(name)
            } else {
                Err(syn::Error::new_spanned(
                    lit,
                    format!(
                        "{name:?} is not the name of an environment variable: a name is ASCII letters, digits and `_`, not starting with a digit, as \"LANG\" or \"TZ\""
                    ),
                ))
            }
        })
        .collect()
}

/// `network = "loopback"`: one of [`SandboxNetwork::ALL`]; any other value is refused on
/// the value, naming the three.
fn network(meta: &ParseNestedMeta<'_>) -> syn::Result<SandboxNetwork> {
    one_of(meta, &SandboxNetwork::ALL, "network = \"loopback\"")
}

/// `memory = "1GiB"`: a size, in bytes, of at least [`MIN_SANDBOX_MEMORY`].
fn memory(meta: &ParseNestedMeta<'_>) -> syn::Result<u64> {
    const EXAMPLE: &str = "memory = \"1GiB\"";
    let lit = match value_expr(meta, EXAMPLE)? {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(lit),
            ..
        }) => lit,
        other => {
            return Err(syn::Error::new_spanned(
                other,
                format!("`memory` takes a size as a string, a number and a unit: `{EXAMPLE}`"),
            ));
        }
    };
    memory_bytes(&lit)
}

/// The bytes of `lit`, a size as `mcp_runtime_core::sandbox::parse_memory` reads it, or
/// what is wrong with it, on the literal.
fn memory_bytes(lit: &syn::LitStr) -> syn::Result<u64> {
    let text = lit.value();
    let size: bytesize::ByteSize = text.trim().parse().map_err(|_| {
        syn::Error::new_spanned(
            lit,
            format!(
                "{text:?} is not a size of memory: write a number and a unit, as \"256MiB\", \"1GiB\" or \"512MB\""
            ),
        )
    })?;
    let bytes = size.as_u64();
    if bytes < MIN_SANDBOX_MEMORY {
        let unitless = text.trim().chars().all(|c| c.is_ascii_digit() || c == '.');
        let note = if unitless {
            " (a number without a unit counts bytes)"
        } else {
            ""
        };
        return Err(syn::Error::new_spanned(
            lit,
            format!(
                "{text:?}{note} is less than the 16 MiB a sandboxed tool's worker needs to start: give at least \"16MiB\""
            ),
        ));
    }
    Ok(bytes)
}

/// `processes = 32`: how many processes the tool may run at once, its own included.
fn processes(meta: &ParseNestedMeta<'_>) -> syn::Result<u32> {
    const MESSAGE: &str = "`processes` takes a whole number, at least 1 (the tool's own process counts): `processes = 32`";
    match value_expr(meta, "processes = 32")? {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(lit),
            ..
        }) => match lit.base10_parse::<u32>() {
            Ok(0) => Err(syn::Error::new_spanned(
                lit,
                "`processes = 0` leaves the tool no process to run in, as its own counts: give at least 1",
            )),
            Ok(processes) => Ok(processes),
            Err(_) => Err(syn::Error::new_spanned(lit, MESSAGE)),
        },
        other => Err(syn::Error::new_spanned(other, MESSAGE)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attr::parse;

    #[test]
    fn network_values_are_those_mcp_runtime_core_knows() {
        use mcp_runtime_core::sandbox::Network;
        let core = [Network::None, Network::Loopback, Network::Any];
        for ((name, _), core) in SandboxNetwork::ALL.into_iter().zip(core) {
            assert_eq!(Network::parse(name), Some(core));
        }
    }

    #[test]
    fn memory_is_read_as_mcp_runtime_core_reads_it() {
        use mcp_runtime_core::sandbox::parse_memory;
        let memory = |text: &str| memory_bytes(&syn::LitStr::new(text, Span::call_site()));
        for text in [
            "256MiB", "1 GiB", "512MB", "16MiB", "1.5GiB", "2g", "16777216", "15MiB", "1KiB",
            "1024", "lots", "", "-1GiB", "MiB",
        ] {
            assert_eq!(
                memory(text).ok(),
                parse_memory(text).ok(),
                "{text:?}: {:?}",
                memory(text).map_err(|problem| problem.to_string())
            );
        }
        assert_eq!(memory("1GiB").ok(), Some(1 << 30));
        assert!(
            memory("1024").is_err_and(|problem| problem.to_string().contains("without a unit"))
        );
        assert!(
            memory("8MiB").is_err_and(|problem| !problem.to_string().contains("without a unit"))
        );
    }

    #[test]
    fn sandbox_paths_are_absolute_or_start_with_a_name() {
        for path in [
            "/",
            "/srv/data",
            "$SCRATCH",
            "$SCRATCH/in",
            "$OUT",
            "$_a1/b/../c",
        ] {
            assert!(is_sandbox_path(path), "{path:?}");
        }
        for path in [
            "", "srv", "./srv", "~/srv", "$", "$/x", "$1/x", "${OUT}", "$OUT-2", "$a b",
        ] {
            assert!(!is_sandbox_path(path), "{path:?}");
        }
        for name in ["LANG", "_", "tz", "A_1"] {
            assert!(is_variable_name(name), "{name:?}");
        }
        for name in ["", "1A", "A-B", "A=B", "É"] {
            assert!(!is_variable_name(name), "{name:?}");
        }
    }

    #[test]
    fn a_sandbox_policy_is_read_whole_and_each_mistake_reported() {
        let (args, error) = parse(quote::quote!(requires_sandbox(
            read = ["/srv/data", "$SCRATCH/in"],
            write = ["$OUT"],
            network = "loopback",
            memory = "1GiB",
            env = ["LANG", "TZ"],
            processes = 32
        )));
        assert!(error.is_none());
        assert!(args.requires_sandbox.is_some_and(|flag| flag.value));
        let policy = args.sandbox.expect("a policy");
        assert_eq!(
            policy.read.as_deref(),
            Some(&["/srv/data".to_owned(), "$SCRATCH/in".to_owned()][..])
        );
        assert_eq!(policy.write.as_deref(), Some(&["$OUT".to_owned()][..]));
        assert!(policy.network == Some(SandboxNetwork::Loopback));
        assert_eq!(policy.memory, Some(1 << 30));
        assert_eq!(policy.env.map(|env| env.len()), Some(2));
        assert_eq!(policy.processes, Some(32));

        let (args, error) = parse(quote::quote!(requires_sandbox()));
        assert!(error.is_none() && args.sandbox.is_some());

        let (args, error) = parse(quote::quote!(
            requires_sandbox(netwrk = "any", read = ["x"], memory, processes = 0),
            inline
        ));
        let messages: Vec<String> = error
            .expect("refused")
            .into_iter()
            .map(|err| err.to_string())
            .collect();
        assert_eq!(messages.len(), 4, "{messages:#?}");
        assert!(
            messages[0].contains("did you mean `network`?"),
            "{messages:#?}"
        );
        assert!(args.inline.is_some(), "the keys after it are read");
        assert!(args.failed.contains(&"requires_sandbox".to_owned()));

        let (_, error) = parse(quote::quote!(requires_sandbox, requires_sandbox(env = [])));
        assert!(error.is_some_and(|err| err.to_string().contains("give it once")));
    }
}
