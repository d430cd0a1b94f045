//! Has cargo rebuild the crate when a file is added to `skills/`: `skills!` embeds each
//! file it finds with `include_bytes!`, which tells cargo of the files there were, not of
//! new ones.

fn main() {
    println!("cargo::rerun-if-changed=skills");
}
