//! `list`: the tools, resources, resource templates, prompts and skills, as a table, JSON,
//! Markdown or names; a kind the registry has none of gets no section.

use std::fmt::Write as _;
use std::io::{self, IsTerminal, Write};

use clap::Args;
use serde_json::{Map, Value};

use super::USAGE;
use super::sandbox::SandboxArgs;
use crate::isolation::Sandboxing;
use crate::listing;
use crate::registry::{
    EMPTY_REGISTRY_HINT, RegisteredPrompt, RegisteredResource, RegisteredTemplate, Registry,
};
use crate::skills::{Manifest, Skill};

// The arguments of `list`.
#[derive(Args)]
pub(super) struct ListArgs {
    /// `table`, `json` (the stable manifest), `markdown`, or `names`.
    #[arg(long, value_enum)]
    format: Option<ListFormat>,
    /// Only this kind: `tool`, `resource` (resource templates too), `prompt` or `skill`.
    #[arg(long, value_enum)]
    kind: Option<Kind>,
    /// Only the tools of this category (and so no resources or prompts, which have none).
    #[arg(long)]
    category: Option<String>,
    /// Only the tools with this tag (and so no resources or prompts, which have none).
    #[arg(long)]
    tag: Option<String>,
    #[command(flatten)]
    sandbox: SandboxArgs,
}

/// What `list --kind` limits the listing to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Kind {
    /// Tools.
    Tool,
    /// Resources and resource templates.
    Resource,
    /// Prompts.
    Prompt,
    /// Skills (the skills extension): embedded ones.
    Skill,
}

/// The forms of `list`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ListFormat {
    /// An aligned table.
    Table,
    /// The manifest: every field of every tool, schemas included; then the resources,
    /// resource templates and prompts as MCP lists them.
    Json,
    /// A Markdown table.
    Markdown,
    /// Names, one per line.
    Names,
}

/// What one `list` shows, each kind `None` when it is not asked for.
struct Selection<'a> {
    tools: Option<Vec<&'a crate::RegisteredTool>>,
    resources: Option<Vec<&'a RegisteredResource>>,
    templates: Option<Vec<&'a RegisteredTemplate>>,
    prompts: Option<Vec<&'a RegisteredPrompt>>,
    skills: Option<Vec<&'a Skill>>,
}

pub(super) fn run(registry: &Registry, args: &ListArgs) -> u8 {
    let ListArgs {
        format,
        kind,
        category,
        tag,
        sandbox,
    } = args;
    // The policies the tools run with: an operator's file applied.
    let sandboxing = match sandbox.sandboxing(registry, 0) {
        Ok(sandboxing) => sandboxing.unwrap_or_else(|| registry.sandboxing().clone()),
        Err(message) => {
            eprintln!("error: {message}");
            return USAGE;
        }
    };
    let filtered = category.is_some() || tag.is_some();
    if filtered && matches!(kind, Some(Kind::Resource | Kind::Prompt | Kind::Skill)) {
        let flag = if category.is_some() {
            "--category"
        } else {
            "--tag"
        };
        let which = match kind {
            Some(Kind::Prompt) => "prompt",
            Some(Kind::Skill) => "skill",
            _ => "resource",
        };
        eprintln!("error: {flag} applies to tools only, not to `--kind {which}`");
        return USAGE;
    }
    let wants = |wanted: Kind| kind.is_none_or(|kind| kind == wanted);
    let tools = wants(Kind::Tool).then(|| {
        registry
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
            .collect()
    });
    let others = |wanted: Kind| wants(wanted) && !filtered;
    let selection = Selection {
        tools,
        resources: others(Kind::Resource).then(|| registry.resources().collect()),
        templates: others(Kind::Resource).then(|| registry.resource_templates().collect()),
        prompts: others(Kind::Prompt).then(|| registry.prompts().collect()),
        skills: others(Kind::Skill).then(|| registry.skills().iter().map(|s| &**s).collect()),
    };
    if registry.is_empty()
        && registry.resources().next().is_none()
        && registry.resource_templates().next().is_none()
        && registry.prompts().next().is_none()
        && registry.skills().is_empty()
    {
        eprintln!("warning: {EMPTY_REGISTRY_HINT}");
    }
    let format = format.unwrap_or(if io::stdout().is_terminal() {
        ListFormat::Table
    } else {
        ListFormat::Names
    });
    let text = match format {
        ListFormat::Json => json(&selection, *kind, &sandboxing),
        ListFormat::Names => names(&selection),
        ListFormat::Table | ListFormat::Markdown => {
            let table = format == ListFormat::Table;
            tables(&selection, table, &sandboxing)
        }
    };
    let _ = io::stdout().lock().write_all(text.as_bytes());
    0
}

/// The kinds that have something to show, or none; `None` for a kind not asked for.
fn present<T>(kind: &Option<Vec<T>>) -> Option<&[T]> {
    kind.as_deref().filter(|items| !items.is_empty())
}

