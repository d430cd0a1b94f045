//! Typed state a registry hands its tools: a database pool, an HTTP client, the
//! application's configuration. Given once to [`RegistryBuilder::state`], taken by a tool as
//! a [`State<T>`] parameter or read with [`ToolContext::state`].
//!
//! (Not to be confused with the sealed `requestState` of 2026-07-28, in `talk`.)
//!
//! [`RegistryBuilder::state`]: crate::RegistryBuilder::state
//! [`ToolContext::state`]: crate::ToolContext::state

use std::any::{Any, TypeId};
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use rustc_hash::FxHashMap;

/// A value the registry shares with its tools, taken as a parameter: `State<T>` gives the
/// tool the `T` given to [`RegistryBuilder::state`](crate::RegistryBuilder::state) (or to
/// [`cli::App::state`](crate::cli::App::state)). Like the context, it never appears in the
/// input schema.
///
/// A registry whose tools ask for a type it was not given is not built: the error names the
/// tool and the type, at start-up, never at a call.
///
/// `State<T>` derefs to `T` (`calls.0` below is the `AtomicU64` of `Calls`), and cloning it
/// clones an [`Arc`]. The function stays plain Rust: call it with [`State::new`] or
/// `State::from(arc)`.
///
/// ```standalone_crate
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use mcp_runtime::{MCPToolCall, Registry, State, mcp_tool};
///
/// /// How many times the tool was called.
/// #[derive(Default)]
/// struct Calls(AtomicU64);
///
/// /// Counts its calls.
/// #[mcp_tool(namespace = "demo", inline)]
/// fn count(calls: State<Calls>) -> u64 {
///     calls.0.fetch_add(1, Ordering::Relaxed) + 1
/// }
///
/// let registry = Registry::builder().inventory().state(Calls::default()).build()?;
/// for expected in 1..=2 {
///     let result = registry.call_blocking(MCPToolCall::new("demo.count", serde_json::json!({}))?);
///     assert_eq!(result.data().unwrap()["result"], expected);
/// }
/// // Still a function.
/// assert_eq!(count(State::new(Calls::default())), 1);
///
/// // Without the state, the registry is refused.
/// let err = Registry::builder().inventory().build().unwrap_err();
/// assert!(err.to_string().contains("tool `demo.count` needs state `"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct State<T>(Arc<T>);

impl<T> State<T> {
    /// `value`, shared.
    pub fn new(value: T) -> Self {
        Self(Arc::new(value))
    }

    /// The shared value, to keep beyond the call.
    pub fn into_arc(this: Self) -> Arc<T> {
        this.0
    }
}

impl<T> Deref for State<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> AsRef<T> for State<T> {
    fn as_ref(&self) -> &T {
        &self.0
    }
}

impl<T> Clone for State<T> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<T> From<Arc<T>> for State<T> {
    fn from(value: Arc<T>) -> Self {
        Self(value)
    }
}

impl<T: fmt::Debug> fmt::Debug for State<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("State").field(&self.0).finish()
    }
}

/// One value given to a registry, and its type's name for messages.
#[derive(Clone)]
struct Provided {
    /// An `Arc<T>`, seen as `Any`.
    value: Arc<dyn Any + Send + Sync>,
    name: &'static str,
}

/// The values given to a registry, by type: cheap to clone, and nothing at all when none
/// was given.
#[derive(Clone, Default)]
pub(crate) struct States(Option<Arc<FxHashMap<TypeId, Provided>>>);

