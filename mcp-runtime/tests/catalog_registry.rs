//! How a registry holds resources, templates and prompts: merged from other registries,
//! filtered, mounted under a prefix, refused when two take one URI or name, and listed
//! with a `lastModified` their functions give.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use mcp_runtime::server::Server;
use mcp_runtime::{
    ConflictKind, PromptDefinition, PromptMessage, PromptResult, Registry, RegistryProblem,
    ResourceContents, ResourceDefinition, ResourceTemplateDefinition, ToolError, mcp_resource,
};
use serde_json::{Value, json};

/// A registry of a resource `app://about`, a template `app://users/{id}` and a prompt
/// `greet`, each answering with what it was asked for.
fn app() -> Registry {
    let mut registry = Registry::builder().build().expect("an empty registry");
    registry
        .register_resource(ResourceDefinition::new("app://about", "about"), |request| {
            let text = format!("read {}", request.uri());
            async move { Ok::<_, ToolError>(vec![ResourceContents::text(request.uri(), text)]) }
        })
        .expect("a resource");
    registry
        .register_resource_template(
            ResourceTemplateDefinition::new("app://users/{id}", "user"),
            |request| {
                let text = format!("user {}", request.variable("id").unwrap_or("?"));
                async move { Ok::<_, ToolError>(vec![ResourceContents::text(request.uri(), text)]) }
            },
        )
        .expect("a template");
    registry
        .register_prompt(PromptDefinition::new("greet"), |_| async {
            Ok::<_, ToolError>(PromptResult::new(vec![PromptMessage::user("Hello.")]))
        })
        .expect("a prompt");
    registry
}

fn uris(registry: &Registry) -> Vec<String> {
    registry
        .resources()
        .map(|resource| resource.uri().to_owned())
        .chain(registry.resource_templates().map(|t| t.uri_template()))
        .collect()
}

fn prompts(registry: &Registry) -> Vec<String> {
    registry.prompts().map(|p| p.name().to_owned()).collect()
}

async fn read_text(registry: &Registry, uri: &str) -> String {
    let contents = registry.read_resource(uri).await.expect("a read");
    let value = serde_json::to_value(&contents[0]).expect("contents serialize");
    assert_eq!(value["uri"], uri, "the contents name the URI read");
    value["text"].as_str().expect("text contents").to_owned()
}

#[tokio::test]
async fn mount_adds_resources_templates_and_prompts_under_the_prefix() {
    let mut host = Registry::builder().build().expect("an empty registry");
    let conflicts = host.mount("remote", &app()).expect("a valid prefix");
    assert!(conflicts.is_empty(), "{conflicts:?}");

    assert_eq!(
        uris(&host),
        ["app://remote/about", "app://remote/users/{id}"]
    );
    assert_eq!(prompts(&host), ["remote.greet"]);
    let about = host.resources().next().expect("the resource");
    assert_eq!(about.definition().uri, "app://remote/about");
    let template = host.resource_templates().next().expect("the template");
    assert_eq!(
        template.definition().uri_template,
        "app://remote/users/{id}"
    );
    assert_eq!(template.variables(), ["id"]);
    assert_eq!(
        host.prompt("remote.greet")
            .expect("mounted")
            .definition()
            .name,
        "remote.greet"
    );

    assert_eq!(
        read_text(&host, "app://remote/about").await,
        "read app://remote/about"
    );
    assert_eq!(read_text(&host, "app://remote/users/7").await, "user 7");
    assert!(host.read_resource("app://about").await.is_err());
    let rendered = host
        .get_prompt("remote.greet", Default::default())
        .await
        .expect("the mounted prompt renders");
    assert_eq!(rendered.messages, [PromptMessage::user("Hello.")]);
}

#[tokio::test]
async fn mount_keeps_what_is_already_there_and_reports_each_conflict() {
    let mut host = Registry::builder().build().expect("an empty registry");
    host.mount("remote", &app()).expect("a valid prefix");
    let mut other = app();
    other
        .register_prompt(PromptDefinition::new("farewell"), |_| async {
            Ok::<_, ToolError>(PromptResult::new(vec![PromptMessage::user("Bye.")]))
        })
        .expect("a prompt");

    let conflicts = host.mount("remote", &other).expect("a valid prefix");
    let found: Vec<(ConflictKind, &str)> = conflicts
        .iter()
        .map(|conflict| (conflict.kind, conflict.tool_name.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            (ConflictKind::Resource, "app://remote/about"),
            (ConflictKind::ResourceTemplate, "app://remote/users/{id}"),
            (ConflictKind::Prompt, "remote.greet"),
        ]
    );
    let resource = &conflicts[0];
    assert!(
        resource
            .source
            .starts_with("`app://about` (mounted under `remote`, "),
        "{}",
        resource.source
    );
    assert!(
        resource
            .shadowed_by
            .starts_with("the resource defined at mcp-runtime/tests/catalog_registry.rs:"),
        "{}",
        resource.shadowed_by
    );
    assert_eq!(
        prompts(&host),
        ["remote.farewell", "remote.greet"],
        "what did not conflict is mounted"
    );

    assert!(host.mount("Bad Prefix", &app()).is_err());
    let mut empty = Registry::builder().build().expect("an empty registry");
    assert!(
        empty.mount("Bad Prefix", &app()).is_err(),
        "a bad prefix is refused even when there are no tools to name with it"
    );
    assert!(uris(&empty).is_empty() && prompts(&empty).is_empty());
}