/// The tables of `selection`, a blank line between two. The tools' table shows, as it
/// always has, when there is nothing else to show.
fn tables(selection: &Selection<'_>, aligned: bool, sandboxing: &Sandboxing) -> String {
    let mut sections = Vec::new();
    if let Some(resources) = present(&selection.resources) {
        sections.push(resource_table(resources, aligned));
    }
    if let Some(templates) = present(&selection.templates) {
        sections.push(template_table(templates, aligned));
    }
    if let Some(prompts) = present(&selection.prompts) {
        sections.push(prompt_table(prompts, aligned));
    }
    if let Some(skills) = present(&selection.skills) {
        sections.push(skill_table(skills, aligned));
    }
    if let Some(tools) = &selection.tools {
        if let Some(sandboxed) = sandbox_table(tools, aligned, sandboxing) {
            sections.insert(0, sandboxed);
        }
        if !tools.is_empty() || sections.is_empty() {
            let tools = tools.iter().copied();
            let text = match aligned {
                true => listing::table(tools),
                false => listing::markdown(tools),
            };
            sections.insert(0, text);
        }
    }
    sections.join("\n")
}

/// A table of `rows` under `header`: aligned for a terminal, or in Markdown.
fn render(header: &[&str], rows: &[Vec<String>], aligned: bool) -> String {
    match aligned {
        true => aligned_table(header, rows),
        false => markdown_table(header, rows),
    }
}

