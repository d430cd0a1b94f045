//! Typed state: what `Registry::builder().state(…)` gives reaches the tools that take a
//! `State<T>` (inline, blocking, async, by reference) and those that read
//! `ToolContext::state`; a registry whose tools take a state it was not given is refused
//! when it is built, naming the tool and the type.

use std::sync::atomic::{AtomicU64, Ordering};

use mcp_runtime::{
    MCPToolCall, MCPToolResult, Registry, RegistryProblem, State, ToolContext, ToolDefinition,
    ToolError, ToolName, mcp_tool,
};
use serde_json::{Value, json};

/// How many times the counting tools ran, whichever of them.
#[derive(Default)]
struct Counter(AtomicU64);

impl Counter {
    fn add(&self, by: u64) -> u64 {
        self.0.fetch_add(by, Ordering::Relaxed) + by
    }
}

/// How the greeting tool greets.
struct Greeting(String);

/// Counts one, where it is called.
#[mcp_tool(namespace = "state", inline)]
fn count_inline(counter: State<Counter>) -> u64 {
    counter.add(1)
}

/// Counts `by`, on the blocking pool; the state by reference.
#[mcp_tool(namespace = "state")]
fn count_blocking(counter: &State<Counter>, by: u64) -> u64 {
    counter.add(by)
}

/// Counts one after a wait, and says which tool counted.
#[mcp_tool(namespace = "state")]
async fn count_async(ctx: &ToolContext, counter: State<Counter>) -> String {
    tokio::task::yield_now().await;
    format!("{}: {}", ctx.tool_name(), counter.add(1))
}

/// Greets `name`, and counts the greeting; two states around an argument and the context.
#[mcp_tool(namespace = "state", inline)]
fn greet(
    greeting: State<Greeting>,
    ctx: ToolContext,
    /// Whom to greet.
    name: String,
    counter: State<Counter>,
) -> String {
    let read = ctx.state::<Greeting>().map(|greeting| greeting.0.as_str());
    assert_eq!(
        read,
        Some(greeting.0.as_str()),
        "the context reads the same"
    );
    format!("{}, {name} (#{})", greeting.0, counter.add(1))
}

fn call(name: &str, arguments: Value) -> MCPToolCall {
    MCPToolCall::new(name, arguments).expect("a valid call")
}

fn data(result: &MCPToolResult) -> Value {
    assert!(result.is_success(), "{result:?}");
    json!(result.data().expect("data")["result"])
}

fn with_states() -> Registry {
    Registry::builder()
        .inventory()
        .state(Counter::default())
        .state(Greeting("Hello".to_owned()))
        .build()
        .expect("every state is given")
}

#[tokio::test(flavor = "multi_thread")]
async fn every_kind_of_tool_shares_the_one_counter_across_calls() {
    let registry = with_states();
    let mut seen = Vec::new();
    for (name, arguments) in [
        ("state.count_inline", json!({})),
        ("state.count_blocking", json!({ "by": 2 })),
        ("state.count_async", json!({})),
        ("state.greet", json!({ "name": "Ada" })),
        ("state.count_inline", json!({})),
    ] {
        seen.push(data(&registry.call(call(name, arguments)).await));
    }
    assert_eq!(
        seen,
        [
            json!(1),
            json!(3),
            json!("state.count_async: 4"),
            json!("Hello, Ada (#5)"),
            json!(6)
        ]
    );
    // The blocking entry point, on its own runtime, reaches the same state.
    let blocking = std::thread::spawn(move || {
        let result = registry.call_blocking(call("state.count_inline", json!({})));
        data(&result)
    });
    assert_eq!(blocking.join().expect("the thread ends"), json!(7));
}

#[test]
fn a_state_is_no_argument() {
    let registry = with_states();
    let properties = |name: &str| {
        let schema = registry.get(name).expect("registered").definition();
        let schema = schema.input_schema().as_value();
        let names: Vec<&str> = schema["properties"]
            .as_object()
            .expect("properties")
            .keys()
            .map(String::as_str)
            .collect();
        (names.join(","), schema.get("required").cloned())
    };
    assert_eq!(properties("state.count_inline"), (String::new(), None));
    assert_eq!(
        properties("state.count_blocking"),
        ("by".to_owned(), Some(json!(["by"])))
    );
    assert_eq!(properties("state.count_async"), (String::new(), None));
    assert_eq!(
        properties("state.greet"),
        ("name".to_owned(), Some(json!(["name"])))
    );
    // A client sending a state's name as an argument is refused, as any unknown name is.
    let result = registry.call_blocking(call("state.count_inline", json!({ "counter": 1 })));
    assert!(!result.is_success(), "{result:?}");
}

