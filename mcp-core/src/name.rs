//! Tool invocation names: `namespace.tool`, as the message model defines them.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use smol_str::SmolStr;

/// The longest invocation name accepted, as in MCP's tool-name rule.
pub const MAX_TOOL_NAME_LEN: usize = 128;

/// The pattern every invocation name matches.
pub const TOOL_NAME_PATTERN: &str = r"^[a-z0-9_]+(\.[a-z0-9_]+)+$";

/// Why a string is not a valid invocation name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolNameError {
    /// The name is empty.
    #[error("is empty; expected `namespace.tool`")]
    Empty,
    /// The name is longer than [`MAX_TOOL_NAME_LEN`].
    #[error("is {len} characters long; at most {MAX_TOOL_NAME_LEN} are allowed")]
    TooLong {
        /// Length of the rejected name in characters.
        len: usize,
    },
    /// The name has no `.` separating a namespace from the tool.
    #[error("`{name}` has no namespace; expected `namespace.tool`, e.g. `file_utility.{name}`")]
    NoNamespace {
        /// The rejected name.
        name: String,
    },
    /// A segment between dots is empty.
    #[error(
        "`{name}` has an empty segment at byte {position}; segments are separated by single dots"
    )]
    EmptySegment {
        /// The rejected name.
        name: String,
        /// Byte offset of the empty segment.
        position: usize,
    },
    /// The name contains a character outside `a-z`, `0-9`, `_` and `.`.
    #[error(
        "`{name}` contains {found:?} at byte {position}; only lower-case letters, digits, `_` and `.` are allowed"
    )]
    InvalidCharacter {
        /// The rejected name.
        name: String,
        /// The first character not allowed.
        found: char,
        /// Byte offset of that character.
        position: usize,
    },
}

/// A tool's invocation name, `namespace.tool` (`^[a-z0-9_]+(\.[a-z0-9_]+)+$`, at most 128
/// characters). Holding one proves the name is valid.
///
/// ```
/// use mcp_runtime_core::ToolName;
///
/// let name: ToolName = "file_utility.read_file_content".parse()?;
/// assert_eq!(name.namespace(), "file_utility");
/// assert_eq!(name.tool(), "read_file_content");
/// assert!("ReadFile".parse::<ToolName>().is_err());
/// # Ok::<(), mcp_runtime_core::ToolNameError>(())
/// ```
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ToolName(SmolStr);

impl ToolName {
    /// Checks `name` and wraps it.
    pub fn new(name: impl Into<String>) -> Result<Self, ToolNameError> {
        let name = name.into();
        validate(&name)?;
        Ok(Self(SmolStr::from(name)))
    }

    /// Checks `name` and copies it: a name short enough to be kept inline is never
    /// allocated.
    fn of_str(name: &str) -> Result<Self, ToolNameError> {
        validate(name)?;
        Ok(Self(SmolStr::new(name)))
    }

    /// The name as a string slice.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Everything before the last dot, e.g. `file_utility`.
    pub fn namespace(&self) -> &str {
        self.0.rsplit_once('.').map_or("", |(ns, _)| ns)
    }

    /// The part after the last dot, e.g. `read_file_content`.
    pub fn tool(&self) -> &str {
        let name = self.as_str();
        name.rsplit_once('.').map_or(name, |(_, tool)| tool)
    }

    /// The owned string.
    pub fn into_string(self) -> String {
        self.0.into()
    }
}

fn validate(name: &str) -> Result<(), ToolNameError> {
    if name.is_empty() {
        return Err(ToolNameError::Empty);
    }
    let len = name.chars().count();
    if len > MAX_TOOL_NAME_LEN {
        return Err(ToolNameError::TooLong { len });
    }
    if let Some((position, found)) = name
        .char_indices()
        .find(|&(_, c)| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '.'))
    {
        return Err(ToolNameError::InvalidCharacter {
            name: name.to_owned(),
            found,
            position,
        });
    }
    if !name.contains('.') {
        return Err(ToolNameError::NoNamespace {
            name: name.to_owned(),
        });
    }
    let mut position = 0;
    for segment in name.split('.') {
        if segment.is_empty() {
            return Err(ToolNameError::EmptySegment {
                name: name.to_owned(),
                position,
            });
        }
        position += segment.len() + 1;
    }
    Ok(())
}

impl fmt::Display for ToolName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for ToolName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl FromStr for ToolName {
    type Err = ToolNameError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::of_str(s)
    }
}

impl TryFrom<String> for ToolName {
    type Error = ToolNameError;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        Self::new(s)
    }
}

impl TryFrom<&str> for ToolName {
    type Error = ToolNameError;

    fn try_from(s: &str) -> Result<Self, Self::Error> {
        Self::of_str(s)
    }
}

impl Deref for ToolName {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for ToolName {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for ToolName {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl PartialEq<str> for ToolName {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for ToolName {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl Serialize for ToolName {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for ToolName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        Self::new(name).map_err(serde::de::Error::custom)
    }
}

impl schemars::JsonSchema for ToolName {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ToolName".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "The unique invocation name of the tool, `namespace.tool`.",
            "pattern": TOOL_NAME_PATTERN,
            "minLength": 3,
            "maxLength": MAX_TOOL_NAME_LEN,
        })
    }

    fn inline_schema() -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_seed_names() {
        for name in [
            "file_utility.read_file_content",
            "ai_code_editing.generate_code_snippet",
            "a.b.c",
            "x1.y_2",
        ] {
            assert!(ToolName::new(name).is_ok(), "{name}");
        }
    }

    #[test]
    fn rejects_each_rule_with_its_own_error() {
        assert_eq!(ToolName::new(""), Err(ToolNameError::Empty));
        assert!(matches!(
            ToolName::new("read_file"),
            Err(ToolNameError::NoNamespace { .. })
        ));
        assert!(matches!(
            ToolName::new("File.read"),
            Err(ToolNameError::InvalidCharacter {
                found: 'F',
                position: 0,
                ..
            })
        ));
        assert!(matches!(
            ToolName::new("a..b"),
            Err(ToolNameError::EmptySegment { position: 2, .. })
        ));
        assert!(matches!(
            ToolName::new(".a"),
            Err(ToolNameError::EmptySegment { position: 0, .. })
        ));
        assert!(matches!(
            ToolName::new("a.b-c"),
            Err(ToolNameError::InvalidCharacter { found: '-', .. })
        ));
        let long = format!("a.{}", "b".repeat(MAX_TOOL_NAME_LEN));
        assert!(matches!(
            ToolName::new(long),
            Err(ToolNameError::TooLong { len: 130 })
        ));
    }

    #[test]
    fn splits_namespace_and_tool_at_the_last_dot() {
        let name = ToolName::new("a.b.c").unwrap();
        assert_eq!(name.namespace(), "a.b");
        assert_eq!(name.tool(), "c");
    }
}