/// The header for a terminal, or the one for Markdown.
fn header<'a, const N: usize>(
    aligned: bool,
    terminal: [&'a str; N],
    markdown: [&'a str; N],
) -> [&'a str; N] {
    if aligned { terminal } else { markdown }
}

fn resource_table(resources: &[&RegisteredResource], aligned: bool) -> String {
    let header = header(
        aligned,
        ["URI", "NAME", "MIME TYPE", "DESCRIPTION"],
        ["Resource", "Name", "MIME type", "Description"],
    );
    let rows: Vec<Vec<String>> = resources
        .iter()
        .map(|resource| {
            let definition = resource.definition();
            vec![
                code(resource.uri(), aligned),
                definition.info.name.clone(),
                or_dash(definition.info.mime_type.as_deref(), aligned),
                summary(definition.info.description.as_deref()),
            ]
        })
        .collect();
    render(&header, &rows, aligned)
}

fn template_table(templates: &[&RegisteredTemplate], aligned: bool) -> String {
    let header = header(
        aligned,
        ["TEMPLATE", "NAME", "MIME TYPE", "DESCRIPTION"],
        ["Template", "Name", "MIME type", "Description"],
    );
    let rows: Vec<Vec<String>> = templates
        .iter()
        .map(|template| {
            let definition = template.definition();
            vec![
                code(&definition.uri_template, aligned),
                definition.info.name.clone(),
                or_dash(definition.info.mime_type.as_deref(), aligned),
                summary(definition.info.description.as_deref()),
            ]
        })
        .collect();
    render(&header, &rows, aligned)
}

fn prompt_table(prompts: &[&RegisteredPrompt], aligned: bool) -> String {
    let header = header(
        aligned,
        ["PROMPT", "ARGUMENTS", "DESCRIPTION"],
        ["Prompt", "Arguments", "Description"],
    );
    let rows: Vec<Vec<String>> = prompts
        .iter()
        .map(|prompt| {
            let definition = prompt.definition();
            let arguments: Vec<String> = definition
                .arguments
                .iter()
                .map(|argument| {
                    let need = if argument.required {
                        "required"
                    } else {
                        "optional"
                    };
                    format!("{} ({need})", argument.name)
                })
                .collect();
            vec![
                code(&definition.name, aligned),
                if arguments.is_empty() {
                    or_dash(None, aligned)
                } else {
                    arguments.join(", ")
                },
                summary(definition.description.as_deref()),
            ]
        })
        .collect();
    render(&header, &rows, aligned)
}

fn skill_table(skills: &[&Skill], aligned: bool) -> String {
    let header = header(
        aligned,
        ["SKILL", "FILES", "DESCRIPTION"],
        ["Skill", "Files", "Description"],
    );
    let rows: Vec<Vec<String>> = skills
        .iter()
        .map(|skill| {
            let files = match skill.manifest() {
                Manifest::Listed(files) => files.len().to_string(),
                Manifest::Dynamic => "dynamic".to_owned(),
            };
            vec![
                code(&skill.uri(), aligned),
                files,
                summary(Some(skill.front_matter().description())),
            ]
        })
        .collect();
    render(&header, &rows, aligned)
}

/// The sandboxed tools and their policies, if any tool is sandboxed.
fn sandbox_table(
    tools: &[&crate::RegisteredTool],
    aligned: bool,
    sandboxing: &Sandboxing,
) -> Option<String> {
    let sandboxed: Vec<Vec<String>> = tools
        .iter()
        .filter_map(|tool| {
            let policy = sandboxing.policy_of(tool)?;
            Some(vec![
                code(tool.name().as_str(), aligned),
                policy.to_string(),
            ])
        })
        .collect();
    let header = header(
        aligned,
        ["SANDBOXED TOOL", "POLICY"],
        ["Sandboxed tool", "Policy"],
    );
    (!sandboxed.is_empty()).then(|| render(&header, &sandboxed, aligned))
}

/// Identifiers one per line: tool names, resource URIs, templates, prompt names, the URIs
/// of skills' `SKILL.md`.
fn names(selection: &Selection<'_>) -> String {
    let mut out = String::new();
    for tool in selection.tools.iter().flatten() {
        let _ = writeln!(out, "{}", tool.name());
    }
    for resource in selection.resources.iter().flatten() {
        let _ = writeln!(out, "{}", resource.uri());
    }
    for template in selection.templates.iter().flatten() {
        let _ = writeln!(out, "{}", template.definition().uri_template);
    }
    for prompt in selection.prompts.iter().flatten() {
        let _ = writeln!(out, "{}", prompt.name());
    }
    for skill in selection.skills.iter().flatten() {
        let _ = writeln!(out, "{}", skill.uri());
    }
    out
}

/// The manifest of the tools (when listed), and each other kind as MCP lists it, under
/// `resources`, `resourceTemplates`, `prompts` and `skills` (each skill's entry, as
/// `skills/list` gives it): present when asked for with `--kind`,
/// or when there are some.
fn json(selection: &Selection<'_>, kind: Option<Kind>, sandboxing: &Sandboxing) -> String {
    let mut manifest = Map::new();
    if let Some(tools) = &selection.tools {
        if let Value::Object(mut listed) = listing::manifest(tools.iter().copied()) {
            // Each sandboxed tool's entry shows the policy it runs with.
            if let Some(Value::Array(entries)) = listed.get_mut("tools") {
                for (entry, tool) in entries.iter_mut().zip(tools) {
                    if let Some(policy) = sandboxing.policy_of(tool) {
                        entry["sandbox"] = serde_json::json!(policy);
                    }
                }
            }
            manifest.extend(listed);
        }
    }
    let mut add = |key: &str, asked: bool, values: Option<Vec<Value>>| {
        if let Some(values) = values.filter(|values| asked || !values.is_empty()) {
            manifest.insert(key.to_owned(), Value::Array(values));
        }
    };
    let to_json = |value: Result<Value, serde_json::Error>| value.unwrap_or(Value::Null);
    let asked = |wanted: Kind| kind == Some(wanted);
    add(
        "resources",
        asked(Kind::Resource),
        selection.resources.as_ref().map(|resources| {
            resources
                .iter()
                .map(|resource| to_json(serde_json::to_value(&*resource.listed())))
                .collect()
        }),
    );
    add(
        "resourceTemplates",
        asked(Kind::Resource),
        selection.templates.as_ref().map(|templates| {
            templates
                .iter()
                .map(|template| to_json(serde_json::to_value(&*template.listed())))
                .collect()
        }),
    );
    add(
        "prompts",
        asked(Kind::Prompt),
        selection.prompts.as_ref().map(|prompts| {
            prompts
                .iter()
                .map(|prompt| to_json(serde_json::to_value(prompt.definition())))
                .collect()
        }),
    );
    add(
        "skills",
        asked(Kind::Skill),
        selection.skills.as_ref().map(|skills| {
            skills
                .iter()
                .map(|skill| to_json(serde_json::to_value(skill.entry())))
                .collect()
        }),
    );
    format!(
        "{}\n",
        serde_json::to_string_pretty(&Value::Object(manifest)).unwrap_or_default()
    )
}

/// The first line of a description, for one-line listings.
fn summary(description: Option<&str>) -> String {
    description
        .and_then(|description| description.lines().next())
        .unwrap_or("")
        .to_owned()
}

/// `text` as code in Markdown, as it is in an aligned table.
fn code(text: &str, aligned: bool) -> String {
    match aligned {
        true => text.to_owned(),
        false => format!("`{text}`"),
    }
}

/// `text`, or what an empty cell shows: `-` in an aligned table, nothing in Markdown.
fn or_dash(text: Option<&str>, aligned: bool) -> String {
    match (text, aligned) {
        (Some(text), _) => text.to_owned(),
        (None, true) => "-".to_owned(),
        (None, false) => String::new(),
    }
}

/// Columns aligned, two spaces apart; the last one, a description, left ragged.
fn aligned_table(header: &[&str], rows: &[Vec<String>]) -> String {
    let last = header.len() - 1;
    let widths: Vec<usize> = (0..last)
        .map(|column| {
            rows.iter()
                .map(|row| row[column].chars().count())
                .chain(std::iter::once(header[column].chars().count()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let header: Vec<String> = header.iter().map(|cell| (*cell).to_owned()).collect();
    let mut out = String::new();
    for row in std::iter::once(&header).chain(rows) {
        for (cell, width) in row.iter().zip(&widths) {
            let _ = write!(out, "{cell:<width$}  ");
        }
        let _ = writeln!(out, "{}", row[last]);
    }
    out
}

/// A Markdown table, `|` in cells escaped.
fn markdown_table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut out = format!(
        "| {} |\n|{}\n",
        header.join(" | "),
        "---|".repeat(header.len())
    );
    for row in rows {
        let cells: Vec<String> = row.iter().map(|cell| cell.replace('|', "\\|")).collect();
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    out
}
