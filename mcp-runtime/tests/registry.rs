//! The `Registry` seen from outside: what the builder collects and keeps, lookup by name,
//! listing order, enabling and disabling, duplicates, mounts, and what `call` answers
//! (`MCPToolCall` → `MCPToolResult`) for known, unknown, disabled and broken tools.

use std::time::Duration;

use mcp_runtime::__private::{Handler, Invocation, Outcome, Output, ToolRegistration};
use mcp_runtime::schema::OutputSchema;
use mcp_runtime::{
    ConflictKind, DangerousPolicy, DefinitionError, EMPTY_REGISTRY_HINT, ErrorType, Location,
    MCPToolCall, MCPToolResult, Registry, RegistryProblem, ToolAnnotations, ToolConflict,
    ToolContext, ToolDefinition, ToolError, ToolName, mcp_tool,
};
use serde_json::{Value, json};

mod support;
use support::{failure, registry_of};

/// Adds; its schema states nothing beyond the parameter types.
#[mcp_tool(namespace = "reg", category = "math", inline)]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Picks a digit; the schema states its range, which the type does not.
#[mcp_tool(namespace = "reg", inline)]
fn pick(
    /// From 1 to 9.
    #[schemars(range(min = 1, max = 9))]
    n: u8,
) -> u8 {
    n
}

/// Wipes nothing, but is marked dangerous; its schema states nothing beyond the types.
#[mcp_tool(namespace = "reg", dangerous, inline)]
fn wipe(all: bool) -> bool {
    all
}

/// Says which tool it was called as, from the blocking thread pool.
#[mcp_tool(namespace = "reg")]
fn whoami(ctx: &ToolContext) -> String {
    ctx.tool_name().to_string()
}

/// The error the definition of `reg.broken` fails with.
fn broken_error() -> DefinitionError {
    DefinitionError::Version {
        tool: "reg.broken".to_owned(),
        version: "one".to_owned(),
        reason: "not a number".to_owned(),
    }
}

fn broken_definition() -> Result<ToolDefinition, DefinitionError> {
    Err(broken_error())
}

fn broken_invoke(_arguments: &Value, _invocation: Invocation<'_>) -> Outcome {
    Ok(Output::Value(json!({ "ran": true })))
}

// A registration as `#[mcp_tool]` makes one, with a definition that fails when built: the
// macro refuses at compile time every definition it could see to be invalid.
mcp_runtime::__private::inventory::submit! {
    ToolRegistration::new(
        "reg.broken",
        broken_definition,
        Handler::Inline(broken_invoke),
        Location { file: file!(), line: line!(), column: column!(), module_path: module_path!() },
    )
}

/// Every `#[mcp_tool]` of this test binary, in name order.
const INVENTORY: [&str; 5] = [
    "reg.add",
    "reg.broken",
    "reg.pick",
    "reg.whoami",
    "reg.wipe",
];

fn tool_call(name: &str, arguments: Value) -> MCPToolCall {
    MCPToolCall::new(name, arguments).expect("a valid call")
}

fn names(registry: &Registry) -> Vec<String> {
    registry
        .list()
        .map(|tool| tool.name().to_string())
        .collect()
}

fn any_object() -> schemars::Schema {
    schemars::json_schema!({ "type": "object" })
}

fn definition(name: &str) -> ToolDefinition {
    ToolDefinition::new(name, any_object()).expect("a valid definition")
}

fn answer(name: &str) -> MCPToolResult {
    MCPToolResult::success(json!({ "tool": name }))
}

/// The `ResourceNotFound` failure `call` answers for `name` with `message` and `closest`.
fn not_found(name: &str, message: &str, closest: &[&str]) -> (ErrorType, String, Value) {
    (
        ErrorType::ResourceNotFound,
        message.to_owned(),
        json!({ "tool_name": name, "closest": closest }),
    )
}

