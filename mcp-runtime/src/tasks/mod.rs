//! Long-running tools as tasks: MCP's tasks extension (`io.modelcontextprotocol/tasks`).
//!
//! A tool marked `#[mcp_tool(task = "optional")]` (or `"required"`) is answered, for a client
//! that supports the extension, with a task handle at once; the client polls `tasks/get`,
//! answers the tool's questions with `tasks/update`, cancels with `tasks/cancel`, and finds
//! the result inlined in `tasks/get` once the task completed. The state lives in a
//! [`TaskStore`]: this process's memory by default, or Redis shared by every replica
//! (`RedisStore`, feature `redis`), so that any replica answers for any task.

pub(crate) mod engine;
mod memory;
#[cfg(feature = "redis")]
mod redis;
mod store;

pub use engine::TaskSettings;

pub use memory::{DEFAULT_MEMORY_CAPACITY, MemoryStore};
#[cfg(feature = "redis")]
pub use redis::{DEFAULT_NAMESPACE, RedisStore};
#[cfg(all(feature = "redis", feature = "http"))]
pub(crate) use redis::{
    address as redis_address, redact as redact_redis_url, subscribe as redis_subscribe,
};
pub use store::{
    Change, DEFAULT_LEASE, DOORBELL_CAPACITY, Doorbell, StoreError, StoreFuture, TaskRecord,
    TaskStatus, TaskStore, Versioned, iso8601, modify, now_ms,
};

/// The extension's identifier, under `capabilities.extensions`.
pub const EXTENSION: &str = mcp_runtime_core::method::TASKS_EXTENSION;
