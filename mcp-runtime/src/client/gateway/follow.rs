//! Following a mounted server: its changes (the tools, resources and prompts it lists,
//! the resources it updates) reach what the gateway serves, for as long as both live.

use std::future::Future;
use std::sync::{Arc, Weak};
use std::time::Duration;

use mcp_runtime_core::method::Method;
use serde_json::{Map, Value};
use tokio::sync::broadcast;

use super::{Catalog, Mounted, Upstream, key_under, mount_listed, mounted, source_of};
use crate::client::{Client, ClientError, ClientManager, RequestOptions, Tool};
use crate::registry::Registry;
use crate::server::Server;

/// Keeps the tools `client`'s server lists mounted under `prefix` in what `server` serves:
/// each `notifications/tools/list_changed` from it lists them again and replaces the
/// mounted ones, and `server`'s own clients are told. A server of the handshake's revisions
/// sends its changes unasked; one of 2026-07-28 is asked to, with a `subscriptions/listen`
/// stream.
///
/// Runs until the connection ends or `server` is dropped, whichever comes first: the
/// follower keeps `server` only while it changes it, so once every other [`Arc`] of it is
/// gone the follower ends by itself, within a second. Dropping the handle leaves it
/// running; aborting the handle ends it at once.
pub fn follow(
    server: Arc<Server>,
    prefix: &str,
    client: Arc<Client>,
) -> tokio::task::JoinHandle<()> {
    let prefix = prefix.to_owned();
    let server = Arc::downgrade(&server);
    // Listened to before anything is awaited: a change the server makes once this returns
    // is heard, however soon.
    let notifications = client.notifications();
    tokio::spawn(async move {
        while_served(&server.clone(), async move {
            let tools = || client.list_tools();
            let mut follower = Follower {
                server,
                prefix,
                upstream: Arc::new(Upstream::Client(Arc::clone(&client))),
                // What is mounted now, to tell a change from a notification that changed
                // nothing.
                listed: tools().await.ok(),
                tools,
                catalog: None,
            };
            follower.follow(&client, notifications).await;
        })
        .await;
    })
}

/// As [`follow`], for the server `name` of `manager`, mounted with
/// [`mount_managed`](super::mount_managed): when its connection ends, the follower
/// reconnects through the manager (with its backoff) and, once the server is back, mounts
/// what it lists then, which may have changed while it was down.
///
/// Runs until `server` is dropped, also while the server followed is down: as with
/// [`follow`], the follower keeps `server` only while it changes it, and ends by itself
/// once every other [`Arc`] of it is gone. Dropping the handle leaves it running; aborting
/// the handle ends it at once.
pub fn follow_managed(
    server: Arc<Server>,
    prefix: &str,
    manager: Arc<ClientManager>,
    name: &str,
) -> tokio::task::JoinHandle<()> {
    let (prefix, name) = (prefix.to_owned(), name.to_owned());
    let server = Arc::downgrade(&server);
    tokio::spawn(async move {
        while_served(&server.clone(), managed(server, prefix, manager, name)).await
    })
}

/// What [`follow_managed`] runs: follows the server `name` of `manager`, reconnecting with
/// backoff after each end of its connection, for good.
async fn managed(server: Weak<Server>, prefix: String, manager: Arc<ClientManager>, name: String) {
    let tools = || manager.list_tools(&name);
    let mut follower = Follower {
        server,
        prefix,
        upstream: Arc::new(Upstream::Managed {
            manager: Arc::clone(&manager),
            server: name.clone(),
        }),
        listed: tools().await.ok(),
        tools,
        catalog: None,
    };
    let mut wait = crate::client::manager::FIRST_BACKOFF;
    let mut first = true;
    loop {
        match manager.client(&name).await {
            Ok(client) => {
                // Listened to before the list is read again, so that no change between
                // them is missed.
                let notifications = client.notifications();
                // Back after an end: what it lists now.
                if !first {
                    follower.remount().await;
                }
                first = false;
                let started = tokio::time::Instant::now();
                follower.follow(&client, notifications).await;
                // Followed a good while: the next end is a new one, not more of the same.
                if started.elapsed() > crate::client::manager::MAX_BACKOFF {
                    wait = crate::client::manager::FIRST_BACKOFF;
                }
            }
            Err(err) => {
                tracing::debug!(prefix = %follower.prefix, error = %err, "the server to follow is down");
            }
        }
        tokio::time::sleep(wait).await;
        wait = (wait * 2).min(crate::client::manager::MAX_BACKOFF);
    }
}

