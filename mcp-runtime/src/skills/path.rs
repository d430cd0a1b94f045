//! The path of a file within a skill, as a `skill://` URI carries it: split on `/` first,
//! each segment then percent-decoded and checked, so that no segment, decoded, can leave
//! the skill's folder or name another separator.

use std::fmt;

/// A checked path within a skill's folder: `/`-separated segments, each decoded, none
/// empty, none beginning with a dot, none holding a separator or a NUL. Empty for the
/// folder itself.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FilePath {
    segments: Vec<String>,
}

/// Why a path within a skill is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PathError {
    /// An empty segment: a path that begins with `/` (absolute), or two `/` in a row.
    #[error("the path has an empty segment (an absolute path, or `//`)")]
    Empty,
    /// A segment that begins with a dot: `.`, `..` (which would leave the folder), or a
    /// hidden file, which skills do not serve.
    #[error("the path has a segment `{0}` that begins with a dot")]
    Dot(String),
    /// A segment that holds, decoded, a `/`, a `\` or a NUL.
    #[error("the path has a segment that holds a separator or a NUL once decoded")]
    Separator,
    /// A `%` not followed by two hex digits, or bytes that are not UTF-8 once decoded.
    #[error("the path's percent-encoding is broken")]
    Encoding,
    /// A query (`?`) or a fragment (`#`), which a skill's file has not.
    #[error("the path has a query or a fragment")]
    Query,
}

impl FilePath {
    /// Reads the path part of a `skill://` URI after the skill's path (`references/a.md`,
    /// percent-encoded as a URI carries it).
    pub fn parse(raw: &str) -> Result<Self, PathError> {
        if raw.contains(['?', '#']) {
            return Err(PathError::Query);
        }
        if raw.is_empty() {
            return Ok(Self::default());
        }
        let segments = raw
            .split('/')
            .map(|segment| {
                if segment.is_empty() {
                    return Err(PathError::Empty);
                }
                let decoded = decode(segment)?;
                if decoded.contains(['/', '\\', '\0']) {
                    return Err(PathError::Separator);
                }
                if decoded.starts_with('.') {
                    return Err(PathError::Dot(decoded));
                }
                Ok(decoded)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self { segments })
    }

    /// Its segments, decoded.
    pub fn segments(&self) -> &[String] {
        &self.segments
    }

    /// Whether it is the skill's folder itself.
    pub fn is_root(&self) -> bool {
        self.segments.is_empty()
    }
}

impl fmt::Display for FilePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.segments.join("/"))
    }
}

/// `segment`, percent-decoded.
fn decode(segment: &str) -> Result<String, PathError> {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'%' {
            let hex = segment.get(at + 1..at + 3).ok_or(PathError::Encoding)?;
            let byte = u8::from_str_radix(hex, 16).map_err(|_| PathError::Encoding)?;
            out.push(byte);
            at += 3;
        } else {
            out.push(bytes[at]);
            at += 1;
        }
    }
    String::from_utf8(out).map_err(|_| PathError::Encoding)
}

/// `path` (`/`-separated) with each segment percent-encoded where a URI's path needs it:
/// every byte but the unreserved ones and `!$&'()*+,;=:@`.
pub fn encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        let keep = byte.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/".contains(&byte);
        if keep {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_and_encoded_paths_are_read_into_segments() {
        let path = FilePath::parse("references/FORMS.md").unwrap();
        assert_eq!(path.segments(), ["references", "FORMS.md"]);
        let spaced = FilePath::parse("notes/two%20words.md").unwrap();
        assert_eq!(spaced.segments(), ["notes", "two words.md"]);
        assert!(FilePath::parse("").unwrap().is_root());
        assert_eq!(encode_path("notes/two words.md"), "notes/two%20words.md");
    }

    #[test]
    fn parent_and_current_segments_are_refused_plain_and_encoded() {
        for raw in [
            "..",
            "../secret",
            "a/../../b",
            "%2e%2e/secret",
            "%2E%2E",
            "a/%2e./b",
            ".",
        ] {
            assert!(
                matches!(FilePath::parse(raw), Err(PathError::Dot(_))),
                "{raw}: {:?}",
                FilePath::parse(raw)
            );
        }
    }

    #[test]
    fn absolute_paths_and_empty_segments_are_refused() {
        for raw in ["/etc/passwd", "a//b", "a/"] {
            assert_eq!(FilePath::parse(raw), Err(PathError::Empty), "{raw}");
        }
    }

    #[test]
    fn encoded_separators_and_nul_are_refused() {
        for raw in [
            "%2F",
            "..%2Fsecret",
            "a%2f..%2f..%2fb",
            "%5C..%5Csecret",
            "a%00b",
            "%2Fetc%2Fpasswd",
        ] {
            assert_eq!(FilePath::parse(raw), Err(PathError::Separator), "{raw}");
        }
    }

    #[test]
    fn broken_encoding_queries_and_fragments_are_refused() {
        for raw in ["%", "%2", "%zz", "%ff"] {
            assert_eq!(FilePath::parse(raw), Err(PathError::Encoding), "{raw}");
        }
        assert_eq!(FilePath::parse("a.md?x=1"), Err(PathError::Query));
        assert_eq!(FilePath::parse("a.md#top"), Err(PathError::Query));
    }
}
