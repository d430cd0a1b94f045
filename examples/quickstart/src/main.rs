//! Seven small tools served by mcp-runtime: read and write a file, add two numbers, count
//! words (at once, or slowly as a task), find lines matching a pattern in a sandbox, and
//! summarise a text with the client's model, in the style the app configures
//! (a state its `main` gives); with
//! a resource about the app, each tool's specification as a resource, and a code-review
//! prompt (`catalog.rs`).
//!
//! ```text
//! cargo run -p quickstart -- list
//! cargo run -p quickstart -- call calculator.add '{"a": 2, "b": 3}'
//! ```

use std::path::PathBuf;

mod catalog;

use mcp_runtime::layers::BoxLayer;
use mcp_runtime::talk::Sampling;
use mcp_runtime::tower::limit::ConcurrencyLimitLayer;
use mcp_runtime::{LoggingLevel, State, ToolContext, ToolError, mcp_tool};
use schemars::JsonSchema;
use serde::Serialize;

/// A file's content, possibly cut short.
#[derive(Debug, PartialEq, Serialize, JsonSchema)]
struct FileContent {
    /// The content read.
    file_content: String,
    /// Whether the file had more than `max_chars` characters.
    truncated: bool,
}

/// Read a text file's content.
///
/// Returns the whole file, or its first `max_chars` characters.
#[mcp_tool(
    namespace = "file_utility",
    category = "filesystem",
    read_only,
    idempotent,
    errors(FileNotFoundError, PermissionError)
)]
fn read_file_content(
    ctx: &ToolContext,
    /// Path of the file to read.
    file_path: PathBuf,
    /// The most characters to return; the whole file when absent.
    max_chars: Option<usize>,
) -> Result<FileContent, ToolError> {
    ctx.info(format!("reading {}", file_path.display()));
    let content = std::fs::read_to_string(&file_path).map_err(|err| {
        ctx.warning(format!("cannot read {}: {err}", file_path.display()));
        ToolError::from(err).context(format!("cannot read `{}`", file_path.display()))
    })?;
    if ctx.logs_at(LoggingLevel::Debug) {
        ctx.debug(
            mcp_runtime::serde_json::json!({ "bytes": content.len(), "max_chars": max_chars }),
        );
    }
    Ok(match max_chars {
        Some(max) if content.chars().count() > max => FileContent {
            file_content: content.chars().take(max).collect(),
            truncated: true,
        },
        _ => FileContent {
            file_content: content,
            truncated: false,
        },
    })
}

/// What a write did.
#[derive(Debug, PartialEq, Serialize, JsonSchema)]
struct Written {
    /// The bytes written.
    bytes_written: usize,
}

/// Write a text file, replacing what it held.
///
/// Creates the file, or replaces its content. Marked dangerous: a server runs it only when
/// allowed (`--allow-dangerous`), or when its user confirms each call (`--confirm-dangerous`).
#[mcp_tool(
    namespace = "file_utility",
    category = "filesystem",
    destructive,
    idempotent,
    dangerous,
    // Served with OAuth (`serve --http --oauth-issuer …`): for callers granted this scope.
    scopes("files:write"),
    errors(FileNotFoundError, PermissionError)
)]
fn write_file_content(
    ctx: &ToolContext,
    /// Path of the file to write.
    file_path: PathBuf,
    /// The text to write.
    content: String,
) -> Result<Written, ToolError> {
    std::fs::write(&file_path, &content).map_err(|err| {
        ToolError::from(err).context(format!("cannot write `{}`", file_path.display()))
    })?;
    ctx.info(format!(
        "wrote {} bytes to {}",
        content.len(),
        file_path.display()
    ));
    // The clients subscribed to `file://` and its absolute path hear that it changed,
    // whichever replica they are connected to. (Left out of the doc comment above: it is the
    // tool's description, which every model reads.)
    if let Ok(absolute) = std::path::absolute(&file_path) {
        ctx.notify_resource_updated(&file_uri(&absolute));
    }
    Ok(Written {
        bytes_written: content.len(),
    })
}

