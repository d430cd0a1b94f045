//! The fuzz targets' corpus and regressions, replayed without libFuzzer.
//!
//! `fuzz/` holds two libFuzzer targets (see `docs/fuzzing.md`), which need nightly compiler
//! flags and time that CI does not have. Their fixture tools and invariants live in
//! `fuzz/src/`, which this test includes as a module, so every committed input goes through
//! the same checks here, in a second or two:
//!
//! - `fuzz/corpus/<target>/`: every seed holds the invariants (a finding that is one of the
//!   known bugs listed in the target's `KNOWN_BUGS` is let pass, as the fuzzers do);
//! - `fuzz/regressions/<target>/`: every input a fuzzer found a bug with. Those whose bug is
//!   fixed must hold the invariants; those listed in `open.txt` there must still break them
//!   with their known bug, and nothing else, so that a fix is noticed: the input then holds
//!   the invariants, and this test asks for its line in `open.txt` to go.
//!
//! Both directories, and `open.txt`, must exist, and each directory must hold at least as
//! many inputs as it held when its floor in `TARGETS` was last set: a moved or deleted
//! directory fails here rather than replaying nothing.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

#[allow(unreachable_pub, dead_code)]
#[path = "../../fuzz/src/lib.rs"]
mod harness;

use harness::{Finding, KnownBug};

/// One fuzz target, as this test runs it.
struct Target {
    name: &'static str,
    run: fn(&[u8]) -> Result<(), Finding>,
    known_bugs: &'static [KnownBug],
    /// The fewest seeds `fuzz/corpus/<target>/` may hold: as many as it holds today. The
    /// fuzzers only add seeds; lower it only when dropping some on purpose (`cargo fuzz cmin`).
    min_seeds: usize,
    /// The fewest inputs `fuzz/regressions/<target>/` may hold: as many as it holds today.
    /// A regression is kept for good once found, so this only grows.
    min_regressions: usize,
}

const TARGETS: [Target; 2] = [
    Target {
        name: "decode_dispatch",
        run: harness::dispatch::run,
        known_bugs: harness::dispatch::KNOWN_BUGS,
        min_seeds: 197,
        min_regressions: 2,
    },
    Target {
        name: "arguments",
        run: harness::arguments::run,
        known_bugs: harness::arguments::KNOWN_BUGS,
        min_seeds: 41,
        min_regressions: 3,
    },
];

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz")
}

/// The inputs in `dir`, sorted; its notes (`README.md`, `open.txt`) and hidden files are not.
/// Fails unless `dir` holds at least `min` of them: a missing directory is not an empty one.
fn inputs(dir: &Path, min: usize) -> Vec<(String, Vec<u8>)> {
    let entries = std::fs::read_dir(dir)
        .unwrap_or_else(|err| panic!("{}: {err}: is the path right?", dir.display()));
    let mut inputs: Vec<(String, Vec<u8>)> = entries
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.is_file())
        .filter_map(|path| {
            let name = path.file_name()?.to_str()?.to_owned();
            let note = name.starts_with('.') || name == "README.md" || name == "open.txt";
            (!note).then(|| {
                let bytes = std::fs::read(&path).unwrap_or_else(|err| panic!("{name}: {err}"));
                (name, bytes)
            })
        })
        .collect();
    inputs.sort();
    assert!(
        inputs.len() >= min,
        "{} holds {} inputs, fewer than the {min} it held: were some deleted, or moved?",
        dir.display(),
        inputs.len()
    );
    inputs
}

/// `fuzz/regressions/<target>/open.txt`: each line a file and the known bug it shows, then
/// an optional `# note`.
fn open_regressions(target: &Target) -> Vec<(String, String)> {
    let path = fuzz_dir()
        .join("regressions")
        .join(target.name)
        .join("open.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|err| {
        panic!(
            "{}: {err}: every target keeps one, even with no open bug",
            path.display()
        )
    });
    text.lines()
        .map(|line| line.split('#').next().unwrap_or_default().trim())
        .filter(|line| !line.is_empty())
        .map(|line| {
            let mut words = line.split_whitespace();
            let (Some(file), Some(bug), None) = (words.next(), words.next(), words.next()) else {
                panic!("{}: `{line}` is not `FILE BUG`", path.display());
            };
            (file.to_owned(), bug.to_owned())
        })
        .collect()
}

#[test]
fn corpus_holds_the_invariants() {
    let mut failures = Vec::new();
    for target in &TARGETS {
        let corpus = inputs(
            &fuzz_dir().join("corpus").join(target.name),
            target.min_seeds,
        );
        for (name, bytes) in corpus {
            match (target.run)(&bytes) {
                Ok(()) => {}
                Err(finding) if finding.known.is_some() => {}
                Err(finding) => failures.push(format!("{}/{name}: {finding}", target.name)),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} corpus input(s) break an invariant:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn regressions_hold_or_show_only_their_known_bug() {
    let mut failures = Vec::new();
    for target in &TARGETS {
        let dir = fuzz_dir().join("regressions").join(target.name);
        let open = open_regressions(target);
        let inputs = inputs(&dir, target.min_regressions);
        let names: BTreeSet<&str> = inputs.iter().map(|(name, _)| name.as_str()).collect();
        for (file, bug) in &open {
            if !names.contains(file.as_str()) {
                failures.push(format!(
                    "{}/open.txt names {file}, which is missing",
                    target.name
                ));
            }
            if !target.known_bugs.iter().any(|known| known.name == bug) {
                failures.push(format!(
                    "{}/open.txt: {file}'s bug `{bug}` is not in KNOWN_BUGS",
                    target.name
                ));
            }
        }
        for known in target.known_bugs {
            if !open.iter().any(|(_, bug)| bug == known.name) {
                failures.push(format!(
                    "{}: known bug `{}` has no reproducer in open.txt",
                    target.name, known.name
                ));
            }
        }
        for (name, bytes) in &inputs {
            let expected = open
                .iter()
                .find(|(file, _)| file == name)
                .map(|(_, bug)| bug);
            match ((target.run)(bytes), expected) {
                (Ok(()), None) => {}
                (Ok(()), Some(bug)) => failures.push(format!(
                    "{}/{name} holds the invariants now: `{bug}` looks fixed; move the file out of open.txt and `{bug}` out of KNOWN_BUGS",
                    target.name
                )),
                (Err(finding), Some(bug)) if finding.known.is_some_and(|known| known.name == bug) => {}
                (Err(finding), _) => failures.push(format!("{}/{name}: {finding}", target.name)),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} regression failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}