#[test]
fn a_builder_filters_resources_by_uri_and_prompts_by_name() {
    let registry = Registry::builder()
        .registry(&app())
        .filter_resources(|uri| uri.contains("users"))
        .filter_resources(|uri| uri.starts_with("app://"))
        .filter_prompts(|name| name != "greet")
        .build()
        .expect("a registry");
    assert_eq!(uris(&registry), ["app://users/{id}"]);
    assert!(prompts(&registry).is_empty());

    let all = Registry::builder()
        .registry(&app())
        .build()
        .expect("a registry");
    assert_eq!(uris(&all), ["app://about", "app://users/{id}"]);
    assert_eq!(prompts(&all), ["greet"]);
}

#[test]
fn a_builder_adds_the_resources_and_prompts_of_each_registry_and_refuses_duplicates() {
    let mut notes = Registry::builder().build().expect("an empty registry");
    notes
        .register_resource(
            ResourceDefinition::new("notes://1", "note"),
            |request| async move {
                Ok::<_, ToolError>(vec![ResourceContents::text(request.uri(), "1")])
            },
        )
        .expect("a resource");
    notes
        .register_prompt(PromptDefinition::new("summarize"), |_| async {
            Ok::<_, ToolError>(PromptResult::new(vec![PromptMessage::user("Sum up.")]))
        })
        .expect("a prompt");
    let both = Registry::builder()
        .registry(&app())
        .registry(&notes)
        .build()
        .expect("no duplicates");
    assert_eq!(
        uris(&both),
        ["app://about", "notes://1", "app://users/{id}"]
    );
    assert_eq!(prompts(&both), ["greet", "summarize"]);

    let err = Registry::builder()
        .registry(&app())
        .registry(&app())
        .build()
        .expect_err("the same URIs and names twice");
    let problems: Vec<&str> = err
        .problems()
        .iter()
        .map(|problem| match problem {
            RegistryProblem::DuplicateResource { uri, .. } => uri.as_str(),
            RegistryProblem::DuplicatePrompt { name, .. } => name.as_str(),
            other => panic!("unexpected: {other}"),
        })
        .collect();
    assert_eq!(problems, ["app://about", "app://users/{id}", "greet"]);
}

#[test]
fn registering_a_taken_uri_template_or_prompt_name_is_refused_with_both_locations() {
    let mut registry = app();
    let first = *registry.resources().next().expect("app://about").location();
    let err = registry
        .register_resource(ResourceDefinition::new("app://about", "again"), |_| async {
            Ok::<_, ToolError>(Vec::new())
        })
        .expect_err("the URI is taken");
    let [
        RegistryProblem::DuplicateResource {
            uri,
            first: a,
            second: b,
        },
    ] = err.problems()
    else {
        panic!("one duplicate: {err}");
    };
    assert_eq!(uri, "app://about");
    assert_eq!(*a, first);
    assert_eq!(a.file, b.file);
    assert!(b.line > a.line, "{a} then {b}");

    let err = registry
        .register_resource_template(
            ResourceTemplateDefinition::new("app://users/{id}", "again"),
            |_| async { Ok::<_, ToolError>(Vec::new()) },
        )
        .expect_err("the template is taken");
    assert!(
        matches!(err.problems(), [RegistryProblem::DuplicateResource { uri, .. }] if uri == "app://users/{id}"),
        "{err}"
    );
    let err = registry
        .register_prompt(PromptDefinition::new("greet"), |_| async {
            Ok::<_, ToolError>(PromptResult::new(Vec::new()))
        })
        .expect_err("the name is taken");
    assert!(
        matches!(err.problems(), [RegistryProblem::DuplicatePrompt { name, .. }] if name == "greet"),
        "{err}"
    );
    let message = err.to_string();
    assert!(
        message.contains("two prompts are named `greet`")
            && message
                .matches("mcp-runtime/tests/catalog_registry.rs:")
                .count()
                == 2,
        "{message}"
    );

    // What was there is untouched.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    assert_eq!(
        runtime.block_on(read_text(&registry, "app://about")),
        "read app://about"
    );
}