/// The `file://` URI of the absolute path `path`: its bytes that a URI's path cannot hold
/// as they are (RFC 3986 §3.3: controls, spaces, `#`, `?`, `%`, anything not ASCII…) are
/// percent-encoded, so that a path with a space, say, makes one valid URI.
fn file_uri(path: &std::path::Path) -> String {
    use percent_encoding::{AsciiSet, CONTROLS, percent_encode};
    const NOT_IN_A_PATH: &AsciiSet = &CONTROLS
        .add(b' ')
        .add(b'"')
        .add(b'#')
        .add(b'%')
        .add(b'<')
        .add(b'>')
        .add(b'?')
        .add(b'[')
        .add(b'\\')
        .add(b']')
        .add(b'^')
        .add(b'`')
        .add(b'{')
        .add(b'|')
        .add(b'}');
    let bytes = path.as_os_str().as_encoded_bytes();
    format!("file://{}", percent_encode(bytes, NOT_IN_A_PATH))
}

/// The sum of two integers.
#[derive(Debug, PartialEq, Serialize, JsonSchema)]
struct Sum {
    /// `a + b`.
    sum: i64,
}

/// Add two integers.
///
/// Fails, rather than wrapping around, when the sum does not fit in 64 bits.
#[mcp_tool(
    namespace = "calculator",
    inline,
    example = r#"{"a": 2, "b": 40}"#,
    example = r#"{"a": 9223372036854775807, "b": 1}"#,
    category = "math",
    read_only,
    idempotent,
    open_world = false
)]
fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> Result<Sum, ToolError> {
    a.checked_add(b)
        .map(|sum| Sum { sum })
        .ok_or_else(|| ToolError::validation(format!("{a} + {b} does not fit in a 64-bit integer")))
}

/// How long a text is.
#[derive(Debug, PartialEq, Serialize, JsonSchema)]
struct WordCount {
    /// Words, separated by white space.
    words: usize,
    /// Characters (Unicode scalar values).
    chars: usize,
}

/// Count the words and characters of a text.
#[mcp_tool(
    namespace = "text",
    inline,
    category = "text",
    read_only,
    idempotent,
    open_world = false
)]
fn word_count(
    /// The text to count.
    text: String,
) -> WordCount {
    WordCount {
        words: text.split_whitespace().count(),
        chars: text.chars().count(),
    }
}

/// A line of a text that matched.
#[derive(Debug, PartialEq, Serialize, JsonSchema)]
struct Match {
    /// Its number, from 1.
    line: usize,
    /// The line.
    text: String,
}

/// The lines that matched.
#[derive(Debug, PartialEq, Serialize, JsonSchema)]
struct Matches {
    /// In the order of the text.
    matches: Vec<Match>,
}

/// Find the lines of a text that match a regular expression.
///
/// Runs sandboxed, as a tool running the caller's patterns should: no file, no network, in
/// bounded memory and time.
#[mcp_tool(
    namespace = "text",
    category = "text",
    read_only,
    idempotent,
    open_world = false,
    requires_sandbox,
    timeout = "5s"
)]
fn grep(
    /// The regular expression (Rust's `regex` syntax).
    pattern: String,
    /// The text to search, line by line.
    text: String,
) -> Result<Matches, ToolError> {
    let pattern = regex::Regex::new(&pattern).map_err(|err| {
        ToolError::validation(format!("`pattern` is not a regular expression: {err}"))
    })?;
    let matches = text
        .lines()
        .enumerate()
        .filter(|(_, line)| pattern.is_match(line))
        .map(|(number, line)| Match {
            line: number + 1,
            text: line.to_owned(),
        })
        .collect();
    Ok(Matches { matches })
}

