// The folder is read relative to the crate's manifest folder.

mcp_runtime::skills!("no/such/folder");

fn main() {}