/// How often a follower looks whether the server it updates is still there: a [`Server`]
/// tells no one that it is dropped.
const LOOK_EVERY: Duration = Duration::from_secs(1);

/// Runs `following` until it ends or `server` is dropped, whichever comes first. Dropping
/// `following` between two of its steps is safe: it changes the server only in
/// [`Server::change`], which does not wait.
async fn while_served(server: &Weak<Server>, following: impl Future<Output = ()>) {
    let gone = async {
        let mut every = tokio::time::interval(LOOK_EVERY);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            every.tick().await;
            if server.strong_count() == 0 {
                return;
            }
        }
    };
    tokio::select! {
        () = following => {}
        () = gone => {}
    }
}

/// What follows a mounted server: where its tools are mounted, what calls them, how they
/// are listed, and what was mounted last.
struct Follower<F> {
    /// Not kept alive by its follower: a server no one serves any more is not followed.
    server: Weak<Server>,
    prefix: String,
    upstream: Arc<Upstream>,
    tools: F,
    listed: Option<Vec<Tool>>,
    /// The prompts, resources and templates mounted by the last change of the catalog; none
    /// before one (those mounted with the tools stay until then).
    catalog: Option<CatalogKeys>,
}

/// The names of a registry's prompts, and the URIs of its resources and templates.
#[derive(Default)]
struct CatalogKeys {
    prompts: std::collections::BTreeSet<String>,
    resources: std::collections::BTreeSet<String>,
}

impl CatalogKeys {
    fn of(registry: &Registry) -> Self {
        Self {
            prompts: registry
                .prompts()
                .map(|prompt| prompt.name().to_owned())
                .collect(),
            resources: registry
                .resources()
                .map(|resource| resource.uri().to_owned())
                .chain(
                    registry
                        .resource_templates()
                        .map(|template| template.uri_template()),
                )
                .collect(),
        }
    }

    /// What `self` has that `before` had not.
    fn added_since(self, before: &Self) -> Self {
        Self {
            prompts: self.prompts.difference(&before.prompts).cloned().collect(),
            resources: self
                .resources
                .difference(&before.resources)
                .cloned()
                .collect(),
        }
    }
}

