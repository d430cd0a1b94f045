//! The app command line (`mcp_runtime::cli::run_with`) seen from outside: what `list`,
//! `check`, `spec`, `call`, `read`, `prompt` and `serve` print and the exit codes they end
//! with; and the
//! listings, the tool context and the locations the command line is made of.
//!
//! `run_with` writes to the process's standard output and error, so each command runs in a
//! child: this test binary again, running only `child_process`, which calls `run_with` with
//! the arguments and registry named in its environment and exits with its code.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_runtime::__private::{Handler, Invocation, Outcome, Output, ToolRegistration};
use mcp_runtime::{
    CancellationToken, ContentBlock, DefinitionError, EMPTY_REGISTRY_HINT, Location, MCPToolCall,
    PromptArgument, PromptDefinition, PromptMessage, PromptResult, ReadRequest, Registry,
    ResourceAnnotations, ResourceContents, ResourceDefinition, ResourceTemplateDefinition, Role,
    ToolContext, ToolDefinition, ToolError, ToolName, listing, mcp_tool,
};
use serde_json::{Value, json};

mod support;

/// Adds two numbers.
///
/// The second paragraph is not in one-line listings.
#[mcp_tool(
    namespace = "cli",
    category = "math",
    tags("arith"),
    read_only,
    inline,
    example = r#"{"a": 1, "b": 2}"#
)]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Multiplies | two numbers.
#[mcp_tool(
    namespace = "cli",
    category = "math",
    inline,
    example = r#"{"a": 2, "b": 3}"#
)]
fn mul(a: i64, b: i64) -> i64 {
    a * b
}

/// Always fails.
#[mcp_tool(namespace = "cli", tags("arith"), inline)]
fn fail() -> Result<i64, ToolError> {
    Err(ToolError::execution("it always fails"))
}

/// Wipes nothing, but is marked dangerous.
#[mcp_tool(
    namespace = "cli",
    dangerous,
    read_only,
    inline,
    example = r#"{"all": true}"#
)]
fn wipe(all: bool) -> bool {
    all
}

/// The error the definition of `bad.broken` fails with.
fn broken_definition() -> Result<ToolDefinition, DefinitionError> {
    Err(DefinitionError::Version {
        tool: "bad.broken".to_owned(),
        version: "one".to_owned(),
        reason: "not a number".to_owned(),
    })
}

/// Answers with the `Debug` form of the invocation it gets.
fn show_invocation(_arguments: &Value, invocation: Invocation<'_>) -> Outcome {
    Ok(Output::Value(
        json!({ "invocation": format!("{invocation:?}") }),
    ))
}

fn show_definition() -> Result<ToolDefinition, DefinitionError> {
    ToolDefinition::new(
        "dbg.invocation",
        schemars::json_schema!({ "type": "object" }),
    )
}

const BROKEN_LINE: u32 = line!() + 6;
mcp_runtime::__private::inventory::submit! {
    ToolRegistration::new(
        "bad.broken",
        broken_definition,
        Handler::Inline(show_invocation),
        Location { file: file!(), line: BROKEN_LINE, column: 9, module_path: module_path!() },
    )
}

mcp_runtime::__private::inventory::submit! {
    ToolRegistration::new(
        "dbg.invocation",
        show_definition,
        Handler::Inline(show_invocation),
        Location { file: file!(), line: line!(), column: 1, module_path: module_path!() },
    )
}

/// The `#[mcp_tool]`s of this file whose name starts with `cli.`, in name order.
const MAIN: [&str; 4] = ["cli.add", "cli.fail", "cli.mul", "cli.wipe"];

fn object_schema(schema: Value) -> schemars::Schema {
    schemars::Schema::try_from(schema).expect("a schema object")
}

fn dynamic(
    builder: mcp_runtime::RegistryBuilder,
    definition: ToolDefinition,
) -> mcp_runtime::RegistryBuilder {
    builder.tool(definition, |_arguments, _ctx| async {
        Ok::<_, ToolError>(json!({}))
    })
}

/// A span of pages.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Span {
    /// The first page.
    from: u32,
    /// The last page.
    to: u32,
}

/// Counts the pages of a span.
#[mcp_tool(namespace = "lenient", inline)]
fn pages(
    /// The span.
    span: Span,
) -> u32 {
    span.to - span.from + 1
}

/// The input schema of `wide.place`.
fn wide_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "n": { "type": ["integer", "null"], "format": "uint32", "minimum": 0 },
            "at": { "$ref": "#/$defs/Point" },
            "when": { "type": "string", "format": "date-time" },
        },
        "$defs": { "Point": {
            "type": "object",
            "properties": { "x": { "type": "number", "format": "double" } },
        } },
    })
}

/// The registries the children run, by name.
fn build(name: &str) -> Registry {
    let built = match name {
        "main" => Registry::builder().inventory().prefix("cli.").build(),
        "lenient" => Registry::builder().inventory().prefix("lenient.").build(),
        "empty" => Registry::builder().build(),
        // Every problem `check` reports, one tool each, in name order.
        "bad" => {
            let builder = Registry::builder().inventory().prefix("bad.");
            let nodesc =
                ToolDefinition::new("bad.nodesc", object_schema(json!({ "type": "object" })))
                    .unwrap();
            let example = ToolDefinition::new(
                "bad.example",
                object_schema(json!({
                    "type": "object",
                    "properties": { "n": { "type": "integer" } },
                    "required": ["n"],
                })),
            )
            .unwrap()
            .with_description("Has one right and one wrong example.")
            .with_example(json!({ "n": 1 }).as_object().unwrap().clone())
            .with_example(json!({ "n": "x" }).as_object().unwrap().clone());
            let unresolved = ToolDefinition::new(
                "bad.unresolved",
                object_schema(json!({
                    "type": "object",
                    "properties": { "a": { "$ref": "#/$defs/Missing" } },
                })),
            )
            .unwrap()
            .with_description("Refers to nothing.");
            let recursive = ToolDefinition::new(
                "bad.recursive",
                object_schema(json!({
                    "type": "object",
                    "properties": { "tree": { "$ref": "#/$defs/Tree" } },
                    "$defs": { "Tree": {
                        "type": "object",
                        "properties": { "children": { "type": "array", "items": { "$ref": "#/$defs/Tree" } } },
                    } },
                })),
            )
            .unwrap()
            .with_description("Holds a tree.");
            let builder = dynamic(builder, example);
            let builder = dynamic(builder, nodesc);
            let builder = dynamic(builder, unresolved);
            dynamic(builder, recursive).build()
        }
        // Two tools served under the same name with `--llm-names`.
        "collide" => {
            let any = || object_schema(json!({ "type": "object" }));
            let first = ToolDefinition::new("a.b_c", any())
                .unwrap()
                .with_description("One.");
            let second = ToolDefinition::new("a_b.c", any())
                .unwrap()
                .with_description("Two.");
            dynamic(dynamic(Registry::builder(), first), second).build()
        }
        // Schemas with what some clients refuse, type arrays and a reference, and with
        // what no form serves: formats JSON Schema does not define.
        "wide" => {
            let place = ToolDefinition::new("wide.place", object_schema(wide_schema()))
                .unwrap()
                .with_description("Takes a place.");
            let optional = || json!({ "type": "object", "properties": { "k": { "type": ["string", "null"] } } });
            let count = ToolDefinition::new("wide.count", object_schema(optional()))
                .unwrap()
                .with_description("Counts a key.")
                .with_output(mcp_runtime::schema::OutputSchema {
                    schema: object_schema(optional()),
                    wrapped: false,
                })
                .unwrap();
            dynamic(dynamic(Registry::builder(), place), count).build()
        }
        "kinds" => return kinds(),
        "bad_kinds" => return bad_kinds(),
        // Only resources and prompts: no tools, so no tools' section either.
        "no_tools" => {
            let mut registry = Registry::builder().build().unwrap();
            registry
                .register_resource(ResourceDefinition::new("app://only", "only"), |request| {
                    text_resource(request, "only")
                })
                .unwrap();
            return registry;
        }
        other => panic!("no registry is named {other}"),
    };
    built.expect("a valid registry")
}