#[test]
fn inventory_collects_every_mcp_tool_in_name_order_with_where_it_came_from() {
    let registry = Registry::builder().inventory().build().expect("a registry");
    assert_eq!(names(&registry), INVENTORY);
    assert_eq!(registry.len(), INVENTORY.len());
    assert!(!registry.is_empty());
    for name in INVENTORY {
        assert!(registry.has_tool(name), "{name}");
        let tool = registry.get(name).expect("registered");
        assert_eq!(tool.name().as_str(), name);
        assert_eq!(tool.definition().name().as_str(), name);
        assert_eq!(tool.source(), "#[mcp_tool]");
        assert!(tool.is_enabled());
        let location = tool.location();
        assert!(location.file.ends_with("registry.rs"), "{location}");
        assert_eq!(location.module_path, "registry");
        assert!(location.line > 0);
    }
    assert_eq!(
        registry
            .get("reg.add")
            .map(|tool| tool.definition().category()),
        Some(Some("math"))
    );

    let global = Registry::global();
    assert_eq!(names(global), INVENTORY);
    let try_global = Registry::try_global().expect("the global registry builds");
    assert!(std::ptr::eq(global, try_global), "one global registry");
    assert_eq!(
        global.call_blocking(tool_call("reg.add", json!({ "a": 2, "b": 3 }))),
        MCPToolResult::success(json!({ "result": 5 }))
    );
}

#[test]
fn a_tool_whose_definition_fails_is_listed_with_a_stand_in_and_its_calls_refused() {
    let registry = Registry::builder()
        .inventory()
        .names(["reg.broken", "reg.add"])
        .build()
        .expect("a definition that fails is no registry problem");
    assert_eq!(names(&registry), ["reg.add", "reg.broken"]);
    let broken = registry.get("reg.broken").expect("registered");
    assert_eq!(broken.definition_error(), Some(&broken_error()));
    assert_eq!(
        broken.definition(),
        &ToolDefinition::unavailable(ToolName::new("reg.broken").unwrap(), broken_error())
    );
    assert_eq!(registry.get("reg.add").unwrap().definition_error(), None);

    let result = registry.call_blocking(tool_call("reg.broken", json!({})));
    assert_eq!(
        failure(&result),
        (
            ErrorType::ToolExecutionError,
            format!(
                "tool `reg.broken` cannot run: its definition could not be built: {}",
                broken_error()
            ),
            Value::Null,
        )
    );
    assert_eq!(
        registry.call_blocking(tool_call("reg.add", json!({ "a": 1, "b": 1 }))),
        MCPToolResult::success(json!({ "result": 2 })),
        "the other tools run"
    );
}

#[test]
fn a_tool_validates_its_arguments_only_when_its_schema_states_more_than_its_types() {
    let registry = Registry::builder()
        .inventory()
        .tool(definition("dyn.any"), |_arguments, _ctx| async {
            Ok::<_, ToolError>(Value::Null)
        })
        .build()
        .unwrap();
    let validates = |name: &str| registry.get(name).unwrap().validates_arguments();
    assert!(!validates("reg.add"));
    assert!(validates("reg.pick"), "a range is beyond the type");
    assert!(validates("dyn.any"), "a dynamic tool has only its schema");

    let result = registry.call_blocking(tool_call("reg.pick", json!({ "n": 12 })));
    assert_eq!(failure(&result).0, ErrorType::ValidationError, "{result:?}");
    assert_eq!(
        registry.call_blocking(tool_call("reg.pick", json!({ "n": 7 }))),
        MCPToolResult::success(json!({ "result": 7 }))
    );
}

#[test]
fn a_blocking_tool_and_a_dynamic_tool_know_the_name_they_were_called_by() {
    let registry = Registry::builder()
        .inventory()
        .names(["reg.whoami", "dyn.whoami"])
        .tool(
            definition("dyn.whoami"),
            |_arguments, ctx: ToolContext| async move {
                Ok::<_, ToolError>(json!({ "name": ctx.tool_name().as_str() }))
            },
        )
        .build()
        .unwrap();
    assert_eq!(
        registry.call_blocking(tool_call("reg.whoami", json!({}))),
        MCPToolResult::success(json!({ "result": "reg.whoami" }))
    );
    assert_eq!(
        registry.call_blocking(tool_call("dyn.whoami", json!({}))),
        MCPToolResult::success(json!({ "name": "dyn.whoami" }))
    );
}

#[test]
fn tools_are_listed_by_name_whatever_the_order_they_were_added_in() {
    let mut registry = registry_of(&[definition("m.zeta"), definition("m.alpha")]);
    assert_eq!(names(&registry), ["m.alpha", "m.zeta"]);
    registry
        .register(definition("m.mid"), |_arguments, _ctx| async {
            Ok::<_, ToolError>(json!({ "tool": "m.mid" }))
        })
        .expect("a free name");
    registry
        .register(definition("a.first"), |_arguments, _ctx| async {
            Ok::<_, ToolError>(json!({ "tool": "a.first" }))
        })
        .expect("a free name");
    assert_eq!(names(&registry), ["a.first", "m.alpha", "m.mid", "m.zeta"]);
    assert_eq!(registry.len(), 4);
    let mid = registry.get("m.mid").expect("registered");
    assert_eq!(mid.source(), "dynamic");
    assert_eq!(mid.location().file, file!());
    assert_eq!(mid.location().module_path, "");
    assert_eq!(
        registry.call_blocking(tool_call("m.mid", json!({}))),
        answer("m.mid")
    );
}

