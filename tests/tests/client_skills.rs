//! The client's side of the skills extension (`Client::skills`), against a server that
//! serves one skill over streamable HTTP and can be told to serve its files unlike its
//! entry: nothing is read before it is asked for, every file read is checked (size, digest,
//! front matter) and one that fails is refused, naming the file, and never returned; and
//! a gateway passes a mounted server's skills on under the mount's name, checked the same
//! way.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::body::{Body, Bytes};
use axum::http::header::CONTENT_TYPE;
use axum::response::Response;
use base64::Engine as _;
use mcp_runtime::Registry;
use mcp_runtime::client::{self, Client, HttpServer, LoadedSkill, Mismatch, SkillError, Skills};
use mcp_runtime_core::ResourceBody;
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

const SKILL_MD: &str = "skill://pdf-processing/SKILL.md";
const FORMS: &str = "skill://pdf-processing/references/FORMS.md";
const SKILL_TEXT: &str = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\nSee references/FORMS.md.\n";
const FORMS_TEXT: &str = "Supporting content.\n";

fn digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let hex: String = hash.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("sha256:{hex}")
}

fn text(uri: &str, text: &str) -> Value {
    json!({ "uri": uri, "mimeType": "text/markdown", "text": text })
}

/// What the server serves: the entries it lists, one a page, and the contents it answers
/// reads with, by URI.
#[derive(Clone)]
struct Served {
    entries: Vec<Value>,
    files: HashMap<String, Value>,
}

impl Served {
    /// The skill `pdf-processing`, its entry describing `SKILL_TEXT` and `FORMS_TEXT`, and
    /// its files served as they are described.
    fn skill() -> Self {
        let entry = json!({
            "uri": SKILL_MD,
            "frontmatter": {
                "name": "pdf-processing",
                "description": "Extract, fill, and assemble PDF documents",
            },
            "resources": [
                { "uri": SKILL_MD, "digest": digest(SKILL_TEXT.as_bytes()), "size": SKILL_TEXT.len() },
                { "uri": FORMS, "digest": digest(FORMS_TEXT.as_bytes()), "size": FORMS_TEXT.len() },
            ],
        });
        let files = [
            (SKILL_MD.to_owned(), text(SKILL_MD, SKILL_TEXT)),
            (FORMS.to_owned(), text(FORMS, FORMS_TEXT)),
        ];
        Self {
            entries: vec![entry],
            files: files.into_iter().collect(),
        }
    }

    /// Serves `content` for `uri`, whatever the entry says.
    fn serving(mut self, uri: &str, content: Value) -> Self {
        self.files.insert(uri.to_owned(), content);
        self
    }
}

/// A server of `served`, and the URIs it was asked to read, in order.
struct Fixture {
    url: String,
    reads: Arc<Mutex<Vec<String>>>,
}

impl Fixture {
    fn reads(&self) -> Vec<String> {
        self.reads.lock().expect("not poisoned").clone()
    }

    async fn client(&self) -> Client {
        Client::builder()
            .http(HttpServer::new(&self.url))
            .await
            .expect("connected")
    }
}

