//! The skills extension through a real server: the quickstart serving a folder of skills
//! (`serve --skills DIR`) over stdio, read by this crate's client. What is listed, got,
//! read and walked; the paths that would leave a skill's folder, refused with nothing
//! read; a change to the folder, served and told.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_runtime::client::{Client, ClientError, RequestOptions, StdioServer};
use mcp_tests::quickstart_bin;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

/// What every skill folder of these tests holds somewhere outside the skills: a read
/// that answers it has left the folder.
const SECRET: &str = "TOP-SECRET-CONTENT-OUTSIDE-THE-SKILLS";

/// A new folder under the system's temporary one, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(label: &str) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "mcp-skills-{label}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        fs::create_dir_all(&path).expect("a scratch folder");
        Self(path)
    }

    fn write(&self, relative: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let path = self.0.join(relative);
        fs::create_dir_all(path.parent().expect("a parent")).expect("its folder");
        fs::write(&path, bytes).expect("written");
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn skill_md(name: &str, description: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: {description}\nmetadata:\n  version: \"2\"\n---\n\n# {name}\n\nBody.\n"
    )
}

fn digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    format!(
        "sha256:{}",
        hash.iter().map(|b| format!("{b:02x}")).collect::<String>()
    )
}

/// A folder of skills: `pdf-processing` (with a subfolder and a binary file), the nested
/// `team/code-review`, a file outside the skills folder that only an escape reaches, and a
/// symbolic link inside `pdf-processing` to it.
fn skills_folder() -> (Scratch, PathBuf) {
    let scratch = Scratch::new("folder");
    scratch.write("outside.txt", SECRET);
    scratch.write(
        "skills/pdf-processing/SKILL.md",
        skill_md("pdf-processing", "Fill PDF forms."),
    );
    scratch.write("skills/pdf-processing/references/FORMS.md", "# Forms\n");
    scratch.write(
        "skills/pdf-processing/assets/logo.png",
        [0x89, b'P', b'N', b'G', 0, 0xff],
    );
    scratch.write(
        "skills/team/code-review/SKILL.md",
        skill_md("code-review", "Review a change."),
    );
    let skills = scratch.0.join("skills");
    #[cfg(unix)]
    std::os::unix::fs::symlink(
        scratch.0.join("outside.txt"),
        skills.join("pdf-processing/link.txt"),
    )
    .expect("a symbolic link");
    (scratch, skills)
}

async fn serve(skills: &Path, extra: &[&str], handshake: bool) -> Client {
    let mut args = vec!["serve", "--stdio", "--skills"];
    let skills = skills.to_string_lossy().into_owned();
    args.push(&skills);
    args.extend_from_slice(extra);
    let server = StdioServer::new(quickstart_bin().to_string_lossy()).args(args);
    let mut builder = Client::builder().timeout(Duration::from_secs(20));
    if handshake {
        builder = builder.handshake_only();
    }
    builder
        .stdio(server)
        .await
        .expect("the quickstart serves the skills")
}

async fn request(
    client: &Client,
    method: &str,
    params: Value,
) -> Result<Map<String, Value>, ClientError> {
    let Value::Object(params) = params else {
        panic!("params are an object")
    };
    client
        .request(method, params, RequestOptions::default())
        .await
}

