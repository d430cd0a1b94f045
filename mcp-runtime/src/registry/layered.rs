//! The layers an application put around calls ([`RegistryBuilder::layer`],
//! [`RegistryBuilder::layer_for`], `#[mcp_tool(layer = …)]`), and the stack each item's
//! calls go through.
//!
//! Each item gets its own stack, built on its first call and kept: a stock tower layer's
//! state (a concurrency limit's permits, say) is the item's own, while the crate's layers
//! (`crate::layers`) share theirs across every item their selector picks. An item that no
//! layer wraps has no stack, and its calls take the path they take with no layers at all.

use std::sync::{Arc, PoisonError, RwLock};

use rustc_hash::FxHashMap;

use crate::service::{BoxLayer, Innermost, Kind, Selector, Stack};
use crate::tool::RegisteredTool;

/// Each item's stack, by kind and key; `None` for an item no layer wraps.
type Stacks = FxHashMap<(Kind, Arc<str>), Option<Stack>>;

/// A layer, and which items it wraps: every one, or those its selector picks.
#[derive(Debug, Clone)]
pub(crate) struct Spec {
    pub(crate) selector: Option<Selector>,
    pub(crate) layer: BoxLayer,
}

/// The application's layers and the stacks built of them, shared by a registry's clones.
#[derive(Debug, Clone, Default)]
pub(crate) struct Layers {
    /// In the order the builder was given them: the first is outermost.
    specs: Arc<[Spec]>,
    /// Each item's stack, by kind and key (a tool's or prompt's name, a resource's URI or
    /// URI template); `None` for an item no layer wraps.
    stacks: Arc<RwLock<Stacks>>,
    /// Whether a tool of the registry has a layer of its own.
    own: bool,
}

impl Layers {
    pub(crate) fn new(specs: Vec<Spec>) -> Self {
        Self {
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

    /// Whether the application set no layer with the builder.
    pub(crate) fn is_empty(&self) -> bool {
        self.specs.is_empty()
    }

    /// The stack of `tool`'s calls; `None` when no layer wraps it.
    pub(crate) fn for_tool(&self, tool: &RegisteredTool) -> Option<Stack> {
        if self.specs.is_empty() && tool.layer.is_none() {
            return None;
        }
        self.stack(Kind::Tool, tool.name.as_str(), || {
            let own = tool.layer.map(|make| make());
            let definition = tool.definition();
            self.build(own, |selector| selector.matches_tool(definition))
        })
    }

    /// The stack of the calls of the resource or prompt `key` names; `None` when no layer
    /// wraps it.
    pub(crate) fn for_item(&self, kind: Kind, key: &str) -> Option<Stack> {
        if self.specs.is_empty() {
            return None;
        }
        self.stack(kind, key, || {
            self.build(None, |selector| selector.matches_name(key))
        })
    }

    fn stack(&self, kind: Kind, key: &str, build: impl FnOnce() -> Option<Stack>) -> Option<Stack> {
        let found = self
            .stacks
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&(kind, Arc::from(key)))
            .cloned();
        if let Some(stack) = found {
            return stack;
        }
        let mut stacks = self.stacks.write().unwrap_or_else(PoisonError::into_inner);
        stacks
            .entry((kind, Arc::from(key)))
            .or_insert_with(build)
            .clone()
    }

    /// The stack of an item whose own layer is `own`, wrapped in each layer whose selector
    /// `picks` it (or that has none); `None` when nothing wraps it.
    fn build(&self, own: Option<BoxLayer>, picks: impl Fn(&Selector) -> bool) -> Option<Stack> {
        let mut wrapping = self
            .specs
            .iter()
            .filter(|spec| spec.selector.as_ref().is_none_or(&picks))
            .map(|spec| &spec.layer)
            .peekable();
        if own.is_none() && wrapping.peek().is_none() {
            return None;
        }
        let innermost = Stack::new(Innermost);
        let mut stack = match &own {
            Some(own) => own.wrap(innermost),
            None => innermost,
        };
        // The first given is outermost: wrap from the last.
        let wrapping: Vec<&BoxLayer> = wrapping.collect();
        for layer in wrapping.into_iter().rev() {
            stack = layer.wrap(stack);
        }
        Some(stack)
    }
}
