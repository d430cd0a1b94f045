//! The folder checks that need a folder made for them: the limits, names that are not
//! UTF-8, link loops, special files. The ui cases of `mcp-tests` cover the rest through
//! the compiler.

use std::fs::{self, File};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::*;

/// A folder of its own under the system's temporary folder, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let path = env::temp_dir().join(format!(
            "mcp-skills-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        fs::create_dir_all(&path).unwrap();
        Self(path)
    }

    /// A skill folder `name` under `at` (relative), with its SKILL.md.
    fn skill(&self, at: &str, name: &str) -> PathBuf {
        let folder = self.0.join(at).join(name);
        fs::create_dir_all(&folder).unwrap();
        let text = format!("---\nname: {name}\ndescription: A skill.\n---\n");
        fs::write(folder.join(SKILL_FILE), text).unwrap();
        folder
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn errors(root: &Path) -> Vec<String> {
    match read_folder(root, "skills") {
        Ok(skills) => panic!("{} skills read, errors expected", skills.len()),
        Err(errors) => errors.iter().map(ToString::to_string).collect(),
    }
}

#[test]
fn a_skill_of_512_files_is_read_and_one_of_513_is_refused() {
    let scratch = Scratch::new();
    let folder = scratch.skill("", "many");
    for i in 1..MAX_RESOURCES_PER_SKILL {
        File::create(folder.join(format!("{i:03}.md"))).unwrap();
    }
    let skills = read_folder(&scratch.0, "skills").unwrap();
    assert_eq!(skills[0].files.len(), 512);
    assert_eq!(skills[0].files[0].path, SKILL_FILE);
    File::create(folder.join("one-more.md")).unwrap();
    assert_eq!(
        errors(&scratch.0),
        ["the skill `skills/many` has 513 files, more than the 512 a skill may have"]
    );
}

#[test]
fn a_skill_of_16_mib_is_read_and_one_byte_more_is_refused() {
    let scratch = Scratch::new();
    let folder = scratch.skill("", "large");
    let skill_file = fs::metadata(folder.join(SKILL_FILE)).unwrap().len();
    let big = File::create(folder.join("big.bin")).unwrap();
    big.set_len(MAX_TOTAL_SIZE - skill_file).unwrap();
    assert!(read_folder(&scratch.0, "skills").is_ok());
    big.set_len(MAX_TOTAL_SIZE - skill_file + 1).unwrap();
    assert_eq!(
        errors(&scratch.0),
        [
            "the skill `skills/large` holds 16777217 bytes, more than the 16777216 (16 MiB) a skill may"
        ]
    );
}

#[test]
fn a_file_name_that_is_not_utf8_is_refused() {
    let scratch = Scratch::new();
    let folder = scratch.skill("", "odd");
    let name = std::ffi::OsStr::from_bytes(b"bad\xff.md");
    File::create(folder.join(name)).unwrap();
    assert_eq!(
        errors(&scratch.0),
        ["`skills/odd/bad\u{fffd}.md`: its name is not UTF-8, and a skill's paths must be"]
    );
}

#[test]
fn a_link_back_to_a_folder_that_holds_it_is_refused() {
    let scratch = Scratch::new();
    let folder = scratch.skill("", "looping");
    fs::create_dir(folder.join("sub")).unwrap();
    symlink("..", folder.join("sub/back")).unwrap();
    assert_eq!(
        errors(&scratch.0),
        ["`skills/looping/sub/back` is a symbolic link to a folder that holds it: a loop"]
    );
}

#[test]
fn links_are_followed_inside_the_skill_and_refused_out_of_it_or_out_of_the_folder() {
    let scratch = Scratch::new();
    let folder = scratch.skill("", "linked");
    fs::create_dir(folder.join("docs")).unwrap();
    fs::write(folder.join("docs/a.md"), "a").unwrap();
    symlink("docs", folder.join("alias")).unwrap();
    let skills = read_folder(&scratch.0, "skills").unwrap();
    let paths: Vec<&str> = skills[0].files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["SKILL.md", "alias/a.md", "docs/a.md"]);

    // Outside every skill, a link may not leave the macro's folder either.
    let elsewhere = Scratch::new();
    symlink(&elsewhere.0, scratch.0.join("group")).unwrap();
    assert_eq!(
        errors(&scratch.0),
        ["`skills/group` is a symbolic link that leads out of `skills`, which is refused"]
    );
}

#[test]
fn a_broken_link_and_a_socket_are_refused_by_name() {
    let scratch = Scratch::new();
    let folder = scratch.skill("", "broken");
    symlink("nowhere", folder.join("dangling")).unwrap();
    let message = errors(&scratch.0).concat();
    assert!(
        message.starts_with("`skills/broken/dangling` cannot be read: "),
        "{message}"
    );
    fs::remove_file(folder.join("dangling")).unwrap();
    let _listener = std::os::unix::net::UnixListener::bind(folder.join("socket")).unwrap();
    assert_eq!(
        errors(&scratch.0),
        ["`skills/broken/socket` is neither a file nor a folder"]
    );
}

#[test]
fn the_folder_itself_may_be_the_skill() {
    let scratch = Scratch::new();
    let folder = scratch.skill("", "solo");
    fs::write(folder.join("notes.md"), "n").unwrap();
    let skills = read_folder(&folder, "skills/solo").unwrap();
    assert_eq!(skills.len(), 1);
    assert_eq!(skills[0].name, "solo");
    let paths: Vec<&str> = skills[0].files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["SKILL.md", "notes.md"]);
}

#[test]
fn every_skill_is_checked_before_errors_are_reported() {
    let scratch = Scratch::new();
    scratch.skill("a", "same");
    scratch.skill("b", "same");
    let mismatch = scratch.skill("", "named");
    fs::write(
        mismatch.join(SKILL_FILE),
        "---\nname: other\ndescription: d\n---\n",
    )
    .unwrap();
    assert_eq!(
        errors(&scratch.0),
        [
            "`skills/named/SKILL.md` names the skill `other`, but its folder is `named`: a skill's name must be its folder's name",
            "two skills are named `same`: `skills/a/same` and `skills/b/same`",
        ]
    );
}

#[test]
fn the_argument_is_read_under_the_manifest_or_a_variable() {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let plain = root("src").unwrap();
    assert_eq!((plain.path, plain.variable), (manifest.join("src"), None));
    let variable = root("$CARGO_MANIFEST_DIR/src").unwrap();
    assert_eq!(variable.path, manifest.join("src"));
    assert_eq!(variable.variable.as_deref(), Some("CARGO_MANIFEST_DIR"));
    for bad in ["$", "$/skills", "$1A/skills", "$A-B/skills"] {
        assert!(matches!(root(bad), Err(SkillsError::Variable(_))), "{bad}");
    }
    assert!(matches!(
        root("$MCP_SURELY_NOT_SET_ANYWHERE/skills"),
        Err(SkillsError::Unset(name)) if name == "MCP_SURELY_NOT_SET_ANYWHERE"
    ));
}

#[test]
fn paths_are_shown_as_the_argument_spells_them() {
    assert_eq!(shown("skills/", "pdf/SKILL.md"), "skills/pdf/SKILL.md");
    assert_eq!(shown("skills", "pdf"), "skills/pdf");
    assert_eq!(shown("skills/", ""), "skills/");
    assert_eq!(shown("", "pdf"), "pdf");
}