/// The JSON-RPC error code of `answer`, which must be an error.
fn code(answer: &Result<Map<String, Value>, ClientError>) -> i64 {
    match answer {
        Err(ClientError::Rpc(err)) => err.code,
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_folder_of_skills_is_declared_listed_got_read_and_walked() {
    let (scratch, skills) = skills_folder();
    for handshake in [true, false] {
        let client = serve(&skills, &[], handshake).await;
        let extension =
            &client.server().capabilities["extensions"]["io.modelcontextprotocol/skills"];
        assert_eq!(
            *extension,
            json!({ "directoryRead": true }),
            "handshake {handshake}"
        );

        let listed = request(&client, "skills/list", json!({}))
            .await
            .expect("listed");
        let entries = listed["skills"].as_array().expect("skills");
        let uris: Vec<&str> = entries.iter().filter_map(|e| e["uri"].as_str()).collect();
        assert_eq!(
            uris,
            [
                "skill://pdf-processing/SKILL.md",
                "skill://team/code-review/SKILL.md"
            ]
        );
        let pdf = &entries[0];
        assert_eq!(
            pdf["frontmatter"],
            json!({
                "name": "pdf-processing", "description": "Fill PDF forms.", "metadata": { "version": "2" }
            })
        );
        let skill_md_bytes = fs::read(skills.join("pdf-processing/SKILL.md")).expect("read");
        let manifest: Vec<(String, String, u64)> = pdf["resources"]
            .as_array()
            .expect("a manifest")
            .iter()
            .map(|r| {
                (
                    r["uri"].as_str().unwrap().to_owned(),
                    r["digest"].as_str().unwrap().to_owned(),
                    r["size"].as_u64().unwrap(),
                )
            })
            .collect();
        // The symbolic link is left out; so is nothing else.
        let listed_uris: Vec<&str> = manifest.iter().map(|(uri, _, _)| uri.as_str()).collect();
        assert_eq!(
            listed_uris,
            [
                "skill://pdf-processing/SKILL.md",
                "skill://pdf-processing/assets/logo.png",
                "skill://pdf-processing/references/FORMS.md",
            ]
        );
        assert_eq!(manifest[0].1, digest(&skill_md_bytes));
        assert_eq!(manifest[0].2, skill_md_bytes.len() as u64);

        let got = request(
            &client,
            "skills/get",
            json!({ "uri": "skill://pdf-processing/SKILL.md" }),
        )
        .await
        .expect("got");
        assert_eq!(got["skill"], *pdf);
        assert!(got.get("nextCursor").is_none());
        assert_eq!(
            got.contains_key("ttlMs"),
            !handshake,
            "cache hints at 2026-07-28 only"
        );
        for unknown in [
            "skill://nothing-here/SKILL.md",
            "skill://pdf-processing/references/FORMS.md",
            "skill://pdf-processing",
        ] {
            let answer = request(&client, "skills/get", json!({ "uri": unknown })).await;
            assert_eq!(code(&answer), -32602, "{unknown}");
        }

        let read = client
            .read_resource("skill://pdf-processing/SKILL.md")
            .await
            .expect("read");
        assert_eq!(read[0]["mimeType"], "text/markdown");
        assert_eq!(read[0]["text"].as_str().unwrap().as_bytes(), skill_md_bytes);
        let logo = client
            .read_resource("skill://pdf-processing/assets/logo.png")
            .await
            .expect("read");
        assert_eq!(logo[0]["mimeType"], "image/png");
        assert!(
            logo[0]["blob"].is_string() && logo[0].get("text").is_none(),
            "{logo:?}"
        );

        let resources = client.list_resources().await.expect("listed");
        let listed_md = resources
            .iter()
            .find(|r| r["uri"] == "skill://team/code-review/SKILL.md")
            .expect("each SKILL.md is a listed resource");
        assert_eq!(listed_md["name"], "code-review");
        assert_eq!(listed_md["description"], "Review a change.");
        assert_eq!(listed_md["mimeType"], "text/markdown");

        let top = request(
            &client,
            "resources/directory/read",
            json!({ "uri": "skill://pdf-processing" }),
        )
        .await
        .expect("walked");
        let children: Vec<(String, String)> = top["resources"]
            .as_array()
            .expect("children")
            .iter()
            .map(|c| {
                (
                    c["uri"].as_str().unwrap().to_owned(),
                    c["mimeType"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        assert_eq!(
            children,
            [
                (
                    "skill://pdf-processing/SKILL.md".to_owned(),
                    "text/markdown".to_owned()
                ),
                (
                    "skill://pdf-processing/assets".to_owned(),
                    "inode/directory".to_owned()
                ),
                (
                    "skill://pdf-processing/references".to_owned(),
                    "inode/directory".to_owned()
                ),
            ]
        );
        let sub = request(
            &client,
            "resources/directory/read",
            json!({ "uri": "skill://pdf-processing/references" }),
        )
        .await
        .expect("walked");
        assert_eq!(
            sub["resources"][0]["uri"],
            "skill://pdf-processing/references/FORMS.md"
        );
        for not_a_folder in [
            "skill://pdf-processing/SKILL.md",
            "skill://nothing-here",
            "skill://team",
            "file:///etc",
        ] {
            let answer = request(
                &client,
                "resources/directory/read",
                json!({ "uri": not_a_folder }),
            )
            .await;
            assert_eq!(code(&answer), -32602, "{not_a_folder}");
        }
    }
    drop(scratch);
}

/// Each URI that would leave `pdf-processing`'s folder, as a client could write it.
const ESCAPES: [&str; 10] = [
    // `..`, plain: to the file beside the skills folder, and to a sibling skill.
    "skill://pdf-processing/../../outside.txt",
    "skill://pdf-processing/../team/code-review/SKILL.md",
    // `..`, percent-encoded, in either case.
    "skill://pdf-processing/%2e%2e/%2e%2e/outside.txt",
    "skill://pdf-processing/%2E%2E/%2E%2E/outside.txt",
    // A separator, percent-encoded, inside one segment.
    "skill://pdf-processing/..%2F..%2Foutside.txt",
    "skill://pdf-processing/%2e%2e%2f%2e%2e%2foutside.txt",
    // An absolute path: an empty first segment, and one encoded whole.
    "skill://pdf-processing//etc/passwd",
    "skill://pdf-processing/%2Fetc%2Fpasswd",
    // A backslash, as Windows separates.
    "skill://pdf-processing/..%5C..%5Coutside.txt",
    // A symbolic link inside the skill to the file outside it.
    "skill://pdf-processing/link.txt",
];

#[tokio::test(flavor = "multi_thread")]
async fn a_path_that_leaves_the_skills_folder_is_refused_and_read_nowhere() {
    let (scratch, skills) = skills_folder();
    for handshake in [true, false] {
        let client = serve(&skills, &[], handshake).await;
        // The one escape the server must not cut short: the file is there to be reached.
        assert_eq!(
            fs::read_to_string(scratch.0.join("outside.txt")).expect("read"),
            SECRET
        );
        for uri in ESCAPES {
            let answer = client.read_resource(uri).await;
            let said = format!("{answer:?}");
            assert!(
                !said.contains(SECRET),
                "handshake {handshake}: {uri} was read: {said}"
            );
            assert!(
                !said.contains("root:"),
                "handshake {handshake}: {uri} read /etc/passwd: {said}"
            );
            assert!(
                matches!(answer, Err(ClientError::Rpc(_))),
                "handshake {handshake}: {uri} is refused: {said}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_file_over_the_read_limit_is_listed_but_not_inlined() {
    let (scratch, skills) = skills_folder();
    let big = vec![b'a'; 1024 * 1024 + 1];
    scratch.write("skills/pdf-processing/references/BIG.txt", &big);
    let client = serve(&skills, &[], true).await;
    let got = request(
        &client,
        "skills/get",
        json!({ "uri": "skill://pdf-processing/SKILL.md" }),
    )
    .await
    .expect("got");
    let listed = got["skill"]["resources"]
        .as_array()
        .expect("a manifest")
        .iter()
        .find(|r| r["uri"] == "skill://pdf-processing/references/BIG.txt")
        .cloned()
        .expect("the big file is listed");
    assert_eq!(listed["size"], big.len());
    assert_eq!(listed["digest"], digest(&big));
    let answer = client
        .read_resource("skill://pdf-processing/references/BIG.txt")
        .await;
    match answer {
        Err(ClientError::Rpc(err)) => {
            assert_eq!(err.code, -32602);
            assert!(err.message.contains("1048577 bytes"), "{}", err.message);
        }
        other => panic!(
            "a file over the limit is not inlined: {:?}",
            other.map(|c| c.len())
        ),
    }
}

/// The digest `pdf-processing`'s manifest lists for `references/FORMS.md`, if it lists it.
async fn forms_digest(client: &Client) -> Option<Value> {
    let got = request(
        client,
        "skills/get",
        json!({ "uri": "skill://pdf-processing/SKILL.md" }),
    )
    .await
    .expect("got");
    got["skill"]["resources"]
        .as_array()?
        .iter()
        .find(|r| r["uri"] == "skill://pdf-processing/references/FORMS.md")
        .map(|r| r["digest"].clone())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_change_to_the_folder_is_served_and_told() {
    let (scratch, skills) = skills_folder();
    for handshake in [true, false] {
        let client = serve(&skills, &["--skills-interval", "50ms"], handshake).await;
        let _listening = client.listen_for_changes().await.expect("listening");
        let mut told = client.notifications();
        let name = if handshake {
            "added-by-handshake"
        } else {
            "added-stateless"
        };
        scratch.write(
            &format!("skills/{name}/SKILL.md"),
            skill_md(name, "Added while serving."),
        );
        let heard = mcp_tests::hears(
            &mut told,
            "notifications/resources/list_changed",
            Duration::from_secs(30),
        )
        .await;
        assert!(heard, "handshake {handshake}: the change is told");
        let listed = request(&client, "skills/list", json!({}))
            .await
            .expect("listed");
        let uris: Vec<&str> = listed["skills"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|e| e["uri"].as_str())
            .collect();
        assert!(
            uris.contains(&format!("skill://{name}/SKILL.md").as_str()),
            "{uris:?}"
        );

        // A file's new bytes: its manifest follows.
        let forms = scratch.write(
            "skills/pdf-processing/references/FORMS.md",
            format!("# Forms, {name}\n"),
        );
        let heard = mcp_tests::hears(
            &mut told,
            "notifications/resources/list_changed",
            Duration::from_secs(30),
        )
        .await;
        assert!(heard, "handshake {handshake}: the edit is told");
        assert_eq!(
            forms_digest(&client).await,
            Some(json!(digest(&fs::read(forms).expect("read"))))
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_edit_that_keeps_the_size_and_the_modification_time_is_served() {
    let (scratch, skills) = skills_folder();
    let client = serve(&skills, &["--skills-interval", "50ms"], false).await;
    // Long enough for the folder to settle and be looked at as it is.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let forms = skills.join("pdf-processing/references/FORMS.md");
    let modified = fs::metadata(&forms).unwrap().modified().unwrap();
    // As a tool that keeps timestamps does (`touch -r`, `rsync -t`), or a clock that stood
    // still between two writes.
    scratch.write("skills/pdf-processing/references/FORMS.md", "# Fxrms\n");
    fs::File::options()
        .write(true)
        .open(&forms)
        .unwrap()
        .set_modified(modified)
        .unwrap();
    let wanted = digest(b"# Fxrms\n");
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let listed = forms_digest(&client).await;
        if listed == Some(json!(wanted)) {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the manifest still lists {listed:?}, not the new bytes' {wanted}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
