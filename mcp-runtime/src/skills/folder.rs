//! Skills from a folder on disk: every folder under it that holds a `SKILL.md` (at any
//! depth; a skill's own subfolders are its files, not other skills), loaded with its
//! manifest, and its files read on demand.
//!
//! What a folder serves, and what it does not:
//! - Entries whose name begins with a dot (`.git`, `.DS_Store`) are not part of a skill.
//! - Symbolic links are not followed, wherever they point: they are left out of manifests,
//!   and a read whose path passes through one is refused ([`SkillReadError::Outside`]). A
//!   skill is its folder's own files; a link could point elsewhere between the listing and
//!   the read, and the manifest's digests would no longer describe what is served.
//! - A skill of more than [`MAX_RESOURCES_PER_SKILL`] files or [`MAX_TOTAL_SIZE`] bytes is
//!   not served, as the extension asks; it is reported as a problem.

use std::collections::hash_map::DefaultHasher;
use std::fs;
use std::hash::{Hash, Hasher};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use mcp_runtime_core::skill::{
    FrontMatterError, MAX_RESOURCES_PER_SKILL, MAX_TOTAL_SIZE, SKILL_FILE, front_matter,
};
use sha2::{Digest, Sha256};

use super::{
    FileEntry, FilePath, Manifest, ReadFuture, Skill, SkillBytes, SkillError, SkillReadError,
    SkillSource,
};

/// How deep under the served folder a skill may be.
const MAX_DEPTH: usize = 16;

/// A folder whose skills are served.
#[derive(Debug)]
pub struct Folder {
    /// The folder, canonical: what every path is checked against.
    root: PathBuf,
    /// The folder as it was given, for messages.
    shown: PathBuf,
}

/// Why a folder could not be served at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FolderError {
    /// It does not exist, or cannot be read.
    #[error("the skills folder `{path}` cannot be read: {reason}")]
    Unreadable {
        /// The folder.
        path: PathBuf,
        /// What the system said.
        reason: String,
    },
    /// It is not a folder.
    #[error("`{0}` is not a folder")]
    NotAFolder(PathBuf),
}

/// Why one skill of a folder is not served; the folder's other skills are.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SkillProblem {
    /// Its `SKILL.md` has no valid front matter.
    #[error("`{file}`: {source}")]
    FrontMatter {
        /// The `SKILL.md`.
        file: PathBuf,
        /// What is wrong with it.
        source: FrontMatterError,
    },
    /// Its folder's path breaks the naming rules, or is not its name.
    #[error("`{folder}`: {source}")]
    Skill {
        /// Its folder.
        folder: PathBuf,
        /// What is wrong.
        source: SkillError,
    },
    /// It has more files than a skill may.
    #[error(
        "`{folder}` has more than {MAX_RESOURCES_PER_SKILL} files, more than a skill may serve"
    )]
    TooManyFiles {
        /// Its folder.
        folder: PathBuf,
    },
    /// Its files are larger together than a skill may be.
    #[error("`{folder}` holds {total} bytes, more than the {MAX_TOTAL_SIZE} a skill may serve")]
    TooLarge {
        /// Its folder.
        folder: PathBuf,
        /// Its files' sizes together.
        total: u64,
    },
    /// A file or folder of it could not be read.
    #[error("`{path}` cannot be read: {reason}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the system said.
        reason: String,
    },
}

/// A folder's skills, and why others of it are not served.
#[derive(Debug, Default)]
pub struct Loaded {
    /// The skills, in path order.
    pub skills: Vec<Skill>,
    /// The folders holding a `SKILL.md` that are not served, and why.
    pub problems: Vec<SkillProblem>,
}

fn io_problem(path: &Path, err: &std::io::Error) -> SkillProblem {
    SkillProblem::Io {
        path: path.to_owned(),
        reason: err.to_string(),
    }
}

/// Whether an entry of a folder is left out: its name begins with a dot, or is not UTF-8.
fn hidden(name: &std::ffi::OsStr) -> bool {
    name.to_str().is_none_or(|name| name.starts_with('.'))
}