async fn text_resource(
    request: ReadRequest,
    text: &'static str,
) -> Result<Vec<ResourceContents>, ToolError> {
    Ok(vec![ResourceContents::text(request.uri(), text)])
}

/// Every problem `check` reports of resources, templates and prompts.
fn bad_kinds() -> Registry {
    let mut registry = Registry::builder().build().unwrap();
    registry
        .register_resource(
            ResourceDefinition::new("app://nodesc", "nodesc"),
            |request| text_resource(request, ""),
        )
        .unwrap();
    let mut two = ResourceTemplateDefinition::new("app://t/{a}/{b}", "two")
        .with_description("Two variables, one schema, and one schema too many.");
    two.meta.insert(
        "mcp-runtime/variables".to_owned(),
        json!({ "a": { "type": "string" }, "c": { "type": "string" } }),
    );
    let mut unresolved = ResourceTemplateDefinition::new("app://r/{x}", "unresolved")
        .with_description("Refers to nothing.");
    unresolved.meta.insert(
        "mcp-runtime/variables".to_owned(),
        json!({ "x": { "$ref": "#/$defs/Missing" } }),
    );
    for template in [two, unresolved] {
        registry
            .register_resource_template(template, |request| text_resource(request, ""))
            .unwrap();
    }
    registry
        .register_prompt(
            PromptDefinition::new("twice")
                .with_argument(PromptArgument::required("q"))
                .with_argument(PromptArgument::optional("q")),
            |_arguments| async { Ok::<_, ToolError>(PromptResult::default()) },
        )
        .unwrap();
    registry
}

/// A PNG's first four bytes, `\x89PNG`, base64-encoded.
const PNG: &str = "iVBORw==";

/// A tool, resources, a template and prompts, registered at run time.
fn kinds() -> Registry {
    let echo = ToolDefinition::new("k.echo", object_schema(json!({ "type": "object" })))
        .unwrap()
        .with_description("Echoes.");
    let mut registry = dynamic(Registry::builder(), echo).build().unwrap();
    registry
        .register_resource(
            ResourceDefinition::new("app://about", "about")
                .with_mime_type("text/markdown")
                .with_description("What this | app is.\nMore.")
                .with_annotations(ResourceAnnotations {
                    audience: vec![Role::User],
                    priority: Some(0.5),
                    last_modified: None,
                }),
            |request| text_resource(request, "# About\nNo newline at the end"),
        )
        .unwrap();
    registry
        .register_resource(
            ResourceDefinition::new("app://logo", "logo")
                .with_mime_type("image/png")
                .with_description("The logo."),
            |request| async move {
                Ok::<_, ToolError>(vec![
                    ResourceContents::blob(request.uri(), PNG).with_mime_type("image/png"),
                ])
            },
        )
        .unwrap();
    registry
        .register_resource(
            ResourceDefinition::new("app://broken", "broken").with_description("Fails."),
            |_request| async move { Err::<Vec<ResourceContents>, _>(ToolError::execution("disk gone")) },
        )
        .unwrap();
    let mut user = ResourceTemplateDefinition::new("app://users/{id}", "user")
        .with_description("A user, by id.");
    user.meta.insert(
        "mcp-runtime/variables".to_owned(),
        json!({ "id": { "type": "integer", "minimum": 1, "description": "The user's id." } }),
    );
    user.meta.insert(
        "mcp-runtime/cache".to_owned(),
        json!({ "ttlMs": 60000, "cacheScope": "public" }),
    );
    registry
        .register_resource_template(user, |request| async move {
            let id = request.variable("id").unwrap_or_default().to_owned();
            Ok::<_, ToolError>(vec![
                ResourceContents::text(request.uri(), format!("user {id}")),
                ResourceContents::blob(request.uri(), PNG),
            ])
        })
        .unwrap();
    registry
        .register_prompt(
            PromptDefinition::new("greet")
                .with_description("Greets someone.")
                .with_argument(PromptArgument::required("name").with_description("Whom."))
                .with_argument(PromptArgument::optional("style")),
            |arguments| async move {
                let Some(name) = arguments.get("name").and_then(Value::as_str) else {
                    return Err(ToolError::validation("missing required argument `name`"));
                };
                Ok(PromptResult::new(vec![
                    PromptMessage::user(format!("Say hello to {name}.")),
                    PromptMessage::assistant(ContentBlock::image(PNG, "image/png")),
                ])
                .with_description("A greeting."))
            },
        )
        .unwrap();
    registry
        .register_prompt(PromptDefinition::new("summarize"), |_arguments| async {
            Err::<PromptResult, _>(ToolError::execution("the model is away"))
        })
        .unwrap();
    registry
}

const REGISTRY_VAR: &str = "MCP_CLI_TEST_REGISTRY";
const ARGS_VAR: &str = "MCP_CLI_TEST_ARGS";
/// Written to standard output by the child before `run_with` runs: what the test harness
/// prints comes before it.
const MARKER: &str = "\u{1}--- run_with ---\n";

/// Not a test: the body of the child processes. Without their environment it does nothing.
#[test]
fn child_process() {
    let Ok(name) = std::env::var(REGISTRY_VAR) else {
        return;
    };
    let args: Vec<String> =
        serde_json::from_str(&std::env::var(ARGS_VAR).expect("the arguments")).unwrap();
    let registry: &'static Registry = Box::leak(Box::new(build(&name)));
    let mut stdout = std::io::stdout();
    stdout.write_all(MARKER.as_bytes()).unwrap();
    stdout.flush().unwrap();
    let code = mcp_runtime::cli::run_with(registry, std::iter::once("app".to_owned()).chain(args));
    let _ = std::io::stdout().flush();
    let number = (0..=u8::MAX)
        .find(|number| ExitCode::from(*number) == code)
        .expect("an exit code of one byte");
    std::process::exit(i32::from(number));
}

/// A child running `app ARGS` over the registry `registry`.
fn command(registry: &str, args: &[&str]) -> Command {
    let mut command = Command::new(std::env::current_exe().expect("the test binary"));
    command
        .args([
            "child_process",
            "--exact",
            "--nocapture",
            "--test-threads=1",
            "-q",
        ])
        .env(REGISTRY_VAR, registry)
        .env(ARGS_VAR, serde_json::to_string(args).unwrap())
        .env_remove("RUST_LOG");
    command
}