/// Count the words and characters of a text, slowly.
///
/// The count comes after `delay_ms`. A client that supports tasks gets a task handle at once
/// and polls for the count; with `confirm`, the task first asks the user whether to go on.
#[mcp_tool(namespace = "text", category = "text", read_only, task = "optional")]
async fn slow_count(
    ctx: &ToolContext,
    /// The text to count.
    text: String,
    /// How long to take, in milliseconds (at most ten minutes).
    #[schemars(range(max = 600_000))]
    delay_ms: u64,
    /// Ask the user to confirm before counting.
    #[serde(default)]
    confirm: bool,
) -> Result<WordCount, ToolError> {
    if confirm {
        // Asked within the task, while the client polls it.
        ctx.start_task();
        let form = mcp_runtime::serde_json::json!({
            "type": "object",
            "properties": { "go": { "type": "boolean", "description": "Count it?" } },
            "required": ["go"],
        });
        let answer = ctx.elicit_with("go", "Count this text?", form).await?;
        let go = answer.accepted().and_then(|content| {
            content
                .get("go")
                .and_then(mcp_runtime::serde_json::Value::as_bool)
        });
        if go != Some(true) {
            return Err(ToolError::execution(
                "the user did not want the text counted",
            ));
        }
    }
    ctx.progress(0.0, Some(1.0), Some("counting"));
    tokio::time::sleep(std::time::Duration::from_millis(delay_ms)).await;
    Ok(word_count(text))
}

/// A summary the client's model wrote.
#[derive(Debug, PartialEq, Serialize, JsonSchema)]
struct Summary {
    /// The summary.
    summary: String,
    /// The model that wrote it, as the client names it.
    model: String,
}

/// How the client's model is asked for a summary: the app's configuration, which `main`
/// gives every tool that takes a `State<SummaryStyle>`.
struct SummaryStyle {
    /// The system prompt sent with each request.
    system_prompt: String,
    /// The most tokens a summary may take.
    max_tokens: u32,
}

impl Default for SummaryStyle {
    fn default() -> Self {
        Self {
            system_prompt: "You write short, faithful summaries.".to_owned(),
            max_tokens: 200,
        }
    }
}

/// Summarise a text with the client's model.
///
/// Asks the client's model for a summary (MCP sampling) and returns its text. The client
/// must offer sampling; it may show the request to its user first.
#[mcp_tool(namespace = "text", category = "text", read_only, open_world = false)]
async fn summarize(
    ctx: &ToolContext,
    // Not an argument: the style `main` gives, shared by every call.
    style: State<SummaryStyle>,
    /// The text to summarise.
    text: String,
) -> Result<Summary, ToolError> {
    let sampling = Sampling::user(
        format!("Summarise this text in one or two sentences:\n\n{text}"),
        style.max_tokens,
    )
    .with_system_prompt(&style.system_prompt);
    let sampled = ctx.sample("summary", &sampling).await?;
    let summary = sampled
        .text()
        .ok_or_else(|| ToolError::execution("the client's model answered without text"))?;
    Ok(Summary {
        summary: summary.to_owned(),
        model: sampled.model,
    })
}

/// The file tools, whose calls are limited to a few at once.
const FILE_TOOLS: &str = "file_utility.*";

