//! Walks the folder: every folder holding a `SKILL.md` (the folder itself, or any folder
//! under it, at any depth) is a skill, and every file under a skill's folder is one of its
//! files. Files outside every skill (a `README.md` beside the skills) are not embedded.
//!
//! Symbolic links are followed when their target stays inside the skill's folder (outside
//! every skill, inside the macro's folder); one that leads out, or back to a folder that
//! holds it, is refused. Entries are read in name order, so the walk is the same on every
//! machine.

use std::fs;
use std::path::{Path, PathBuf};

use mcp_runtime_core::skill::SKILL_FILE;

use super::error::SkillsError;

/// A skill found in the folder, not yet checked.
pub(crate) struct Found {
    /// Its folder, `/`-separated, relative to the macro's folder ("" for that folder).
    pub(crate) folder: String,
    /// Its files, in the order they were found.
    pub(crate) files: Vec<FoundFile>,
}

/// A file of a skill.
pub(crate) struct FoundFile {
    /// `/`-separated, relative to the skill's folder.
    pub(crate) path: String,
    /// Where it is on disk, as reached (through any link).
    pub(crate) absolute: PathBuf,
    /// Its size in bytes.
    pub(crate) size: u64,
}

/// A folder being walked: where it is on disk, its canonical path, and its path relative
/// to the macro's folder and to the skill it is in.
struct Place {
    absolute: PathBuf,
    canonical: PathBuf,
    in_root: String,
    in_skill: String,
}

/// The skill a folder is in: its index in the walk's list, and its canonical folder.
#[derive(Clone)]
struct InSkill {
    index: usize,
    canonical: PathBuf,
}

/// The walk: what it found, and how to name a path in a message.
struct Walk<'a> {
    shown_root: &'a str,
    root_canonical: PathBuf,
    found: Vec<Found>,
    /// The canonical folders from the macro's folder down to the one being read.
    ancestors: Vec<PathBuf>,
}

/// Every skill under `root`, which the macro's argument spells `shown_root`.
pub(crate) fn walk(root: &Path, shown_root: &str) -> Result<Vec<Found>, SkillsError> {
    let metadata = fs::metadata(root).map_err(|source| SkillsError::NoFolder {
        shown: shown_root.to_owned(),
        source,
    })?;
    if !metadata.is_dir() {
        return Err(SkillsError::NotAFolder(shown_root.to_owned()));
    }
    let canonical = fs::canonicalize(root).map_err(|source| SkillsError::Io {
        shown: shown_root.to_owned(),
        source,
    })?;
    let mut walk = Walk {
        shown_root,
        root_canonical: canonical.clone(),
        found: Vec::new(),
        ancestors: Vec::new(),
    };
    let place = Place {
        absolute: root.to_path_buf(),
        canonical,
        in_root: String::new(),
        in_skill: String::new(),
    };
    walk.folder(&place, None)?;
    Ok(walk.found)
}

/// `parent/name`, or `name` at the top.
pub(crate) fn join(parent: &str, name: &str) -> String {
    if parent.is_empty() {
        name.to_owned()
    } else {
        format!("{parent}/{name}")
    }
}

impl Walk<'_> {
    /// A path relative to the macro's folder, as the argument spells it.
    fn shown(&self, in_root: &str) -> String {
        let root = self.shown_root.trim_end_matches('/');
        if in_root.is_empty() {
            self.shown_root.to_owned()
        } else if root.is_empty() {
            in_root.to_owned()
        } else {
            format!("{root}/{in_root}")
        }
    }

    /// Reads one folder: whether it begins a skill, then each entry in name order.
    fn folder(&mut self, place: &Place, skill: Option<InSkill>) -> Result<(), SkillsError> {
        let names = self.entries(place)?;
        let begins = self.holds_skill_file(place);
        let skill = match (skill, begins) {
            (Some(outer), true) => {
                return Err(SkillsError::Nested {
                    inner: self.shown(&join(&place.in_root, SKILL_FILE)),
                    outer: self.shown(&self.found[outer.index].folder),
                });
            }
            (None, true) => {
                self.found.push(Found {
                    folder: place.in_root.clone(),
                    files: Vec::new(),
                });
                Some(InSkill {
                    index: self.found.len() - 1,
                    canonical: place.canonical.clone(),
                })
            }
            (skill, false) => skill,
        };
        // Paths in a skill begin at its folder.
        let in_skill = if begins { "" } else { place.in_skill.as_str() };
        self.ancestors.push(place.canonical.clone());
        for name in names {
            let child = Place {
                absolute: place.absolute.join(&name),
                canonical: place.canonical.join(&name),
                in_root: join(&place.in_root, &name),
                in_skill: join(in_skill, &name),
            };
            self.entry(child, skill.clone())?;
        }
        self.ancestors.pop();
        Ok(())
    }

    /// The names in a folder, sorted, each checked to be UTF-8.
    fn entries(&self, place: &Place) -> Result<Vec<String>, SkillsError> {
        let io = |source| SkillsError::Io {
            shown: self.shown(&place.in_root),
            source,
        };
        let mut names = Vec::new();
        for entry in fs::read_dir(&place.absolute).map_err(io)? {
            let name = entry.map_err(io)?.file_name();
            match name.into_string() {
                Ok(name) => names.push(name),
                Err(name) => {
                    let lossy = name.to_string_lossy().into_owned();
                    return Err(SkillsError::NotUtf8Name(
                        self.shown(&join(&place.in_root, &lossy)),
                    ));
                }
            }
        }
        names.sort_unstable();
        Ok(names)
    }

    fn holds_skill_file(&self, place: &Place) -> bool {
        fs::metadata(place.absolute.join(SKILL_FILE)).is_ok_and(|metadata| metadata.is_file())
    }

    /// One entry of a folder: a link checked and followed, a folder walked, a file kept
    /// when it is in a skill.
    fn entry(&mut self, mut place: Place, skill: Option<InSkill>) -> Result<(), SkillsError> {
        let shown = self.shown(&place.in_root);
        let io = |source| SkillsError::Io {
            shown: shown.clone(),
            source,
        };
        let link = fs::symlink_metadata(&place.absolute).map_err(io)?;
        if link.file_type().is_symlink() {
            place.canonical = fs::canonicalize(&place.absolute).map_err(io)?;
            let bound = skill
                .as_ref()
                .map_or(&self.root_canonical, |skill| &skill.canonical);
            if !place.canonical.starts_with(bound) {
                let bound = match &skill {
                    Some(skill) => self.shown(&self.found[skill.index].folder),
                    None => self.shown_root.to_owned(),
                };
                return Err(SkillsError::LinkOut { shown, bound });
            }
        }
        let metadata = fs::metadata(&place.absolute).map_err(io)?;
        if metadata.is_dir() {
            if self.ancestors.contains(&place.canonical) {
                return Err(SkillsError::LinkLoop(shown));
            }
            self.folder(&place, skill)
        } else if metadata.is_file() {
            if let Some(skill) = skill {
                self.found[skill.index].files.push(FoundFile {
                    path: place.in_skill,
                    absolute: place.absolute,
                    size: metadata.len(),
                });
            }
            Ok(())
        } else {
            Err(SkillsError::Special(shown))
        }
    }
}
