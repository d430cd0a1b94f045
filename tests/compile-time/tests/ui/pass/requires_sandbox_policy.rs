use mcp_runtime::{Registry, mcp_tool};
use mcp_runtime_core::sandbox::{
    DEFAULT_MEMORY, DEFAULT_PROCESSES, Network, SCRATCH, SandboxPolicy,
};

/// Every key of the policy.
#[mcp_tool(
    namespace = "ui",
    read_only,
    requires_sandbox(
        read = ["/srv/data", "$SCRATCH/in"],
        write = ["$OUT"],
        network = "loopback",
        memory = "1GiB",
        env = ["LANG", "TZ"],
        processes = 32,
    )
)]
fn convert(file: String) -> String {
    file
}

/// Some keys: the others at their defaults.
#[mcp_tool(namespace = "ui", requires_sandbox(network = "any", memory = "512MB"))]
async fn fetch(url: String) -> String {
    url
}

/// No key: the strict default, as the flag alone.
#[mcp_tool(namespace = "ui", requires_sandbox())]
fn strict(text: String) -> usize {
    text.len()
}

/// The flag alone.
#[mcp_tool(namespace = "ui", requires_sandbox)]
fn flagged(text: String) -> usize {
    text.len()
}

/// Not sandboxed.
#[mcp_tool(namespace = "ui", requires_sandbox = false)]
fn unsandboxed(text: String) -> usize {
    text.len()
}

fn main() {
    let registry = Registry::global();
    let policy = |name: &str| {
        let tool = registry.get(name).expect("registered");
        (
            tool.definition().sandbox().cloned(),
            tool.definition().annotations().requires_sandbox,
        )
    };

    let (convert, marked) = policy("ui.convert");
    assert!(marked);
    assert_eq!(
        convert,
        Some(SandboxPolicy {
            read: vec!["/srv/data".into(), format!("{SCRATCH}/in")],
            write: vec!["$OUT".into()],
            network: Network::Loopback,
            memory: 1 << 30,
            env: vec!["LANG".into(), "TZ".into()],
            processes: 32,
        })
    );
    // The other annotations are kept beside the policy.
    let definition = registry.get("ui.convert").unwrap().definition();
    assert_eq!(definition.annotations().read_only, Some(true));

    let (fetch, marked) = policy("ui.fetch");
    assert!(marked);
    let fetch = fetch.expect("sandboxed");
    assert_eq!(fetch.network, Network::Any);
    assert_eq!(fetch.memory, 512_000_000);
    assert!(fetch.read.is_empty() && fetch.write.is_empty() && fetch.env.is_empty());
    assert_eq!(fetch.processes, DEFAULT_PROCESSES);

    assert_eq!(policy("ui.strict"), (Some(SandboxPolicy::STRICT), true));
    assert_eq!(policy("ui.flagged"), (Some(SandboxPolicy::STRICT), true));
    assert_eq!(policy("ui.unsandboxed"), (None, false));
    assert_eq!(SandboxPolicy::STRICT.memory, DEFAULT_MEMORY);
}
