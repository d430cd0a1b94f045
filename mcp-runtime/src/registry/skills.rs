//! The skills a registry serves (the skills extension): embedded ones, from `inventory`;
//! the skills of folders; a mounted server's. Each at its own skill path: two at one are
//! refused, naming where each is from.

use std::path::Path;

use super::*;
use crate::registration::SkillRegistration;
use crate::skills::{Embedded, Folder, Skill, SkillSource, Skills};

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
