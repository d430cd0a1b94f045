//! Skills as a server serves them (MCP's skills extension, `io.modelcontextprotocol/skills`):
//! each [`Skill`] is a `SKILL.md` with its front matter and the manifest of its files, and
//! comes from a [`SkillSource`], which reads those files when a client asks.
//!
//! Three kinds of source serve skills, and the server tells them apart only through the
//! trait:
//! - a folder on disk ([`Folder`]): every folder under it that holds a `SKILL.md`, read
//!   again when it changes ([`watch`]);
//! - the skills a program embeds at compile time (`mcp_runtime::skills!`), registered with
//!   `inventory` like tools ([`Embedded`]);
//! - another server's skills, passed on by a gateway that mounts it: a source whose reads
//!   are `resources/read` requests to that server, with the entries it listed (whose
//!   manifest may be [`Manifest::Dynamic`]).
//!
//! A file is named by a `skill://SKILL-PATH/FILE-PATH` URI ([`Skills::resolve`]). The
//! skill path is the skill's folder under the served one (`pdf-processing`, or
//! `team/pdf-processing` when nested); its last segment is the skill's name. The file path
//! is read by [`FilePath::parse`], which refuses whatever could leave the skill's folder
//! before any source sees it: `..` and `.` segments, an empty segment (an absolute path),
//! a backslash, a NUL, and any of these percent-encoded (`%2e%2e`, `%2F`).

mod embedded;
mod folder;
mod mime;
mod path;
pub mod watch;

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use mcp_runtime_core::skill::{
    FrontMatter, SKILL_FILE, SkillEntry, SkillResource, SkillResources, uri,
};

pub use embedded::{EmbedProblem, EmbedReason, Embedded};
pub use folder::{Folder, FolderError, Loaded, SkillProblem};
pub use path::{FilePath, PathError, encode_path};

/// The most bytes one file of a skill may have to be read through `resources/read`: a
/// larger file is listed in its skill's manifest (its digest and size) but never inlined.
pub const MAX_INLINE_BYTES: u64 = 1024 * 1024;

/// What a source read of a skill's file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillBytes {
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// Its MIME type, where the source knows it; otherwise it is told from the file's
    /// name.
    pub mime_type: Option<String>,
}

/// Why a file of a skill could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SkillReadError {
    /// The skill has no such file.
    #[error("skill `{skill}` has no file `{path}`")]
    NotFound {
        /// The skill's path.
        skill: String,
        /// The file's path within it.
        path: String,
    },
    /// The path leads out of the skill's folder (a symbolic link), and was not read.
    #[error("`{path}` of skill `{skill}` leads out of the skill's folder, and is not served")]
    Outside {
        /// The skill's path.
        skill: String,
        /// The file's path within it.
        path: String,
    },
    /// The file is larger than a read inlines ([`MAX_INLINE_BYTES`]).
    #[error(
        "`{path}` of skill `{skill}` is {size} bytes, more than the {limit} a read returns; its digest and size are in the skill's manifest"
    )]
    TooLarge {
        /// The skill's path.
        skill: String,
        /// The file's path within it.
        path: String,
        /// Its size in bytes.
        size: u64,
        /// The most a read returns.
        limit: u64,
    },
    /// The source could not read it (the disk, or the server that holds it).
    #[error("`{path}` of skill `{skill}` could not be read: {reason}")]
    Failed {
        /// The skill's path.
        skill: String,
        /// The file's path within it.
        path: String,
        /// What went wrong.
        reason: String,
    },
}

/// The future of a read: the file's bytes, or why not.
pub type ReadFuture = Pin<Box<dyn Future<Output = Result<SkillBytes, SkillReadError>> + Send>>;