#[test]
fn a_missing_state_is_refused_when_the_registry_is_built_naming_the_tool_and_the_type() {
    let err = Registry::builder()
        .inventory()
        .state(Counter::default())
        .build()
        .expect_err("`state.greet` takes a greeting, which is not given");
    let [
        RegistryProblem::MissingState {
            tool,
            state,
            location,
        },
    ] = err.problems()
    else {
        panic!("one problem: {err}");
    };
    assert_eq!((tool.as_str(), *state), ("state.greet", "state::Greeting"));
    let line = include_str!("state.rs")
        .lines()
        .position(|line| line.starts_with("fn greet("))
        .expect("the tool's function");
    assert_eq!((location.file, location.line as usize), (file!(), line + 1));
    assert_eq!(
        err.to_string(),
        format!(
            "the registry has 1 problem(s):\n  - tool `state.greet` needs state `state::Greeting`, \
             which was never provided; add it with `Registry::builder().state(…)`, or \
             `cli::app!().state(…)` for the command line (the tool is defined at {location})"
        )
    );

    // Given nothing, each tool is named with each state it takes, in the tools' order.
    let err = Registry::builder().inventory().build().unwrap_err();
    let missing: Vec<(&str, &str)> = err
        .problems()
        .iter()
        .map(|problem| match problem {
            RegistryProblem::MissingState { tool, state, .. } => (tool.as_str(), *state),
            other => panic!("only missing states: {other}"),
        })
        .collect();
    assert_eq!(
        missing,
        [
            ("state.count_async", "state::Counter"),
            ("state.count_blocking", "state::Counter"),
            ("state.count_inline", "state::Counter"),
            ("state.greet", "state::Greeting"),
            ("state.greet", "state::Counter"),
        ]
    );
}

#[test]
fn a_tool_filtered_out_needs_no_state() {
    let registry = Registry::builder()
        .inventory()
        .prefix("state.count_")
        .state(Counter::default())
        .build()
        .expect("the greeting tool, which takes a greeting, is left out");
    assert!(!registry.has_tool("state.greet"));
    let result = registry.call_blocking(call("state.count_inline", json!({})));
    assert_eq!(data(&result), json!(1));
}

#[test]
fn the_last_value_given_of_a_type_is_the_one_tools_get() {
    let registry = Registry::builder()
        .inventory()
        .state(Counter::default())
        .state(Greeting("Hello".to_owned()))
        .state(Greeting("Hi".to_owned()))
        .build()
        .unwrap();
    let result = registry.call_blocking(call("state.greet", json!({ "name": "Bo" })));
    assert_eq!(data(&result), json!("Hi, Bo (#1)"));
}

#[test]
fn a_registry_built_from_another_or_mounting_it_keeps_its_states() {
    let base = with_states();
    // As `call --lenient-arguments` and `serve --allow-dangerous` rebuild the registry.
    let rebuilt = Registry::builder()
        .registry(&base)
        .lenient_arguments(true)
        .build()
        .expect("the states come along");
    assert_eq!(
        data(&base.call_blocking(call("state.count_inline", json!({})))),
        json!(1)
    );
    assert_eq!(
        data(&rebuilt.call_blocking(call("state.count_inline", json!({})))),
        json!(2),
        "the same counter"
    );
    // A state given to the new builder wins over the other registry's.
    let regreeted = Registry::builder()
        .state(Greeting("Howdy".to_owned()))
        .registry(&base)
        .build()
        .unwrap();
    let result = regreeted.call_blocking(call("state.greet", json!({ "name": "Cy" })));
    assert_eq!(data(&result), json!("Howdy, Cy (#3)"));

    let mut outer = Registry::builder().build().unwrap();
    let conflicts = outer.mount("inner", &base).expect("a valid prefix");
    assert!(conflicts.is_empty(), "{conflicts:?}");
    let result = outer.call_blocking(call("inner.state.greet", json!({ "name": "Di" })));
    assert_eq!(data(&result), json!("Hello, Di (#4)"));
}

#[test]
fn a_dynamic_tool_reads_state_through_its_context() {
    let definition = ToolDefinition::new(
        "state.dynamic_greeting",
        schemars::json_schema!({ "type": "object", "properties": {} }),
    )
    .unwrap();
    let build = |greeting: Option<&str>| {
        let mut builder = Registry::builder().tool(definition.clone(), |_, ctx| async move {
            let greeting = ctx.state::<Greeting>().map(|greeting| greeting.0.clone());
            Ok::<_, ToolError>(json!({ "greeting": greeting }))
        });
        if let Some(greeting) = greeting {
            builder = builder.state(Greeting(greeting.to_owned()));
        }
        builder.build().expect("a dynamic tool declares no state")
    };
    let greeting = |registry: Registry| {
        let result = registry.call_blocking(call("state.dynamic_greeting", json!({})));
        assert!(result.is_success(), "{result:?}");
        json!(result.data().expect("data")["greeting"])
    };
    assert_eq!(greeting(build(Some("Hey"))), json!("Hey"));
    assert_eq!(greeting(build(None)), Value::Null);
}

#[test]
fn a_tool_taking_state_stays_a_plain_function() {
    assert_eq!(count_inline(State::new(Counter::default())), 1);
    let counter = State::new(Counter::default());
    assert_eq!(count_blocking(&counter, 5), 5);
    assert_eq!(counter.add(0), 5);
    let name = ToolName::new("state.greet").unwrap();
    let ctx = ToolContext::new(std::sync::Arc::new(name)).with_state(Greeting("Yo".to_owned()));
    let greeting = State::from(std::sync::Arc::new(Greeting("Yo".to_owned())));
    assert_eq!(
        greet(greeting, ctx, "Ed".to_owned(), counter),
        "Yo, Ed (#6)"
    );
}
