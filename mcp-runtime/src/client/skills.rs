//! A server's skills (the skills extension, SEP-2640, `io.modelcontextprotocol/skills`), on
//! the client's side: listed, loaded and read as a host does, every file verified against
//! the skill's entry before it is handed over.
//!
//! [`Client::skills`] lists the skills a server serves (`skills/list`, every page) and gets
//! one by its `SKILL.md` URI (`skills/get`). Listing reads nothing else: no file of a skill
//! is retrieved before the caller loads that skill ([`Skills::load`] reads its `SKILL.md`)
//! or reads one of its files ([`Skills::read`]).
//!
//! What is verified, against the entry the skill was loaded from (the *held* entry):
//!
//! - **Size**: a file's byte length must be the entry's `size`. It is measured as soon as
//!   the answer is parsed, before anything is decoded or hashed, so a file longer than its
//!   entry says is refused without more work (the answer itself is bounded by the
//!   transport's [`MAX_MESSAGE_BYTES`](super::MAX_MESSAGE_BYTES)).
//! - **Digest**: its SHA-256 must be the entry's `digest` (`sha256:` and 64 hex digits).
//! - **Front matter**: `SKILL.md`'s front matter, parsed, must equal the entry's
//!   `frontmatter` field by field (numbers compared by value: `1` and `1.0` are one number).
//! - **Listed**: only files the entry lists are read; asking for another is refused without
//!   a request, as a file that fails verification.
//! - **Limits**: an entry that lists more than [`MAX_RESOURCES_PER_SKILL`] files, or more
//!   than [`MAX_TOTAL_SIZE`] bytes, is not loaded; nor is one whose URI's last segment is not
//!   its name, or whose files are not all within the skill.
//!
//! A file that fails is a [`SkillError::Verification`] naming its URI and what failed (the
//! entry's value and the one read); its content is dropped, never returned.
//!
//! A skill whose entry says `"resources": "dynamic"` has no manifest: its files carry no
//! digest or size to check, and are returned marked unverified ([`SkillFile::verified`]).
//! Its `SKILL.md`'s front matter is still compared with the entry's, its files are still
//! read only within the skill's folder (no `.` or `..` segment), and what is read of it
//! counts against [`MAX_TOTAL_SIZE`]: past it, reads are refused.
//!
//! ```no_run
//! # async fn run(client: &mcp_runtime::client::Client) -> Result<(), mcp_runtime::client::SkillError> {
//! let skills = client.skills();
//! for entry in skills.list().await? {
//!     println!("{}: {}", entry.uri, entry.frontmatter["description"]);
//! }
//! let entry = skills.get("skill://pdf-processing/SKILL.md").await?;
//! let skill = skills.load(entry).await?; // SKILL.md, verified
//! println!("{}", skill.instructions().text().unwrap_or_default());
//! let forms = skills.read(&skill, "references/FORMS.md").await?; // verified too
//! # Ok(()) }
//! ```

use std::sync::atomic::{AtomicU64, Ordering};

use base64::Engine as _;
use mcp_runtime_core::skill::{
    EXTENSION, FrontMatterError, MAX_RESOURCES_PER_SKILL, MAX_TOTAL_SIZE, NameError, SKILL_FILE,
    SkillEntry, SkillResource, SkillResources, check_name, front_matter,
};
use serde_json::{Map, Value, json};
use sha2::{Digest as _, Sha256};

use super::{Client, ClientError, RequestOptions};

/// The method that lists a server's skills.
const LIST: &str = "skills/list";

/// The method that gets one skill's entry.
const GET: &str = "skills/get";

/// A server that never stops paging is cut off here.
const MAX_PAGES: usize = 1_000;

