//! Serves tools defined in another crate. Using the library (here, `use … as _`) links it
//! into the binary, and with it its tools: a library that nothing uses may not be linked
//! at all, and its tools would be missing.

use multi_crate_tools as _;

fn main() {
    mcp_runtime::cli::run!()
}