/// What a finished child said: exit code, standard output after the marker, standard error.
#[derive(Debug)]
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs `app ARGS` over `registry`, `stdin` as its standard input, to its end.
fn run_stdin(registry: &str, args: &[&str], stdin: &str) -> Run {
    let mut child = command(registry, args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the child starts");
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.as_bytes()).unwrap();
    drop(input);
    let output = child.wait_with_output().expect("the child ends");
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    let (_, stdout) = stdout
        .split_once(MARKER)
        .unwrap_or_else(|| panic!("the child ran run_with: {stdout}\n{stderr}"));
    Run {
        code: output.status.code().expect("the child exited"),
        stdout: stdout.to_owned(),
        stderr,
    }
}

fn run(registry: &str, args: &[&str]) -> Run {
    run_stdin(registry, args, "")
}

fn pretty(value: &impl serde::Serialize) -> String {
    format!("{}\n", serde_json::to_string_pretty(value).unwrap())
}

/// The result the registry `registry` gives for a call, as `call` prints it.
fn expected_call(registry: &str, name: &str, arguments: Value) -> String {
    let registry = build(registry);
    let result = registry.call_blocking(MCPToolCall::new(name, arguments).unwrap());
    pretty(&result)
}

// ---- list ----

#[test]
fn list_names_filters_by_category_and_tag_together() {
    let all = run("main", &["list", "--format", "names"]);
    assert_eq!(
        (all.code, all.stdout.as_str(), all.stderr.as_str()),
        (0, "cli.add\ncli.fail\ncli.mul\ncli.wipe\n", "")
    );
    let math = run("main", &["list", "--format", "names", "--category", "math"]);
    assert_eq!((math.code, math.stdout.as_str()), (0, "cli.add\ncli.mul\n"));
    let arith = run("main", &["list", "--format", "names", "--tag", "arith"]);
    assert_eq!(
        (arith.code, arith.stdout.as_str()),
        (0, "cli.add\ncli.fail\n")
    );
    let both = run(
        "main",
        &[
            "list",
            "--format",
            "names",
            "--category",
            "math",
            "--tag",
            "arith",
        ],
    );
    assert_eq!((both.code, both.stdout.as_str()), (0, "cli.add\n"));
}

#[test]
fn list_json_is_the_manifest_of_the_tools_listed() {
    let listed = run("main", &["list", "--format", "json", "--category", "math"]);
    let registry = build("main");
    let tools = ["cli.add", "cli.mul"].map(|name| registry.get(name).unwrap());
    assert_eq!(listed.code, 0);
    assert_eq!(listed.stdout, pretty(&listing::manifest(tools)));
}

#[test]
fn list_of_an_empty_registry_warns() {
    let listed = run("empty", &["list", "--format", "names"]);
    assert_eq!(listed.code, 0);
    assert_eq!(listed.stdout, "");
    assert_eq!(listed.stderr, format!("warning: {EMPTY_REGISTRY_HINT}\n"));
}

#[test]
fn list_shows_every_kind_in_sections() {
    let table = run("kinds", &["list", "--format", "table"]);
    let expected = "\
NAME    VERSION  CATEGORY  DESCRIPTION
k.echo  0.0.0    -         Echoes.

URI           NAME    MIME TYPE      DESCRIPTION
app://about   about   text/markdown  What this | app is.
app://broken  broken  -              Fails.
app://logo    logo    image/png      The logo.

TEMPLATE          NAME  MIME TYPE  DESCRIPTION
app://users/{id}  user  -          A user, by id.

PROMPT     ARGUMENTS                          DESCRIPTION
greet      name (required), style (optional)  Greets someone.
summarize  -                                  
";
    assert_eq!(
        (table.code, table.stdout.as_str(), table.stderr.as_str()),
        (0, expected, "")
    );
    let names = run("kinds", &["list", "--format", "names"]);
    assert_eq!(
        names.stdout,
        "k.echo\napp://about\napp://broken\napp://logo\napp://users/{id}\ngreet\nsummarize\n"
    );
}

#[test]
fn list_markdown_has_a_table_per_kind() {
    let listed = run(
        "kinds",
        &["list", "--format", "markdown", "--kind", "resource"],
    );
    let expected = "\
| Resource | Name | MIME type | Description |
|---|---|---|---|
| `app://about` | about | text/markdown | What this \\| app is. |
| `app://broken` | broken |  | Fails. |
| `app://logo` | logo | image/png | The logo. |

| Template | Name | MIME type | Description |
|---|---|---|---|
| `app://users/{id}` | user |  | A user, by id. |
";
    assert_eq!((listed.code, listed.stdout.as_str()), (0, expected));
}

#[test]
fn list_kind_limits_the_listing_to_one_kind() {
    let tools = run("kinds", &["list", "--format", "names", "--kind", "tool"]);
    assert_eq!((tools.code, tools.stdout.as_str()), (0, "k.echo\n"));
    let resources = run(
        "kinds",
        &["list", "--format", "names", "--kind", "resource"],
    );
    assert_eq!(
        resources.stdout,
        "app://about\napp://broken\napp://logo\napp://users/{id}\n"
    );
    let prompts = run("kinds", &["list", "--format", "names", "--kind", "prompt"]);
    assert_eq!(prompts.stdout, "greet\nsummarize\n");
    // Only tools have categories: filtering by one leaves the other kinds out.
    let echo = run("kinds", &["list", "--format", "names", "--tag", "none"]);
    assert_eq!((echo.code, echo.stdout.as_str()), (0, ""));
    let wrong = run("kinds", &["list", "--kind", "prompt", "--category", "math"]);
    assert_eq!(
        (wrong.code, wrong.stdout.as_str(), wrong.stderr.as_str()),
        (
            2,
            "",
            "error: --category applies to tools only, not to `--kind prompt`\n"
        )
    );
    let unknown = run("kinds", &["list", "--kind", "widget"]);
    assert_eq!(unknown.code, 2, "{unknown:?}");
}

#[test]
fn list_json_adds_each_kind_as_mcp_lists_it() {
    let registry = kinds();
    let listed = run("kinds", &["list", "--format", "json"]);
    let mut expected = listing::manifest(registry.list());
    let definitions = |values: Vec<Value>| Value::Array(values);
    expected["resources"] = definitions(
        registry
            .resources()
            .map(|r| serde_json::to_value(r.definition()).unwrap())
            .collect(),
    );
    expected["resourceTemplates"] = definitions(
        registry
            .resource_templates()
            .map(|t| serde_json::to_value(t.definition()).unwrap())
            .collect(),
    );
    expected["prompts"] = definitions(
        registry
            .prompts()
            .map(|p| serde_json::to_value(p.definition()).unwrap())
            .collect(),
    );
    assert_eq!((listed.code, listed.stdout), (0, pretty(&expected)));
    assert_eq!(
        expected["resourceTemplates"][0]["uriTemplate"],
        "app://users/{id}"
    );
    assert_eq!(expected["prompts"][0]["arguments"][1]["required"], false);
    // A kind asked for is there even when empty; one not asked for is not.
    let prompts = run("main", &["list", "--format", "json", "--kind", "prompt"]);
    assert_eq!(prompts.stdout, pretty(&json!({ "prompts": [] })));
}

#[test]
fn list_without_tools_shows_only_the_kinds_there_are() {
    let table = run("no_tools", &["list", "--format", "table"]);
    assert_eq!(
        (table.code, table.stdout.as_str(), table.stderr.as_str()),
        (
            0,
            "URI         NAME  MIME TYPE  DESCRIPTION\napp://only  only  -          \n",
            ""
        )
    );
}

// ---- read ----

