//! Tools served over streamable HTTP, behind a bearer token, with the server API rather than
//! the command line: `MCP_TOKEN` is the token (required), `MCP_ADDR` the address
//! (`127.0.0.1:8080` by default).

use std::sync::Arc;

use mcp_runtime::server::{self, HttpConfig, Server};
use mcp_runtime::{Registry, mcp_tool};

/// Seconds since the Unix epoch.
#[mcp_tool(namespace = "clock", read_only, open_world = false, inline)]
fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}

/// Say something back.
#[mcp_tool(namespace = "echo", read_only, idempotent, open_world = false, inline)]
fn say(
    /// What to say.
    text: String,
) -> String {
    text
}

fn main() -> std::process::ExitCode {
    let Ok(token) = std::env::var("MCP_TOKEN") else {
        eprintln!("error: set MCP_TOKEN to the bearer token clients must send");
        return std::process::ExitCode::from(2);
    };
    let address = std::env::var("MCP_ADDR").unwrap_or_else(|_| "127.0.0.1:8080".to_owned());
    let Ok(address) = address.parse() else {
        eprintln!("error: MCP_ADDR `{address}` is not an address such as 127.0.0.1:8080");
        return std::process::ExitCode::from(2);
    };
    let config = HttpConfig {
        token: Some(token),
        ..HttpConfig::default()
    };
    let server = Arc::new(Server::new(Registry::global()));
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("error: cannot start the runtime: {err}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let served = runtime.block_on(server::serve_http(server, address, config, |bound| {
        eprintln!("listening on http://{bound}/mcp");
    }));
    match served {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            std::process::ExitCode::FAILURE
        }
    }
}