/// Where skills come from, and what reads their files: a folder ([`Folder`]), the
/// program's embedded skills ([`Embedded`]), or a remote server a gateway mounts.
///
/// The server lists a source's skills from the [`Skill`]s it was given (their front
/// matter and manifests, made with [`Skill::new`]) and asks the source for a file's bytes
/// only when a client reads it. The path it is handed was checked already
/// ([`FilePath::parse`]); a source that reaches files through a file system checks again
/// that what it opens is inside the skill's folder.
///
/// ```
/// use std::sync::Arc;
/// use mcp_runtime::skills::{FilePath, ReadFuture, SkillBytes, SkillReadError, SkillSource};
///
/// /// Skills whose files all say the same thing.
/// #[derive(Debug)]
/// struct Echo;
///
/// impl SkillSource for Echo {
///     fn describe(&self) -> String {
///         "the echo source".to_owned()
///     }
///
///     fn read(&self, skill: &str, path: &FilePath, _limit: u64) -> ReadFuture {
///         let text = format!("{skill}/{path}");
///         Box::pin(async move { Ok(SkillBytes { bytes: text.into_bytes(), mime_type: None }) })
///     }
/// }
/// let source: Arc<dyn SkillSource> = Arc::new(Echo);
/// assert_eq!(source.describe(), "the echo source");
/// ```
pub trait SkillSource: fmt::Debug + Send + Sync + 'static {
    /// Names the source in messages: "the folder `skills/`", "the server mounted as `docs`".
    fn describe(&self) -> String;

    /// Reads file `path` of the skill at `skill` (its skill path), refusing a file larger
    /// than `limit` bytes with [`SkillReadError::TooLarge`] (before reading it, where the
    /// source can tell its size).
    fn read(&self, skill: &str, path: &FilePath, limit: u64) -> ReadFuture;
}

/// One file of a skill, as its manifest lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEntry {
    /// Its path within the skill's folder, `/`-separated (`SKILL.md`, `references/FORMS.md`).
    pub path: String,
    /// `sha256:` and the hex digest of its bytes.
    pub digest: String,
    /// Its size in bytes.
    pub size: u64,
}

/// A skill's files: listed, or not known ahead (a remote server that answers
/// `"dynamic"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Manifest {
    /// Every file, `SKILL.md` among them, in path order.
    Listed(Vec<FileEntry>),
    /// Not listed ahead.
    Dynamic,
}

/// One skill as a server serves it: where it is ([`Skill::path`]), its `SKILL.md`'s front
/// matter, its manifest, and the source that reads its files.
#[derive(Clone)]
pub struct Skill {
    path: String,
    front_matter: FrontMatter,
    manifest: Manifest,
    origin: String,
    source: Arc<dyn SkillSource>,
}

impl fmt::Debug for Skill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Skill")
            .field("path", &self.path)
            .field("origin", &self.origin)
            .finish_non_exhaustive()
    }
}

impl PartialEq for Skill {
    /// The same skill, with the same files, from the same source.
    fn eq(&self, other: &Self) -> bool {
        self.path == other.path
            && self.front_matter == other.front_matter
            && self.manifest == other.manifest
            && Arc::ptr_eq(&self.source, &other.source)
    }
}

/// Why a [`Skill`] could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SkillError {
    /// A segment of the skill's path breaks the Agent Skills naming rules.
    #[error(
        "the skill path `{path}` has a segment `{segment}` that breaks the naming rules: {reason}"
    )]
    Path {
        /// The skill's path.
        path: String,
        /// The segment.
        segment: String,
        /// Which rule.
        reason: mcp_runtime_core::skill::NameError,
    },
    /// The last segment of the skill's path is not the name its front matter gives.
    #[error(
        "the skill at `{path}` is named `{name}` in its SKILL.md; its folder must have that name"
    )]
    NameMismatch {
        /// The skill's path.
        path: String,
        /// The name in its front matter.
        name: String,
    },
}

impl Skill {
    /// A skill at `path` (its folder's path under the served one, `/`-separated, its last
    /// segment the skill's name), with `front_matter` and `manifest`, whose files `source`
    /// reads; `origin` names where it was defined, for messages ("the folder `skills/`",
    /// "src/lib.rs:3:1"). Refused when a segment of `path` breaks the naming rules or the
    /// last one is not the front matter's name.
    pub fn new(
        path: impl Into<String>,
        front_matter: FrontMatter,
        manifest: Manifest,
        origin: impl Into<String>,
        source: Arc<dyn SkillSource>,
    ) -> Result<Self, SkillError> {
        let path = path.into();
        for segment in path.split('/') {
            mcp_runtime_core::skill::check_name(segment).map_err(|reason| SkillError::Path {
                path: path.clone(),
                segment: segment.to_owned(),
                reason,
            })?;
        }
        if path.rsplit('/').next() != Some(front_matter.name()) {
            return Err(SkillError::NameMismatch {
                name: front_matter.name().to_owned(),
                path,
            });
        }
        Ok(Self {
            path,
            front_matter,
            manifest,
            origin: origin.into(),
            source,
        })
    }

