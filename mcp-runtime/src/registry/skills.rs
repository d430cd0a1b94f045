//! The skills a registry serves (the skills extension): embedded ones, from `inventory`;
//! the skills of folders; a mounted server's. Each at its own skill path: two at one are
//! refused, naming where each is from.

use std::path::Path;
use std::pin::Pin;

use mcp_runtime_core::ResourceContents;

use super::*;
use crate::registration::SkillRegistration;
use crate::skills::{Embedded, Folder, Skill, SkillReadError, SkillSource, Skills, UriError};

impl RegistryBuilder {
    /// Serves the skills of the folder `dir`: every folder under it that holds a
    /// `SKILL.md` ([`Folder`]). A skill that cannot be served (its front matter, its
    /// name, its size) is a problem [`RegistryBuilder::build`] reports, and so is a skill
    /// at the path of another. A server watches the folder for changes
    /// ([`Server::watch_skills`](crate::server::Server::watch_skills)).
    #[must_use]
    pub fn skills_dir(mut self, dir: impl AsRef<Path>) -> Self {
        let loaded = Folder::new(dir.as_ref()).and_then(|folder| Ok((folder.load()?, folder)));
        match loaded {
            Ok((loaded, folder)) => {
                self.skills.add_folder(folder);
                let problems = loaded.problems.into_iter().map(RegistryProblem::Skill);
                self.problems.extend(problems);
                self.add_skills(loaded.skills);
            }
            Err(err) => self.problems.push(RegistryProblem::SkillsFolder(err)),
        }
        self
    }

    /// Adds the skills embedded with `mcp_runtime::skills!`; [`RegistryBuilder::inventory`]
    /// calls it.
    pub(super) fn embedded_skills(&mut self) {
        let registrations: Vec<&'static SkillRegistration> =
            inventory::iter::<SkillRegistration>.into_iter().collect();
        if registrations.is_empty() {
            return;
        }
        let (skills, problems) = Embedded::of(registrations);
        let problems = problems.into_iter().map(RegistryProblem::EmbeddedSkill);
        self.problems.extend(problems);
        self.add_skills(skills);
    }

    /// Adds `skills`, each refused when another is at its path.
    pub(super) fn add_skills(&mut self, skills: impl IntoIterator<Item = Skill>) {
        for skill in skills {
            if let Err(duplicate) = self.skills.add(skill) {
                self.problems
                    .push(RegistryProblem::DuplicateSkill(duplicate));
            }
        }
    }
}

impl Registry {
    /// Serves the skills of the folder `dir`, as [`RegistryBuilder::skills_dir`] does; on
    /// any problem, nothing is added and every problem is returned.
    pub fn serve_skills_dir(&mut self, dir: impl AsRef<Path>) -> Result<(), RegistryError> {
        let mut builder = RegistryBuilder::default();
        builder.skills = self.skills.clone();
        builder = builder.skills_dir(dir);
        RegistryError::of(std::mem::take(&mut builder.problems))?;
        self.skills = builder.skills;
        self.versions.resources += 1;
        Ok(())
    }

    /// The skills it serves, and whether it serves skills at all.
    pub fn skills(&self) -> &Skills {
        &self.skills
    }

    /// Serves `skills` in place of those `source` served before: a folder loaded again,
    /// a mounted server's listing. A skill at the path of another source's is left out,
    /// and reported to the log naming both. Whether anything changed; a change is a change
    /// of the resources (their list holds each skill's `SKILL.md`).
    pub fn replace_skills(&mut self, source: &Arc<dyn SkillSource>, skills: Vec<Skill>) -> bool {
        let (changed, refused) = self.skills.replace(source, skills);
        for duplicate in refused {
            tracing::warn!(%duplicate, "a skill is not served");
        }
        if changed {
            self.versions.resources += 1;
        }
        changed
    }
}

/// The read of a skill's file: its contents, or why not.
pub(super) type SkillRead =
    Pin<Box<dyn Future<Output = Result<Vec<ResourceContents>, ReadError>> + Send>>;

impl Registry {
    /// The read of the skill's file `uri` names, when it is a `skill://` URI and skills are
    /// served. A URI that names no served skill, or whose path is refused (it would leave
    /// the skill's folder), is not found, and nothing is read.
    pub(super) fn read_skill(&self, uri: &str) -> Option<SkillRead> {
        if !self.skills.serves() {
            return None;
        }
        let resolved = match self.skills.resolve(uri) {
            Ok(resolved) => resolved,
            Err(UriError::NotSkill(_)) => return None,
            Err(err) => {
                tracing::debug!(%err, "a skill's file is refused");
                let uri = uri.to_owned();
                return Some(Box::pin(async move { Err(ReadError::NotFound(uri)) }));
            }
        };
        let read = resolved.read(uri.to_owned());
        let uri = uri.to_owned();
        Some(Box::pin(async move {
            match read.await {
                Ok(contents) => Ok(vec![contents]),
                Err(SkillReadError::NotFound { .. }) => Err(ReadError::NotFound(uri)),
                Err(err @ SkillReadError::TooLarge { size, limit, .. }) => Err(ReadError::Failed(
                    ToolError::validation(err.to_string())
                        .with_details(serde_json::json!({ "size": size, "limit": limit })),
                )),
                Err(err @ SkillReadError::Outside { .. }) => {
                    Err(ReadError::Failed(ToolError::validation(err.to_string())))
                }
                Err(err) => Err(ReadError::Failed(ToolError::execution(err.to_string()))),
            }
        }))
    }
}
