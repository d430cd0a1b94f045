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

use std::sync::{Arc, PoisonError, RwLock};

use mcp_runtime_core::ToolError;
use rustc_hash::FxHashMap;

use crate::layers::BoxLayer;
use crate::service::{Admission, Admit, Innermost, Item, Kind, Selector, Stack, Ticket};
use crate::tool::RegisteredTool;

/// Each kind's items' wrappings, by key; `None` for an item no layer wraps.
type Stacks = [FxHashMap<Arc<str>, Option<Arc<Wrapping>>>; 3];

/// What wraps one item's calls: the layers asked directly, outermost first, then the
/// tower stack of the others, if there are any.
pub(crate) struct Wrapping {
    /// The item's key: a tool's or prompt's name, a resource's URI or URI template.
    pub(crate) name: Arc<str>,
    pub(crate) admits: Box<[Arc<dyn Admit>]>,
    pub(crate) tower: Option<Stack>,
}

/// What the layers asked directly gave a call so far: the tickets it holds until it ends,
/// and the next layer to ask.
#[derive(Debug, Default)]
pub(crate) struct Admitted {
    /// The first ticket that holds something, in place: most calls hold at most one.
    first: Option<Ticket>,
    more: Vec<Ticket>,
    next: usize,
}

impl Wrapping {
    /// Asks the layers that admit, from the next one `admitted` names, as long as they
    /// decide at once: `Ok(true)` once every one admitted the call, `Ok(false)` when one
    /// must wait; the refusal of one that refused.
    pub(crate) fn admit_now(
        &self,
        item: &Item<'_>,
        admitted: &mut Admitted,
    ) -> Result<bool, ToolError> {
        while let Some(admit) = self.admits.get(admitted.next) {
            match admit.now(item) {
                Admission::Go(ticket) => admitted.hold(ticket),
                Admission::Refused(refused) => return Err(refused),
                Admission::Later => return Ok(false),
            }
        }
        Ok(true)
    }

    /// Asks the layers that admit, from the next one `admitted` names, waiting where one
    /// must: `Ok` once every one admitted the call.
    pub(crate) async fn admit_all(
        &self,
        item: Item<'_>,
        admitted: &mut Admitted,
    ) -> Result<(), ToolError> {
        while let Some(admit) = self.admits.get(admitted.next) {
            let ticket = crate::service::admitted(&**admit, item).await?;
            admitted.hold(ticket);
        }
        Ok(())
    }
}

impl Admitted {
    fn hold(&mut self, ticket: Ticket) {
        if let Ticket::Slot(_) = ticket {
            match self.first {
                None => self.first = Some(ticket),
                Some(_) => self.more.push(ticket),
            }
        }
        self.next += 1;
    }
}

impl std::fmt::Debug for Wrapping {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Wrapping")
            .field("name", &self.name)
            .field("admits", &self.admits.len())
            .field("tower", &self.tower.is_some())
            .finish()
    }
}

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

    /// What wraps `tool`'s calls; `None` when no layer does.
    pub(crate) fn for_tool(&self, tool: &RegisteredTool) -> Option<Arc<Wrapping>> {
        if self.specs.is_empty() && tool.layer.is_none() {
            return None;
        }
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
