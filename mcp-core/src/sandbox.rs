//! What a tool marked `requires_sandbox` may reach: its [`SandboxPolicy`].
//!
//! The policy is data: the runtime enforces it, in a worker process that isolates itself
//! before it reads the call's arguments.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The path of a call's own scratch directory, in a policy's `read` and `write` lists: a
/// fresh, empty directory made for each call and removed after it, the worker's current
/// directory.
pub const SCRATCH: &str = "$SCRATCH";

/// The memory a sandboxed tool may map unless its policy says otherwise: 256 MiB.
pub const DEFAULT_MEMORY: u64 = 256 * 1024 * 1024;

/// The processes (its own included) a sandboxed tool may run at once unless its policy
/// says otherwise.
pub const DEFAULT_PROCESSES: u32 = 8;

/// The open files a sandboxed tool may hold at once.
pub const OPEN_FILES: u64 = 64;

/// What network a sandboxed tool may reach.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Network {
    /// None: no socket can be made, in a network namespace with no interface up.
    #[default]
    None,
    /// A loopback interface of the call's own, in a network namespace of its own: the tool
    /// may make IPv4 and IPv6 sockets only, serve and connect to itself, and reaches
    /// nothing of the host's, its loopback services included.
    Loopback,
    /// The host's network, as the server has it: the tool stays in the host's network
    /// namespace, reaches every address the server reaches (the host's loopback services
    /// and the cloud's metadata endpoint included) and may make a socket of any family
    /// its user may, Unix sockets included. Files, signals, processes and memory stay
    /// confined as for any sandboxed tool.
    Any,
}

impl Network {
    /// What `network = "…"` calls it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Loopback => "loopback",
            Self::Any => "any",
        }
    }

    /// The network `name` names: `none`, `loopback` or `any`.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "none" => Some(Self::None),
            "loopback" => Some(Self::Loopback),
            "any" => Some(Self::Any),
            _ => None,
        }
    }
}

impl fmt::Display for Network {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A size of memory as a policy writes it: `"256MiB"`, `"1 GiB"`, `"512MB"`.
///
/// ```
/// use mcp_runtime_core::sandbox::parse_memory;
///
/// assert_eq!(parse_memory("1GiB"), Ok(1 << 30));
/// assert!(parse_memory("lots").is_err());
/// ```
pub fn parse_memory(text: &str) -> Result<u64, MemoryError> {
    let size: bytesize::ByteSize = text.trim().parse().map_err(|_| MemoryError::NotASize {
        text: text.to_owned(),
    })?;
    if size.as_u64() < 16 * 1024 * 1024 {
        return Err(MemoryError::TooSmall {
            text: text.to_owned(),
        });
    }
    Ok(size.as_u64())
}

/// A size of memory that [`parse_memory`] refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MemoryError {
    /// Not a number and a unit.
    #[error(
        "{text:?} is not a size of memory: write a number and a unit, as \"256MiB\" or \"1GiB\""
    )]
    NotASize {
        /// The size as written.
        text: String,
    },
    /// Less than the 16 MiB a worker needs to start.
    #[error("{text:?} is less than the 16 MiB a worker needs to start")]
    TooSmall {
        /// The size as written.
        text: String,
    },
}

/// A size of memory as a policy shows it, exactly, in the largest binary unit that divides
/// it: `256 MiB`, `1 GiB`, `512000000 B`.
pub fn display_memory(bytes: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    UNITS
        .iter()
        .find(|(unit, _)| bytes != 0 && bytes % unit == 0)
        .map_or_else(
            || format!("{bytes} B"),
            |(unit, name)| format!("{} {name}", bytes / unit),
        )
}

/// What a tool marked `requires_sandbox` may reach; by default nothing but a scratch
/// directory of its own for each call. The CPU time it may use is its timeout's.
///
/// ```
/// use mcp_runtime_core::sandbox::{Network, SandboxPolicy};
///
/// let strict = SandboxPolicy::default();
/// assert_eq!(strict.network, Network::None);
/// assert!(strict.read.is_empty() && strict.env.is_empty());
/// assert_eq!(strict.memory, 256 << 20);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SandboxPolicy {
    /// Paths the tool may read, files or directories (and all beneath them). A path may
    /// start with [`SCRATCH`], or with `$NAME`, a path the server's configuration gives
    /// (`--sandbox-path NAME=DIR`).
    #[serde(default)]
    pub read: Vec<String>,
    /// Paths the tool may read and write, as `read`'s. The scratch directory always is.
    #[serde(default)]
    pub write: Vec<String>,
    /// What network it may reach.
    #[serde(default)]
    pub network: Network,
    /// The memory it may map, in bytes.
    #[serde(default = "default_memory", with = "memory_text")]
    pub memory: u64,
    /// The names of the server's environment variables it sees; it sees none other.
    #[serde(default)]
    pub env: Vec<String>,
    /// How many processes it may run at once, its own included.
    #[serde(default = "default_processes")]
    pub processes: u32,
}

