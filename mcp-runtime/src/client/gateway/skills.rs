//! A mounted server's skills, passed on under the mount's name.
//!
//! A skill the server behind serves at `skill://PATH/SKILL.md` is served by the gateway at
//! `skill://MOUNT/PATH/SKILL.md`: the mount's name becomes the first segment of the skill's
//! path, as it does for the server's other resources (`docs://MOUNT/...`). The skill's name
//! stays what its front matter says, and is still the last segment of its path; the mount's
//! name must keep the same naming rules as a skill's (lower-case letters, digits, single
//! hyphens), or the server's skills are not passed on. Only `skill://` skills are passed on.
//!
//! Mounting lists the skills and reads nothing else. A read of a mounted skill's file is a
//! `resources/read` of the server behind, and what it answers is checked against the entry
//! it listed, as a host checks it ([`Skills`](crate::client::Skills)): its size, then its
//! digest. A file that fails is not passed on: the gateway's client gets an error, never
//! the content. A skill listed as `"dynamic"` is passed on as one, its files unverified.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use mcp_runtime_core::skill::{
    FrontMatter, FrontMatterError, SCHEME, SKILL_FILE, SkillEntry, SkillResources,
};

use super::{Mounted, Upstream};
use crate::client::SkillError as ReadError;
use crate::registry::Registry;
use crate::skills::{
    FileEntry, FilePath, Manifest, ReadFuture, Skill, SkillBytes, SkillReadError, SkillSource,
    encode_path,
};

/// How the source of the skills mounted under `prefix` describes itself; a remount finds
/// the skills it serves by it.
fn described(prefix: &str) -> String {
    format!("the server mounted as `{prefix}`")
}

/// One mounted skill, as the server behind serves it.
#[derive(Debug, Clone)]
struct Held {
    /// Its folder there: its `SKILL.md` URI without `/SKILL.md`.
    root: String,
    /// The entry it listed.
    entry: SkillEntry,
}

/// The skills of one mounted server: each read is a `resources/read` of it, checked
/// against the entry it listed.
pub(super) struct Remote {
    prefix: String,
    upstream: Arc<Upstream>,
    /// By the skill's path as the gateway serves it.
    skills: HashMap<String, Held>,
}

