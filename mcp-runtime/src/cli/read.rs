//! `read`: a resource's contents, at a fixed URI or through a template.

use std::io::{self, IsTerminal, Write};

use base64::Engine as _;
use clap::Args;
use mcp_runtime_core::{ResourceBody, ResourceContents};

use super::error::CliError;
use super::{block_on, failed, not_found};
use crate::registry::{ReadError, Registry};

// The arguments of `read`.
#[derive(Args)]
pub(super) struct ReadArgs {
    /// The resource's URI: a fixed resource's, or one a template matches.
    uri: String,
    /// Print the whole result, `{"contents": […]}`, as JSON.
    #[arg(long)]
    json: bool,
}

pub(super) fn run(registry: &Registry, args: &ReadArgs) -> u8 {
    let uri = args.uri.as_str();
    let contents = match block_on(registry.read_resource(uri)) {
        Ok(Ok(contents)) => contents,
        Ok(Err(err @ ReadError::NotFound(_))) => {
            let known = registry
                .resources()
                .map(|resource| resource.uri().to_owned())
                .chain(registry.resource_templates().map(|t| t.uri_template()))
                .collect::<Vec<_>>();
            return not_found(err, uri, known.iter().map(String::as_str));
        }
        Ok(Err(ReadError::Failed(err))) => {
            return failed(format_args!("reading {uri} failed: {err}"));
        }
        Err(message) => return failed(message),
    };
    let mut out = io::stdout().lock();
    if args.json {
        let result = serde_json::json!({ "contents": contents });
        let _ = writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&result).unwrap_or_default()
        );
        return 0;
    }
    let text = match shown(&contents) {
        Ok(text) => text,
        Err(message) => return failed(message),
    };
    let _ = out.write_all(text.as_bytes());
    // A terminal's prompt should not follow the last line of text on the same line.
    if !text.is_empty() && !text.ends_with('\n') && io::stdout().is_terminal() {
        let _ = writeln!(out);
    }
    0
}

/// The contents as `read` prints them: text as it is, a blob as a line that says its MIME
/// type and size; pieces separated by a line break.
fn shown(contents: &[ResourceContents]) -> Result<String, CliError> {
    let mut out = String::new();
    for piece in contents {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        match &piece.body {
            ResourceBody::Text(text) => out.push_str(text),
            ResourceBody::Blob(data) => {
                let size = decoded_len(data).map_err(|source| CliError::Blob {
                    uri: piece.uri.clone(),
                    source,
                })?;
                out.push_str(&blob_line("blob", piece.mime_type.as_deref(), size));
                out.push('\n');
            }
        }
    }
    Ok(out)
}

/// The number of bytes `data` holds, base64-decoded.
pub(super) fn decoded_len(data: &str) -> Result<usize, base64::DecodeError> {
    base64::engine::general_purpose::STANDARD
        .decode(data)
        .map(|bytes| bytes.len())
}

/// `<what mime, N bytes>`, or `<what, N bytes>` when the MIME type is unknown.
pub(super) fn blob_line(what: &str, mime_type: Option<&str>, size: usize) -> String {
    match mime_type {
        Some(mime_type) => format!("<{what} {mime_type}, {size} bytes>"),
        None => format!("<{what}, {size} bytes>"),
    }
}