/// Why a skill could not be listed, loaded or read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SkillError {
    /// The server does not declare the skills extension in its capabilities.
    #[error("the server does not declare the skills extension (`{EXTENSION}`)")]
    NotOffered,
    /// The request failed.
    #[error(transparent)]
    Client(#[from] ClientError),
    /// The skill's entry is not one that can be loaded.
    #[error("the skill `{uri}` is not loaded: {reason}")]
    Entry {
        /// The entry's `uri`.
        uri: String,
        /// What is wrong with it.
        reason: EntryError,
    },
    /// A file read did not match the skill's entry; its content was dropped.
    #[error("`{uri}` failed verification, and was not used: {failure}")]
    Verification {
        /// The file's URI.
        uri: String,
        /// What did not match (boxed: a front matter field's values can be large).
        failure: Box<Mismatch>,
    },
    /// A path asked for is not one within the skill's folder.
    #[error("`{path}` is not a file within the skill `{skill}`")]
    Path {
        /// The skill's `SKILL.md` URI.
        skill: String,
        /// The path asked for.
        path: String,
    },
    /// The server's answer to a read holds no content for the file.
    #[error("the server's answer for `{uri}` is not usable: {reason}")]
    Contents {
        /// The file's URI.
        uri: String,
        /// What is wrong with it.
        reason: ContentsError,
    },
}

/// Why a skill's entry cannot be loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EntryError {
    /// It is not an entry: a field missing or of the wrong type.
    #[error("it is not a skill entry: {0}")]
    Shape(String),
    /// Its `uri` does not end in `/SKILL.md`.
    #[error("its URI does not end in `/{SKILL_FILE}`")]
    NotSkillFile,
    /// Its front matter's `name` breaks the naming rules, or is not a string.
    #[error("its front matter's name breaks the naming rules: {0}")]
    Name(NameError),
    /// The last segment of the skill's path is not its name.
    #[error("its path ends in `{segment}`, not in its name `{name}`")]
    NameMismatch {
        /// The last segment.
        segment: String,
        /// The front matter's `name`.
        name: String,
    },
    /// Its `resources` do not list its `SKILL.md`.
    #[error("its `resources` do not list its {SKILL_FILE}")]
    SkillFileUnlisted,
    /// A listed file is not within the skill's folder.
    #[error("it lists `{0}`, which is not within the skill")]
    Outside(String),
    /// A listed digest is not `sha256:` and 64 hex digits.
    #[error("the digest of `{0}` is not `sha256:` and 64 hex digits")]
    Digest(String),
    /// It lists more files than [`MAX_RESOURCES_PER_SKILL`].
    #[error("it lists {0} files, more than the {MAX_RESOURCES_PER_SKILL} a skill may have")]
    TooManyFiles(usize),
    /// Its files hold more bytes than [`MAX_TOTAL_SIZE`].
    #[error("its files hold {0} bytes, more than the {MAX_TOTAL_SIZE} a skill may hold")]
    TooLarge(u64),
}

/// What a file read did not match.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Mismatch {
    /// Its length in bytes is not the entry's `size`.
    #[error("it is {got} bytes long; its entry says {expected}")]
    Size {
        /// The entry's `size`.
        expected: u64,
        /// The length read.
        got: u64,
    },
    /// Its SHA-256 is not the entry's `digest`.
    #[error("its digest is {got}; its entry says {expected}")]
    Digest {
        /// The entry's `digest`.
        expected: String,
        /// The digest of what was read.
        got: String,
    },
    /// A field of `SKILL.md`'s front matter is not the entry's.
    #[error(
        "its front matter's `{field}` is {}; its entry's is {}",
        shown(got),
        shown(expected)
    )]
    FrontMatter {
        /// The field.
        field: String,
        /// The entry's value (`None`: the entry has no such field).
        expected: Option<Value>,
        /// The file's value (`None`: the file has no such field).
        got: Option<Value>,
    },
    /// `SKILL.md`'s front matter could not be read.
    #[error("its front matter cannot be read: {0}")]
    FrontMatterUnreadable(FrontMatterError),
    /// `SKILL.md` is not UTF-8 text.
    #[error("it is not UTF-8 text")]
    NotText,
    /// The file is not listed in the skill's entry.
    #[error("it is not listed in the skill's entry")]
    Unlisted,
    /// A file of a skill without a manifest is longer than what may still be read of the
    /// skill ([`MAX_TOTAL_SIZE`] in all).
    #[error(
        "it is {got} bytes long, more than the {limit} bytes that may still be read of the skill"
    )]
    TooLong {
        /// What may still be read.
        limit: u64,
        /// Its length.
        got: u64,
    },
}

