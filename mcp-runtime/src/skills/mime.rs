//! The MIME type a skill's file is served with, told from its name, and whether it is
//! served as text or as bytes (base64).

use mcp_runtime_core::skill::{SKILL_FILE, SKILL_FILE_MIME_TYPE};

/// The MIME type of the file at `path`, by its extension; `SKILL.md` is `text/markdown`.
/// A name this does not know is `text/plain` when its bytes are UTF-8 text, and
/// `application/octet-stream` otherwise.
pub(crate) fn of(path: &str, bytes: Option<&[u8]>) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    if name == SKILL_FILE {
        return SKILL_FILE_MIME_TYPE.to_owned();
    }
    let extension = name
        .rsplit_once('.')
        .map(|(_, extension)| extension.to_ascii_lowercase());
    let known = match extension.as_deref() {
        Some("md" | "markdown") => "text/markdown",
        Some("txt") => "text/plain",
        Some("json") => "application/json",
        Some("yaml" | "yml") => "application/yaml",
        Some("toml") => "application/toml",
        Some("xml") => "application/xml",
        Some("html" | "htm") => "text/html",
        Some("css") => "text/css",
        Some("csv") => "text/csv",
        Some("js" | "mjs") => "text/javascript",
        Some("ts") => "text/typescript",
        Some("py") => "text/x-python",
        Some("rs") => "text/x-rust",
        Some("sh") => "application/x-sh",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("webp") => "image/webp",
        Some("svg") => "image/svg+xml",
        Some("pdf") => "application/pdf",
        Some("zip") => "application/zip",
        _ => {
            let text = bytes.is_some_and(|bytes| std::str::from_utf8(bytes).is_ok());
            return if text {
                "text/plain"
            } else {
                "application/octet-stream"
            }
            .to_owned();
        }
    };
    known.to_owned()
}

/// Whether a file of `mime_type` is served as text: a `text/` type, JSON, YAML, TOML, XML,
/// SVG or a shell script, and only when its bytes are UTF-8.
pub(crate) fn is_text(mime_type: &str, bytes: &[u8]) -> bool {
    let texty = mime_type.starts_with("text/")
        || matches!(
            mime_type,
            "application/json"
                | "application/yaml"
                | "application/toml"
                | "application/xml"
                | "application/x-sh"
                | "image/svg+xml"
        );
    texty && std::str::from_utf8(bytes).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_follow_the_name_and_unknown_names_the_bytes() {
        assert_eq!(of("SKILL.md", None), "text/markdown");
        assert_eq!(of("references/FORMS.md", None), "text/markdown");
        assert_eq!(of("scripts/fill.py", None), "text/x-python");
        assert_eq!(of("assets/logo.PNG", None), "image/png");
        assert_eq!(of("LICENSE", Some(b"MIT")), "text/plain");
        assert_eq!(
            of("data.bin", Some(&[0xff, 0xfe])),
            "application/octet-stream"
        );
        assert!(is_text("text/plain", b"hello"));
        assert!(!is_text("text/plain", &[0xff]));
        assert!(!is_text("image/png", b"hello"));
    }
}
