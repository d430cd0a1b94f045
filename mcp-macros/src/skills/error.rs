//! Why a folder of skills cannot be embedded. Every message names the file or folder at
//! fault as the macro's argument spells it (`skills/pdf/SKILL.md`), never as an absolute
//! path, so that it reads the same on every machine.

use std::io;

use mcp_runtime_core::skill::{
    FrontMatterError, MAX_RESOURCES_PER_SKILL, MAX_TOTAL_SIZE, SKILL_FILE,
};

/// One thing wrong with the folder, a skill in it, or the argument naming it.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SkillsError {
    /// The argument names an environment variable (`$NAME/…`) that is not set.
    #[error("`${0}` is not set in the environment the crate is compiled in")]
    Unset(String),
    /// A `$` that is not followed by a variable's name.
    #[error(
        "`{0}`: a `$` must begin the path and be followed by a variable's name, as `$OUT_DIR/skills`"
    )]
    Variable(String),
    /// `CARGO_MANIFEST_DIR` is not set: the macro is not run by cargo.
    #[error(
        "CARGO_MANIFEST_DIR is not set: `skills!` reads its folder relative to the crate's manifest, as cargo compiles it"
    )]
    NoManifestDir,
    /// The folder does not exist or cannot be read.
    #[error("`{shown}`: no such folder (relative to the crate's manifest folder): {source}")]
    NoFolder {
        /// The folder.
        shown: String,
        /// What the system said.
        source: io::Error,
    },
    /// The argument names a file, not a folder.
    #[error("`{0}` is a file, not a folder of skills")]
    NotAFolder(String),
    /// A file or folder could not be read.
    #[error("`{shown}` cannot be read: {source}")]
    Io {
        /// The file or folder.
        shown: String,
        /// What the system said.
        source: io::Error,
    },
    /// No folder holds a `SKILL.md`.
    #[error("`{0}` holds no skill: neither it nor any folder under it has a {SKILL_FILE}")]
    NoSkill(String),
    /// A file or folder name that is not UTF-8.
    #[error("`{0}`: its name is not UTF-8, and a skill's paths must be")]
    NotUtf8Name(String),
    /// A symbolic link whose target lies outside the skill's folder (or, outside any
    /// skill, outside the macro's folder).
    #[error("`{shown}` is a symbolic link that leads out of `{bound}`, which is refused")]
    LinkOut {
        /// The link.
        shown: String,
        /// The folder it must stay in.
        bound: String,
    },
    /// A symbolic link to a folder that holds it.
    #[error("`{0}` is a symbolic link to a folder that holds it: a loop")]
    LinkLoop(String),
    /// Neither a file nor a folder (a socket, a device).
    #[error("`{0}` is neither a file nor a folder")]
    Special(String),
    /// A skill inside another skill's folder.
    #[error("`{inner}` is inside the skill `{outer}`: skills do not nest")]
    Nested {
        /// The inner skill's `SKILL.md`.
        inner: String,
        /// The outer skill's folder.
        outer: String,
    },
    /// A `SKILL.md` that is not UTF-8 text.
    #[error("`{0}` is not UTF-8 text")]
    NotUtf8(String),
    /// A `SKILL.md` whose front matter is refused.
    #[error("`{shown}`: {source}")]
    FrontMatter {
        /// The `SKILL.md`.
        shown: String,
        /// Why.
        source: FrontMatterError,
    },
    /// The front matter's `name` differs from the skill's folder.
    #[error(
        "`{shown}` names the skill `{name}`, but its folder is `{folder}`: a skill's name must be its folder's name"
    )]
    NameMismatch {
        /// The `SKILL.md`.
        shown: String,
        /// The name in the front matter.
        name: String,
        /// The folder's name.
        folder: String,
    },
    /// Two skills with one name.
    #[error("two skills are named `{name}`: `{first}` and `{second}`")]
    Duplicate {
        /// The name.
        name: String,
        /// The first skill's folder.
        first: String,
        /// The second's.
        second: String,
    },
    /// A skill with more files than a skill may list.
    #[error(
        "the skill `{shown}` has {count} files, more than the {MAX_RESOURCES_PER_SKILL} a skill may have"
    )]
    TooManyFiles {
        /// The skill's folder.
        shown: String,
        /// How many files it has.
        count: usize,
    },
    /// A skill whose files hold more than a skill may.
    #[error(
        "the skill `{shown}` holds {size} bytes, more than the {MAX_TOTAL_SIZE} (16 MiB) a skill may"
    )]
    TooLarge {
        /// The skill's folder.
        shown: String,
        /// Its files' bytes together.
        size: u64,
    },
    /// An absolute path that is not UTF-8, which `include_bytes!` cannot be given.
    #[error("`{0}`: the path to it is not UTF-8, so it cannot be embedded")]
    NotUtf8Path(String),
}