#[test]
fn read_prints_text_as_it_is() {
    let read = run("kinds", &["read", "app://about"]);
    assert_eq!(
        (read.code, read.stdout.as_str(), read.stderr.as_str()),
        (0, "# About\nNo newline at the end", "")
    );
}

#[test]
fn read_prints_a_blob_as_its_type_and_size() {
    let logo = run("kinds", &["read", "app://logo"]);
    assert_eq!(
        (logo.code, logo.stdout.as_str()),
        (0, "<blob image/png, 4 bytes>\n")
    );
    // Through the template: its variable reaches the function; a line break parts the text
    // from the next piece, a blob of no type.
    let user = run("kinds", &["read", "app://users/7"]);
    assert_eq!(
        (user.code, user.stdout.as_str()),
        (0, "user 7\n<blob, 4 bytes>\n")
    );
}

#[test]
fn read_json_prints_the_whole_result() {
    let read = run("kinds", &["read", "app://users/7", "--json"]);
    let expected = json!({ "contents": [
        { "uri": "app://users/7", "text": "user 7" },
        { "uri": "app://users/7", "blob": PNG },
    ] });
    assert_eq!((read.code, read.stdout), (0, pretty(&expected)));
}

#[test]
fn read_of_an_unknown_uri_fails_with_the_closest() {
    let near = run("kinds", &["read", "app://abuot"]);
    assert_eq!(
        (near.code, near.stdout.as_str(), near.stderr.as_str()),
        (
            1,
            "",
            "error: resource not found: app://abuot; did you mean `app://about`, `app://broken`, `app://logo`?\n"
        )
    );
    let far = run("kinds", &["read", "zzz:/"]);
    assert_eq!(
        (far.code, far.stderr.as_str()),
        (1, "error: resource not found: zzz:/\n")
    );
}

#[test]
fn read_that_fails_exits_1_with_the_message() {
    let read = run("kinds", &["read", "app://broken"]);
    assert_eq!(
        (read.code, read.stdout.as_str(), read.stderr.as_str()),
        (
            1,
            "",
            "error: reading app://broken failed: ToolExecutionError: disk gone\n"
        )
    );
}

// ---- prompt ----

