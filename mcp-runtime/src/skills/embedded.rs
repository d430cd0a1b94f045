//! Skills a program embeds at compile time (`mcp_runtime::skills!`): their files are in
//! the binary, and a read looks one up by its exact path.

use std::collections::BTreeMap;
use std::sync::Arc;

use mcp_runtime_core::skill::{FrontMatterError, SKILL_FILE, front_matter};

use super::folder::digest;
use super::{
    FileEntry, FilePath, Manifest, ReadFuture, Skill, SkillBytes, SkillError, SkillReadError,
    SkillSource,
};
use crate::registration::SkillRegistration;

/// The skills embedded in the program: one source for all of them.
#[derive(Debug, Default)]
pub struct Embedded {
    /// Each file's bytes, by skill path and path within the skill.
    files: BTreeMap<(String, String), &'static [u8]>,
}

/// An embedded skill that cannot be served, and where it was embedded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the skill `{name}` embedded at {location}: {reason}")]
pub struct EmbedProblem {
    /// The skill's name.
    pub name: &'static str,
    /// Where it was embedded.
    pub location: crate::registration::Location,
    /// What is wrong.
    pub reason: EmbedReason,
}

/// What is wrong with an embedded skill.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EmbedReason {
    /// It has no `SKILL.md`.
    #[error("it has no SKILL.md")]
    NoSkillFile,
    /// Its `SKILL.md` is not UTF-8.
    #[error("its SKILL.md is not UTF-8")]
    NotText,
    /// Its `SKILL.md` has no valid front matter.
    #[error(transparent)]
    FrontMatter(#[from] FrontMatterError),
    /// Its name breaks the naming rules, or is not its front matter's.
    #[error(transparent)]
    Skill(#[from] SkillError),
}

impl Embedded {
    /// The skills of `registrations` (sorted by name, then place, for stable messages),
    /// all read through one source; and those that cannot be served, with why.
    pub(crate) fn of(
        registrations: Vec<&'static SkillRegistration>,
    ) -> (Vec<Skill>, Vec<EmbedProblem>) {
        let mut registrations = registrations;
        registrations.sort_by_key(|skill| (skill.name(), skill.location()));
        let mut embedded = Self::default();
        for registration in &registrations {
            for file in registration.files() {
                embedded.files.insert(
                    (registration.name().to_owned(), file.path().to_owned()),
                    file.bytes(),
                );
            }
        }
        let source: Arc<dyn SkillSource> = Arc::new(embedded);
        let (mut skills, mut problems) = (Vec::new(), Vec::new());
        for registration in registrations {
            match skill(registration, &source) {
                Ok(skill) => skills.push(skill),
                Err(reason) => problems.push(EmbedProblem {
                    name: registration.name(),
                    location: registration.location(),
                    reason,
                }),
            }
        }
        (skills, problems)
    }
}

/// The skill `registration` embeds.
fn skill(
    registration: &SkillRegistration,
    source: &Arc<dyn SkillSource>,
) -> Result<Skill, EmbedReason> {
    let skill_file = registration
        .files()
        .iter()
        .find(|file| file.path() == SKILL_FILE)
        .ok_or(EmbedReason::NoSkillFile)?;
    let text = std::str::from_utf8(skill_file.bytes()).map_err(|_| EmbedReason::NotText)?;
    let front = front_matter(text)?;
    let mut files: Vec<FileEntry> = registration
        .files()
        .iter()
        .map(|file| FileEntry {
            path: file.path().to_owned(),
            digest: digest(file.bytes()),
            size: file.bytes().len() as u64,
        })
        .collect();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let origin = format!("embedded at {}", registration.location());
    Ok(Skill::new(
        registration.name(),
        front,
        Manifest::Listed(files),
        origin,
        source.clone(),
    )?)
}

impl SkillSource for Embedded {
    fn describe(&self) -> String {
        "the skills embedded in the program".to_owned()
    }

    fn read(&self, skill: &str, path: &FilePath, limit: u64) -> ReadFuture {
        let key = (skill.to_owned(), path.to_string());
        let found = self.files.get(&key).copied();
        let (skill, path) = key;
        Box::pin(async move {
            let bytes = found.ok_or_else(|| SkillReadError::NotFound {
                skill: skill.clone(),
                path: path.clone(),
            })?;
            let size = bytes.len() as u64;
            if size > limit {
                return Err(SkillReadError::TooLarge {
                    skill,
                    path,
                    size,
                    limit,
                });
            }
            Ok(SkillBytes {
                bytes: bytes.to_vec(),
                mime_type: None,
            })
        })
    }
}
