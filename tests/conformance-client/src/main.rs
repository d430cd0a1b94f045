//! The client the official MCP conformance suite drives (`conformance client --command`).
//! The suite gives the server's URL as the last argument and the scenario in
//! `MCP_CONFORMANCE_SCENARIO`, the revision in `MCP_CONFORMANCE_PROTOCOL_VERSION`, and, for
//! some scenarios, what to do in `MCP_CONFORMANCE_CONTEXT`. Most scenarios want what any
//! client does: list the tools and call each; the few that want more are named below.
//!
//! The user it stands for accepts every form with the schema's defaults (true for a
//! boolean without one); its model answers every sampling request with one sentence; it
//! has no roots; and it consents to every authorization (`auth/*` scenarios): its browser
//! follows the authorization server's page straight to the redirect. Where the context
//! gives a machine's credentials instead (a client secret or key for client credentials,
//! an ID token from an enterprise identity provider, a workload's token), there is no user
//! and no browser. With a server's skills (`sep-2640-client-*`), it is a host that loads
//! only what its model asks for, and refuses a skill whose files fail verification.

use std::future::Future;
use std::pin::Pin;
use std::process::ExitCode;
use std::time::Duration;

use mcp_runtime::client::oauth::{
    AuthError, ClientCredentials, DpopKey, IdentityProvider, OAuth, SigningKey, TokenSource,
    UserAgent,
};
use mcp_runtime::client::{
    Client, ClientError, ElicitRequest, ElicitResponse, HttpServer, SkillError, Tool,
};
use serde_json::{Map, Value, json};

/// The client's Client ID Metadata Document, as the suite's authorization servers expect
/// it.
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(tracing_subscriber::filter::LevelFilter::WARN)
        .init();
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: conformance-client URL (the suite appends it)");
        return ExitCode::from(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let version = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").unwrap_or_default();
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|context| serde_json::from_str(&context).ok())
        .unwrap_or(Value::Null);
    match run(&url, &scenario, &version, &context).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("{scenario}: {err}");
            ExitCode::FAILURE
        }
    }
}

async fn run(url: &str, scenario: &str, version: &str, context: &Value) -> Result<(), ClientError> {
    let mut builder = Client::builder()
        .info("mcp-runtime-conformance-client", env!("CARGO_PKG_VERSION"))
        .timeout(Duration::from_secs(20))
        .on_elicitation(|request| async move { Ok(accept_with_defaults(&request)) })
        .on_sampling(|_| async {
            Ok(json!({
                "role": "assistant",
                "content": { "type": "text", "text": "A short answer." },
                "model": "conformance-client",
            }))
        })
        .on_roots(|| async { Ok(Vec::new()) });
    // The handshake's revisions are asked for by name; 2026-07-28 is negotiated.
    if !version.is_empty() && version != "2026-07-28" {
        builder = builder.handshake_only();
    }
    let mut server = HttpServer::new(url);
    if scenario.starts_with("auth/") {
        server = server.oauth(oauth(scenario, context)?);
    }
    let client = builder.http(server).await?;
    if let Some(asks) = scenario.strip_prefix("sep-2640-client-") {
        return host_skills(&client, asks).await;
    }
    let tools = client.list_tools().await?;
    match scenario {
        // Listing is the whole test: the schema's network `$ref` must not be fetched.
        "json-schema-ref-no-deref" => Ok(()),
        "json-schema-2020-12-preservation" => {
            let schema = tools
                .iter()
                .find(|tool| tool.name == "json_schema_2020_12_tool")
                .map(|tool| tool.input_schema.clone())
                .unwrap_or(Value::Null);
            let result = client
                .call_tool("json_schema_echo", json!({ "schema": schema }))
                .await?;
            report("json_schema_echo", &result);
            Ok(())
        }
        "http-custom-headers" => {
            let calls = context
                .get("toolCalls")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            for call in calls {
                let name = call.get("name").and_then(Value::as_str).unwrap_or_default();
                let arguments = call.get("arguments").cloned().unwrap_or_else(|| json!({}));
                let result = client.call_tool(name, arguments).await?;
                report(name, &result);
            }
            Ok(())
        }
        "http-standard-headers" => {
            call_each(&client, &tools).await?;
            if let Some(uri) = client
                .list_resources()
                .await?
                .first()
                .and_then(|resource| resource.get("uri"))
                .and_then(Value::as_str)
            {
                client.read_resource(uri).await?;
            }
            for prompt in client.list_prompts().await? {
                if let Some(name) = prompt.get("name").and_then(Value::as_str) {
                    client.get_prompt(name, Map::new()).await?;
                }
            }
            Ok(())
        }
        _ => call_each(&client, &tools).await,
    }
}