/// A field's value for a message: its JSON, or `absent`.
fn shown(value: &Option<Value>) -> String {
    value
        .as_ref()
        .map_or_else(|| "absent".to_owned(), Value::to_string)
}

/// Why a read's answer holds no usable content.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ContentsError {
    /// No content is the file's.
    #[error("none of its contents is the file's")]
    Missing,
    /// The content has neither `text` nor `blob`.
    #[error("its content has neither `text` nor `blob`")]
    Empty,
    /// The `blob` is not base64.
    #[error("its `blob` is not base64")]
    NotBase64,
}

/// One file of a skill, as read.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SkillFile {
    /// Its URI.
    pub uri: String,
    /// Its MIME type, as the server gave it.
    pub mime_type: Option<String>,
    /// Its bytes: the `text`'s UTF-8, or the decoded `blob`.
    pub bytes: Vec<u8>,
    /// Whether its size and digest were checked against the skill's entry: `false` only
    /// for a skill whose entry lists no files (`"resources": "dynamic"`).
    pub verified: bool,
}

impl SkillFile {
    /// Its bytes as text, if they are UTF-8.
    pub fn text(&self) -> Option<&str> {
        std::str::from_utf8(&self.bytes).ok()
    }
}

/// A skill loaded: the entry it was loaded from, held while acting on it, and its
/// `SKILL.md`, verified against that entry.
#[derive(Debug)]
pub struct LoadedSkill {
    entry: SkillEntry,
    /// The skill's folder: the `SKILL.md` URI without `/SKILL.md`.
    root: String,
    instructions: SkillFile,
    /// Bytes read of it so far, counted against [`MAX_TOTAL_SIZE`] when it has no manifest.
    read: AtomicU64,
}

impl LoadedSkill {
    /// The entry it was loaded from.
    pub fn entry(&self) -> &SkillEntry {
        &self.entry
    }

    /// Its name.
    pub fn name(&self) -> &str {
        self.entry
            .frontmatter
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// Its `SKILL.md`.
    pub fn instructions(&self) -> &SkillFile {
        &self.instructions
    }

    /// The files its entry lists (`SKILL.md` among them); `None` when it has no manifest
    /// (`"resources": "dynamic"`).
    pub fn files(&self) -> Option<&[SkillResource]> {
        match &self.entry.resources {
            SkillResources::Listed(files) => Some(files),
            SkillResources::Dynamic(_) => None,
        }
    }

    /// The URI of `path` within the skill: relative to its folder, as its `SKILL.md`
    /// refers to its files (`references/FORMS.md`), or a whole URI within it.
    fn resolve(&self, path: &str) -> Option<String> {
        let relative = if path.contains("://") {
            path.strip_prefix(&self.root)?.strip_prefix('/')?
        } else {
            path
        };
        let leaves = |segment: &str| {
            let lower = segment.to_ascii_lowercase().replace("%2e", ".");
            lower.is_empty() || lower == "." || lower == ".."
        };
        if relative.split('/').any(leaves) || relative.contains('\\') {
            return None;
        }
        Some(format!("{}/{relative}", self.root))
    }
}

/// A server's skills (the skills extension): listed with nothing read, then loaded and read
/// file by file, each verified against its entry. Made by [`Client::skills`].
#[derive(Debug, Clone, Copy)]
pub struct Skills<'c> {
    client: &'c Client,
}

impl<'c> Skills<'c> {
    pub(super) fn new(client: &'c Client) -> Self {
        Self { client }
    }

    /// Whether the server declares the skills extension.
    pub fn offered(&self) -> bool {
        self.client
            .server()
            .capabilities
            .get("extensions")
            .and_then(|extensions| extensions.get(EXTENSION))
            .is_some()
    }

    fn declared(&self) -> Result<(), SkillError> {
        if self.offered() {
            Ok(())
        } else {
            Err(SkillError::NotOffered)
        }
    }