impl States {
    /// Gives `value`, replacing a value of the same type.
    pub(crate) fn insert<T: Send + Sync + 'static>(&mut self, value: Arc<T>) {
        let map = Arc::make_mut(self.0.get_or_insert_with(Default::default));
        map.insert(
            TypeId::of::<T>(),
            Provided {
                value,
                name: std::any::type_name::<T>(),
            },
        );
    }

    /// Adds the values of `other` whose types this has none of.
    pub(crate) fn merge(&mut self, other: &States) {
        let Some(theirs) = &other.0 else { return };
        match &mut self.0 {
            None => self.0 = Some(Arc::clone(theirs)),
            Some(ours) if theirs.keys().all(|key| ours.contains_key(key)) => {}
            Some(ours) => {
                let ours = Arc::make_mut(ours);
                for (key, provided) in theirs.iter() {
                    ours.entry(*key).or_insert_with(|| provided.clone());
                }
            }
        }
    }

    /// Whether a value of the type `id` was given.
    pub(crate) fn contains(&self, id: TypeId) -> bool {
        self.0.as_ref().is_some_and(|map| map.contains_key(&id))
    }

    /// The value of type `T`, if one was given.
    pub(crate) fn get<T: 'static>(&self) -> Option<&T> {
        self.entry::<T>()?.value.downcast_ref::<T>()
    }

    /// The value of type `T`, shared, if one was given.
    pub(crate) fn shared<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        Arc::clone(&self.entry::<T>()?.value).downcast::<T>().ok()
    }

    fn entry<T: 'static>(&self) -> Option<&Provided> {
        self.0.as_ref()?.get(&TypeId::of::<T>())
    }
}

/// The same values: of the same types, each the same shared one.
impl PartialEq for States {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (None, None) => true,
            (Some(ours), Some(theirs)) => {
                ours.len() == theirs.len()
                    && ours.iter().all(|(key, provided)| {
                        theirs
                            .get(key)
                            .is_some_and(|other| Arc::ptr_eq(&provided.value, &other.value))
                    })
            }
            _ => false,
        }
    }
}

impl Eq for States {}

impl fmt::Debug for States {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut names: Vec<&str> = self
            .0
            .iter()
            .flat_map(|map| map.values().map(|provided| provided.name))
            .collect();
        names.sort_unstable();
        f.debug_set().entries(names).finish()
    }
}

/// A state type a tool takes: its `TypeId`, and its name for messages. Generated code
/// lists one function per `State<T>` parameter, each returning one of these.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateNeed {
    pub(crate) id: TypeId,
    pub(crate) name: &'static str,
}

impl StateNeed {
    /// The need of `T`.
    pub fn of<T: 'static>() -> Self {
        Self {
            id: TypeId::of::<T>(),
            name: std::any::type_name::<T>(),
        }
    }
}

/// A function naming one state type a tool takes.
pub type StateNeedFn = fn() -> StateNeed;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_is_found_by_its_type_and_the_last_given_wins() {
        let mut states = States::default();
        assert!(states.get::<u32>().is_none());
        states.insert(Arc::new(1_u32));
        states.insert(Arc::new("text"));
        states.insert(Arc::new(2_u32));
        assert_eq!(states.get::<u32>(), Some(&2));
        assert_eq!(states.shared::<&str>().as_deref(), Some(&"text"));
        assert!(states.get::<u64>().is_none());
        assert!(states.contains(TypeId::of::<u32>()));
        assert!(!states.contains(TypeId::of::<u64>()));
        assert_eq!(format!("{states:?}"), r#"{"&str", "u32"}"#);
    }

    #[test]
    fn a_merge_keeps_the_values_already_given() {
        let mut ours = States::default();
        ours.insert(Arc::new(1_u32));
        let mut theirs = States::default();
        theirs.insert(Arc::new(2_u32));
        theirs.insert(Arc::new(3_u64));
        ours.merge(&theirs);
        assert_eq!((ours.get::<u32>(), ours.get::<u64>()), (Some(&1), Some(&3)));
        let mut empty = States::default();
        empty.merge(&theirs);
        assert_eq!(empty.get::<u32>(), Some(&2));
        // The given ones are unchanged.
        assert_eq!(theirs.get::<u32>(), Some(&2));
    }

    #[test]
    fn a_state_derefs_to_its_value_and_clones_the_arc() {
        let state = State::new(String::from("config"));
        let copy = state.clone();
        assert!(Arc::ptr_eq(&state.0, &copy.0));
        assert_eq!(state.len(), 6);
        assert_eq!(State::into_arc(State::from(Arc::clone(&state.0))), state.0);
    }
}
