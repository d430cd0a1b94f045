//! The layers an application put around calls ([`RegistryBuilder::layer`],
//! [`RegistryBuilder::layer_for`], `#[mcp_tool(layer = …)]`), and the stack each item's
//! calls go through.
//!
//! Each item gets its own stack, built on its first call and kept: a stock tower layer's
//! state (a concurrency limit's permits, say) is the item's own, while the crate's layers
//! (`crate::layers`) share theirs across every item their selector picks. An item that no
//! layer wraps has no stack, and its calls take the path they take with no layers at all.
//!
//! A tool's outermost layers that only admit or refuse (the crate's limits) are asked
//! directly ([`Wrapping::admit_now`]), before the tower stack of the rest, if any: a call
//! they admit at once, of an inline tool with no other layer, runs where it was read.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};

use rustc_hash::FxHashMap;

use crate::layers::BoxLayer;
use crate::service::{Innermost, Kind, Selector, Stack, Wrapping};
use crate::tool::RegisteredTool;

/// Each kind's items' wrappings, by key; `None` for an item no layer wraps.
type Stacks = [FxHashMap<Arc<str>, Option<Arc<Wrapping>>>; 3];

/// A layer, and which items it wraps: every one, or those its selector picks.
#[derive(Debug, Clone)]
pub(crate) struct Spec {
    pub(crate) selector: Option<Selector>,
    pub(crate) layer: BoxLayer,
}

/// The application's layers and the stacks built of them, shared by a registry's clones.
#[derive(Debug, Clone)]
pub(crate) struct Layers {
    /// Told apart from every other set of layers: a tool keeps what wraps it with the id
    /// of the layers that found it ([`Layers::for_tool`]).
    id: u64,
    /// In the order the builder was given them: the first is outermost.
    specs: Arc<[Spec]>,
    /// Each item's stack, by kind and key (a tool's or prompt's name, a resource's URI or
    /// URI template); `None` for an item no layer wraps.
    stacks: Arc<RwLock<Stacks>>,
    /// Whether a tool of the registry has a layer of its own.
    own: bool,
}

impl Default for Layers {
    fn default() -> Self {
        Self::new(Vec::new())
    }
}