fn default_memory() -> u64 {
    DEFAULT_MEMORY
}

fn default_processes() -> u32 {
    DEFAULT_PROCESSES
}

impl Default for SandboxPolicy {
    fn default() -> Self {
        Self::STRICT
    }
}

impl SandboxPolicy {
    /// The strict default: no network, no file but the scratch directory, no environment,
    /// [`DEFAULT_MEMORY`], [`DEFAULT_PROCESSES`].
    pub const STRICT: Self = Self {
        read: Vec::new(),
        write: Vec::new(),
        network: Network::None,
        memory: DEFAULT_MEMORY,
        env: Vec::new(),
        processes: DEFAULT_PROCESSES,
    };

    /// This policy with `path` readable.
    #[must_use]
    pub fn read(mut self, path: impl Into<String>) -> Self {
        self.read.push(path.into());
        self
    }

    /// This policy with `path` readable and writable.
    #[must_use]
    pub fn write(mut self, path: impl Into<String>) -> Self {
        self.write.push(path.into());
        self
    }

    /// This policy with `network`.
    #[must_use]
    pub fn network(mut self, network: Network) -> Self {
        self.network = network;
        self
    }

    /// This policy with `bytes` of memory.
    #[must_use]
    pub fn memory(mut self, bytes: u64) -> Self {
        self.memory = bytes;
        self
    }

    /// This policy passing the server's environment variable `name` on.
    #[must_use]
    pub fn env(mut self, name: impl Into<String>) -> Self {
        self.env.push(name.into());
        self
    }

    /// This policy with at most `processes` at once.
    #[must_use]
    pub fn processes(mut self, processes: u32) -> Self {
        self.processes = processes;
        self
    }
}

impl fmt::Display for SandboxPolicy {
    /// One line: `network none, memory 256 MiB, 8 processes, read …, write $SCRATCH, env …`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "network {}, memory {}, {} processes",
            self.network,
            display_memory(self.memory),
            self.processes
        )?;
        if !self.read.is_empty() {
            write!(f, ", read {}", self.read.join(" "))?;
        }
        write!(f, ", write {SCRATCH}")?;
        for path in &self.write {
            write!(f, " {path}")?;
        }
        if !self.env.is_empty() {
            write!(f, ", env {}", self.env.join(" "))?;
        }
        Ok(())
    }
}

/// `memory` written as `"256 MiB"` and read from any size [`parse_memory`] reads, or a
/// number of bytes.
mod memory_text {
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    pub(super) fn serialize<S: Serializer>(bytes: &u64, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&super::display_memory(*bytes))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Memory {
            Bytes(u64),
            Text(String),
        }
        match Memory::deserialize(deserializer)? {
            Memory::Bytes(bytes) => Ok(bytes),
            Memory::Text(text) => super::parse_memory(&text).map_err(D::Error::custom),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_in_either_unit_and_show_in_binary_ones() {
        assert_eq!(parse_memory("256MiB"), Ok(256 << 20));
        assert_eq!(parse_memory("1 GiB"), Ok(1 << 30));
        assert_eq!(parse_memory("512MB"), Ok(512_000_000));
        assert!(
            parse_memory("1KiB")
                .unwrap_err()
                .to_string()
                .contains("16 MiB")
        );
        assert!(
            parse_memory("much")
                .unwrap_err()
                .to_string()
                .contains("not a size")
        );
        assert!(matches!(
            parse_memory("1KiB"),
            Err(MemoryError::TooSmall { .. })
        ));
        assert_eq!(display_memory(256 << 20), "256 MiB");
        assert_eq!(display_memory(512_000_000), "500000 KiB");
    }

    #[test]
    fn a_policy_reads_back_what_it_writes_and_refuses_unknown_keys() {
        let policy = SandboxPolicy::default()
            .read("/srv/data")
            .network(Network::Loopback)
            .memory(1 << 30)
            .env("LANG");
        let json = serde_json::to_value(&policy).unwrap();
        assert_eq!(json["memory"], "1 GiB");
        assert_eq!(json["network"], "loopback");
        let back: SandboxPolicy = serde_json::from_value(json).unwrap();
        assert_eq!(back, policy);
        let short: SandboxPolicy =
            serde_json::from_value(serde_json::json!({"memory": "64MiB"})).unwrap();
        assert_eq!(short, SandboxPolicy::default().memory(64 << 20));
        let err = serde_json::from_value::<SandboxPolicy>(serde_json::json!({"netwrk": "any"}))
            .unwrap_err();
        assert!(err.to_string().contains("netwrk"), "{err}");
    }
}
