use mcp_runtime::mcp_tool;

/// Looks up a tenant.
#[mcp_tool(namespace = "ui")]
fn tenant(#[mcp(header = "Tenant Id")] tenant_id: String) -> String {
    tenant_id
}

fn main() {}
