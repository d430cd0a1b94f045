//! The stdio floor: a hand-written JSON-RPC loop over `std::io` and serde, no framework and
//! no async runtime, serving `bench.add` with the framework's exact answers.
//!
//! It reads newline-delimited messages from standard input and answers each in turn through
//! one buffered writer, flushed only when no more input is already buffered, so requests
//! sent in a burst are answered in a batch.

use std::io::{self, BufRead, BufReader, BufWriter, Write};

#[path = "../floor.rs"]
mod floor;

fn main() -> io::Result<()> {
    let stdin = io::stdin();
    let stdout = io::stdout();
    let mut reader = BufReader::with_capacity(64 * 1024, stdin.lock());
    let mut writer = BufWriter::with_capacity(64 * 1024, stdout.lock());
    let mut line = Vec::with_capacity(1024);
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        if !line.iter().all(u8::is_ascii_whitespace)
            && floor::answer(&line, "floor-stdio", &mut writer)?
        {
            writer.write_all(b"\n")?;
        }
        if reader.buffer().is_empty() {
            writer.flush()?;
        }
    }
    writer.flush()
}