/// The answer of the server of `served` to `request`.
fn answer(served: &Served, reads: &Mutex<Vec<String>>, request: &Value) -> Value {
    let params = &request["params"];
    let page = |entries: &[Value]| {
        let at: usize = params["cursor"]
            .as_str()
            .and_then(|cursor| cursor.parse().ok())
            .unwrap_or(0);
        let mut page = json!({ "resultType": "complete", "ttlMs": 0, "cacheScope": "private",
            "skills": entries.get(at).map(|entry| vec![entry.clone()]).unwrap_or_default() });
        if at + 1 < entries.len() {
            page["nextCursor"] = json!((at + 1).to_string());
        }
        page
    };
    let uri = params["uri"].as_str().unwrap_or_default();
    let result = match request["method"].as_str().unwrap_or_default() {
        "server/discover" => json!({
            "supportedVersions": ["2026-07-28"],
            "capabilities": {
                "resources": {},
                "extensions": { "io.modelcontextprotocol/skills": {} },
            },
        }),
        "skills/list" => page(&served.entries),
        "skills/get" => match served.entries.iter().find(|entry| entry["uri"] == uri) {
            Some(entry) => json!({ "resultType": "complete", "skill": entry }),
            None => return error(request, -32602),
        },
        "resources/read" => {
            reads.lock().expect("not poisoned").push(uri.to_owned());
            match served.files.get(uri) {
                Some(content) => json!({ "resultType": "complete", "contents": [content] }),
                None => return error(request, -32602),
            }
        }
        "tools/list" => json!({ "tools": [] }),
        "resources/list" => json!({ "resources": [{ "uri": SKILL_MD, "name": "pdf-processing" }] }),
        "resources/templates/list" => json!({ "resourceTemplates": [] }),
        _ => return error(request, -32601),
    };
    json!({ "jsonrpc": "2.0", "id": request["id"], "result": result })
}

fn error(request: &Value, code: i64) -> Value {
    json!({ "jsonrpc": "2.0", "id": request["id"], "error": { "code": code, "message": "no" } })
}