#[test]
fn register_refuses_a_taken_name_and_names_both_places() {
    let mut registry = registry_of(&[definition("dup.tool")]);
    let first = *registry.get("dup.tool").unwrap().location();
    let error = registry
        .register(definition("dup.tool"), |_arguments, _ctx| async {
            Ok::<_, ToolError>(json!({ "tool": "the second" }))
        })
        .expect_err("the name is taken");
    let [
        RegistryProblem::Duplicate {
            name,
            first: reported,
            second,
        },
    ] = error.problems()
    else {
        panic!("one duplicate: {error:?}");
    };
    assert_eq!(name, "dup.tool");
    assert_eq!(*reported, first);
    assert_eq!(second.file, file!());
    assert_ne!(second.line, first.line);
    assert_eq!(
        error.to_string(),
        format!(
            "the registry has 1 problem(s):\n  - two tools are named `dup.tool`: one at {first}, \
             one at {second}; give one of them another `name` or `namespace`"
        )
    );
    assert_eq!(
        registry.call_blocking(tool_call("dup.tool", json!({}))),
        answer("dup.tool"),
        "the first stays"
    );
    assert_eq!(registry.len(), 1);
}

#[test]
fn build_reports_every_duplicate_with_both_places_in_name_order() {
    let builder = Registry::builder()
        .tool(definition("z.twice"), |_arguments, _ctx| async {
            Ok::<_, ToolError>(Value::Null)
        })
        .tool(definition("a.twice"), |_arguments, _ctx| async {
            Ok::<_, ToolError>(Value::Null)
        })
        .tool(definition("m.once"), |_arguments, _ctx| async {
            Ok::<_, ToolError>(Value::Null)
        })
        .tool(definition("z.twice"), |_arguments, _ctx| async {
            Ok::<_, ToolError>(Value::Null)
        })
        .tool(definition("a.twice"), |_arguments, _ctx| async {
            Ok::<_, ToolError>(Value::Null)
        });
    let error = builder.build().expect_err("two names are taken twice");
    let problems = error.problems();
    assert_eq!(problems.len(), 2, "{problems:?}");
    let mut lines = Vec::new();
    for (problem, expected) in problems.iter().zip(["a.twice", "z.twice"]) {
        let RegistryProblem::Duplicate {
            name,
            first,
            second,
        } = problem
        else {
            panic!("a duplicate: {problem:?}");
        };
        assert_eq!(name, expected);
        assert_eq!((first.file, second.file), (file!(), file!()));
        assert!(first < second, "{first} before {second}");
        lines.push(format!("\n  - {problem}"));
    }
    assert_eq!(
        error.to_string(),
        format!("the registry has 2 problem(s):{}", lines.concat())
    );
}

#[test]
fn a_disabled_tool_is_found_by_get_but_neither_listed_nor_called() {
    let mut registry = registry_of(&[definition("t.one"), definition("t.two")]);
    assert!(registry.disable("t.one"));
    assert!(!registry.disable("t.none"), "no such tool");
    let one = registry
        .get("t.one")
        .expect("a disabled tool is still there");
    assert!(!one.is_enabled());
    assert!(!registry.has_tool("t.one"));
    assert!(registry.has_tool("t.two"));
    assert_eq!(names(&registry), ["t.two"]);
    assert_eq!(registry.len(), 1);
    let result = registry.call_blocking(tool_call("t.one", json!({})));
    assert_eq!(
        failure(&result),
        not_found("t.one", "tool `t.one` is disabled", &[])
    );

    assert!(registry.enable("t.one"));
    assert!(!registry.enable("t.none"), "no such tool");
    assert!(registry.get("t.one").unwrap().is_enabled());
    assert!(registry.has_tool("t.one"));
    assert_eq!(names(&registry), ["t.one", "t.two"]);
    assert_eq!(registry.len(), 2);
    assert_eq!(
        registry.call_blocking(tool_call("t.one", json!({}))),
        answer("t.one")
    );

    assert!(registry.disable("t.one") && registry.disable("t.two"));
    assert!(registry.is_empty());
    assert_eq!(registry.len(), 0);
}