impl Folder {
    /// The folder at `path`, to be loaded ([`Folder::load`]).
    pub fn new(path: impl AsRef<Path>) -> Result<Arc<Self>, FolderError> {
        let shown = path.as_ref().to_owned();
        let root = fs::canonicalize(&shown).map_err(|err| FolderError::Unreadable {
            path: shown.clone(),
            reason: err.to_string(),
        })?;
        if !root.is_dir() {
            return Err(FolderError::NotAFolder(shown));
        }
        Ok(Arc::new(Self { root, shown }))
    }

    /// The folder as it was given.
    pub fn path(&self) -> &Path {
        &self.shown
    }

    /// Reads every skill under the folder now: each folder holding a `SKILL.md`, its front
    /// matter and its manifest (every file's digest and size).
    pub fn load(self: &Arc<Self>) -> Result<Loaded, FolderError> {
        let mut loaded = Loaded::default();
        let mut skill_dirs = Vec::new();
        self.find(&self.root, 0, &mut skill_dirs, &mut loaded.problems)
            .map_err(|err| FolderError::Unreadable {
                path: self.shown.clone(),
                reason: err.to_string(),
            })?;
        skill_dirs.sort();
        let source: Arc<dyn SkillSource> = self.clone();
        for relative in skill_dirs {
            match self.skill(&relative, &source) {
                Ok(skill) => loaded.skills.push(skill),
                Err(problem) => loaded.problems.push(problem),
            }
        }
        Ok(loaded)
    }