/// What a host does with a server's skills: it lists them and tells its model what each
/// is for, reading nothing more. In `no-prefetch` the model asks for none; otherwise it asks
/// for each, and the host loads it (its `SKILL.md`, verified against its entry) and reads
/// the files it lists, each verified. A skill that fails verification is refused and
/// reported, and none of its files is read after that.
async fn host_skills(client: &Client, asks: &str) -> Result<(), ClientError> {
    let skills = client.skills();
    let entries = skills.list().await.map_err(skill_failure)?;
    for entry in &entries {
        let description = entry.frontmatter.get("description").and_then(Value::as_str);
        eprintln!("skill {}: {}", entry.uri, description.unwrap_or_default());
    }
    if asks == "no-prefetch" {
        return Ok(());
    }
    for entry in entries {
        let uri = entry.uri.clone();
        let skill = match skills.load(entry).await {
            Ok(skill) => skill,
            Err(refused @ (SkillError::Verification { .. } | SkillError::Entry { .. })) => {
                eprintln!("refused the skill {uri}: {refused}");
                continue;
            }
            Err(other) => return Err(skill_failure(other)),
        };
        let others: Vec<String> = skill
            .files()
            .unwrap_or_default()
            .iter()
            .filter(|file| file.uri != uri)
            .map(|file| file.uri.clone())
            .collect();
        for file in others {
            match skills.read(&skill, &file).await {
                Ok(read) => eprintln!("read {file}: {} bytes, verified", read.bytes.len()),
                Err(refused @ SkillError::Verification { .. }) => {
                    eprintln!("refused {file}: {refused}");
                    break;
                }
                Err(other) => return Err(skill_failure(other)),
            }
        }
    }
    Ok(())
}

/// A skills request that failed for another reason than verification.
fn skill_failure(err: SkillError) -> ClientError {
    match err {
        SkillError::Client(err) => err,
        other => ClientError::Malformed(other.to_string()),
    }
}

/// The OAuth client: a machine's grant when the context gives its credentials, else a
/// user's, with a Client ID Metadata Document for authorization servers that take one, the
/// pre-registered client the scenario's context gives, if any, and DPoP-bound tokens from
/// authorization servers that offer them (`auth/dpop`, `auth/dpop-nonce`).
fn oauth(scenario: &str, context: &Value) -> Result<OAuth, ClientError> {
    let text = |name: &str| context.get(name).and_then(Value::as_str);
    if let Some(machine) = machine(scenario, &text)? {
        return Ok(machine);
    }
    let key = DpopKey::generate().map_err(|err| ClientError::Auth(err.into()))?;
    let mut oauth = OAuth::new(Consenting::new()?)
        .client_name("mcp-runtime-conformance-client")
        .client_metadata_url(CLIENT_METADATA_URL)
        .dpop(key);
    if let (Some(issuer), Some(id)) = (text("issuer"), text("client_id")) {
        let client = match text("client_secret") {
            Some(secret) => ClientCredentials::confidential(id, secret),
            None => ClientCredentials::public(id),
        };
        oauth = oauth.pre_registered(issuer, client);
    }
    Ok(oauth)
}