impl<F, Fut> Follower<F>
where
    F: Fn() -> Fut,
    Fut: Future<Output = Result<Vec<Tool>, ClientError>>,
{
    /// Follows `client`'s changes, heard on `notifications` (taken before its list was
    /// read), until its connection ends: its list changes, and the updates of the
    /// resources it lists, passed on under their mounted URIs to the server's clients that
    /// subscribed to them.
    async fn follow(
        &mut self,
        client: &Client,
        mut notifications: broadcast::Receiver<crate::client::Notification>,
    ) {
        // Listened to again whenever the resources may have changed: the updates followed
        // are those of the resources listed.
        while self.follow_listed(client, &mut notifications).await == Next::Listen {}
    }

    /// Follows `client`'s changes, with the resources it lists now subscribed to, until its
    /// connection ends or its resources may have changed.
    async fn follow_listed(
        &mut self,
        client: &Client,
        notifications: &mut broadcast::Receiver<crate::client::Notification>,
    ) -> Next {
        let prefix = self.prefix.clone();
        let mut listening = match listen(client, &subscribable(client).await).await {
            Ok(listening) => listening,
            Err(err) => {
                tracing::warn!(%prefix, error = %err, "the server's changes cannot be followed");
                return Next::End;
            }
        };
        loop {
            tokio::select! {
                received = notifications.recv() => match received {
                    Ok(notification) if notification.method == Method::ToolsListChanged.as_str() => {}
                    Ok(notification) if notification.method == Method::ResourcesUpdated.as_str() => {
                        self.pass_update(&notification.params);
                        continue;
                    }
                    Ok(notification) if notification.method == Method::PromptsListChanged.as_str() => {
                        self.remount_catalog(client).await;
                        continue;
                    }
                    Ok(notification) if notification.method == Method::ResourcesListChanged.as_str() => {
                        self.remount_catalog(client).await;
                        return Next::Listen;
                    }
                    // Missed some: one of them may have been a change of any kind.
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        self.remount_catalog(client).await;
                        self.remount().await;
                        return Next::Listen;
                    }
                    Ok(_) => continue,
                    Err(broadcast::error::RecvError::Closed) => return Next::End,
                },
                () = client.closed() => return Next::End,
                ended = async {
                    match listening.as_mut() {
                        Some(listening) => listening.await,
                        None => std::future::pending().await,
                    }
                } => {
                    tracing::warn!(%prefix, outcome = ?ended, "the server ended its stream of changes");
                    return Next::End;
                }
            }
            self.remount().await;
        }
    }

    /// Tells the server's clients subscribed to the resource the server behind says was
    /// updated, under the URI it is mounted at.
    fn pass_update(&self, params: &Value) {
        let Some(uri) = params.get("uri").and_then(Value::as_str) else {
            return;
        };
        if let Some(server) = self.server.upgrade() {
            server.notify_resource_updated(&mounted(&self.prefix, uri));
        }
    }

    /// Lists the prompts, resources and templates again, and mounts them in place of those
    /// mounted before; the server's clients are told of what changed.
    async fn remount_catalog(&mut self, client: &Client) {
        let prefix = self.prefix.as_str();
        let catalog = match Catalog::list(client).await {
            Ok(catalog) => catalog,
            Err(err) => {
                tracing::warn!(%prefix, error = %err, "the changed prompts and resources could not be listed");
                return;
            }
        };
        let Some(server) = self.server.upgrade() else {
            return;
        };
        let upstream = &self.upstream;
        let previous = self.catalog.take();
        let mut kept = None;
        let changed = server.change(|registry| {
            let before = match &previous {
                Some(previous) => {
                    for name in &previous.prompts {
                        registry.unregister_prompt(name);
                    }
                    for uri in &previous.resources {
                        registry.unregister_resource(uri);
                    }
                    CatalogKeys::of(registry)
                }
                // Those mounted with the tools: every key the prefix is in.
                None => {
                    let mut all = CatalogKeys::of(registry);
                    let ours = |key: &String| key_under(prefix, key);
                    let prompts: Vec<String> = all.prompts.iter().filter(|k| ours(k)).cloned().collect();
                    let resources: Vec<String> = all.resources.iter().filter(|k| ours(k)).cloned().collect();
                    for name in &prompts {
                        registry.unregister_prompt(name);
                        all.prompts.remove(name);
                    }
                    for uri in &resources {
                        registry.unregister_resource(uri);
                        all.resources.remove(uri);
                    }
                    all
                }
            };
            let mut mounted = Mounted::default();
            catalog.mount(registry, prefix, upstream, &mut mounted);
            for conflict in &mounted.conflicts {
                tracing::warn!(name = %conflict.tool_name, "a changed remote prompt or resource is not mounted: its name is taken");
            }
            kept = Some(CatalogKeys::of(registry).added_since(&before));
            true
        });
        match changed {
            Ok(_) => self.catalog = kept,
            Err(err) => {
                tracing::warn!(%prefix, error = %err, "the changed prompts and resources could not be served");
                self.catalog = previous;
            }
        }
    }

    /// Lists the tools again and, if they changed, mounts them in place of those mounted
    /// under the prefix; the server's clients are told.
    async fn remount(&mut self) {
        let prefix = self.prefix.as_str();
        let tools = match (self.tools)().await {
            Ok(tools) => tools,
            Err(err) => {
                tracing::warn!(%prefix, error = %err, "the changed tools could not be listed");
                return;
            }
        };
        if self.listed.as_ref() == Some(&tools) {
            return;
        }
        let Some(server) = self.server.upgrade() else {
            return;
        };
        self.listed = Some(tools.clone());
        let source = source_of(prefix);
        let upstream = &self.upstream;
        let changed = server.change(|registry| {
            let mounted: Vec<String> = registry
                .list()
                .filter(|tool| tool.source() == source)
                .map(|tool| tool.name().to_string())
                .collect();
            for name in mounted {
                registry.unregister(&name);
            }
            let again = mount_listed(registry, prefix, tools, upstream);
            for conflict in &again.conflicts {
                tracing::warn!(tool = %conflict.tool_name, "a changed remote tool is not mounted: its name is taken");
            }
            true
        });
        if let Err(err) = changed {
            tracing::warn!(%prefix, error = %err, "the changed tools could not be served");
        }
    }
}