#[test]
fn prompt_prints_each_message_with_its_role() {
    let rendered = run("kinds", &["prompt", "greet", r#"{"name": "Ada"}"#]);
    assert_eq!(
        (
            rendered.code,
            rendered.stdout.as_str(),
            rendered.stderr.as_str()
        ),
        (
            0,
            "[user] Say hello to Ada.\n[assistant] <image image/png, 4 bytes>\n",
            ""
        )
    );
}

#[test]
fn prompt_reads_the_arguments_from_stdin_given_a_dash() {
    let rendered = run_stdin("kinds", &["prompt", "greet", "-"], r#"{"name": "Bo"}"#);
    assert_eq!(rendered.code, 0, "{rendered:?}");
    assert!(
        rendered.stdout.starts_with("[user] Say hello to Bo.\n"),
        "{rendered:?}"
    );
}

#[test]
fn prompt_json_prints_the_whole_result() {
    let registry = kinds();
    let rendered = run(
        "kinds",
        &["prompt", "greet", r#"{"name": "Ada"}"#, "--json"],
    );
    let arguments = json!({ "name": "Ada" }).as_object().unwrap().clone();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let expected = runtime
        .block_on(registry.get_prompt("greet", arguments))
        .unwrap();
    assert_eq!(expected.description.as_deref(), Some("A greeting."));
    assert_eq!((rendered.code, rendered.stdout), (0, pretty(&expected)));
}

#[test]
fn prompt_errors_exit_1_and_bad_json_exits_2() {
    let unknown = run("kinds", &["prompt", "great"]);
    assert_eq!(
        (
            unknown.code,
            unknown.stdout.as_str(),
            unknown.stderr.as_str()
        ),
        (
            1,
            "",
            "error: unknown prompt `great`; did you mean `greet`?\n"
        )
    );
    let invalid = run("kinds", &["prompt", "greet"]);
    assert_eq!(
        (invalid.code, invalid.stderr.as_str()),
        (
            1,
            "error: invalid arguments for `greet`: missing required argument `name`\n"
        )
    );
    let failed = run("kinds", &["prompt", "summarize"]);
    assert_eq!(
        (failed.code, failed.stderr.as_str()),
        (
            1,
            "error: prompt `summarize` failed: ToolExecutionError: the model is away\n"
        )
    );
    let not_json = run("kinds", &["prompt", "greet", "{name"]);
    assert_eq!(not_json.code, 2, "{not_json:?}");
    assert!(
        not_json
            .stderr
            .starts_with("error: the arguments are not valid JSON: "),
        "{not_json:?}"
    );
    let not_object = run("kinds", &["prompt", "greet", "[1]"]);
    assert_eq!(
        (not_object.code, not_object.stderr.as_str()),
        (
            2,
            "error: the arguments must be a JSON object, found an array\n"
        )
    );
}

// ---- usage ----

#[test]
fn usage_errors_exit_2_and_help_exits_0() {
    let unknown = run("main", &["frobnicate"]);
    assert_eq!(unknown.code, 2, "{unknown:?}");
    assert!(unknown.stderr.starts_with("error: "), "{unknown:?}");
    let help = run("main", &["--help"]);
    assert_eq!(help.code, 0, "{help:?}");
    assert!(
        help.stdout
            .contains("Inspect and call this application's MCP tools"),
        "{help:?}"
    );
}

// ---- check ----

#[test]
fn check_of_a_sound_registry_passes() {
    let checked = run("main", &["check"]);
    // Passes without a word of the `int64` (`i64`) of each schema, a format of schemars'
    // own: no client refuses it, and it is not served.
    assert_eq!(
        (
            checked.code,
            checked.stdout.as_str(),
            checked.stderr.as_str()
        ),
        (0, "", "checked 4 tool(s): 0 error(s), 0 warning(s)\n")
    );
}

#[test]
fn check_warns_once_of_each_kind_of_thing_clients_refuse_naming_the_tools() {
    let checked = run("wide", &["check"]);
    let expected = [
        "warning: 1 tool(s) have a `$ref`, which VS Code's and GitHub's Copilot, Cursor, \
         opencode and Codex do not resolve; `serve --portable` inlines it: `wide.place` (input)",
        "warning: 2 tool(s) have a type array (`\"type\": [\"integer\", \"null\"]` for an \
         `Option`), which Gemini's function declarations refuse; `serve --portable` writes \
         it as an `anyOf`: `wide.count` (input, output), `wide.place` (input)",
        "checked 2 tool(s): 0 error(s), 2 warning(s)",
    ];
    assert_eq!(checked.stderr, format!("{}\n", expected.join("\n")));
    assert_eq!((checked.code, checked.stdout.as_str()), (0, ""));
    // By default, schemars' formats are left out and nothing else; the portable form
    // inlines the reference and writes the type array as an `anyOf` too.
    let printed = |flags: &[&str]| {
        let printed = run("wide", &[&["schema", "wide.place"], flags].concat());
        assert_eq!(printed.code, 0, "{printed:?}");
        serde_json::from_str::<Value>(&printed.stdout).unwrap()
    };
    assert_eq!(
        printed(&[]),
        json!({
            "type": "object",
            "properties": {
                "n": { "type": ["integer", "null"], "minimum": 0 },
                "at": { "$ref": "#/$defs/Point" },
                "when": { "type": "string", "format": "date-time" },
            },
            "$defs": { "Point": {
                "type": "object",
                "properties": { "x": { "type": "number" } },
            } },
        })
    );
    assert_eq!(
        printed(&["--portable"]),
        json!({
            "type": "object",
            "properties": {
                "n": { "anyOf": [{ "type": "integer", "minimum": 0 }, { "type": "null" }] },
                "at": { "type": "object", "properties": { "x": { "type": "number" } } },
                "when": { "type": "string", "format": "date-time" },
            },
        })
    );
}

#[test]
fn serve_lists_the_schemas_schema_prints_in_either_form() {
    let session = [
        json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": { "name": "test", "version": "1" } } }),
        json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
        json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/list" }),
    ]
    .map(|message| format!("{message}\n"))
    .concat();
    let listed = |flags: &[&str]| {
        let served = run_stdin("wide", &[&["serve", "--stdio"], flags].concat(), &session);
        assert_eq!(served.code, 0, "{served:?}");
        let tools = served
            .stdout
            .lines()
            .map(|line| serde_json::from_str::<Value>(line).unwrap())
            .find(|message| message["id"] == 2)
            .unwrap_or_else(|| panic!("the listing is answered: {served:?}"))["result"]["tools"]
            .clone();
        tools
            .as_array()
            .expect("tools")
            .iter()
            .find(|tool| tool["name"] == "wide.place")
            .expect("wide.place is listed")["inputSchema"]
            .clone()
    };
    let printed = |flags: &[&str]| {
        let printed = run("wide", &[&["schema", "wide.place"], flags].concat());
        serde_json::from_str::<Value>(&printed.stdout).unwrap()
    };
    let served = listed(&[]);
    assert_eq!(served, printed(&[]));
    assert_eq!(served, mcp_runtime::listing::served(&wide_schema()));
    let portable = listed(&["--portable"]);
    assert_eq!(portable, printed(&["--portable"]));
    assert_ne!(portable, served);
    assert_ne!(served, wide_schema());
}

#[test]
fn check_of_an_empty_registry_fails_saying_how_to_link_the_tools() {
    let checked = run("empty", &["check"]);
    assert_eq!(checked.code, 1);
    assert_eq!(
        checked.stderr,
        format!("error: {EMPTY_REGISTRY_HINT}\nchecked 0 tool(s): 1 error(s), 0 warning(s)\n")
    );
    assert!(EMPTY_REGISTRY_HINT.contains("use my_tools as _;"));
}

#[test]
fn check_reports_every_problem_and_fails() {
    let checked = run("bad", &["check"]);
    let registry = build("bad");
    let location = |name: &str| {
        let location = registry.get(name).expect(name).location();
        let place = format!("{}:{}:{}", location.file, location.line, location.column);
        match location.module_path {
            "" => place,
            module => format!("{place} ({module})"),
        }
    };
    let broken = registry
        .get("bad.broken")
        .unwrap()
        .definition_error()
        .unwrap();
    let expected = [
        format!("error: `bad.broken` ({}): {broken}", location("bad.broken")),
        "error: `bad.example`: example 2 does not match the input schema".to_owned(),
        format!("error: `bad.nodesc` ({}) has no description", location("bad.nodesc")),
        "error: `bad.unresolved`: the input schema: `$ref` to `#/$defs/Missing` does not resolve within the schema".to_owned(),
        "warning: 1 tool(s) have a recursive type, whose `$ref`s no form can inline, so that \
         VS Code's and GitHub's Copilot, Cursor, opencode and Codex cannot read it: \
         `bad.recursive` (input: `Tree`)"
            .to_owned(),
        "checked 5 tool(s): 4 error(s), 1 warning(s)".to_owned(),
    ];
    assert_eq!(checked.stderr, format!("{}\n", expected.join("\n")));
    assert_eq!((checked.code, checked.stdout.as_str()), (1, ""));
    // The places, written out, for a reader: this file, and the module for `#[mcp_tool]`s.
    assert_eq!(
        location("bad.broken"),
        format!("{}:{BROKEN_LINE}:9 (cli)", file!())
    );
    assert!(
        location("bad.nodesc").starts_with(file!()),
        "{}",
        location("bad.nodesc")
    );
}

#[test]
fn check_counts_every_kind() {
    let checked = run("kinds", &["check"]);
    let registry = kinds();
    let location = registry.prompt("summarize").unwrap().location();
    assert_eq!(
        (checked.code, checked.stdout.as_str(), checked.stderr),
        (
            1,
            "",
            format!(
                "error: prompt `summarize` ({location}) has no description\n\
                 checked 1 tool(s), 3 resource(s), 1 template(s), 2 prompt(s): 1 error(s), 0 warning(s)\n"
            )
        )
    );
}

#[test]
fn check_reports_every_problem_of_resources_and_prompts() {
    let checked = run("bad_kinds", &["check"]);
    let registry = bad_kinds();
    let resource = registry.resources().next().unwrap().location();
    let prompt = registry.prompt("twice").unwrap().location();
    let expected = [
        format!("error: resource `app://nodesc` ({resource}) has no description"),
        "error: template `app://r/{x}`: the schema of variable `x`: `$ref` to `#/$defs/Missing` does not resolve within the schema".to_owned(),
        "warning: template `app://t/{a}/{b}`: variable `b` has no schema in `_meta[\"mcp-runtime/variables\"]`; clients see no type for it".to_owned(),
        "error: template `app://t/{a}/{b}`: `_meta[\"mcp-runtime/variables\"]` has a schema for `c`, which is no variable of the template".to_owned(),
        format!("error: prompt `twice` ({prompt}) has no description"),
        "error: prompt `twice`: argument `q` is declared twice".to_owned(),
        "checked 0 tool(s), 1 resource(s), 2 template(s), 1 prompt(s): 5 error(s), 1 warning(s)".to_owned(),
    ];
    assert_eq!(checked.stderr, format!("{}\n", expected.join("\n")));
    assert_eq!((checked.code, checked.stdout.as_str()), (1, ""));
    assert!(resource.to_string().starts_with(file!()), "{resource}");
}

// ---- spec ----

/// A fresh directory path under the system's temporary directory, not yet created.
fn scratch(what: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let path = std::env::temp_dir().join(format!(
        "mcp-runtime-cli-test-{}-{what}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&path);
    path
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

#[test]
fn spec_writes_one_file_per_tool_and_runs_read_only_safe_examples() {
    // Without `--out`: `tool-specs` in the current directory, and it says so.
    let cwd = scratch("spec");
    std::fs::create_dir_all(&cwd).unwrap();
    let out = cwd.join("tool-specs");
    let child = command("main", &["spec"])
        .current_dir(&cwd)
        .stdin(Stdio::null())
        .output()
        .expect("the child runs");
    let stdout = String::from_utf8(child.stdout).unwrap();
    let written = Run {
        code: child.status.code().expect("the child exited"),
        stdout: stdout
            .split_once(MARKER)
            .map(|(_, after)| after.to_owned())
            .unwrap_or(stdout),
        stderr: String::from_utf8(child.stderr).unwrap(),
    };
    let index = out.join("README.md");
    assert_eq!(
        (written.code, written.stdout.clone(), written.stderr.clone()),
        (
            0,
            format!(
                "wrote 4 specification(s) and their index, README.md, into {}\n",
                std::path::absolute(&out).unwrap().display()
            ),
            String::new()
        ),
        "{written:?}"
    );
    let registry = build("main");
    assert_eq!(read(&index), mcp_runtime::spec::index(registry.list()));
    let spec = |name: &str| read(&out.join(name).join(mcp_runtime::spec::SPEC_FILE));
    let not_run = "(its result is not shown: only read-only tools are run to document them)";
    // Read-only and not dangerous: its example is run, and the result shown.
    let add = spec("cli.add");
    let add_result =
        registry.call_blocking(MCPToolCall::new("cli.add", json!({ "a": 1, "b": 2 })).unwrap());
    assert!(add.contains("and its result\n"), "{add}");
    assert!(
        add.contains(&serde_json::to_string_pretty(&add_result).unwrap()),
        "{add}"
    );
    assert!(!add.contains(not_run), "{add}");
    // Not read-only, or dangerous: not run.
    for name in ["cli.mul", "cli.wipe"] {
        let text = spec(name);
        assert!(text.contains(not_run), "{text}");
        assert!(!text.contains("and its result"), "{text}");
    }
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 5);
    std::fs::remove_dir_all(&cwd).unwrap();
}

#[test]
fn spec_writes_resources_and_prompts_apart_from_the_tools() {
    use mcp_runtime::spec;
    let out = scratch("kinds");
    let written = run("kinds", &["spec", "--out", out.to_str().unwrap()]);
    let index = out.join("README.md");
    assert_eq!(
        (written.code, written.stdout.clone()),
        (
            0,
            format!(
                "wrote 7 specification(s) and their index, README.md, into {}\n",
                std::path::absolute(&out).unwrap().display()
            )
        ),
        "{written:?}"
    );
    let registry = kinds();
    let kinds_index = spec::kinds_index(&registry);
    assert!(
        kinds_index.contains("| [`app://users/{id}`](resources/user/MCP_RESOURCE_SPECIFICATION.md) | user | A user, by id. |"),
        "{kinds_index}"
    );
    assert!(
        kinds_index
            .contains("| [`greet`](prompts/greet/MCP_PROMPT_SPECIFICATION.md) | Greets someone. |"),
        "{kinds_index}"
    );
    assert_eq!(read(&index), spec::index(registry.list()) + &kinds_index);
    let resources = out.join(spec::RESOURCES_DIR);
    let about = read(&resources.join("about").join(spec::RESOURCE_SPEC_FILE));
    let resource = registry.resources().next().unwrap();
    assert_eq!(about, spec::resource_specification(resource, "app"));
    for part in [
        "## Resource: `about`",
        "`app://about`",
        "- MIME type: `text/markdown`",
        "- Audience: `user`",
        "- Priority: 0.5",
        "No cache hints",
        "app read app://about",
    ] {
        assert!(about.contains(part), "{part}\n{about}");
    }
    let user = read(&resources.join("user").join(spec::RESOURCE_SPEC_FILE));
    let template = registry.resource_templates().next().unwrap();
    assert_eq!(user, spec::template_specification(template, "app"));
    for part in [
        "## Resource Template: `user`",
        "`app://users/{id}`",
        "| `id` | integer | The user's id. |",
        "\"minimum\": 1",
        "- Clients may keep it for 60000 ms",
        "- Cache scope: `public`",
        "app read app://users/1",
    ] {
        assert!(user.contains(part), "{part}\n{user}");
    }
    let greet = read(
        &out.join(spec::PROMPTS_DIR)
            .join("greet")
            .join(spec::PROMPT_SPEC_FILE),
    );
    assert_eq!(
        greet,
        spec::prompt_specification(registry.prompt("greet").unwrap(), "app")
    );
    for part in [
        "## Prompt: `greet`",
        "| `name` | yes | Whom. |",
        "| `style` | no |  |",
        "app prompt greet '{\"name\":\"text\"}'",
    ] {
        assert!(greet.contains(part), "{part}\n{greet}");
    }
    let entries = |path: &Path| {
        let mut names: Vec<String> = std::fs::read_dir(path)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    assert_eq!(
        entries(&out),
        ["README.md", "k.echo", "prompts", "resources"]
    );
    assert_eq!(entries(&resources), ["about", "broken", "logo", "user"]);
    assert_eq!(
        entries(&out.join(spec::PROMPTS_DIR)),
        ["greet", "summarize"]
    );
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn spec_into_a_place_it_cannot_write_fails() {
    let out = scratch("file");
    std::fs::write(&out, "a file, not a directory").unwrap();
    let written = run("main", &["spec", "--out", out.to_str().unwrap()]);
    std::fs::remove_file(&out).unwrap();
    assert_eq!(written.code, 1, "{written:?}");
    let expected = format!(
        "error: cannot write {}: ",
        out.join("cli.add")
            .join(mcp_runtime::spec::SPEC_FILE)
            .display()
    );
    assert!(written.stderr.starts_with(&expected), "{written:?}");
}

// ---- call ----

#[test]
fn call_prints_the_result_as_json_and_exits_0() {
    let called = run("main", &["call", "cli.add", r#"{"a": 1, "b": 2}"#]);
    assert_eq!(
        (called.code, called.stdout, called.stderr),
        (
            0,
            expected_call("main", "cli.add", json!({ "a": 1, "b": 2 })),
            String::new()
        )
    );
}

#[test]
fn call_reads_the_arguments_from_stdin_given_a_dash() {
    let called = run_stdin("main", &["call", "cli.add", "-"], r#"{"a": 20, "b": 22}"#);
    assert_eq!(
        (called.code, called.stdout),
        (
            0,
            expected_call("main", "cli.add", json!({ "a": 20, "b": 22 }))
        )
    );
    // Arguments on the command line: standard input is not read.
    let called = run_stdin(
        "main",
        &["call", "cli.add", r#"{"a": 1, "b": 1}"#],
        "not json",
    );
    assert_eq!(
        (called.code, called.stdout),
        (
            0,
            expected_call("main", "cli.add", json!({ "a": 1, "b": 1 }))
        )
    );
}

#[test]
fn call_of_a_failing_tool_exits_1() {
    let called = run("main", &["call", "cli.fail"]);
    assert_eq!(
        (called.code, called.stdout),
        (1, expected_call("main", "cli.fail", json!({})))
    );
    let text = run("main", &["call", "cli.fail", "--text"]);
    let result = build("main").call_blocking(MCPToolCall::new("cli.fail", json!({})).unwrap());
    assert_eq!((text.code, &text.stdout), (1, &format!("{result}\n")));
    assert_eq!(
        text.stdout,
        "[FAIL] Tool execution failed:\nError: ToolExecutionError: it always fails\n"
    );
}

#[test]
fn call_of_a_name_without_its_namespace_says_which_tool_was_meant() {
    let called = run("main", &["call", "wipe", r#"{"all": false}"#]);
    assert_eq!(called.code, 2);
    assert!(
        called.stderr.contains("`wipe` has no namespace")
            && called.stderr.ends_with("; did you mean `cli.wipe`?\n"),
        "{called:?}"
    );
    // A name that is a tool's, with arguments that are not JSON, gets no hint.
    let called = run("main", &["call", "cli.wipe", "{nope"]);
    assert!(!called.stderr.contains("did you mean"), "{called:?}");
}

#[test]
fn call_with_arguments_that_are_not_json_is_a_usage_error() {
    let called = run("main", &["call", "cli.add", "{nope"]);
    assert_eq!(called.code, 2);
    assert_eq!(called.stdout, "");
    assert!(
        called
            .stderr
            .starts_with("error: the arguments are not valid JSON: "),
        "{called:?}"
    );
}

#[test]
fn dangerous_tools_run_only_when_allowed() {
    let refused = run("main", &["call", "cli.wipe", r#"{"all": true}"#]);
    assert_eq!(refused.code, 1, "{refused:?}");
    assert!(refused.stdout.contains("PermissionError"), "{refused:?}");
    let allowed_result = pretty(&mcp_runtime::MCPToolResult::success(
        json!({ "result": true }),
    ));
    for allow in ["cli.wipe", "cli_wipe"] {
        let allowed = run(
            "main",
            &[
                "call",
                "cli.wipe",
                r#"{"all": true}"#,
                "--allow-dangerous",
                allow,
            ],
        );
        assert_eq!(
            (
                allowed.code,
                allowed.stdout.as_str(),
                allowed.stderr.as_str()
            ),
            (0, allowed_result.as_str(), ""),
            "{allow}"
        );
    }
    let all = run(
        "main",
        &[
            "call",
            "cli.wipe",
            r#"{"all": true}"#,
            "--allow-all-dangerous",
        ],
    );
    assert_eq!((all.code, all.stdout), (0, allowed_result));
}

/// Arguments whose object is sent as a string of JSON.
const SPAN_AS_TEXT: &str = r#"{"span": "{\"from\": 2, \"to\": 4}"}"#;

#[test]
fn call_reads_a_string_of_json_as_an_object_only_with_lenient_arguments() {
    let strict = run("lenient", &["call", "lenient.pages", SPAN_AS_TEXT]);
    assert_eq!(strict.code, 1, "{strict:?}");
    let result: Value = serde_json::from_str(&strict.stdout).unwrap();
    assert_eq!(result["error"]["error_type"], "ValidationError", "{result}");
    assert_eq!(
        result["error"]["error_details"]["errors"][0]["path"],
        "/span"
    );
    assert_eq!(result["explanation"], Value::Null);

    let lenient = run(
        "lenient",
        &["call", "lenient.pages", SPAN_AS_TEXT, "--lenient-arguments"],
    );
    assert_eq!(
        (lenient.code, lenient.stderr.as_str()),
        (0, ""),
        "{lenient:?}"
    );
    let result: Value = serde_json::from_str(&lenient.stdout).unwrap();
    assert_eq!(result["data"], json!({ "result": 3 }), "{result}");
    let explanation = result["explanation"].as_str().expect("an explanation");
    assert!(
        explanation.starts_with("Lenient arguments: `/span` was sent as a string of JSON"),
        "{explanation}"
    );
}

#[test]
fn serve_reads_strings_of_json_only_with_lenient_arguments() {
    let session = [
        json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": { "name": "test", "version": "1" } } }),
        json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
        json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "lenient.pages",
            "arguments": serde_json::from_str::<Value>(SPAN_AS_TEXT).unwrap() } }),
    ]
    .map(|message| format!("{message}\n"))
    .concat();
    let answer = |flags: &[&str]| {
        let served = run_stdin(
            "lenient",
            &[&["serve", "--stdio"], flags].concat(),
            &session,
        );
        assert_eq!(served.code, 0, "{served:?}");
        served
            .stdout
            .lines()
            .map(|line| serde_json::from_str::<Value>(line).unwrap())
            .find(|message| message["id"] == 2)
            .unwrap_or_else(|| panic!("the call is answered: {served:?}"))["result"]
            .clone()
    };
    let strict = answer(&[]);
    assert_eq!(strict["isError"], true, "{strict}");
    let lenient = answer(&["--lenient-arguments"]);
    assert_eq!(lenient["isError"], false, "{lenient}");
    assert_eq!(lenient["structuredContent"], json!({ "result": 3 }));
    assert!(
        lenient["content"]
            .as_array()
            .unwrap()
            .iter()
            .any(|block| block["text"]
                .as_str()
                .is_some_and(|text| text.starts_with("Lenient arguments: `/span`"))),
        "{lenient}"
    );
    for command in ["call", "serve"] {
        let help = run("lenient", &[command, "--help"]);
        assert!(help.stdout.contains("--lenient-arguments"), "{help:?}");
    }
}

#[test]
fn allowing_a_tool_not_marked_dangerous_warns() {
    let called = run(
        "main",
        &[
            "call",
            "cli.add",
            r#"{"a": 1, "b": 2}"#,
            "--allow-dangerous",
            "cli.add",
        ],
    );
    assert_eq!(
        (called.code, called.stdout, called.stderr),
        (
            0,
            expected_call("main", "cli.add", json!({ "a": 1, "b": 2 })),
            "warning: --allow-dangerous: `cli.add` is not marked dangerous; it runs anyway\n"
                .to_owned()
        )
    );
}

#[test]
fn allowing_an_unknown_tool_is_a_usage_error() {
    let called = run(
        "main",
        &["call", "cli.wipe", "{}", "--allow-dangerous", "cli.nope"],
    );
    assert_eq!(
        (called.code, called.stdout.as_str(), called.stderr.as_str()),
        (
            2,
            "",
            "error: --allow-dangerous: no tool is named `cli.nope`; the tools marked dangerous are `cli.wipe`\n"
        )
    );
}

// ---- serve ----

#[test]
fn serve_stdio_ends_with_its_input_and_exits_0() {
    let served = run("main", &["serve", "--stdio"]);
    assert_eq!((served.code, served.stdout.as_str()), (0, ""), "{served:?}");
}

#[test]
fn serve_refuses_a_state_key_file_it_cannot_use() {
    let dir = std::env::temp_dir().join(format!("mcp-cli-state-key-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let short = dir.join("short");
    std::fs::write(&short, "too short\n").unwrap();
    let served = run(
        "main",
        &[
            "serve",
            "--stdio",
            "--state-key-file",
            short.to_str().unwrap(),
        ],
    );
    assert_eq!(served.code, 2, "{served:?}");
    assert!(
        served
            .stderr
            .contains("the requestState key is 9 bytes; it needs at least 32"),
        "{served:?}"
    );
    let missing = dir.join("missing");
    let served = run(
        "main",
        &[
            "serve",
            "--stdio",
            "--state-key-file",
            missing.to_str().unwrap(),
        ],
    );
    assert_eq!(served.code, 2, "{served:?}");
    assert!(
        served.stderr.contains("cannot read the requestState key"),
        "{served:?}"
    );
    let good = dir.join("good");
    std::fs::write(&good, "0123456789abcdef0123456789abcdef0123456789abcdef\n").unwrap();
    let served = run(
        "main",
        &[
            "serve",
            "--stdio",
            "--state-key-file",
            good.to_str().unwrap(),
        ],
    );
    assert_eq!(served.code, 0, "{served:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn serve_refuses_a_task_store_it_cannot_use() {
    let served = run(
        "main",
        &["serve", "--stdio", "--task-store", "postgres://db"],
    );
    assert_eq!(served.code, 1, "{served:?}");
    assert!(
        served
            .stderr
            .contains("error: --task-store postgres://db: a task store is `memory` or a Redis URL"),
        "{served:?}"
    );
    // Nothing listens on port 1: refused at start-up, not at the first task.
    let served = run(
        "main",
        &["serve", "--stdio", "--task-store", "redis://127.0.0.1:1"],
    );
    assert_eq!(served.code, 1, "{served:?}");
    assert!(
        served
            .stderr
            .starts_with("error: --task-store redis://127.0.0.1:1: "),
        "{served:?}"
    );
    let served = run("main", &["serve", "--stdio", "--task-lease", "soon"]);
    assert_eq!(served.code, 2, "{served:?}");
    assert!(served.stderr.contains("--task-lease"), "{served:?}");
    let served = run(
        "main",
        &[
            "serve",
            "--stdio",
            "--task-store",
            "memory",
            "--task-ttl",
            "10m",
        ],
    );
    assert_eq!(served.code, 0, "{served:?}");
}

#[test]
fn serve_with_llm_names_that_collide_fails() {
    let served = run("collide", &["serve", "--stdio", "--llm-names"]);
    assert_eq!(served.code, 1, "{served:?}");
    assert!(served.stderr.starts_with("error: "), "{served:?}");
    assert!(served.stderr.contains("a_b_c"), "{served:?}");
}

/// Kills the child when dropped, so that a failed assertion leaves no server behind.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn serve_http_applies_token_origins_and_rate_limit() {
    let mut child = Killed(
        command(
            "main",
            &[
                "serve",
                "--http",
                "0.0.0.0:0",
                "--token",
                "secret",
                "--allow-origin",
                "https://app.example",
                "--rate-limit",
                "5",
                "--rate-burst",
                "2",
            ],
        )
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the child starts"),
    );
    let stderr = child.0.stderr.take().unwrap();
    let (lines, received) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    let deadline = Duration::from_secs(120);
    let listening = received.recv_timeout(deadline).expect("the server starts");
    let port: u16 = listening
        .strip_prefix("listening on http://0.0.0.0:")
        .and_then(|rest| rest.strip_suffix("/mcp"))
        .unwrap_or_else(|| panic!("{listening}"))
        .parse()
        .unwrap();
    // The origin allowed passes; the token is still required.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let response = runtime.block_on(support::exchange(
        ([127, 0, 0, 1], port).into(),
        "GET /mcp HTTP/1.1\r\nHost: localhost\r\nOrigin: https://app.example\r\nConnection: close\r\n\r\n",
    ));
    assert!(response.starts_with("HTTP/1.1 401"), "{response}");
    let response = runtime.block_on(support::exchange(
        ([127, 0, 0, 1], port).into(),
        "GET /mcp HTTP/1.1\r\nHost: localhost\r\nOrigin: https://other.example\r\nConnection: close\r\n\r\n",
    ));
    assert!(response.starts_with("HTTP/1.1 403"), "{response}");
    // The server wrote its notes before it answered anything: stop it and read them all.
    // With a token, no warning about the address is among them.
    drop(child);
    let notes: Vec<String> = received.iter().collect();
    assert_eq!(
        notes,
        ["rate limit: 5 requests per second, at most 2 at once, per client"]
    );
}

// ---- the parts, in this process ----

#[test]
fn the_table_aligns_name_version_category_and_summary() {
    let registry = build("main");
    assert_eq!(
        listing::table(registry.list()),
        "NAME      VERSION  CATEGORY  DESCRIPTION\n\
         cli.add   0.1.0    math      Adds two numbers.\n\
         cli.fail  0.1.0    -         Always fails.\n\
         cli.mul   0.1.0    math      Multiplies | two numbers.\n\
         cli.wipe  0.1.0    -         Wipes nothing, but is marked dangerous.\n"
    );
}

#[test]
fn the_markdown_table_escapes_pipes() {
    let registry = build("main");
    assert_eq!(
        listing::markdown(registry.list()),
        "| Tool | Version | Category | Description |\n|---|---|---|---|\n\
         | `cli.add` | 0.1.0 | math | Adds two numbers. |\n\
         | `cli.fail` | 0.1.0 |  | Always fails. |\n\
         | `cli.mul` | 0.1.0 | math | Multiplies \\| two numbers. |\n\
         | `cli.wipe` | 0.1.0 |  | Wipes nothing, but is marked dangerous. |\n"
    );
    assert_eq!(
        listing::table(std::iter::empty()),
        "NAME  VERSION  CATEGORY  DESCRIPTION\n"
    );
}

#[test]
fn the_manifest_holds_every_field() {
    let registry = build("main");
    assert_eq!(
        listing::manifest(registry.get("cli.add")),
        json!({ "tools": [{
            "name": "cli.add",
            "title": "Adds two numbers",
            "description": "Adds two numbers.\n\nThe second paragraph is not in one-line listings.",
            "version": "0.1.0",
            "category": "math",
            "tags": ["arith"],
            "annotations": {
                "readOnly": true,
                "destructive": null,
                "idempotent": null,
                "openWorld": null,
                "dangerous": false,
                "requiresSandbox": false,
            },
            "scopes": [],
            "errors": [],
            // The schemas as served: without schemars' `int64`.
            "inputSchema": {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "properties": {
                    "a": { "type": "integer" },
                    "b": { "type": "integer" },
                },
                "required": ["a", "b"],
                "additionalProperties": false,
            },
            "outputSchema": {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "properties": { "result": { "type": "integer" } },
                "required": ["result"],
                "additionalProperties": false,
            },
        }] })
    );
    assert_eq!(MAIN.len(), registry.len());
}

#[test]
fn examples_of_the_attribute_are_kept_as_json_objects() {
    let registry = build("main");
    let add = registry.get("cli.add").unwrap().definition();
    assert_eq!(
        add.examples(),
        [json!({ "a": 1, "b": 2 }).as_object().unwrap().clone()]
    );
}

#[test]
fn a_context_tells_its_cancellation_and_progress() {
    let ctx = ToolContext::new(Arc::new(ToolName::new("cli.ctx").unwrap()));
    assert!(!ctx.is_cancelled());
    assert!(!ctx.wants_progress());
    assert_eq!(
        format!("{ctx:?}"),
        format!(
            "ToolContext {{ tool_name: {:?}, cancelled: false, meta: None, wants_progress: false, log_level: None, states: {{}} }}",
            ToolName::new("cli.ctx").unwrap()
        )
    );
    let token: &CancellationToken = ctx.cancellation();
    token.cancel();
    assert!(ctx.cancellation().is_cancelled());
    assert!(ctx.is_cancelled());
    assert!(format!("{ctx:?}").contains("cancelled: true"), "{ctx:?}");
}

#[test]
fn an_invocation_shows_its_tool_name() {
    let registry = Registry::builder()
        .inventory()
        .prefix("dbg.")
        .build()
        .unwrap();
    let result = registry.call_blocking(MCPToolCall::new("dbg.invocation", json!({})).unwrap());
    assert_eq!(
        result.data().unwrap()["invocation"],
        format!(
            "Invocation {{ tool_name: {:?}, .. }}",
            ToolName::new("dbg.invocation").unwrap()
        )
    );
}

#[test]
fn handlers_and_locations_print_what_they_are() {
    assert_eq!(
        format!("{:?}", Handler::Inline(show_invocation)),
        "Handler::Inline"
    );
    assert_eq!(
        format!("{:?}", Handler::Blocking(show_invocation)),
        "Handler::Blocking"
    );
    let mut location = Location {
        file: "src/tools.rs",
        line: 12,
        column: 4,
        module_path: "app::tools",
    };
    assert_eq!(location.to_string(), "src/tools.rs:12:4 (app::tools)");
    location.module_path = "";
    assert_eq!(location.to_string(), "src/tools.rs:12:4");
}
