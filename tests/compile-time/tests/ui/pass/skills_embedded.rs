// A folder of one skill, embedded and registered.

use mcp_runtime::__private::{SkillRegistration, inventory};

mcp_runtime::skills!("$MCP_UI_SKILLS/good");

fn main() {
    let skills: Vec<&SkillRegistration> = inventory::iter::<SkillRegistration>.into_iter().collect();
    assert_eq!(skills.len(), 1);
    assert_eq!(skills[0].name(), "hello");
    let paths: Vec<&str> = skills[0].files().iter().map(|file| file.path()).collect();
    assert_eq!(paths, ["SKILL.md"]);
    assert!(skills[0].files()[0].bytes().starts_with(b"---\nname: hello\n"));
}