    /// Every skill the server lists, following its pages; nothing else is read. An entry
    /// that cannot be loaded (see [`EntryError`]) is left out, with a warning.
    pub async fn list(&self) -> Result<Vec<SkillEntry>, SkillError> {
        self.declared()?;
        let mut skills = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let mut params = Map::new();
            if let Some(cursor) = cursor.take() {
                params.insert("cursor".to_owned(), json!(cursor));
            }
            let page = self
                .client
                .request(LIST, params, RequestOptions::default())
                .await?;
            let Some(Value::Array(entries)) = page.get("skills") else {
                return Err(malformed(format!(
                    "the result of `{LIST}` has no `skills` list"
                )));
            };
            for entry in entries {
                match parse_entry(entry.clone()) {
                    Ok(entry) => skills.push(entry),
                    Err(err) => tracing::warn!(%err, "a listed skill is left out"),
                }
            }
            match page.get("nextCursor") {
                Some(Value::String(next)) => cursor = Some(next.clone()),
                None | Some(Value::Null) => return Ok(skills),
                Some(_) => {
                    return Err(malformed(format!(
                        "the `nextCursor` of `{LIST}` is not a string"
                    )));
                }
            }
        }
        Err(malformed(format!(
            "`{LIST}` was still paging after {MAX_PAGES} pages"
        )))
    }

    /// The entry of the skill whose `SKILL.md` is at `uri`, listed or not; nothing else is
    /// read.
    pub async fn get(&self, uri: &str) -> Result<SkillEntry, SkillError> {
        self.declared()?;
        let mut params = Map::new();
        params.insert("uri".to_owned(), json!(uri));
        let mut result = self
            .client
            .request(GET, params, RequestOptions::default())
            .await?;
        let entry = result
            .remove("skill")
            .ok_or_else(|| malformed(format!("the result of `{GET}` has no `skill`")))?;
        parse_entry(entry)
    }

    /// Loads the skill `entry` describes: reads its `SKILL.md`, checks its size and digest
    /// against the entry's, and its front matter field by field against the entry's. The
    /// skill returned holds the entry: its other files are read against it.
    pub async fn load(&self, entry: SkillEntry) -> Result<LoadedSkill, SkillError> {
        check_entry(&entry).map_err(|reason| SkillError::Entry {
            uri: entry.uri.clone(),
            reason,
        })?;
        let listed = listed(&entry, &entry.uri).cloned();
        let instructions = self
            .fetch(&entry.uri, listed.as_ref(), MAX_TOTAL_SIZE)
            .await?;
        compare_front_matter(&entry, &instructions)?;
        let root = root_of(&entry.uri).unwrap_or_default().to_owned();
        let read = AtomicU64::new(instructions.bytes.len() as u64);
        Ok(LoadedSkill {
            entry,
            root,
            instructions,
            read,
        })
    }

    /// Reads the file `path` of `skill`: relative to the skill's folder
    /// (`references/FORMS.md`), or its whole URI. A skill with a manifest reads only the
    /// files it lists, each checked against its size and digest.
    pub async fn read(&self, skill: &LoadedSkill, path: &str) -> Result<SkillFile, SkillError> {
        let uri = skill.resolve(path).ok_or_else(|| SkillError::Path {
            skill: skill.entry.uri.clone(),
            path: path.to_owned(),
        })?;
        let file = match &skill.entry.resources {
            SkillResources::Listed(_) => {
                let Some(expected) = listed(&skill.entry, &uri) else {
                    return Err(SkillError::Verification {
                        uri,
                        failure: Box::new(Mismatch::Unlisted),
                    });
                };
                self.fetch(&uri, Some(expected), expected.size).await?
            }
            SkillResources::Dynamic(_) => {
                let left = MAX_TOTAL_SIZE.saturating_sub(skill.read.load(Ordering::Relaxed));
                self.fetch(&uri, None, left).await?
            }
        };
        skill
            .read
            .fetch_add(file.bytes.len() as u64, Ordering::Relaxed);
        Ok(file)
    }

    /// Reads `uri`: its length checked against `expected`'s size (or, with none, against
    /// `limit`) before it is decoded, then its digest. A gateway reads a mounted server's
    /// skills through it.
    pub(in crate::client) async fn fetch(
        &self,
        uri: &str,
        expected: Option<&SkillResource>,
        limit: u64,
    ) -> Result<SkillFile, SkillError> {
        let contents = self.client.read_resource(uri).await?;
        let content = pick(contents, uri)?;
        let fail = |failure| SkillError::Verification {
            uri: uri.to_owned(),
            failure: Box::new(failure),
        };
        let length = content.length(uri)?;
        match expected {
            Some(expected) if length != expected.size => {
                return Err(fail(Mismatch::Size {
                    expected: expected.size,
                    got: length,
                }));
            }
            None if length > limit => {
                return Err(fail(Mismatch::TooLong { limit, got: length }));
            }
            _ => {}
        }
        let mime_type = content.mime_type.clone();
        let bytes = content.bytes(uri)?;
        if let Some(expected) = expected {
            let got = digest(&bytes);
            if !got.eq_ignore_ascii_case(&expected.digest) {
                return Err(fail(Mismatch::Digest {
                    expected: expected.digest.clone(),
                    got,
                }));
            }
        }
        Ok(SkillFile {
            uri: uri.to_owned(),
            mime_type,
            bytes,
            verified: expected.is_some(),
        })
    }
}

