use mcp_runtime::mcp_tool;

/// Searches contracts.
#[mcp_tool(
    namespace = "document_management_system_archive_tools_for_the_legal_team",
    name = "search_every_archived_contract_by_counterparty_name_and_signature_date"
)]
fn search(counterparty: String) -> Vec<String> {
    vec![counterparty]
}

fn main() {}