/// The machine grant the context's credentials are for: client credentials with a key or
/// a secret, enterprise-managed authorization with the identity provider's ID token, or a
/// workload's token.
fn machine<'a>(
    scenario: &str,
    text: &impl Fn(&str) -> Option<&'a str>,
) -> Result<Option<OAuth>, ClientError> {
    let Some(id) = text("client_id") else {
        return Ok(None);
    };
    let unusable = |err: &dyn std::fmt::Display| ClientError::Connect(err.to_string());
    let oauth = if let Some(pem) = text("private_key_pem") {
        let key = SigningKey::from_pem(pem).map_err(|err| unusable(&err))?;
        OAuth::client_credentials(ClientCredentials::private_key_jwt(id, key))
    } else if let (Some(token), Some(endpoint), Some(idp_client)) = (
        text("idp_id_token"),
        text("idp_token_endpoint"),
        text("idp_client_id"),
    ) {
        let secret = text("client_secret").ok_or_else(|| unusable(&"no client_secret"))?;
        OAuth::enterprise(
            ClientCredentials::confidential(id, secret),
            IdentityProvider::new(
                endpoint,
                ClientCredentials::public(idp_client),
                TokenSource::value(token),
            ),
        )
    } else if let Some(token) = text("valid_jwt") {
        OAuth::workload_identity(id, TokenSource::value(token))
    } else if let (true, Some(secret)) = (
        scenario.starts_with("auth/client-credentials"),
        text("client_secret"),
    ) {
        OAuth::client_credentials(ClientCredentials::confidential(id, secret))
    } else {
        return Ok(None);
    };
    Ok(Some(oauth))
}

/// A user who consents at once: the authorization server's page is fetched, and its
/// redirect, not followed, is the way back.
struct Consenting {
    http: reqwest::Client,
}

impl Consenting {
    fn new() -> Result<Self, ClientError> {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|err| ClientError::Connect(err.to_string()))?;
        Ok(Self { http })
    }
}

impl UserAgent for Consenting {
    fn redirect_uri(&self) -> String {
        "http://localhost:3000/callback".to_owned()
    }

    fn authorize(
        &self,
        authorization_url: String,
    ) -> Pin<Box<dyn Future<Output = Result<String, AuthError>> + Send + '_>> {
        Box::pin(async move {
            let failed = |what: String| AuthError::UserAgent(what);
            let response = self
                .http
                .get(&authorization_url)
                .send()
                .await
                .map_err(|err| failed(format!("GET {authorization_url}: {err}")))?;
            let location = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|value| value.to_str().ok())
                .ok_or_else(|| {
                    failed(format!(
                        "the authorization page answered HTTP {} without a redirect",
                        response.status()
                    ))
                })?;
            let back = reqwest::Url::parse(&authorization_url)
                .and_then(|page| page.join(location))
                .map_err(|err| failed(format!("a redirect to `{location}`: {err}")))?;
            Ok(back.into())
        })
    }
}

/// Calls every tool listed, with arguments made from its schema.
async fn call_each(client: &Client, tools: &[Tool]) -> Result<(), ClientError> {
    for tool in tools {
        let result = client
            .call_tool(&tool.name, arguments_for(&tool.input_schema))
            .await?;
        report(&tool.name, &result);
    }
    Ok(())
}

fn report(tool: &str, result: &mcp_runtime::MCPToolResult) {
    eprintln!("{tool}: {result}");
}

/// Values for a schema's required properties: 2 for a number, `"test"` for a string, and
/// so on.
fn arguments_for(schema: &Value) -> Value {
    let mut arguments = Map::new();
    let required = schema
        .get("required")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for name in required.iter().filter_map(Value::as_str) {
        let property = schema.pointer(&format!("/properties/{name}"));
        arguments.insert(name.to_owned(), example(property.unwrap_or(&Value::Null)));
    }
    Value::Object(arguments)
}

fn example(property: &Value) -> Value {
    if let Some(default) = property.get("default") {
        return default.clone();
    }
    if let Some(first) = property
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    match property.get("type").and_then(Value::as_str) {
        Some("number" | "integer") => json!(2),
        Some("boolean") => json!(true),
        Some("object") => json!({}),
        Some("array") => json!([]),
        _ => json!("test"),
    }
}

/// Accepts a form with each field's default, true for a boolean without one, and an
/// example value for any other required field.
fn accept_with_defaults(request: &ElicitRequest) -> ElicitResponse {
    let mut content = Map::new();
    let schema = request.requested_schema.clone().unwrap_or(Value::Null);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for (name, property) in schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let boolean = property.get("type").and_then(Value::as_str) == Some("boolean");
        if property.get("default").is_some() || boolean || required.contains(&name.as_str()) {
            content.insert(name.clone(), example(property));
        }
    }
    ElicitResponse::accept(content)
}