    /// Its path: its folder's, under the served one.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Its name, the last segment of its path.
    pub fn name(&self) -> &str {
        self.front_matter.name()
    }

    /// Its `SKILL.md`'s front matter.
    pub fn front_matter(&self) -> &FrontMatter {
        &self.front_matter
    }

    /// Its files.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// Where it was defined, for messages.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// What reads its files.
    pub fn source(&self) -> &Arc<dyn SkillSource> {
        &self.source
    }

    /// The URI of its `SKILL.md`: `skill://PATH/SKILL.md`.
    pub fn uri(&self) -> String {
        uri(&self.path, SKILL_FILE)
    }

    /// The URI of its file at `path`, percent-encoded where the path needs it.
    pub fn file_uri(&self, path: &str) -> String {
        uri(&self.path, &encode_path(path))
    }

    /// The entry `skills/list` and `skills/get` give of it.
    pub fn entry(&self) -> SkillEntry {
        let resources = match &self.manifest {
            Manifest::Dynamic => SkillResources::Dynamic(mcp_runtime_core::skill::Dynamic::Dynamic),
            Manifest::Listed(files) => SkillResources::Listed(
                files
                    .iter()
                    .map(|file| SkillResource {
                        uri: self.file_uri(&file.path),
                        digest: file.digest.clone(),
                        size: file.size,
                    })
                    .collect(),
            ),
        };
        SkillEntry {
            uri: self.uri(),
            frontmatter: self.front_matter.fields().clone(),
            resources,
            meta: None,
        }
    }

    /// Its listed file at `path`, if the manifest lists one.
    pub fn file(&self, path: &str) -> Option<&FileEntry> {
        match &self.manifest {
            Manifest::Listed(files) => files.iter().find(|file| file.path == path),
            Manifest::Dynamic => None,
        }
    }

    /// The direct children of its folder at `dir` (`""` for its top), as the manifest lists
    /// them: each a file or a folder (`true`), by name, in order. `None` when no listed
    /// file is under `dir` (no such folder), or the manifest is dynamic.
    pub fn children(&self, dir: &str) -> Option<Vec<(String, bool)>> {
        let Manifest::Listed(files) = &self.manifest else {
            return None;
        };
        let mut children: BTreeMap<String, bool> = BTreeMap::new();
        let mut found = false;
        for file in files {
            let rest = if dir.is_empty() {
                Some(file.path.as_str())
            } else {
                file.path
                    .strip_prefix(dir)
                    .and_then(|rest| rest.strip_prefix('/'))
            };
            let Some(rest) = rest else { continue };
            found = true;
            match rest.split_once('/') {
                Some((folder, _)) => children.insert(folder.to_owned(), true),
                None => children.insert(rest.to_owned(), false),
            };
        }
        found.then(|| children.into_iter().collect())
    }
}

/// What a `skill://` URI names, once resolved: a skill, and a path within it (empty for
/// the skill's folder itself).
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The skill.
    pub skill: Arc<Skill>,
    /// The path within its folder; empty for the folder itself.
    pub path: FilePath,
}

/// Why a URI names no file of a served skill.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UriError {
    /// Not a `skill://` URI.
    #[error("`{0}` is not a `skill://` URI")]
    NotSkill(String),
    /// No served skill's path begins the URI.
    #[error("no skill is served at `{0}`")]
    UnknownSkill(String),
    /// The path within the skill is refused.
    #[error("`{uri}`: {reason}")]
    Path {
        /// The URI.
        uri: String,
        /// Why its path is refused.
        reason: PathError,
    },
}

/// The skills a registry serves, by path, and whether it serves skills at all (a folder
/// with none yet still declares the extension).
#[derive(Debug, Clone, Default)]
pub struct Skills {
    by_path: BTreeMap<String, Arc<Skill>>,
    folders: Vec<Arc<Folder>>,
}

/// Two skills at one path, from two places.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "two skills are at `{path}`: one from {first}, one from {second}; rename one of their folders"
)]
pub struct DuplicateSkill {
    /// The skill path both have.
    pub path: String,
    /// Where the one already served is from.
    pub first: String,
    /// Where the other is from.
    pub second: String,
}

