//! The four listings, `tools/list`, `resources/list`, `resources/templates/list` and
//! `prompts/list`: each in key order, in pages that an opaque cursor continues, with the
//! cache hints of 2026-07-28.

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::served::{Snapshot, cursor_name, cursor_of};
use super::{Answer, CacheScope, Fault, Peer, Request, Server};

/// What a listing request lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Listing {
    /// `tools/list`.
    Tools,
    /// `resources/list`.
    Resources,
    /// `resources/templates/list`.
    ResourceTemplates,
    /// `prompts/list`.
    Prompts,
}

/// One page of `tools/list`.
#[derive(Serialize)]
struct ToolPage<'a> {
    tools: Vec<&'a RawValue>,
    #[serde(rename = "nextCursor", skip_serializing_if = "Option::is_none")]
    next_cursor: Option<String>,
    #[serde(rename = "ttlMs", skip_serializing_if = "Option::is_none")]
    ttl_ms: Option<u64>,
    #[serde(rename = "cacheScope", skip_serializing_if = "Option::is_none")]
    cache_scope: Option<CacheScope>,
}

impl Server {
    /// A listing request's answer. A caller is shown what [`Peer::shows`] it, and its pages
    /// hold that alone: a page is full unless it is the last, and a cursor names only an
    /// item the caller is shown.
    pub(super) fn list(
        &self,
        snapshot: &Snapshot,
        listing: Listing,
        request: &Request<'_>,
    ) -> Answer {
        let (params, stateless, peer) = (request.params, request.stateless, request.peer);
        let registry = &snapshot.registry;
        let listed = |items: Vec<(String, Value)>, field| {
            self.page(
                field,
                items,
                params,
                stateless.then(|| self.cache_scope(peer)),
            )
        };
        let answer = match listing {
            Listing::Tools => {
                let page = self.list_tools(snapshot, params, stateless, peer);
                return self.answered(request, page);
            }
            Listing::Resources => {
                let mut items: Vec<(String, Value)> = registry
                    .resources()
                    .filter(|r| peer.shows(&r.definition().scopes()))
                    .map(|r| (r.uri().to_owned(), json!(r.listed())))
                    .collect();
                if !registry.skills().is_empty() {
                    // Each skill's SKILL.md, among the resources in URI order.
                    let skills = registry.skills().iter();
                    items.extend(
                        skills.map(|skill| (skill.uri(), json!(super::skills::listed(skill)))),
                    );
                    items.sort_by(|a, b| a.0.cmp(&b.0));
                }
                listed(items, "resources")
            }
            Listing::ResourceTemplates => listed(
                registry
                    .resource_templates()
                    .filter(|t| peer.shows(&t.definition().scopes()))
                    .map(|t| (t.uri_template(), json!(t.listed())))
                    .collect(),
                "resourceTemplates",
            ),
            Listing::Prompts => listed(
                registry
                    .prompts()
                    .filter(|p| peer.shows(&p.definition().scopes()))
                    .map(|p| (p.name().to_owned(), json!(p.definition())))
                    .collect(),
                "prompts",
            ),
        };
        self.answered(request, answer)
    }

    /// A page of `tools/list`, from the listing written once per registry: the tools the
    /// caller is shown from the cursor's on, up to a page of them.
    fn list_tools<'a>(
        &self,
        snapshot: &'a Snapshot,
        params: &Map<String, Value>,
        stateless: bool,
        peer: &Peer<'_>,
    ) -> Result<ToolPage<'a>, Fault> {
        let invalid = || Fault::invalid_params("invalid cursor");
        let listing = snapshot.listing();
        let shown = |at: &usize| peer.shows(&listing.scopes[*at]);
        let start = match params.get("cursor") {
            None | Some(Value::Null) => 0,
            Some(Value::String(cursor)) => {
                let name = cursor_name(cursor).ok_or_else(invalid)?;
                // A tool the caller is not shown is, to it, no tool.
                Some(listing.names.binary_search(&name).map_err(|_| invalid())?)
                    .filter(shown)
                    .ok_or_else(invalid)?
            }
            Some(_) => return Err(invalid()),
        };
        let mut visible = (start..listing.names.len()).filter(shown);
        let tools = visible
            .by_ref()
            .take(self.page_size)
            .map(|at| &*listing.tools[at])
            .collect();
        Ok(ToolPage {
            tools,
            next_cursor: visible.next().map(|next| cursor_of(&listing.names[next])),
            ttl_ms: stateless.then(|| self.cache.ttl_ms()),
            cache_scope: stateless.then(|| self.cache_scope(peer)),
        })
    }

    /// The page of `items` (in key order) that `params`' cursor starts, under `field`; at
    /// 2026-07-28 with the cache hints, who may share it being `scope`.
    pub(super) fn page(
        &self,
        field: &str,
        items: Vec<(String, Value)>,
        params: &Map<String, Value>,
        scope: Option<CacheScope>,
    ) -> Result<Value, Fault> {
        let start = match params.get("cursor") {
            None | Some(Value::Null) => 0,
            Some(Value::String(cursor)) => {
                let key = cursor_name(cursor).ok_or_else(|| invalid("invalid cursor"))?;
                items
                    .binary_search_by(|(other, _)| other.as_str().cmp(&key))
                    .map_err(|_| invalid("invalid cursor"))?
            }
            Some(_) => return Err(invalid("invalid cursor")),
        };
        let end = items.len().min(start + self.page_size);
        let mut page = Map::new();
        if let Some((next, _)) = items.get(end) {
            page.insert("nextCursor".to_owned(), Value::String(cursor_of(next)));
        }
        let listed = items
            .into_iter()
            .skip(start)
            .take(end - start)
            .map(|(_, item)| item);
        page.insert(field.to_owned(), Value::Array(listed.collect()));
        if let Some(scope) = scope {
            self.hint(&mut page, None, scope);
        }
        Ok(Value::Object(page))
    }

    /// Who may share what the server answers `peer` at 2026-07-28, unless the result says
    /// otherwise: the server's choice ([`Server::with_cache_hints`]), but `private` for a
    /// caller an access token describes, since what it is answered may depend on who it
    /// is (its scopes), and a cache shared with callers of other tokens, or none, must not
    /// answer them with it.
    pub(super) fn cache_scope(&self, peer: &Peer<'_>) -> CacheScope {
        if peer.auth.is_some() {
            CacheScope::Private
        } else {
            self.cache.scope
        }
    }

    /// Adds `ttlMs` and `cacheScope` to a 2026-07-28 result: those of `own` where it has
    /// them, else the server's time and `scope`.
    pub(super) fn hint(
        &self,
        result: &mut Map<String, Value>,
        own: Option<&Value>,
        scope: CacheScope,
    ) {
        let ttl = own
            .and_then(|own| own.get("ttlMs"))
            .cloned()
            .unwrap_or_else(|| json!(self.cache.ttl_ms()));
        let scope = own
            .and_then(|own| own.get("cacheScope"))
            .cloned()
            .unwrap_or_else(|| json!(scope));
        result.insert("ttlMs".to_owned(), ttl);
        result.insert("cacheScope".to_owned(), scope);
    }
}

/// -32602 with `message`.
fn invalid(message: &str) -> Fault {
    Fault::invalid_params(message)
}
