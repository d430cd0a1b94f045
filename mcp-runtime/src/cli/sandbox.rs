//! The options of `call`, `serve` and `list` for the tools marked `requires_sandbox`, and
//! `check`'s report of what this machine gives them.

use std::path::PathBuf;

use clap::Args;

use super::error::CliError;
use crate::isolation::{Network, Sandboxing, Support};
use crate::registry::Registry;

/// How sandboxed tools run.
#[derive(Args, Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct SandboxArgs {
    /// Let this tool marked `requires_sandbox` run in the server's own process where this
    /// machine cannot isolate it (repeatable); without it, such a call fails, naming what
    /// is missing.
    #[arg(long = "allow-unsandboxed", value_name = "NAME")]
    allow_unsandboxed: Vec<String>,
    /// Let every tool marked `requires_sandbox` run unsandboxed where this machine cannot
    /// isolate it.
    #[arg(long = "allow-unsandboxed-all", conflicts_with = "allow_unsandboxed")]
    allow_unsandboxed_all: bool,
    /// The sandbox policies of this JSON file replace those the tools state:
    /// `{"paths": {"DATA": "/srv/data"}, "tools": {"text.grep": {"read": ["$DATA"],
    /// "memory": "64MiB"}}}`; a key a policy leaves out is at its strict default.
    #[arg(long = "sandbox-policy", value_name = "FILE")]
    sandbox_policy: Option<PathBuf>,
    /// `$NAME` in a sandbox policy's paths stands for DIR (repeatable).
    #[arg(long = "sandbox-path", value_name = "NAME=DIR")]
    sandbox_paths: Vec<String>,
}

impl SandboxArgs {
    /// The sandboxing these options ask for, with `warm` workers kept ready; `None` when
    /// the registry has no sandboxed tool and nothing was asked. The error is a usage
    /// error's message.
    pub(super) fn sandboxing(
        &self,
        registry: &Registry,
        warm: usize,
    ) -> Result<Option<Sandboxing>, CliError> {
        let sandboxed: Vec<&str> = registry
            .list()
            .filter(|tool| registry.sandboxing().policy_of(tool).is_some())
            .map(|tool| tool.name().as_str())
            .collect();
        if sandboxed.is_empty() && *self == Self::default() {
            return Ok(None);
        }
        let known = |flag: &str, name: &str| -> Result<(), CliError> {
            if sandboxed.contains(&name) {
                return Ok(());
            }
            let marked = if sandboxed.is_empty() {
                "no tool is marked requires_sandbox".to_owned()
            } else {
                format!(
                    "the tools marked requires_sandbox are `{}`",
                    sandboxed.join("`, `")
                )
            };
            Err(CliError::NoSuchSandboxedTool {
                flag: flag.to_owned(),
                name: name.to_owned(),
                marked,
            })
        };
        let mut sandboxing = registry.sandboxing().clone().warm(warm).on_command_line();
        if self.allow_unsandboxed_all {
            sandboxing = sandboxing.allow_unsandboxed_all();
        }
        for name in &self.allow_unsandboxed {
            known("--allow-unsandboxed", name)?;
            sandboxing = sandboxing.allow_unsandboxed(name.clone());
        }
        for pair in &self.sandbox_paths {
            let (name, dir) = pair
                .split_once('=')
                .filter(|(name, dir)| !name.is_empty() && !dir.is_empty())
                .ok_or_else(|| CliError::SandboxPath(pair.clone()))?;
            sandboxing = sandboxing.path(name.trim_start_matches('$'), dir);
        }
        if let Some(file) = &self.sandbox_policy {
            let text =
                std::fs::read_to_string(file).map_err(|source| CliError::ReadSandboxPolicy {
                    path: file.clone(),
                    source,
                })?;
            sandboxing =
                sandboxing
                    .with_policy_file(&text)
                    .map_err(|problem| CliError::SandboxPolicy {
                        path: file.clone(),
                        problem,
                    })?;
            for name in sandboxing.policies().keys() {
                known(&format!("--sandbox-policy `{}`", file.display()), name)?;
            }
        }
        Ok(Some(sandboxing))
    }
}

/// A machine that lacks what isolating the sandboxed tools needs: they refuse to run.
#[derive(Debug, thiserror::Error)]
#[error(
    "sandbox: {support}; this machine lacks {missing}, so the {sandboxed} tool(s) marked requires_sandbox refuse to run unless allowed with `--allow-unsandboxed NAME`"
)]
pub(super) struct SandboxLacking {
    /// What the machine gives, as `check` shows it.
    support: String,
    /// What it lacks.
    missing: String,
    /// How many tools are marked `requires_sandbox`.
    sandboxed: usize,
}

/// What `check` says of the sandbox, when the registry has sandboxed tools: what this
/// machine gives them, or what it lacks (an error unless every such tool may run
/// unsandboxed, which `check` cannot know, so it is one).
pub(super) fn support_line(registry: &Registry) -> Option<Result<String, SandboxLacking>> {
    let sandboxed = registry
        .list()
        .filter(|tool| registry.sandboxing().policy_of(tool).is_some())
        .count();
    if sandboxed == 0 {
        return None;
    }
    let support: Support = match super::runtime() {
        Ok(runtime) => runtime.block_on(crate::isolation::support()),
        Err(err) => Support {
            missing: Some(err.to_string()),
            ..Support::default()
        },
    };
    // The probe isolates itself as the strict policy says; a tool whose network is `any`
    // keeps the host's network namespace, and the line says which do.
    let host_network: Vec<&str> = registry
        .list()
        .filter(|tool| {
            registry
                .sandboxing()
                .policy_of(tool)
                .is_some_and(|policy| policy.network == Network::Any)
        })
        .map(|tool| tool.name().as_str())
        .collect();
    let host_network = if host_network.is_empty() {
        String::new()
    } else {
        format!(
            ", {} of them in the host's network namespace (network any): `{}`",
            host_network.len(),
            host_network.join("`, `")
        )
    };
    Some(match &support.missing {
        None => Ok(format!(
            "sandbox: {support}; {sandboxed} tool(s) marked requires_sandbox run isolated{host_network}"
        )),
        Some(missing) => Err(SandboxLacking {
            support: support.to_string(),
            missing: missing.clone(),
            sandboxed,
        }),
    })
}