impl Skills {
    /// Whether skills are served: some skill, or a folder watched for them.
    pub fn serves(&self) -> bool {
        !self.by_path.is_empty() || !self.folders.is_empty()
    }

    /// Every skill, in path order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<Skill>> {
        self.by_path.values()
    }

    /// How many skills.
    pub fn len(&self) -> usize {
        self.by_path.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.by_path.is_empty()
    }

    /// The skill at `path`.
    pub fn get(&self, path: &str) -> Option<&Arc<Skill>> {
        self.by_path.get(path)
    }

    /// The folders served, each watched for changes by a server that watches them.
    pub fn folders(&self) -> &[Arc<Folder>] {
        &self.folders
    }

    /// Adds `skill`; refused when another is at its path.
    pub fn add(&mut self, skill: Skill) -> Result<(), DuplicateSkill> {
        if let Some(first) = self.by_path.get(skill.path()) {
            return Err(DuplicateSkill {
                path: skill.path.clone(),
                first: first.origin.clone(),
                second: skill.origin,
            });
        }
        self.by_path.insert(skill.path.clone(), Arc::new(skill));
        Ok(())
    }

    /// Serves `folder`, whose skills are added with [`Skills::add`].
    pub fn add_folder(&mut self, folder: Arc<Folder>) {
        self.folders.push(folder);
    }

    /// Serves `skills` in place of those `source` served before. A skill at the path of
    /// another source's is left out and returned; whether anything changed comes first.
    pub fn replace(
        &mut self,
        source: &Arc<dyn SkillSource>,
        skills: Vec<Skill>,
    ) -> (bool, Vec<DuplicateSkill>) {
        let before = self.by_path.clone();
        self.by_path
            .retain(|_, skill| !Arc::ptr_eq(skill.source(), source));
        let refused = skills
            .into_iter()
            .filter_map(|skill| self.add(skill).err())
            .collect();
        let changed = before.len() != self.by_path.len()
            || before
                .iter()
                .zip(&self.by_path)
                .any(|((_, a), (_, b))| a != b);
        (changed, refused)
    }

    /// The skill and the path within it that `uri` names: the longest served skill path
    /// that begins it, then the rest, checked by [`FilePath::parse`].
    pub fn resolve(&self, uri: &str) -> Result<Resolved, UriError> {
        let prefix = format!("{}://", mcp_runtime_core::skill::SCHEME);
        let Some(rest) = uri.strip_prefix(&prefix) else {
            return Err(UriError::NotSkill(uri.to_owned()));
        };
        let mut at = rest.len();
        loop {
            let candidate = &rest[..at];
            if let Some(skill) = self.by_path.get(candidate) {
                let tail = rest[at..].strip_prefix('/').unwrap_or("");
                let path = FilePath::parse(tail).map_err(|reason| UriError::Path {
                    uri: uri.to_owned(),
                    reason,
                })?;
                return Ok(Resolved {
                    skill: skill.clone(),
                    path,
                });
            }
            match candidate.rfind('/') {
                Some(slash) => at = slash,
                None => return Err(UriError::UnknownSkill(uri.to_owned())),
            }
        }
    }
}

impl Resolved {
    /// Reads the file it names, as `resources/read` answers: text where the file is (its
    /// MIME type a text one and its bytes UTF-8), base64 bytes otherwise, under `uri`; at
    /// most [`MAX_INLINE_BYTES`].
    pub fn read(
        &self,
        uri: String,
    ) -> impl Future<Output = Result<mcp_runtime_core::ResourceContents, SkillReadError>> + Send + 'static
    {
        let read = self
            .skill
            .source()
            .read(self.skill.path(), &self.path, MAX_INLINE_BYTES);
        let path = self.path.to_string();
        async move {
            use base64::Engine as _;
            let SkillBytes { bytes, mime_type } = read.await?;
            let mime_type = mime_type.unwrap_or_else(|| mime::of(&path, Some(&bytes)));
            let mut contents = if mime::is_text(&mime_type, &bytes) {
                let text = String::from_utf8(bytes).unwrap_or_default();
                mcp_runtime_core::ResourceContents::text(uri, text)
            } else {
                let blob = base64::engine::general_purpose::STANDARD.encode(&bytes);
                mcp_runtime_core::ResourceContents::blob(uri, blob)
            };
            contents.mime_type = Some(mime_type);
            Ok(contents)
        }
    }
}