fn main() {
    // The configuration would come from a file or the environment. Had `main` not given
    // it, every command would stop at start-up, naming `text.summarize` and the type.
    // At most four calls of each file tool run at once; the others wait their turn. Any
    // tower layer goes around the tools a selector picks: a name, `namespace.*`,
    // `tag:NAME` or `category:NAME`.
    let four_at_once = ConcurrencyLimitLayer::new(4);
    mcp_runtime::cli::app!()
        .state(SummaryStyle::default())
        .layer_for(
            FILE_TOOLS.parse().expect("a selector"),
            BoxLayer::new(four_at_once),
        )
        .run()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_stay_plain_functions() {
        assert_eq!(add(2, 3).unwrap(), Sum { sum: 5 });
        assert!(add(i64::MAX, 1).is_err());
        assert_eq!(
            word_count("héllo  wörld".to_owned()),
            WordCount {
                words: 2,
                chars: 12
            }
        );
        // A context of its own: outside a server, its log messages go nowhere.
        let name = mcp_runtime::ToolName::new("file_utility.read_file_content").unwrap();
        let ctx = ToolContext::new(std::sync::Arc::new(name));
        let missing = read_file_content(&ctx, PathBuf::from("/nonexistent/quickstart.txt"), None)
            .unwrap_err();
        assert_eq!(
            missing.error_type(),
            &mcp_runtime::ErrorType::FileNotFoundError
        );
    }

    #[test]
    fn a_written_files_uri_is_its_path_percent_encoded() {
        assert_eq!(
            file_uri(std::path::Path::new("/tmp/notes.txt")),
            "file:///tmp/notes.txt"
        );
        assert_eq!(
            file_uri(std::path::Path::new("/tmp/my notes #1?%/é.txt")),
            "file:///tmp/my%20notes%20%231%3F%25/%C3%A9.txt"
        );
    }

    /// The sandboxed `text.grep` through a client in memory: its call runs in a worker (this
    /// test program, run again), isolated as in a served session.
    #[tokio::test(flavor = "multi_thread")]
    async fn through_a_client_the_sandboxed_grep_answers_from_its_worker() {
        use mcp_runtime::server::Server;
        use serde_json::json;

        let registry = mcp_runtime::Registry::builder()
            .inventory()
            .names(["text.grep"])
            .build()
            .unwrap();
        let client = mcp_runtime::testing::connect(Server::new(registry))
            .await
            .unwrap();
        let found = client
            .call_tool(
                "text.grep",
                json!({ "pattern": "^b", "text": "apple\nbanana\ncherry" }),
            )
            .await
            .unwrap();
        assert_eq!(
            found.data().map(|data| json!(data)),
            Some(json!({ "matches": [{ "line": 2, "text": "banana" }] })),
            "{found}"
        );
    }

    /// The tools as a client sees them, in memory (`mcp_runtime::testing`), at 2026-07-28
    /// and at the handshake's revision: the summary comes from the client's model, asked in
    /// the style the registry was given, and the dangerous write runs only once its user
    /// confirms.
    #[tokio::test(flavor = "multi_thread")]
    async fn through_a_client_the_model_summarises_and_the_user_confirms_a_write() {
        use mcp_runtime::client::{Client, ElicitResponse};
        use mcp_runtime::server::Server;
        use serde_json::json;

        let dir = std::env::temp_dir().join(format!("quickstart-client-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let registry = mcp_runtime::Registry::builder()
            .inventory()
            .state(SummaryStyle {
                system_prompt: "Summarise for a child.".to_owned(),
                max_tokens: 50,
            })
            .ask_user_before_dangerous()
            .build()
            .unwrap();
        let server = std::sync::Arc::new(Server::new(registry));
        for handshake in [false, true] {
            for confirm in [false, true] {
                let mut builder = Client::builder()
                    .on_sampling(|request| async move {
                        let asked = (&request["systemPrompt"], &request["maxTokens"]);
                        if asked != (&json!("Summarise for a child."), &json!(50)) {
                            return Err(format!("not in the style given: {request}").into());
                        }
                        Ok(json!({
                            "role": "assistant",
                            "content": { "type": "text", "text": "Short." },
                            "model": "a-model",
                        }))
                    })
                    .on_elicitation(move |_| async move {
                        let mut yes = serde_json::Map::new();
                        yes.insert("confirm".to_owned(), json!(true));
                        Ok(match confirm {
                            true => ElicitResponse::accept(yes),
                            false => ElicitResponse::decline(),
                        })
                    });
                if handshake {
                    builder = builder.handshake_only();
                }
                let client = builder
                    .in_memory(std::sync::Arc::clone(&server))
                    .await
                    .unwrap();
                let summary = client
                    .call_tool("text.summarize", json!({ "text": "A long text." }))
                    .await
                    .unwrap();
                assert_eq!(
                    summary.data().map(|data| json!(data)),
                    Some(json!({ "summary": "Short.", "model": "a-model" })),
                    "{summary}"
                );

                let path = dir.join(format!("handshake-{handshake}-confirm-{confirm}.txt"));
                let written = client
                    .call_tool(
                        "file_utility.write_file_content",
                        json!({ "file_path": path, "content": "hi" }),
                    )
                    .await
                    .unwrap();
                assert_eq!(written.is_success(), confirm, "{written}");
                assert_eq!(path.exists(), confirm, "handshake {handshake}");
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
