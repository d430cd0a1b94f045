//! Embedded skills, registered as `mcp_runtime::skills!` registers them (one
//! `SkillRegistration` per skill, collected with `inventory`): served by a registry built
//! from the inventory like its tools, and refused beside a folder's skill of the same
//! name, naming both places.

use std::sync::Arc;

use mcp_runtime::__private::{SkillFile, SkillRegistration, inventory};
use mcp_runtime::server::Server;
use mcp_runtime::{Location, Registry, RegistryProblem};
use serde_json::{Value, json};

const SKILL_MD: &str =
    "---\nname: embedded-guide\ndescription: A skill in the binary.\n---\n\n# Embedded\n";

static FILES: [SkillFile; 2] = [
    SkillFile::new("SKILL.md", SKILL_MD.as_bytes()),
    SkillFile::new("notes/more.md", b"# More\n"),
];

inventory::submit! {
    SkillRegistration::new(
        "embedded-guide",
        &FILES,
        Location { file: file!(), line: line!(), column: 1, module_path: module_path!() },
    )
}

async fn answer(server: &Server, method: &str, params: Value) -> Value {
    let request = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
    let text = server
        .handle(request.to_string().as_bytes(), None)
        .await
        .expect("a request is answered");
    serde_json::from_str(&text).expect("JSON")
}

#[tokio::test]
async fn an_embedded_skill_is_served_by_the_inventorys_registry() {
    let registry = Registry::builder().inventory().build().expect("built");
    assert_eq!(registry.skills().len(), 1);
    let server = Arc::new(Server::new(registry));

    let listed = answer(&server, "skills/list", json!({})).await;
    let entry = &listed["result"]["skills"][0];
    assert_eq!(entry["uri"], "skill://embedded-guide/SKILL.md");
    assert_eq!(
        entry["frontmatter"]["description"],
        "A skill in the binary."
    );
    assert_eq!(
        entry["resources"][1]["uri"],
        "skill://embedded-guide/notes/more.md"
    );
    assert_eq!(entry["resources"][0]["size"], SKILL_MD.len());

    let read = answer(
        &server,
        "resources/read",
        json!({ "uri": "skill://embedded-guide/SKILL.md" }),
    )
    .await;
    assert_eq!(read["result"]["contents"][0]["text"], SKILL_MD);
    assert_eq!(read["result"]["contents"][0]["mimeType"], "text/markdown");
    for escape in [
        "skill://embedded-guide/../embedded-guide/SKILL.md",
        "skill://embedded-guide/%2e%2e/x",
    ] {
        let refused = answer(&server, "resources/read", json!({ "uri": escape })).await;
        assert!(refused["error"].is_object(), "{escape}: {refused}");
    }
    let walked = answer(
        &server,
        "resources/directory/read",
        json!({ "uri": "skill://embedded-guide/notes" }),
    )
    .await;
    assert_eq!(
        walked["result"]["resources"][0]["uri"],
        "skill://embedded-guide/notes/more.md"
    );

    let initialized = answer(
        &server,
        "initialize",
        json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "t", "version": "1" } }),
    )
    .await;
    let extensions = &initialized["result"]["capabilities"]["extensions"];
    assert_eq!(
        extensions["io.modelcontextprotocol/skills"],
        json!({ "directoryRead": true })
    );
}

#[test]
fn a_folders_skill_of_an_embedded_skills_name_is_refused_naming_both() {
    let folder = std::env::temp_dir().join(format!("mcp-skills-embedded-{}", std::process::id()));
    let skill = folder.join("embedded-guide");
    std::fs::create_dir_all(&skill).expect("a folder");
    std::fs::write(skill.join("SKILL.md"), SKILL_MD).expect("written");
    let built = Registry::builder().inventory().skills_dir(&folder).build();
    let _ = std::fs::remove_dir_all(&folder);
    let err = built.expect_err("two skills at one path are refused");
    let [RegistryProblem::DuplicateSkill(duplicate)] = err.problems() else {
        panic!("one duplicate: {err}");
    };
    assert_eq!(duplicate.path, "embedded-guide");
    assert!(
        duplicate.first.contains("skills_embedded.rs"),
        "{duplicate}"
    );
    assert!(duplicate.second.contains("embedded-guide"), "{duplicate}");
    assert!(err.to_string().contains("skills_embedded.rs"), "{err}");
}

#[test]
fn a_registry_without_skills_does_not_declare_the_extension() {
    let server = Server::new(Registry::builder().build().expect("built"));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let discovered = runtime.block_on(answer(
        &server,
        "initialize",
        json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "t", "version": "1" } }),
    ));
    let extensions = &discovered["result"]["capabilities"]["extensions"];
    assert!(
        extensions.get("io.modelcontextprotocol/skills").is_none(),
        "{extensions}"
    );
    let listed = runtime.block_on(answer(&server, "skills/list", json!({})));
    assert_eq!(listed["error"]["code"], -32601, "{listed}");
}