impl Layers {
    pub(crate) fn new(specs: Vec<Spec>) -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        Self {
            id: NEXT.fetch_add(1, Ordering::Relaxed),
            specs: specs.into(),
            stacks: Arc::default(),
            own: false,
        }
    }

    /// Notes a tool of the registry that has a layer of its own.
    pub(crate) fn note(&mut self, tool: &RegisteredTool) {
        self.own |= tool.layer.is_some();
    }

    /// Whether any call may go through a layer: one was set with the builder, or a tool
    /// has its own.
    pub(crate) fn any(&self) -> bool {
        self.own || !self.specs.is_empty()
    }

    /// These layers and `spec`, innermost; every stack is built again.
    pub(crate) fn with(&self, spec: Spec) -> Self {
        let mut specs = self.specs.to_vec();
        specs.push(spec);
        Self {
            own: self.own,
            ..Self::new(specs)
        }
    }

    /// The layers, the outermost first.
    pub(crate) fn specs(&self) -> &[Spec] {
        &self.specs
    }

    /// What wraps `tool`'s calls; `None` when no layer does. Kept in the tool on its first
    /// call, with these layers' id, and read there after: no lock, no lookup by name.
    pub(crate) fn for_tool(&self, tool: &RegisteredTool) -> Option<Arc<Wrapping>> {
        if self.specs.is_empty() && tool.layer.is_none() {
            return None;
        }
        match tool.wrapped.get() {
            Some((id, wrapping)) if *id == self.id => return wrapping.clone(),
            _ => {}
        }
        let wrapping = self.find_for_tool(tool);
        // A tool another registry's layers found first keeps theirs; these look it up.
        let _ = tool.wrapped.set((self.id, wrapping.clone()));
        wrapping
    }

    fn find_for_tool(&self, tool: &RegisteredTool) -> Option<Arc<Wrapping>> {
        self.wrapping(Kind::Tool, tool.name.as_str(), |name| {
            let own = tool.layer.map(|make| make());
            let definition = tool.definition();
            self.build(name, own, true, |selector| {
                selector.matches_tool(definition)
            })
        })
    }

    /// The stack of the calls of the resource or prompt `key` names; `None` when no layer
    /// wraps it.
    pub(crate) fn for_item(&self, kind: Kind, key: &str) -> Option<Stack> {
        if self.specs.is_empty() {
            return None;
        }
        let wrapping = self.wrapping(kind, key, |name| {
            self.build(name, None, false, |selector| selector.matches_name(key))
        })?;
        wrapping.tower.clone()
    }

    fn wrapping(
        &self,
        kind: Kind,
        key: &str,
        build: impl FnOnce(Arc<str>) -> Option<Wrapping>,
    ) -> Option<Arc<Wrapping>> {
        let slot = kind as usize;
        let found = self.stacks.read().unwrap_or_else(PoisonError::into_inner)[slot]
            .get(key)
            .cloned();
        if let Some(wrapping) = found {
            return wrapping;
        }
        let mut stacks = self.stacks.write().unwrap_or_else(PoisonError::into_inner);
        let name: Arc<str> = Arc::from(key);
        stacks[slot]
            .entry(Arc::clone(&name))
            .or_insert_with(|| build(name).map(Arc::new))
            .clone()
    }

    /// What wraps the item `name` whose own layer is `own`: each layer whose selector
    /// `picks` it (or that has none), outermost first, then `own`; `None` when nothing
    /// does. With `admits`, the outermost layers that only admit are asked directly, and
    /// the tower stack holds the rest; without, it holds them all.
    fn build(
        &self,
        name: Arc<str>,
        own: Option<BoxLayer>,
        admits: bool,
        picks: impl Fn(&Selector) -> bool,
    ) -> Option<Wrapping> {
        let mut layers: Vec<&BoxLayer> = self
            .specs
            .iter()
            .filter(|spec| spec.selector.as_ref().is_none_or(&picks))
            .map(|spec| &spec.layer)
            .collect();
        layers.extend(own.as_ref());
        if layers.is_empty() {
            return None;
        }
        let direct = if admits {
            layers
                .iter()
                .map_while(|layer| layer.admit().map(|admit| Arc::clone(admit).item(&name)))
                .collect()
        } else {
            Vec::new()
        };
        let rest = &layers[direct.len()..];
        // The first given is outermost: wrap from the last.
        let tower = (!rest.is_empty()).then(|| {
            rest.iter()
                .rev()
                .fold(Stack::new(Innermost), |stack, layer| layer.wrap(stack))
        });
        Some(Wrapping {
            name,
            admits: direct.into_boxed_slice(),
            tower,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::num::NonZeroU32;

    use mcp_runtime_core::{MCPToolCall, ToolError};
    use serde_json::json;

    use super::*;
    use crate::layers::{Period, Quota, RateLimitLayer};
    use crate::registry::Registry;

    /// A layer around every call: a rate limit that no test reaches.
    fn limit() -> Spec {
        let quota = Quota::new(NonZeroU32::new(100).unwrap(), Period::Minute);
        Spec {
            selector: None,
            layer: BoxLayer::new(RateLimitLayer::new(quota)),
        }
    }

    /// A registry of one tool, `t.a`.
    fn one_tool() -> Registry {
        let definition = mcp_runtime_core::ToolDefinition::new(
            "t.a",
            schemars::json_schema!({ "type": "object" }),
        )
        .unwrap();
        Registry::builder()
            .tool(definition, |_, _| {
                std::future::ready(Ok::<_, ToolError>(json!({ "ok": true })))
            })
            .build()
            .unwrap()
    }

    #[test]
    fn a_tool_keeps_what_its_layers_found_and_other_layers_find_their_own() {
        let registry = one_tool();
        let tool = &registry.tools["t.a"];
        let (first, second) = (Layers::new(vec![limit()]), Layers::new(vec![limit()]));
        let found = first.for_tool(tool).expect("wrapped");
        assert!(tool.wrapped.get().is_some_and(|(id, _)| *id == first.id));
        assert!(Arc::ptr_eq(&found, &first.for_tool(tool).unwrap()));
        // Other layers asked about the same tool find their own wrapping, not the one kept.
        let other = second.for_tool(tool).expect("wrapped");
        assert!(!Arc::ptr_eq(&found, &other));
        assert!(Arc::ptr_eq(&other, &second.for_tool(tool).unwrap()));
    }

    #[test]
    fn a_layer_added_to_a_registry_wraps_the_calls_after_and_is_kept_in_turn() {
        let mut registry = one_tool();
        let call = || MCPToolCall::new("t.a", json!({})).unwrap();
        assert!(registry.call_blocking(call()).is_success());
        assert!(
            registry.tools["t.a"].wrapped.get().is_none(),
            "no layer yet"
        );
        let once = Quota::new(NonZeroU32::new(1).unwrap(), Period::Hour);
        registry
            .add_layer(None, BoxLayer::new(RateLimitLayer::new(once)))
            .unwrap();
        assert!(registry.call_blocking(call()).is_success());
        let id = registry.layers.id;
        assert!(
            registry.tools["t.a"]
                .wrapped
                .get()
                .is_some_and(|(kept, _)| *kept == id)
        );
        let refused = registry.call_blocking(call());
        assert!(refused.error().is_some(), "{refused:?}");
        // Another layer, added after: the tool finds what wraps it anew.
        registry.add_layer(None, limit().layer).unwrap();
        assert!(registry.tools["t.a"].wrapped.get().is_none());
        assert!(
            registry.call_blocking(call()).error().is_some(),
            "the quota is still spent"
        );
    }
}
