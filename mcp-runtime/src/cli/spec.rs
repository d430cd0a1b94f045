//! `spec`: the specifications of the tools, resources, templates and prompts, and their
//! index, written into a directory.

use std::io::{self, IsTerminal, Write};

use clap::Args;
use mcp_runtime_core::MCPToolCall;

use super::FAILURE;
use crate::registry::Registry;
use crate::spec;

// The arguments of `spec`.
#[derive(Args)]
pub(super) struct SpecArgs {
    /// The directory to write into: `DIR/README.md`, `DIR/<tool>/MCP_TOOL_SPECIFICATION.md`,
    /// `DIR/resources/<name>/MCP_RESOURCE_SPECIFICATION.md` (templates too) and
    /// `DIR/prompts/<name>/MCP_PROMPT_SPECIFICATION.md`. Without it, `tool-specs` in the
    /// current directory; the folder written is printed on standard output.
    #[arg(long, value_name = "DIR", default_value = "tool-specs")]
    out: std::path::PathBuf,
}

/// `spec`, its examples of commands naming the command line `program`.
pub(super) fn run(registry: &Registry, args: &SpecArgs, program: &str) -> u8 {
    write_specs(registry, &args.out, program)
}

/// `spec`: the specifications and their index under `out`.
fn write_specs(registry: &Registry, out: &std::path::Path, program: &str) -> u8 {
    let write = |path: std::path::PathBuf, text: String| {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, text)
    };
    let kinds = spec::kind_specifications(registry, program);
    let total = registry.len() + kinds.len();
    let progress = progress_bar(total, io::stderr().is_terminal());
    for tool in registry.list() {
        progress.set_message(tool.name().to_string());
        let path = out.join(tool.name().as_str()).join(spec::SPEC_FILE);
        let definition = tool.definition();
        let hints = definition.annotations();
        let runnable = hints.read_only == Some(true) && !hints.dangerous;
        let run = |arguments: &serde_json::Map<String, serde_json::Value>| {
            let call = MCPToolCall {
                tool_name: definition.name().clone(),
                arguments: arguments.clone(),
            };
            runnable.then(|| registry.call_blocking(call))
        };
        if let Err(err) = write(path.clone(), spec::specification(tool, run)) {
            progress.abandon();
            eprintln!("error: cannot write {}: {err}", path.display());
            return FAILURE;
        }
        progress.inc(1);
    }
    for (path, text) in kinds {
        progress.set_message(path.display().to_string());
        let path = out.join(path);
        if let Err(err) = write(path.clone(), text) {
            progress.abandon();
            eprintln!("error: cannot write {}: {err}", path.display());
            return FAILURE;
        }
        progress.inc(1);
    }
    progress.finish_and_clear();
    let index = out.join("README.md");
    let text = spec::index(registry.list()) + &spec::kinds_index(registry);
    if let Err(err) = write(index.clone(), text) {
        eprintln!("error: cannot write {}: {err}", index.display());
        return FAILURE;
    }
    // Where, absolute: without `--out` the folder is one the user did not name.
    let folder = std::path::absolute(out).unwrap_or_else(|_| out.to_path_buf());
    let _ = writeln!(
        io::stdout().lock(),
        "wrote {total} specification(s) and their index, README.md, into {}",
        folder.display()
    );
    0
}

/// From this many tools on, `spec` shows a progress bar on a terminal.
const PROGRESS_BAR_FROM: usize = 20;

/// A progress bar of `len` steps, shown only on a terminal and when there are many steps;
/// hidden otherwise, so logs and pipes get no control characters.
fn progress_bar(len: usize, terminal: bool) -> indicatif::ProgressBar {
    if !terminal || len < PROGRESS_BAR_FROM {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len as u64);
    if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}") {
        bar.set_style(style);
    }
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_progress_bar_shows_only_on_a_terminal_with_many_tools() {
        assert!(progress_bar(100, false).is_hidden());
        assert!(progress_bar(PROGRESS_BAR_FROM - 1, true).is_hidden());
        let shown = progress_bar(PROGRESS_BAR_FROM, true);
        assert_eq!(shown.length(), Some(PROGRESS_BAR_FROM as u64));
    }

    /// Off a terminal, indicatif hides every bar, so `is_hidden` cannot tell the bar of
    /// `len` steps from the hidden one: the length does (the hidden bar has none).
    #[test]
    fn the_progress_bar_has_steps_only_on_a_terminal_with_many_tools() {
        assert_eq!(progress_bar(100, false).length(), None);
        assert_eq!(progress_bar(PROGRESS_BAR_FROM, false).length(), None);
        assert_eq!(progress_bar(PROGRESS_BAR_FROM - 1, true).length(), None);
        assert_eq!(progress_bar(0, true).length(), None);
        assert_eq!(
            progress_bar(PROGRESS_BAR_FROM, true).length(),
            Some(PROGRESS_BAR_FROM as u64)
        );
        assert_eq!(progress_bar(100, true).length(), Some(100));
    }
}