#[test]
fn unregister_removes_a_tool_from_lookup_listing_and_calls() {
    let mut registry = registry_of(&[definition("u.a"), definition("u.b"), definition("u.c")]);
    let removed = registry.unregister("u.b").expect("registered");
    assert_eq!(removed.name().as_str(), "u.b");
    assert!(registry.unregister("u.b").is_none(), "already gone");
    assert!(registry.get("u.b").is_none());
    assert!(!registry.has_tool("u.b"));
    assert_eq!(names(&registry), ["u.a", "u.c"]);
    assert_eq!(registry.len(), 2);
    let result = registry.call_blocking(tool_call("u.b", json!({})));
    assert_eq!(
        failure(&result),
        not_found(
            "u.b",
            "no tool is named `u.b`; did you mean `u.a`, `u.c`?",
            &["u.a", "u.c"]
        )
    );
}

#[test]
fn an_unknown_name_is_a_resource_not_found_naming_up_to_three_closest_tools() {
    let registry = registry_of(&[
        definition("calc.add"),
        definition("calc.and"),
        definition("calc.mul"),
        definition("calc.sub"),
        definition("text.upper"),
    ]);
    let result = registry.call_blocking(tool_call("calc.ad", json!({})));
    assert_eq!(
        failure(&result),
        not_found(
            "calc.ad",
            "no tool is named `calc.ad`; did you mean `calc.add`, `calc.and`, `calc.mul`?",
            &["calc.add", "calc.and", "calc.mul"]
        )
    );
    let result = registry.call_blocking(tool_call("zz.zz", json!({})));
    assert_eq!(
        failure(&result),
        not_found("zz.zz", "no tool is named `zz.zz`", &[])
    );

    let empty = Registry::builder().build().unwrap();
    assert!(empty.is_empty());
    assert_eq!(empty.len(), 0);
    assert_eq!(names(&empty), Vec::<String>::new());
    let result = empty.call_blocking(tool_call("calc.add", json!({})));
    assert_eq!(
        failure(&result),
        not_found(
            "calc.add",
            &format!("no tool is named `calc.add`; {EMPTY_REGISTRY_HINT}"),
            &[]
        )
    );
}

fn tagged(name: &str, category: &str, tags: &[&str]) -> ToolDefinition {
    definition(name)
        .with_category(category)
        .with_tags(tags.iter().copied())
}

fn catalogue() -> Vec<ToolDefinition> {
    vec![
        tagged("fs.write", "filesystem", &["write"]),
        tagged("fs.read", "filesystem", &["read"]),
        tagged("math.add", "math", &["arith"]),
        definition("misc.plain"),
    ]
}

fn filtered(
    keep: impl FnOnce(mcp_runtime::RegistryBuilder) -> mcp_runtime::RegistryBuilder,
) -> Vec<String> {
    let builder = catalogue()
        .into_iter()
        .fold(Registry::builder(), |builder, definition| {
            builder.tool(definition, |_arguments, _ctx| async {
                Ok::<_, ToolError>(Value::Null)
            })
        });
    names(&keep(builder).build().expect("a registry"))
}

#[test]
fn builder_filters_keep_the_matching_tools_and_add_up() {
    assert_eq!(
        filtered(|builder| builder),
        ["fs.read", "fs.write", "math.add", "misc.plain"]
    );
    assert_eq!(
        filtered(|builder| builder.category("filesystem")),
        ["fs.read", "fs.write"]
    );
    assert_eq!(
        filtered(|builder| builder.tags(["write", "arith"])),
        ["fs.write", "math.add"]
    );
    assert_eq!(
        filtered(|builder| builder.names(["math.add", "misc.plain", "no.such"])),
        ["math.add", "misc.plain"]
    );
    assert_eq!(
        filtered(|builder| builder.prefix("fs.")),
        ["fs.read", "fs.write"]
    );
    assert_eq!(
        filtered(|builder| builder.filter(|definition| definition.tags().is_empty())),
        ["misc.plain"]
    );
    assert_eq!(
        filtered(|builder| builder.category("filesystem").tags(["read", "arith"])),
        ["fs.read"],
        "filters add up"
    );
}