    /// Adds to `found` every folder under `dir` (its path under the root, `/`-separated)
    /// that holds a `SKILL.md`, without going into it.
    fn find(
        &self,
        dir: &Path,
        depth: usize,
        found: &mut Vec<String>,
        problems: &mut Vec<SkillProblem>,
    ) -> std::io::Result<()> {
        let skill_file = dir.join(SKILL_FILE);
        if dir != self.root && is_plain_file(&skill_file) {
            found.push(self.relative(dir));
            return Ok(());
        }
        if depth >= MAX_DEPTH {
            return Ok(());
        }
        for entry in fs::read_dir(dir)? {
            let entry = entry?;
            if hidden(&entry.file_name()) {
                continue;
            }
            let path = entry.path();
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => {
                    if let Err(err) = self.find(&path, depth + 1, found, problems) {
                        problems.push(io_problem(&path, &err));
                    }
                }
                Ok(_) => {}
                Err(err) => problems.push(io_problem(&path, &err)),
            }
        }
        Ok(())
    }

    /// `dir`'s path under the root, `/`-separated.
    fn relative(&self, dir: &Path) -> String {
        let relative = dir.strip_prefix(&self.root).unwrap_or(dir);
        let parts: Vec<String> = relative
            .components()
            .map(|part| part.as_os_str().to_string_lossy().into_owned())
            .collect();
        parts.join("/")
    }

    /// The skill in the folder at `relative`.
    fn skill(&self, relative: &str, source: &Arc<dyn SkillSource>) -> Result<Skill, SkillProblem> {
        let dir = self.root.join(relative);
        let shown = self.shown.join(relative);
        let skill_file = dir.join(SKILL_FILE);
        let text = fs::read_to_string(&skill_file).map_err(|err| io_problem(&skill_file, &err))?;
        let front = front_matter(&text).map_err(|source| SkillProblem::FrontMatter {
            file: shown.join(SKILL_FILE),
            source,
        })?;
        let mut files = Vec::new();
        collect(&dir, "", &mut files).map_err(|err| io_problem(&dir, &err))?;
        if files.len() > MAX_RESOURCES_PER_SKILL {
            return Err(SkillProblem::TooManyFiles { folder: shown });
        }
        let total: u64 = files.iter().map(|(_, size)| size).sum();
        if total > MAX_TOTAL_SIZE {
            return Err(SkillProblem::TooLarge {
                folder: shown,
                total,
            });
        }
        files.sort();
        let manifest = files
            .into_iter()
            .map(|(path, _)| entry(&dir, path))
            .collect::<Result<Vec<_>, _>>()?;
        let origin = format!("the folder `{}`", shown.display());
        Skill::new(
            relative,
            front,
            Manifest::Listed(manifest),
            origin,
            source.clone(),
        )
        .map_err(|source| SkillProblem::Skill {
            folder: shown,
            source,
        })
    }

    /// A number that changes when anything the folder serves does: every entry's path,
    /// kind, size and modification time (on Unix its inode and change time too, which
    /// setting the modification time back does not hide), hashed. A watcher compares it,
    /// and loads the folder again when it differs.
    pub fn fingerprint(&self) -> u64 {
        self.look_at(SystemTime::now()).fingerprint
    }

    /// The folder's fingerprint at `now`, and whether it has settled: whether its last
    /// change is at least [`SETTLE`] older than `now`.
    pub(crate) fn look_at(&self, now: SystemTime) -> Look {
        let mut hasher = DefaultHasher::new();
        let mut latest = UNIX_EPOCH;
        stamp(&self.root, 0, &mut hasher, &mut latest);
        Look {
            fingerprint: hasher.finish(),
            settled: latest + SETTLE <= now,
        }
    }

    /// Reads `path` of the skill at `skill`, at most `limit` bytes. What it opens is
    /// checked on disk, whatever the path's own checks let through: it must be inside the
    /// skill's folder, and be the file named, with no symbolic link on the way.
    fn read_now(
        &self,
        skill: &str,
        path: &FilePath,
        limit: u64,
    ) -> Result<SkillBytes, SkillReadError> {
        let named = || (skill.to_owned(), path.to_string());
        let not_found = || {
            let (skill, path) = named();
            SkillReadError::NotFound { skill, path }
        };
        let mut target = self.root.join(skill);
        for segment in path.segments() {
            target.push(segment);
        }
        let real = fs::canonicalize(&target).map_err(|_| not_found())?;
        let inside = real.starts_with(self.root.join(skill));
        if !inside || real != target {
            let (skill, path) = named();
            return Err(SkillReadError::Outside { skill, path });
        }
        let meta = fs::metadata(&real).map_err(|_| not_found())?;
        if !meta.is_file() {
            return Err(not_found());
        }
        if meta.len() > limit {
            let (skill, path) = named();
            return Err(SkillReadError::TooLarge {
                skill,
                path,
                size: meta.len(),
                limit,
            });
        }
        let failed = |err: std::io::Error| {
            let (skill, path) = named();
            SkillReadError::Failed {
                skill,
                path,
                reason: err.to_string(),
            }
        };
        let mut bytes = Vec::new();
        fs::File::open(&real)
            .and_then(|file| file.take(limit).read_to_end(&mut bytes))
            .map_err(failed)?;
        Ok(SkillBytes {
            bytes,
            mime_type: None,
        })
    }
}

impl SkillSource for Folder {
    fn describe(&self) -> String {
        format!("the folder `{}`", self.shown.display())
    }

    fn read(&self, skill: &str, path: &FilePath, limit: u64) -> ReadFuture {
        let folder = Folder {
            root: self.root.clone(),
            shown: self.shown.clone(),
        };
        let (skill, path) = (skill.to_owned(), path.clone());
        Box::pin(async move {
            let read = move || folder.read_now(&skill, &path, limit);
            tokio::task::spawn_blocking(read)
                .await
                .unwrap_or_else(|err| {
                    Err(SkillReadError::Failed {
                        skill: String::new(),
                        path: String::new(),
                        reason: err.to_string(),
                    })
                })
        })
    }
}

/// Whether `path` is a file itself, not a link to one.
fn is_plain_file(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|meta| meta.is_file())
}

/// Adds every file under `dir` to `files` (its path under the skill's folder and its
/// size), leaving out hidden entries and symbolic links; stops past the most files a
/// skill may have.
fn collect(dir: &Path, prefix: &str, files: &mut Vec<(String, u64)>) -> std::io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        if hidden(&name) || files.len() > MAX_RESOURCES_PER_SKILL {
            continue;
        }
        let name = name.to_string_lossy();
        let path = if prefix.is_empty() {
            name.into_owned()
        } else {
            format!("{prefix}/{name}")
        };
        let kind = entry.file_type()?;
        if kind.is_dir() {
            collect(&entry.path(), &path, files)?;
        } else if kind.is_file() {
            files.push((path, entry.metadata()?.len()));
        }
    }
    Ok(())
}

