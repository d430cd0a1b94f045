//! The skills extension (`io.modelcontextprotocol/skills`) as a server serves it, where its
//! registry serves skills ([`Skills::serves`](crate::skills::Skills::serves)):
//! `skills/list` and `skills/get` (each skill's `SKILL.md` URI, its front matter and its
//! manifest) and `resources/directory/read` (the direct children of a skill's folder).
//! A skill's files are read through `resources/read` (the registry reads them,
//! `registry/skills.rs`), and each `SKILL.md` is listed by `resources/list` (`lists.rs`).
//! The folders served are watched ([`Server::watch_skills`]): a change is served from the
//! next request on, and `notifications/resources/list_changed` tells the clients.

use std::sync::{Arc, Weak};
use std::time::Duration;

use mcp_runtime_core::ResourceDefinition;
use mcp_runtime_core::skill::{DIRECTORY_MIME_TYPE, SKILL_FILE_MIME_TYPE};
use serde_json::{Map, Value, json};

use super::served::Snapshot;
use super::{Answer, Fault, Request, Server, not_served};
use crate::skills::watch::{self, Watch};
use crate::skills::{Skill, SkillSource, UriError};

/// The extension's entry in `capabilities.extensions`, when skills are served: directory
/// reads are answered.
pub(super) fn capability() -> Value {
    json!({ "directoryRead": true })
}

/// -32602 naming `uri` in `data.uri`.
fn invalid_uri(message: String, uri: &str) -> Fault {
    Fault::invalid_params(message).with_data(json!({ "uri": uri }))
}

/// The string parameter `uri`.
fn uri_param(params: &Map<String, Value>) -> Result<&str, Fault> {
    params
        .get("uri")
        .and_then(Value::as_str)
        .ok_or_else(|| Fault::invalid_params("`uri` must be a string"))
}

/// How `resources/list` lists a skill's `SKILL.md`: named and described as its front
/// matter names and describes the skill.
pub(super) fn listed(skill: &Skill) -> ResourceDefinition {
    let definition = ResourceDefinition::new(skill.uri(), skill.name())
        .with_description(skill.front_matter().description())
        .with_mime_type(SKILL_FILE_MIME_TYPE);
    match skill.file(mcp_runtime_core::skill::SKILL_FILE) {
        Some(file) => definition.with_size(file.size),
        None => definition,
    }
}

impl Server {
    /// `skills/list`: every skill's entry, in pages of whole entries.
    pub(super) fn skills_list(&self, snapshot: &Snapshot, request: &Request<'_>) -> Answer {
        let skills = snapshot.registry.skills();
        if !skills.serves() {
            return not_served(
                request.id,
                &mcp_runtime_core::method::Method::SkillsList,
                request.stateless,
            );
        }
        let mut items: Vec<(String, Value)> = skills
            .iter()
            .map(|skill| (skill.uri(), json!(skill.entry())))
            .collect();
        items.sort_by(|a, b| a.0.cmp(&b.0));
        let scope = request.stateless.then(|| self.cache_scope(request.peer));
        let page = self.page("skills", items, request.params, scope);
        self.answered(request, page)
    }

    /// `skills/get`: the entry of the skill whose `SKILL.md` the `uri` names; -32602 for
    /// any other URI.
    pub(super) fn skills_get(&self, snapshot: &Snapshot, request: &Request<'_>) -> Answer {
        let skills = snapshot.registry.skills();
        if !skills.serves() {
            return not_served(
                request.id,
                &mcp_runtime_core::method::Method::SkillsGet,
                request.stateless,
            );
        }
        let found = uri_param(request.params).and_then(|uri| {
            let skill = skills.resolve(uri).ok().map(|resolved| resolved.skill);
            let skill = skill.filter(|skill| skill.uri() == uri);
            skill.ok_or_else(|| invalid_uri(format!("no skill is served at `{uri}`"), uri))
        });
        let answer = found.map(|skill| {
            let mut result = Map::new();
            result.insert("skill".to_owned(), json!(skill.entry()));
            if request.stateless {
                self.hint(&mut result, None, self.cache_scope(request.peer));
            }
            result
        });
        self.answered(request, answer)
    }

    /// `resources/directory/read`: the direct children of the skill's folder `uri` names
    /// (`skill://PATH` for its top), files with their MIME type and size, folders as
    /// `inode/directory`; -32602 for a URI that names no folder of a served skill.
    pub(super) fn directory_read(&self, snapshot: &Snapshot, request: &Request<'_>) -> Answer {
        let skills = snapshot.registry.skills();
        if !skills.serves() {
            let method = mcp_runtime_core::method::Method::ResourcesDirectoryRead;
            return not_served(request.id, &method, request.stateless);
        }
        let children = uri_param(request.params).and_then(|uri| {
            let resolved = skills.resolve(uri).map_err(|err| match err {
                UriError::Path { .. } => invalid_uri(err.to_string(), uri),
                _ => invalid_uri(format!("no skill's folder is at `{uri}`"), uri),
            })?;
            let dir = resolved.path.to_string();
            let skill = resolved.skill;
            let children = skill
                .children(&dir)
                .ok_or_else(|| invalid_uri(format!("`{uri}` is not a folder of a skill"), uri))?;
            Ok(children
                .into_iter()
                .map(|(name, folder)| child(&skill, &dir, name, folder))
                .collect::<Vec<_>>())
        });
        let page = children.and_then(|mut items| {
            items.sort_by(|a, b| a.0.cmp(&b.0));
            let scope = request.stateless.then(|| self.cache_scope(request.peer));
            self.page("resources", items, request.params, scope)
        });
        self.answered(request, page)
    }

    /// Watches every folder of skills the registry serves, each looked at every
    /// `interval` ([`watch::DEFAULT_INTERVAL`] is the usual): when one changes, its skills
    /// are loaded again and served from the next request on, and every client listening
    /// is sent `notifications/resources/list_changed`. A skill of it that cannot be
    /// served any more is reported to the log, and left out. The watching stops when the
    /// returned watches are dropped, or the server is.
    pub fn watch_skills(self: &Arc<Self>, interval: Duration) -> std::io::Result<Vec<Watch>> {
        let folders = self.registry().skills().folders().to_vec();
        folders
            .into_iter()
            .map(|folder| {
                let server: Weak<Self> = Arc::downgrade(self);
                let source: Arc<dyn SkillSource> = folder.clone();
                watch::watch(folder, interval, move |loaded| {
                    let Some(server) = server.upgrade() else {
                        return;
                    };
                    for problem in &loaded.problems {
                        tracing::warn!(%problem, "a skill is not served");
                    }
                    let replaced =
                        server.change(|registry| registry.replace_skills(&source, loaded.skills));
                    if let Err(err) = replaced {
                        tracing::warn!(%err, "the skills folder's change is not served");
                    }
                })
            })
            .collect()
    }
}

/// A child of the folder `dir` of `skill`, keyed by its URI.
fn child(skill: &Skill, dir: &str, name: String, folder: bool) -> (String, Value) {
    let path = if dir.is_empty() {
        name.clone()
    } else {
        format!("{dir}/{name}")
    };
    let uri = skill.file_uri(&path);
    let mut resource = ResourceDefinition::new(uri.clone(), name);
    if folder {
        resource = resource.with_mime_type(DIRECTORY_MIME_TYPE);
    } else {
        resource = resource.with_mime_type(crate::skills::mime_type(&path));
        if let Some(file) = skill.file(&path) {
            resource = resource.with_size(file.size);
        }
    }
    (uri, json!(resource))
}