async fn serve(served: Served) -> Fixture {
    let reads = Arc::new(Mutex::new(Vec::new()));
    let app = axum::Router::new().route(
        "/mcp",
        axum::routing::post({
            let reads = Arc::clone(&reads);
            move |body: Bytes| async move {
                let request: Value = serde_json::from_slice(&body).unwrap_or_default();
                if request.get("id").is_none() {
                    return Response::builder()
                        .status(202)
                        .body(Body::empty())
                        .expect("a response");
                }
                let answer = answer(&served, &reads, &request);
                Response::builder()
                    .header(CONTENT_TYPE, "application/json")
                    .body(Body::from(answer.to_string()))
                    .expect("a response")
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let url = format!("http://{}/mcp", listener.local_addr().expect("an address"));
    tokio::spawn(async move { axum::serve(listener, app).await });
    Fixture { url, reads }
}

/// The verification failure of `loaded`: the file it names, and what failed.
/// The skill at `SKILL_MD`, got and loaded, which must succeed.
async fn loaded(skills: &Skills<'_>) -> LoadedSkill {
    let entry = skills.get(SKILL_MD).await.expect("got");
    skills.load(entry).await.expect("SKILL.md is as listed")
}

/// Gets the skill at `SKILL_MD` from `server` and loads it, which must fail: the failure's
/// URI and mismatch.
async fn refused_load(server: &Fixture) -> (String, Mismatch) {
    let client = server.client().await;
    let skills = client.skills();
    let entry = skills.get(SKILL_MD).await.expect("got");
    failure(skills.load(entry).await)
}

fn failure<T: std::fmt::Debug>(loaded: Result<T, SkillError>) -> (String, Mismatch) {
    match loaded {
        Err(SkillError::Verification { uri, failure }) => (uri, *failure),
        other => panic!("expected a verification failure, got {other:?}"),
    }
}

#[tokio::test]
async fn listing_and_getting_read_no_file_and_loading_reads_only_what_is_asked() {
    let mut served = Served::skill();
    let mut second = served.entries[0].clone();
    second["uri"] = json!("skill://acme/pdf-processing/SKILL.md");
    second["resources"] = json!("dynamic");
    served.entries.push(second);
    let server = serve(served).await;
    let client = server.client().await;
    let skills = client.skills();
    assert!(skills.offered());
    let listed = skills.list().await.expect("listed");
    let uris: Vec<&str> = listed.iter().map(|entry| entry.uri.as_str()).collect();
    assert_eq!(uris, [SKILL_MD, "skill://acme/pdf-processing/SKILL.md"]);
    let entry = skills.get(SKILL_MD).await.expect("got");
    assert_eq!(entry, listed[0]);
    assert_eq!(server.reads(), Vec::<String>::new());

    let skill = skills.load(entry).await.expect("loaded");
    assert_eq!(server.reads(), [SKILL_MD]);
    assert_eq!(skill.instructions().text(), Some(SKILL_TEXT));
    assert!(skill.instructions().verified);
    let forms = skills
        .read(&skill, "references/FORMS.md")
        .await
        .expect("read");
    assert_eq!(forms.text(), Some(FORMS_TEXT));
    assert!(forms.verified);
    assert_eq!(server.reads(), [SKILL_MD, FORMS]);
}

#[tokio::test]
async fn a_skill_md_whose_digest_differs_is_refused() {
    let evil = SKILL_TEXT.replace("See references", "Run scriptsXYZ");
    assert_eq!(evil.len(), SKILL_TEXT.len());
    let server = serve(Served::skill().serving(SKILL_MD, text(SKILL_MD, &evil))).await;
    let (uri, mismatch) = refused_load(&server).await;
    assert_eq!(uri, SKILL_MD);
    assert_eq!(
        mismatch,
        Mismatch::Digest {
            expected: digest(SKILL_TEXT.as_bytes()),
            got: digest(evil.as_bytes()),
        }
    );
}

#[tokio::test]
async fn a_file_longer_than_its_entry_says_is_refused_for_its_size() {
    let longer = format!("{SKILL_TEXT}extra bytes the entry did not account for\n");
    let server = serve(Served::skill().serving(SKILL_MD, text(SKILL_MD, &longer))).await;
    let (uri, mismatch) = refused_load(&server).await;
    assert_eq!(uri, SKILL_MD);
    assert_eq!(
        mismatch,
        Mismatch::Size {
            expected: SKILL_TEXT.len() as u64,
            got: longer.len() as u64,
        }
    );
}

#[tokio::test]
async fn front_matter_unlike_the_entrys_is_refused_field_by_field() {
    // The file's digest and size are the entry's; its front matter is not.
    let evil = SKILL_TEXT.replace(
        "description: Extract, fill, and assemble PDF documents",
        "description: Exfiltrate credentials",
    );
    let mut served = Served::skill().serving(SKILL_MD, text(SKILL_MD, &evil));
    served.entries[0]["resources"][0] =
        json!({ "uri": SKILL_MD, "digest": digest(evil.as_bytes()), "size": evil.len() });
    let server = serve(served).await;
    let (uri, mismatch) = refused_load(&server).await;
    assert_eq!(uri, SKILL_MD);
    assert_eq!(
        mismatch,
        Mismatch::FrontMatter {
            field: "description".to_owned(),
            expected: Some(json!("Extract, fill, and assemble PDF documents")),
            got: Some(json!("Exfiltrate credentials")),
        }
    );
    assert_eq!(server.reads(), [SKILL_MD]);
}

#[tokio::test]
async fn a_supporting_file_that_fails_is_refused_and_a_blob_that_matches_is_read() {
    let tampered = "Supporting content!\n";
    let blob = |bytes: &str| base64::engine::general_purpose::STANDARD.encode(bytes);
    let server =
        serve(Served::skill().serving(FORMS, json!({ "uri": FORMS, "blob": blob(tampered) })))
            .await;
    let client = server.client().await;
    let skills = client.skills();
    let skill = loaded(&skills).await;
    let (uri, mismatch) = failure(skills.read(&skill, "references/FORMS.md").await);
    assert_eq!(uri, FORMS);
    assert!(matches!(mismatch, Mismatch::Digest { .. }), "{mismatch:?}");

    let server =
        serve(Served::skill().serving(FORMS, json!({ "uri": FORMS, "blob": blob(FORMS_TEXT) })))
            .await;
    let client = server.client().await;
    let skills = client.skills();
    let skill = loaded(&skills).await;
    let forms = skills.read(&skill, FORMS).await.expect("read");
    assert_eq!(forms.bytes, FORMS_TEXT.as_bytes());
}

#[tokio::test]
async fn an_unlisted_file_or_one_outside_the_skill_is_refused_unread() {
    let server = serve(Served::skill().serving(
        "skill://pdf-processing/references/SECRET.md",
        text("skill://pdf-processing/references/SECRET.md", "secret"),
    ))
    .await;
    let client = server.client().await;
    let skills = client.skills();
    let skill = loaded(&skills).await;
    let (uri, mismatch) = failure(skills.read(&skill, "references/SECRET.md").await);
    assert_eq!(uri, "skill://pdf-processing/references/SECRET.md");
    assert_eq!(mismatch, Mismatch::Unlisted);
    for outside in ["../other/SKILL.md", "/etc/passwd", "%2e%2e/x"] {
        assert!(
            matches!(
                skills.read(&skill, outside).await,
                Err(SkillError::Path { .. })
            ),
            "{outside}"
        );
    }
    assert_eq!(server.reads(), [SKILL_MD]);
}

#[tokio::test]
async fn a_dynamic_skill_is_read_unverified_but_its_front_matter_is_compared() {
    let mut served = Served::skill();
    served.entries[0]["resources"] = json!("dynamic");
    let server = serve(served.clone()).await;
    let client = server.client().await;
    let skills = client.skills();
    let skill = loaded(&skills).await;
    assert!(!skill.instructions().verified);
    assert_eq!(skill.files(), None);
    let forms = skills
        .read(&skill, "references/FORMS.md")
        .await
        .expect("read");
    assert!(!forms.verified);
    assert_eq!(forms.text(), Some(FORMS_TEXT));

    served.entries[0]["frontmatter"]["license"] = json!("MIT");
    let server = serve(served).await;
    let client = server.client().await;
    let skills = client.skills();
    let entry = skills.get(SKILL_MD).await.expect("got");
    let (_, mismatch) = failure(skills.load(entry).await);
    assert_eq!(
        mismatch,
        Mismatch::FrontMatter {
            field: "license".to_owned(),
            expected: Some(json!("MIT")),
            got: None,
        }
    );
}

#[tokio::test]
async fn a_gateway_passes_a_mounted_servers_skills_on_under_the_mounts_name_verified() {
    let server = serve(Served::skill()).await;
    let upstream = Arc::new(server.client().await);
    let mut gateway = Registry::builder().build().expect("a registry");
    let mounted = client::mount(&mut gateway, "far", upstream)
        .await
        .expect("mounted");
    assert_eq!(mounted.skills, ["skill://far/pdf-processing/SKILL.md"]);
    assert_eq!(server.reads(), Vec::<String>::new());
    let skill = gateway
        .skills()
        .get("far/pdf-processing")
        .expect("served under the mount's name");
    assert_eq!(skill.name(), "pdf-processing");
    assert_eq!(skill.entry().resources, {
        let mut resources = Served::skill().entries[0]["resources"].clone();
        for file in resources.as_array_mut().expect("listed") {
            let uri = file["uri"]
                .as_str()
                .expect("a uri")
                .replace("://", "://far/");
            file["uri"] = json!(uri);
        }
        serde_json::from_value(resources).expect("resources")
    });
    let local = "skill://far/pdf-processing/references/FORMS.md";
    let read = gateway
        .skills()
        .resolve(local)
        .expect("resolved")
        .read(local.to_owned())
        .await
        .expect("read");
    assert_eq!(read.body, ResourceBody::Text(FORMS_TEXT.to_owned()));
    assert_eq!(server.reads(), [FORMS]);

    // The server behind serves it unlike its entry: not passed on.
    let tampered =
        serve(Served::skill().serving(FORMS, text(FORMS, "Supporting content!\n"))).await;
    let mut gateway = Registry::builder().build().expect("a registry");
    client::mount(&mut gateway, "far", Arc::new(tampered.client().await))
        .await
        .expect("mounted");
    let refused = gateway
        .skills()
        .resolve(local)
        .expect("resolved")
        .read(local.to_owned())
        .await;
    match refused {
        Err(err) => assert!(err.to_string().contains("unlike its entry"), "{err}"),
        Ok(read) => panic!("passed on: {read:?}"),
    }
}