/// The manifest's entry of the file at `path` under `dir`: its digest, of the bytes read
/// now, and their size.
fn entry(dir: &Path, path: String) -> Result<FileEntry, SkillProblem> {
    let full = dir.join(&path);
    let bytes = fs::read(&full).map_err(|err| io_problem(&full, &err))?;
    Ok(FileEntry {
        digest: digest(&bytes),
        size: bytes.len() as u64,
        path,
    })
}

/// `sha256:` and the lower-case hex digest of `bytes`.
pub(crate) fn digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in hash {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

/// How long a file system's clock may stand still: an entry changed twice within that
/// time may keep the same timestamps (ext4 takes them from a clock of a few milliseconds,
/// FAT of two seconds). A folder whose last change is more recent than this may change
/// again unseen, so a watcher loads it again only once it is older.
pub(crate) const SETTLE: Duration = Duration::from_secs(2);

/// A look at a folder's entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Look {
    /// See [`Folder::fingerprint`].
    pub(crate) fingerprint: u64,
    /// Whether its entries' last change is at least [`SETTLE`] old.
    pub(crate) settled: bool,
}

/// Hashes every entry under `dir` into `hasher`: path, kind, size, modification time, and
/// on Unix inode and change time; `latest` becomes the latest of those times it saw.
fn stamp(dir: &Path, depth: usize, hasher: &mut DefaultHasher, latest: &mut SystemTime) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(fs::DirEntry::file_name);
    for entry in entries {
        let Ok(meta) = entry.path().symlink_metadata() else {
            continue;
        };
        entry.file_name().hash(hasher);
        meta.len().hash(hasher);
        meta.is_dir().hash(hasher);
        meta.file_type().is_symlink().hash(hasher);
        if let Ok(modified) = meta.modified() {
            let since = modified.duration_since(UNIX_EPOCH).unwrap_or_default();
            since.as_nanos().hash(hasher);
            *latest = (*latest).max(modified);
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt as _;
            meta.ino().hash(hasher);
            let (secs, nanos) = (meta.ctime(), meta.ctime_nsec());
            (secs, nanos).hash(hasher);
            if let (Ok(secs), Ok(nanos)) = (u64::try_from(secs), u32::try_from(nanos)) {
                *latest = (*latest).max(UNIX_EPOCH + Duration::new(secs, nanos));
            }
        }
        if meta.is_dir() && depth < MAX_DEPTH * 2 {
            stamp(&entry.path(), depth + 1, hasher, latest);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_settles_once_its_last_change_is_old_and_a_time_set_back_still_shows() {
        let root = std::env::temp_dir().join(format!("mcp-skills-look-{}", std::process::id()));
        fs::create_dir_all(root.join("a")).unwrap();
        let file = root.join("a/SKILL.md");
        fs::write(&file, "one").unwrap();
        let folder = Folder::new(&root).unwrap();
        let now = SystemTime::now();
        let fresh = folder.look_at(now);
        assert!(!fresh.settled, "just written");
        let later = folder.look_at(now + SETTLE + Duration::from_millis(50));
        assert!(later.settled);
        assert_eq!(later.fingerprint, fresh.fingerprint);

        // The same size, and the modification time set back as it was: the change time
        // still shows the edit.
        let modified = fs::metadata(&file).unwrap().modified().unwrap();
        std::thread::sleep(Duration::from_millis(20));
        fs::write(&file, "two").unwrap();
        fs::File::options()
            .write(true)
            .open(&file)
            .unwrap()
            .set_modified(modified)
            .unwrap();
        assert_eq!(fs::metadata(&file).unwrap().modified().unwrap(), modified);
        assert_ne!(folder.fingerprint(), fresh.fingerprint);
        fs::remove_dir_all(&root).unwrap();
    }
}
