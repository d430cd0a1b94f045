//! `skills!` registers every skill of a folder with its files' exact bytes, and skills
//! embedded by library crates are registered in any binary that uses them.

use std::collections::BTreeMap;
use std::path::Path;

use mcp_runtime::__private::{SkillRegistration, inventory};

// The libraries' skills: using them links them, and with them their registrations.
use tools_a as _;
use tools_b as _;

mcp_runtime::skills!("tests/embedded_skills");

/// Every registered skill, by name.
fn registered() -> BTreeMap<&'static str, &'static SkillRegistration> {
    let mut skills = BTreeMap::new();
    for skill in inventory::iter::<SkillRegistration> {
        assert!(
            skills.insert(skill.name(), skill).is_none(),
            "{} is registered twice",
            skill.name()
        );
    }
    skills
}

fn fixture(path: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/embedded_skills")
        .join(path);
    std::fs::read(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

#[test]
fn every_skill_of_the_folder_and_of_the_libraries_is_registered() {
    let names: Vec<&str> = registered().into_keys().collect();
    assert_eq!(
        names,
        ["notes-a", "notes-b", "pdf-processing", "release-notes"]
    );
}

#[test]
fn a_skill_carries_every_file_under_its_folder_skill_md_first_with_its_bytes() {
    let skills = registered();
    let skill = skills["pdf-processing"];
    let paths: Vec<&str> = skill.files().iter().map(|file| file.path()).collect();
    // The link `forms.md` is followed: it stays inside the skill's folder.
    assert_eq!(
        paths,
        [
            "SKILL.md",
            "assets/mark.bin",
            "forms.md",
            "references/FORMS.md",
            "scripts/fill.py",
        ]
    );
    for file in skill.files() {
        let on_disk = fixture(&format!("pdf-processing/{}", file.path()));
        assert_eq!(file.bytes(), on_disk.as_slice(), "{}", file.path());
    }
    assert_eq!(
        skill.files()[1].bytes(),
        b"\x89PNG\r\n\x1a\n\x00\xff\xfe",
        "bytes that are not UTF-8 are embedded as they are"
    );
    assert_eq!(
        skills["pdf-processing"].files()[2].bytes(),
        fixture("pdf-processing/references/FORMS.md")
    );
}

#[test]
fn a_skill_in_a_grouping_folder_is_named_by_its_own_folder() {
    let skills = registered();
    let skill = skills["release-notes"];
    let files: Vec<(&str, &[u8])> = skill
        .files()
        .iter()
        .map(|file| (file.path(), file.bytes()))
        .collect();
    assert_eq!(
        files,
        [(
            "SKILL.md",
            fixture("group/release-notes/SKILL.md").as_slice()
        )]
    );
}

#[test]
fn the_registration_says_where_the_folder_was_embedded() {
    let skills = registered();
    let here = skills["pdf-processing"].location();
    assert!(here.file.ends_with("embedded_skills.rs"), "{here}");
    assert_eq!(here.line, 13);
    assert_eq!(here.module_path, "embedded_skills");
    let library = skills["notes-a"].location();
    assert!(library.file.ends_with("tools_a/src/lib.rs"), "{library}");
    assert_eq!(library.module_path, "tools_a");
}