fn malformed(reason: String) -> SkillError {
    SkillError::Client(ClientError::Malformed(reason))
}

/// An entry from the wire, checked: one that cannot be loaded is refused.
fn parse_entry(entry: Value) -> Result<SkillEntry, SkillError> {
    let uri = entry
        .get("uri")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let entry: SkillEntry = serde_json::from_value(entry).map_err(|err| SkillError::Entry {
        uri: uri.clone(),
        reason: EntryError::Shape(err.to_string()),
    })?;
    check_entry(&entry).map_err(|reason| SkillError::Entry { uri, reason })?;
    Ok(entry)
}

/// The skill's folder: its `SKILL.md` URI without `/SKILL.md`.
fn root_of(uri: &str) -> Option<&str> {
    uri.strip_suffix(SKILL_FILE)?.strip_suffix('/')
}

/// Whether `entry` can be loaded: its path ends in its name, which keeps the naming rules;
/// its manifest lists its `SKILL.md`, only files within it, each with a well-formed digest,
/// and stays within the limits.
fn check_entry(entry: &SkillEntry) -> Result<(), EntryError> {
    let root = root_of(&entry.uri).ok_or(EntryError::NotSkillFile)?;
    let name = match entry.frontmatter.get("name") {
        Some(Value::String(name)) => name.as_str(),
        _ => return Err(EntryError::Name(NameError::Empty)),
    };
    check_name(name).map_err(EntryError::Name)?;
    let path = root.split_once("://").map_or(root, |(_, path)| path);
    let segment = path.rsplit('/').next().unwrap_or_default();
    if segment != name {
        return Err(EntryError::NameMismatch {
            segment: segment.to_owned(),
            name: name.to_owned(),
        });
    }
    let SkillResources::Listed(files) = &entry.resources else {
        return Ok(());
    };
    if files.len() > MAX_RESOURCES_PER_SKILL {
        return Err(EntryError::TooManyFiles(files.len()));
    }
    let total = files
        .iter()
        .fold(0u64, |total, file| total.saturating_add(file.size));
    if total > MAX_TOTAL_SIZE {
        return Err(EntryError::TooLarge(total));
    }
    if !files.iter().any(|file| file.uri == entry.uri) {
        return Err(EntryError::SkillFileUnlisted);
    }
    let within = format!("{root}/");
    for file in files {
        if !file.uri.starts_with(&within) {
            return Err(EntryError::Outside(file.uri.clone()));
        }
        let hex = file.digest.strip_prefix("sha256:").unwrap_or_default();
        if hex.len() != 64 || !hex.bytes().all(|byte| byte.is_ascii_hexdigit()) {
            return Err(EntryError::Digest(file.uri.clone()));
        }
    }
    Ok(())
}

/// The file `uri` as `entry` lists it.
fn listed<'e>(entry: &'e SkillEntry, uri: &str) -> Option<&'e SkillResource> {
    match &entry.resources {
        SkillResources::Listed(files) => files.iter().find(|file| file.uri == uri),
        SkillResources::Dynamic(_) => None,
    }
}

/// `sha256:` and the hex SHA-256 of `bytes`.
fn digest(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let hash = Sha256::digest(bytes);
    let mut text = String::with_capacity(7 + 64);
    text.push_str("sha256:");
    for byte in hash {
        let _ = write!(text, "{byte:02x}");
    }
    text
}