#[test]
fn categories_are_listed_once_each_in_order_and_exclude_disabled_tools() {
    let mut registry = registry_of(&catalogue());
    assert_eq!(registry.list_categories(), ["filesystem", "math"]);
    let in_category = |registry: &Registry, category: &str| -> Vec<String> {
        registry
            .list_category(category)
            .map(|tool| tool.name().to_string())
            .collect()
    };
    assert_eq!(
        in_category(&registry, "filesystem"),
        ["fs.read", "fs.write"]
    );
    assert_eq!(in_category(&registry, "math"), ["math.add"]);
    assert_eq!(in_category(&registry, "none"), Vec::<String>::new());

    assert!(registry.disable("math.add"));
    assert_eq!(registry.list_categories(), ["filesystem"]);
    assert_eq!(in_category(&registry, "math"), Vec::<String>::new());
}

#[test]
fn mount_prefixes_the_names_and_keeps_a_tool_already_there() {
    let mut other = registry_of(&[
        definition("files.read"),
        definition("files.write"),
        definition("files.off"),
    ]);
    assert!(other.disable("files.off"));
    let mut registry = registry_of(&[definition("ext.files.write")]);
    let taken = *registry.get("ext.files.write").unwrap().location();
    let writer = *other.get("files.write").unwrap().location();

    let conflicts = registry.mount("ext", &other).expect("a valid prefix");
    assert_eq!(
        conflicts,
        [ToolConflict {
            kind: ConflictKind::Tool,
            tool_name: "ext.files.write".to_owned(),
            source: format!("`files.write` (mounted under `ext`, {writer})"),
            shadowed_by: format!("dynamic ({taken})"),
            resolution: "kept the one already registered; the mounted one is not available"
                .to_owned(),
        }]
    );
    assert_eq!(names(&registry), ["ext.files.read", "ext.files.write"]);
    let mounted = registry.get("ext.files.read").expect("mounted");
    assert_eq!(mounted.source(), "mounted under `ext`");
    assert_eq!(
        mounted.definition().name().as_str(),
        "ext.files.read",
        "the definition is renamed too"
    );
    assert!(mounted.is_enabled());
    assert_eq!(
        registry.call_blocking(tool_call("ext.files.read", json!({}))),
        answer("files.read"),
        "the mounted tool runs"
    );
    assert_eq!(
        registry.call_blocking(tool_call("ext.files.write", json!({}))),
        answer("ext.files.write"),
        "the tool already there stays"
    );

    assert!(registry.mount("bad prefix!", &other).is_err());
    assert_eq!(names(&registry), ["ext.files.read", "ext.files.write"]);
}

#[test]
fn a_builder_takes_the_enabled_tools_of_another_registry() {
    let mut other = registry_of(&[definition("o.on"), definition("o.off")]);
    assert!(other.disable("o.off"));
    let registry = Registry::builder()
        .registry(&other)
        .tool(definition("n.new"), |_arguments, _ctx| async {
            Ok::<_, ToolError>(json!({ "tool": "n.new" }))
        })
        .build()
        .unwrap();
    assert_eq!(names(&registry), ["n.new", "o.on"]);
    assert_eq!(
        registry.call_blocking(tool_call("o.on", json!({}))),
        answer("o.on")
    );
}

fn dangerous(name: &str) -> ToolDefinition {
    definition(name).with_annotations(ToolAnnotations {
        dangerous: true,
        ..ToolAnnotations::default()
    })
}

/// `reg.wipe` and a dangerous dynamic tool, under `policy`; what calling each answers.
fn under_policy(
    policy: impl FnOnce(mcp_runtime::RegistryBuilder) -> mcp_runtime::RegistryBuilder,
) -> [MCPToolResult; 2] {
    let builder = Registry::builder()
        .inventory()
        .names(["reg.wipe", "dyn.drop"])
        .tool(dangerous("dyn.drop"), |_arguments, _ctx| async {
            Ok::<_, ToolError>(json!({ "dropped": true }))
        });
    let registry = policy(builder).build().unwrap();
    assert_eq!(names(&registry), ["dyn.drop", "reg.wipe"]);
    [
        registry.call_blocking(tool_call("reg.wipe", json!({ "all": true }))),
        registry.call_blocking(tool_call("dyn.drop", json!({ "all": true }))),
    ]
}