impl fmt::Debug for Remote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Remote")
            .field("prefix", &self.prefix)
            .field("skills", &self.skills.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl SkillSource for Remote {
    fn describe(&self) -> String {
        described(&self.prefix)
    }

    fn read(&self, skill: &str, path: &FilePath, limit: u64) -> ReadFuture {
        let held = self.skills.get(skill).cloned();
        let upstream = Arc::clone(&self.upstream);
        let (skill, path) = (skill.to_owned(), path.clone());
        Box::pin(async move {
            let not_found = || SkillReadError::NotFound {
                skill: skill.clone(),
                path: path.to_string(),
            };
            let held = held.ok_or_else(not_found)?;
            let (uri, expected) = match &held.entry.resources {
                SkillResources::Listed(files) => {
                    let file = files
                        .iter()
                        .find(|file| within(&held.root, &file.uri).as_ref() == Some(&path))
                        .ok_or_else(not_found)?;
                    if file.size > limit {
                        return Err(SkillReadError::TooLarge {
                            skill,
                            path: path.to_string(),
                            size: file.size,
                            limit,
                        });
                    }
                    (file.uri.clone(), Some(file.clone()))
                }
                SkillResources::Dynamic(_) => (
                    format!("{}/{}", held.root, encode_path(&path.to_string())),
                    None,
                ),
            };
            let failed = |err: &dyn fmt::Display| SkillReadError::Failed {
                skill: skill.clone(),
                path: path.to_string(),
                reason: err.to_string(),
            };
            let client = upstream.client().await.map_err(|err| failed(&err))?;
            let file = client
                .skills()
                .fetch(&uri, expected.as_ref(), limit)
                .await
                .map_err(|err| match err {
                    ReadError::Verification { .. } => failed(&format_args!(
                        "the server behind this one served it unlike its entry: {err}"
                    )),
                    other => failed(&other),
                })?;
            Ok(SkillBytes {
                bytes: file.bytes,
                mime_type: file.mime_type,
            })
        })
    }
}

/// The path within the skill at `root` of the file at `uri`, decoded; `None` for a URI
/// outside it, or a path that leaves it.
fn within(root: &str, uri: &str) -> Option<FilePath> {
    let rest = uri.strip_prefix(root)?.strip_prefix('/')?;
    FilePath::parse(rest).ok().filter(|path| !path.is_root())
}

/// Why a listed skill is not passed on.
#[derive(Debug, thiserror::Error)]
enum Unpassable {
    #[error("only `{SCHEME}://` skills are passed on")]
    Scheme,
    #[error("its URI does not end in `/{SKILL_FILE}`")]
    NotSkillFile,
    #[error("its front matter: {0}")]
    FrontMatter(FrontMatterError),
    #[error("it lists `{0}`, which is not a file within it")]
    Outside(String),
    #[error(transparent)]
    Skill(crate::skills::SkillError),
}

/// The skill `entry` describes, as served under `prefix`: its path here, what the server
/// behind holds of it, and the front matter and manifest it is served with.
fn passed_on(
    prefix: &str,
    entry: &SkillEntry,
) -> Result<(String, Held, FrontMatter, Manifest), Unpassable> {
    let rest = entry
        .uri
        .strip_prefix(SCHEME)
        .and_then(|rest| rest.strip_prefix("://"))
        .ok_or(Unpassable::Scheme)?;
    let path = rest
        .strip_suffix(SKILL_FILE)
        .and_then(|path| path.strip_suffix('/'))
        .ok_or(Unpassable::NotSkillFile)?;
    let root = format!("{SCHEME}://{path}");
    let front_matter =
        FrontMatter::from_fields(entry.frontmatter.clone()).map_err(Unpassable::FrontMatter)?;
    let manifest = match &entry.resources {
        SkillResources::Dynamic(_) => Manifest::Dynamic,
        SkillResources::Listed(files) => Manifest::Listed(
            files
                .iter()
                .map(|file| {
                    let path = within(&root, &file.uri)
                        .ok_or_else(|| Unpassable::Outside(file.uri.clone()))?;
                    Ok(FileEntry {
                        path: path.to_string(),
                        digest: file.digest.clone(),
                        size: file.size,
                    })
                })
                .collect::<Result<_, Unpassable>>()?,
        ),
    };
    let held = Held {
        root,
        entry: entry.clone(),
    };
    Ok((format!("{prefix}/{path}"), held, front_matter, manifest))
}

/// Serves the skills `entries` describe under `prefix`, in place of those mounted there
/// before; each that cannot be passed on is reported in `mounted.skipped`, and each served
/// in `mounted.skills` (its `SKILL.md` URI here).
pub(super) fn mount_skills(
    registry: &mut Registry,
    prefix: &str,
    upstream: &Arc<Upstream>,
    entries: &[SkillEntry],
    mounted: &mut Mounted,
) {
    let mut held = HashMap::new();
    let mut parts = Vec::new();
    for entry in entries {
        match passed_on(prefix, entry) {
            Ok((path, skill, front_matter, manifest)) => {
                held.insert(path.clone(), skill);
                parts.push((path, front_matter, manifest));
            }
            Err(reason) => mounted
                .skipped
                .push((entry.uri.clone(), reason.to_string())),
        }
    }
    let source: Arc<dyn SkillSource> = Arc::new(Remote {
        prefix: prefix.to_owned(),
        upstream: Arc::clone(upstream),
        skills: held,
    });
    let mut skills = Vec::new();
    for (path, front_matter, manifest) in parts {
        let uri = format!("{SCHEME}://{path}/{SKILL_FILE}");
        match Skill::new(
            path,
            front_matter,
            manifest,
            described(prefix),
            Arc::clone(&source),
        ) {
            Ok(skill) => skills.push(skill),
            Err(err) => mounted
                .skipped
                .push((uri, Unpassable::Skill(err).to_string())),
        }
    }
    let paths: Vec<String> = skills.iter().map(|skill| skill.path().to_owned()).collect();
    // Those mounted before, from the source that served them: replaced, not doubled.
    let before = registry
        .skills()
        .iter()
        .map(|skill| skill.source())
        .find(|before| before.describe() == described(prefix))
        .cloned();
    registry.replace_skills(before.as_ref().unwrap_or(&source), skills);
    for path in paths {
        let uri = format!("{SCHEME}://{path}/{SKILL_FILE}");
        let served = registry
            .skills()
            .get(&path)
            .is_some_and(|skill| Arc::ptr_eq(skill.source(), &source));
        if served {
            mounted.skills.push(uri);
        } else {
            mounted
                .skipped
                .push((uri, "another skill is served at its path".to_owned()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_mounted_skill_is_under_the_mounts_name_and_keeps_its_own() {
        let entry: SkillEntry = serde_json::from_value(json!({
            "uri": "skill://acme/pdf-processing/SKILL.md",
            "frontmatter": { "name": "pdf-processing", "description": "PDFs" },
            "resources": [
                { "uri": "skill://acme/pdf-processing/SKILL.md", "digest": "sha256:00", "size": 1 },
                { "uri": "skill://acme/pdf-processing/my%20forms/a.md", "digest": "sha256:00", "size": 2 }
            ],
        }))
        .unwrap();
        let (path, held, front_matter, manifest) = passed_on("far", &entry).unwrap();
        assert_eq!(path, "far/acme/pdf-processing");
        assert_eq!(held.root, "skill://acme/pdf-processing");
        assert_eq!(front_matter.name(), "pdf-processing");
        let Manifest::Listed(files) = manifest else {
            panic!("listed")
        };
        assert_eq!(files[1].path, "my forms/a.md");
        let mut outside = entry.clone();
        if let SkillResources::Listed(files) = &mut outside.resources {
            files[1].uri = "skill://acme/other/a.md".to_owned();
        }
        assert!(matches!(
            passed_on("far", &outside),
            Err(Unpassable::Outside(_))
        ));
        let mut other_scheme = entry;
        other_scheme.uri = "github://o/r/pdf-processing/SKILL.md".to_owned();
        assert!(matches!(
            passed_on("far", &other_scheme),
            Err(Unpassable::Scheme)
        ));
    }
}
