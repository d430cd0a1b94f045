//! `list`: the tools, as a table, JSON, Markdown or names.

use std::io::{self, IsTerminal, Write};

use clap::Args;

use crate::listing;
use crate::registry::{EMPTY_REGISTRY_HINT, Registry};

// The arguments of `list`.
#[derive(Args)]
pub(super) struct ListArgs {
    /// `table`, `json` (the stable manifest), `markdown`, or `names`.
    #[arg(long, value_enum)]
    format: Option<ListFormat>,
    /// Only the tools of this category.
    #[arg(long)]
    category: Option<String>,
    /// Only the tools with this tag.
    #[arg(long)]
    tag: Option<String>,
}

/// The forms of `list`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ListFormat {
    /// An aligned table.
    Table,
    /// The manifest: every field of every tool, schemas included.
    Json,
    /// A Markdown table.
    Markdown,
    /// Names, one per line.
    Names,
}

pub(super) fn run(registry: &Registry, args: &ListArgs) -> u8 {
    let ListArgs {
        format,
        category,
        tag,
    } = args;
    let tools: Vec<_> = registry
        .list()
        .filter(|tool| {
            let definition = tool.definition();
            category
                .as_deref()
                .is_none_or(|category| definition.category() == Some(category))
                && tag
                    .as_deref()
                    .is_none_or(|tag| definition.tags().iter().any(|t| t == tag))
        })
        .collect();
    if registry.is_empty() {
        eprintln!("warning: {EMPTY_REGISTRY_HINT}");
    }
    let format = format.unwrap_or(if io::stdout().is_terminal() {
        ListFormat::Table
    } else {
        ListFormat::Names
    });
    let text = match format {
        ListFormat::Table => listing::table(tools),
        ListFormat::Markdown => listing::markdown(tools),
        ListFormat::Json => {
            let manifest = listing::manifest(tools);
            format!(
                "{}\n",
                serde_json::to_string_pretty(&manifest).unwrap_or_default()
            )
        }
        ListFormat::Names => tools
            .iter()
            .map(|tool| format!("{}\n", tool.name()))
            .collect(),
    };
    let _ = io::stdout().lock().write_all(text.as_bytes());
    0
}