#[test]
fn dangerous_tools_run_only_as_the_registry_policy_allows() {
    let wiped = MCPToolResult::success(json!({ "result": true }));
    let dropped = MCPToolResult::success(json!({ "dropped": true }));
    for refused in under_policy(|builder| builder) {
        assert_eq!(
            failure(&refused).0,
            ErrorType::PermissionError,
            "{refused:?}"
        );
    }
    let [wipe, drop] = under_policy(|builder| builder.allow_dangerous(["reg.wipe"]));
    assert_eq!(wipe, wiped);
    assert_eq!(failure(&drop).0, ErrorType::PermissionError, "{drop:?}");
    let [wipe, drop] = under_policy(|builder| builder.dangerous_policy(DangerousPolicy::AllowAll));
    assert_eq!((wipe, drop), (wiped.clone(), dropped.clone()));
    let [wipe, drop] = under_policy(|builder| {
        builder.confirm_dangerous(|definition, _arguments| definition.name().as_str() == "dyn.drop")
    });
    assert_eq!(failure(&wipe).0, ErrorType::PermissionError, "{wipe:?}");
    assert_eq!(drop, dropped);
}

fn output_checked(validate: Option<bool>) -> MCPToolResult {
    let output = OutputSchema {
        schema: schemars::json_schema!({
            "type": "object",
            "properties": { "n": { "type": "integer" } },
            "required": ["n"],
        }),
        wrapped: false,
    };
    let definition = definition("out.bad").with_output(output).unwrap();
    let mut builder = Registry::builder().tool(definition, |_arguments, _ctx| async {
        Ok::<_, ToolError>(json!({ "n": "not a number" }))
    });
    if let Some(validate) = validate {
        builder = builder.validate_output(validate);
    }
    builder
        .build()
        .unwrap()
        .call_blocking(tool_call("out.bad", json!({})))
}

#[test]
fn output_is_checked_against_its_schema_unless_the_builder_says_not_to() {
    assert_eq!(
        output_checked(Some(false)),
        MCPToolResult::success(json!({ "n": "not a number" }))
    );
    let checked = output_checked(Some(true));
    assert_eq!(
        failure(&checked).0,
        ErrorType::ToolExecutionError,
        "{checked:?}"
    );
    assert_eq!(
        output_checked(None),
        checked,
        "checked by default in debug builds"
    );
}

#[test]
fn the_default_timeout_ends_a_call_that_never_finishes() {
    // The timeout is set last: a builder that forgot its tools would answer `ResourceNotFound`
    // at once rather than wait for the 60 s default.
    let registry = Registry::builder()
        .tool(definition("slow.never"), |_arguments, _ctx| async {
            std::future::pending::<()>().await;
            Ok::<_, ToolError>(Value::Null)
        })
        .default_timeout(Some(Duration::from_millis(50)))
        .build()
        .unwrap();
    let result = registry.call_blocking(tool_call("slow.never", json!({})));
    assert_eq!(
        failure(&result),
        (
            ErrorType::TimeoutError,
            "tool `slow.never` did not finish within 50ms".to_owned(),
            Value::Null,
        )
    );
}

#[tokio::test]
async fn call_answers_as_call_blocking_does_and_call_blocking_refuses_inside_a_runtime() {
    let registry = Registry::builder()
        .inventory()
        .names(["reg.add"])
        .build()
        .unwrap();
    assert_eq!(
        registry
            .call(tool_call("reg.add", json!({ "a": 40, "b": 2 })))
            .await,
        MCPToolResult::success(json!({ "result": 42 }))
    );
    let refused = registry.call_blocking(tool_call("reg.add", json!({ "a": 40, "b": 2 })));
    assert_eq!(
        failure(&refused),
        (
            ErrorType::ToolExecutionError,
            "`Registry::call_blocking` cannot block inside an async runtime: use `Registry::call(..).await`"
                .to_owned(),
            Value::Null,
        )
    );
}

#[test]
fn a_builder_shows_how_many_tools_and_filters_it_holds() {
    let builder = Registry::builder()
        .tool(definition("d.one"), |_arguments, _ctx| async {
            Ok::<_, ToolError>(Value::Null)
        })
        .tool(definition("d.two"), |_arguments, _ctx| async {
            Ok::<_, ToolError>(Value::Null)
        })
        .prefix("d.")
        .filter_prompts(|_| true);
    let shown = format!("{builder:?}");
    assert!(
        shown.starts_with("RegistryBuilder { tools: 2, filters: 1, resources: 0, resource_filters: 0, prompts: 0, prompt_filters: 1, settings: "),
        "{shown}"
    );
}