/// Seconds since the epoch `modified` reports; 0 for none.
static MODIFIED: AtomicU64 = AtomicU64::new(0);

fn modified() -> Option<SystemTime> {
    match MODIFIED.load(Ordering::SeqCst) {
        0 => None,
        seconds => Some(SystemTime::UNIX_EPOCH + Duration::from_secs(seconds)),
    }
}

/// Changes now and then.
#[mcp_resource(uri = "modified://dynamic", last_modified = modified)]
fn dynamic_time() -> String {
    "now".to_owned()
}

/// Changed once.
#[mcp_resource(
    uri = "modified://fixed",
    last_modified = "2025-01-12T15:00:58Z",
    priority = 0.5
)]
fn fixed_time() -> String {
    "then".to_owned()
}

/// A page of a book.
#[mcp_resource(uri_template = "modified://pages/{n}", last_modified = modified)]
fn page(n: u32) -> String {
    format!("page {n}")
}

fn last_modified(listed: &Value) -> Option<&str> {
    listed["annotations"]["lastModified"].as_str()
}

#[tokio::test]
async fn last_modified_is_fixed_or_asked_of_its_function_at_each_listing() {
    assert_eq!(
        (dynamic_time(), fixed_time(), page(2)),
        ("now".to_owned(), "then".to_owned(), "page 2".to_owned())
    );
    let registry = Registry::builder()
        .inventory()
        .filter_resources(|uri| uri.starts_with("modified://"))
        .build()
        .expect("a registry");
    let server = Server::new(registry);
    let list = |method: &'static str| {
        let server = &server;
        async move {
            let message = json!({ "jsonrpc": "2.0", "id": 1, "method": method });
            let answer = server
                .handle(message.to_string().as_bytes(), None)
                .await
                .expect("an answer");
            serde_json::from_str::<Value>(&answer).expect("JSON")
        }
    };

    MODIFIED.store(0, Ordering::SeqCst);
    let listed = list("resources/list").await;
    let [dynamic, fixed] = listed["result"]["resources"]
        .as_array()
        .expect("resources")
        .as_slice()
    else {
        panic!("two resources: {listed}");
    };
    assert_eq!(dynamic["uri"], "modified://dynamic");
    assert_eq!(last_modified(dynamic), None, "the function knows no time");
    assert_eq!(last_modified(fixed), Some("2025-01-12T15:00:58Z"));
    assert_eq!(fixed["annotations"]["priority"], 0.5);

    MODIFIED.store(1_736_694_058, Ordering::SeqCst);
    let listed = list("resources/list").await;
    assert_eq!(
        last_modified(&listed["result"]["resources"][0]),
        Some("2025-01-12T15:00:58Z")
    );
    MODIFIED.store(1_736_694_059, Ordering::SeqCst);
    let listed = list("resources/list").await;
    assert_eq!(
        last_modified(&listed["result"]["resources"][0]),
        Some("2025-01-12T15:00:59Z"),
        "asked again at each listing"
    );
    let templates = list("resources/templates/list").await;
    assert_eq!(
        last_modified(&templates["result"]["resourceTemplates"][0]),
        Some("2025-01-12T15:00:59Z")
    );
}

#[tokio::test]
async fn a_slow_read_or_prompt_times_out_naming_what_it_was_doing() {
    use mcp_runtime::{ErrorType, PromptError, ReadError};
    let mut registry = Registry::builder()
        .default_timeout(Some(Duration::from_millis(50)))
        .build()
        .expect("an empty registry");
    registry
        .register_resource(ResourceDefinition::new("app://slow", "slow"), |_| async {
            tokio::time::sleep(Duration::from_secs(5)).await;
            Ok::<_, ToolError>(Vec::new())
        })
        .expect("a resource");
    registry
        .register_prompt(PromptDefinition::new("slow"), |_| async {
            tokio::time::sleep(Duration::from_secs(5)).await;
            Ok::<_, ToolError>(PromptResult::new(Vec::new()))
        })
        .expect("a prompt");
    match registry.read_resource("app://slow").await {
        Err(ReadError::Failed(err)) => {
            assert_eq!(*err.error_type(), ErrorType::TimeoutError);
            assert_eq!(err.message(), "reading `app://slow` took longer than 50ms");
        }
        other => panic!("a timed-out read, not {other:?}"),
    }
    match registry.get_prompt("slow", Default::default()).await {
        Err(PromptError::Failed(err)) => {
            assert_eq!(*err.error_type(), ErrorType::TimeoutError);
            assert_eq!(err.message(), "prompt `slow` took longer than 50ms");
        }
        other => panic!("a timed-out prompt, not {other:?}"),
    }
}