/// Compares `SKILL.md`'s front matter with the entry's, field by field.
fn compare_front_matter(entry: &SkillEntry, file: &SkillFile) -> Result<(), SkillError> {
    let fail = |failure| SkillError::Verification {
        uri: file.uri.clone(),
        failure: Box::new(failure),
    };
    let text = file.text().ok_or_else(|| fail(Mismatch::NotText))?;
    let read = front_matter(text)
        .map_err(|err| fail(Mismatch::FrontMatterUnreadable(err)))?
        .into_fields();
    let expected = &entry.frontmatter;
    let fields = expected.keys().chain(read.keys());
    for field in fields {
        let (want, got) = (expected.get(field), read.get(field));
        let same = match (want, got) {
            (Some(want), Some(got)) => same_value(want, got),
            _ => false,
        };
        if !same {
            return Err(fail(Mismatch::FrontMatter {
                field: field.clone(),
                expected: want.cloned(),
                got: got.cloned(),
            }));
        }
    }
    Ok(())
}

/// Whether two JSON values are the same, numbers compared by value (YAML's `1.0` and a
/// server's `1` are one number).
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(a), Value::Number(b)) => match (a.as_i64(), b.as_i64()) {
            (Some(a), Some(b)) => a == b,
            _ => a.as_f64() == b.as_f64(),
        },
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same_value(a, b))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(key, a)| b.get(key).is_some_and(|b| same_value(a, b)))
        }
        _ => a == b,
    }
}

/// A read's content for one file, not yet decoded.
struct Content {
    mime_type: Option<String>,
    text: Option<String>,
    blob: Option<String>,
}

impl Content {
    /// The file's length in bytes, known without decoding it.
    fn length(&self, uri: &str) -> Result<u64, SkillError> {
        if let Some(text) = &self.text {
            return Ok(text.len() as u64);
        }
        let blob = self
            .blob
            .as_deref()
            .ok_or_else(|| unusable(uri, ContentsError::Empty))?;
        let unpadded = blob.trim_end_matches('=').len() as u64;
        match unpadded % 4 {
            1 => Err(unusable(uri, ContentsError::NotBase64)),
            rest => Ok(unpadded / 4 * 3 + rest.saturating_sub(1)),
        }
    }

    /// The file's bytes.
    fn bytes(self, uri: &str) -> Result<Vec<u8>, SkillError> {
        match (self.text, self.blob) {
            (Some(text), _) => Ok(text.into_bytes()),
            (None, Some(blob)) => base64::engine::general_purpose::STANDARD
                .decode(blob)
                .map_err(|_| unusable(uri, ContentsError::NotBase64)),
            (None, None) => Err(unusable(uri, ContentsError::Empty)),
        }
    }
}

fn unusable(uri: &str, reason: ContentsError) -> SkillError {
    SkillError::Contents {
        uri: uri.to_owned(),
        reason,
    }
}