/// What a follower does once a server's changes stopped being followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Next {
    /// Listens again, for the resources listed now.
    Listen,
    /// Stops: the connection ended.
    End,
}

/// A `subscriptions/listen` stream's answer, which comes when it ends.
type Ended = std::pin::Pin<Box<dyn Future<Output = Result<Value, ClientError>> + Send>>;

/// The URIs of the resources `client`'s server lists, when it takes subscriptions to them;
/// none when it does not, or they could not be listed.
async fn subscribable(client: &Client) -> Vec<String> {
    let subscribe = client
        .server()
        .capabilities
        .pointer("/resources/subscribe")
        .and_then(Value::as_bool);
    if subscribe != Some(true) {
        return Vec::new();
    }
    match client.list_resources().await {
        Ok(resources) => resources
            .iter()
            .filter_map(|resource| resource.get("uri")?.as_str().map(str::to_owned))
            .collect(),
        Err(err) => {
            tracing::warn!(error = %err, "the resources to follow could not be listed");
            Vec::new()
        }
    }
}

/// Asks `client`'s server for its changes, and the updates of the resources `uris`: at
/// 2026-07-28 on a `subscriptions/listen` stream, whose end is returned; on the handshake's
/// revisions, where list changes come unasked, with a `resources/subscribe` each.
async fn listen(client: &Client, uris: &[String]) -> Result<Option<Ended>, ClientError> {
    if !client.server().is_stateless() {
        for uri in uris {
            let mut params = Map::new();
            params.insert("uri".to_owned(), Value::from(uri.as_str()));
            let method = Method::ResourcesSubscribe.as_str();
            if let Err(err) = client
                .request(method, params, RequestOptions::default())
                .await
            {
                tracing::warn!(%uri, error = %err, "a mounted resource's updates cannot be followed");
            }
        }
        return Ok(None);
    }
    let mut params = Map::new();
    params.insert(
        "notifications".to_owned(),
        serde_json::json!({
            "toolsListChanged": true,
            "promptsListChanged": true,
            "resourcesListChanged": true,
            "resourceSubscriptions": uris,
        }),
    );
    let params = client.stateless_params(params);
    let watch = crate::client::link::Watch {
        lasting: true,
        ..crate::client::link::Watch::default()
    };
    let pending = client
        .link
        .request(
            Method::SubscriptionsListen.as_str(),
            &params,
            Vec::new(),
            watch,
        )
        .await?;
    Ok(Some(Box::pin(pending.answer())))
}