/// The content of `contents` that is `uri`'s: the one that names it, or the only one.
fn pick(contents: Vec<Value>, uri: &str) -> Result<Content, SkillError> {
    let only = contents.len() == 1;
    let content = contents
        .into_iter()
        .find(|content| only || content.get("uri").and_then(Value::as_str) == Some(uri))
        .ok_or_else(|| unusable(uri, ContentsError::Missing))?;
    let text = |key: &str| content.get(key).and_then(Value::as_str).map(str::to_owned);
    Ok(Content {
        mime_type: text("mimeType"),
        text: text("text"),
        blob: text("blob"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(resources: Value) -> SkillEntry {
        serde_json::from_value(json!({
            "uri": "skill://pdf-processing/SKILL.md",
            "frontmatter": { "name": "pdf-processing", "description": "PDFs" },
            "resources": resources,
        }))
        .unwrap()
    }

    fn file(uri: &str, size: u64) -> Value {
        json!({ "uri": uri, "digest": digest(b""), "size": size })
    }

    #[test]
    fn digests_are_sha256_in_lower_case_hex() {
        assert_eq!(
            digest(b"abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn blob_lengths_are_known_before_decoding() {
        for bytes in [
            &b""[..],
            b"a",
            b"ab",
            b"abc",
            b"abcd",
            b"\xff\x00\x10\x20\x30",
        ] {
            let blob = base64::engine::general_purpose::STANDARD.encode(bytes);
            let content = Content {
                mime_type: None,
                text: None,
                blob: Some(blob),
            };
            assert_eq!(content.length("u").unwrap(), bytes.len() as u64);
        }
    }

    #[test]
    fn entries_that_cannot_be_loaded_say_why() {
        let skill_md = "skill://pdf-processing/SKILL.md";
        assert_eq!(check_entry(&entry(json!([file(skill_md, 1)]))), Ok(()));
        assert_eq!(check_entry(&entry(json!("dynamic"))), Ok(()));
        assert_eq!(
            check_entry(&entry(json!([file("skill://pdf-processing/a.md", 1)]))),
            Err(EntryError::SkillFileUnlisted)
        );
        assert_eq!(
            check_entry(&entry(json!([
                file(skill_md, 1),
                file("skill://other/a.md", 1)
            ]))),
            Err(EntryError::Outside("skill://other/a.md".to_owned()))
        );
        assert_eq!(
            check_entry(&entry(json!([file(skill_md, MAX_TOTAL_SIZE + 1)]))),
            Err(EntryError::TooLarge(MAX_TOTAL_SIZE + 1))
        );
        let many: Vec<Value> = (0..=MAX_RESOURCES_PER_SKILL)
            .map(|n| file(&format!("skill://pdf-processing/{n}"), 1))
            .collect();
        assert_eq!(
            check_entry(&entry(Value::Array(many))),
            Err(EntryError::TooManyFiles(MAX_RESOURCES_PER_SKILL + 1))
        );
        let mut renamed = entry(json!("dynamic"));
        renamed.uri = "skill://acme/other/SKILL.md".to_owned();
        assert_eq!(
            check_entry(&renamed),
            Err(EntryError::NameMismatch {
                segment: "other".to_owned(),
                name: "pdf-processing".to_owned()
            })
        );
        let mut bad_digest = entry(json!([file(skill_md, 1)]));
        if let SkillResources::Listed(files) = &mut bad_digest.resources {
            files[0].digest = "md5:00".to_owned();
        }
        assert_eq!(
            check_entry(&bad_digest),
            Err(EntryError::Digest(skill_md.to_owned()))
        );
    }

    #[test]
    fn a_nested_skill_path_ends_in_its_name() {
        let mut nested = entry(json!("dynamic"));
        nested.uri = "skill://far/acme/pdf-processing/SKILL.md".to_owned();
        assert_eq!(check_entry(&nested), Ok(()));
    }

    #[test]
    fn paths_stay_within_the_skill() {
        let skill = LoadedSkill {
            entry: entry(json!("dynamic")),
            root: "skill://pdf-processing".to_owned(),
            instructions: SkillFile {
                uri: String::new(),
                mime_type: None,
                bytes: Vec::new(),
                verified: false,
            },
            read: AtomicU64::new(0),
        };
        assert_eq!(
            skill.resolve("references/FORMS.md").as_deref(),
            Some("skill://pdf-processing/references/FORMS.md")
        );
        assert_eq!(
            skill
                .resolve("skill://pdf-processing/references/FORMS.md")
                .as_deref(),
            Some("skill://pdf-processing/references/FORMS.md")
        );
        for outside in [
            "../other/SKILL.md",
            "a/../../b",
            "/etc/passwd",
            "%2e%2e/x",
            ".%2E/x",
            "a//b",
            "a\\..\\b",
            "skill://other/SKILL.md",
            "skill://pdf-processing-2/x",
        ] {
            assert_eq!(skill.resolve(outside), None, "{outside}");
        }
    }

    #[test]
    fn front_matter_numbers_compare_by_value() {
        assert!(same_value(&json!({ "v": 1 }), &json!({ "v": 1.0 })));
        assert!(!same_value(&json!({ "v": 1 }), &json!({ "v": 2 })));
        assert!(!same_value(&json!({ "v": "1" }), &json!({ "v": 1 })));
        assert!(!same_value(&json!([1, 2]), &json!([1])));
        assert!(!same_value(&json!({ "a": 1 }), &json!({ "a": 1, "b": 2 })));
    }
}
