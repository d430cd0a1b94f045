//! The layers of `mcp-runtime/src`, as ARCHITECTURE.md lists them, hold in the code: every
//! `use crate::…` (grouped ones included), every `crate::…` path written inline and every
//! `super::…` path of library code points to a room of a lower level (or its own room), and
//! no files of one room import each other in a circle. Test modules (`#[cfg(test)] mod …`
//! bodies and `tests.rs` files) are left out.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

/// The layer table: each room's level, and the re-exports of a higher room's item that a
/// lower room may keep at a public path (room, path re-exported).
#[derive(Debug)]
struct Layers {
    levels: BTreeMap<String, usize>,
    kept: BTreeSet<(String, String)>,
}

/// Reads the table of ARCHITECTURE.md's "Layers" section: rows `| level | `room` | job |`,
/// and the list of kept re-exports, lines `` - `room` re-exports `path`. ``.
fn read_layers(architecture: &str) -> Layers {
    let section = architecture
        .split("\n## ")
        .find(|section| section.starts_with("Layers"))
        .expect("ARCHITECTURE.md has a section \"Layers\"");
    let mut levels = BTreeMap::new();
    let mut kept = BTreeSet::new();
    for line in section.lines() {
        let cells: Vec<&str> = line
            .trim()
            .trim_matches('|')
            .split('|')
            .map(str::trim)
            .collect();
        if line.trim_start().starts_with('|') && cells.len() >= 3 {
            if let Ok(level) = cells[0].parse::<usize>() {
                let room = cells[1].trim_matches('`').to_owned();
                assert!(
                    levels.insert(room.clone(), level).is_none(),
                    "room `{room}` is listed twice"
                );
            }
        }
        let ticked: Vec<&str> = line.split('`').collect();
        if line.trim_start().starts_with("- `") && line.contains("` re-exports `") {
            kept.insert((ticked[1].to_owned(), ticked[3].to_owned()));
        }
    }
    Layers { levels, kept }
}

/// One import of a file: the line it is on, the path as resolved from the crate root, and
/// whether it is a `pub use` (a re-export).
#[derive(Debug, Clone)]
struct Import {
    line: usize,
    path: Vec<String>,
    reexport: bool,
}

/// A breach of the layers.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Breach {
    /// `file:line` of room `from` imports room `to`, not below it.
    Upward {
        file: String,
        line: usize,
        from: (String, usize),
        to: (String, usize),
    },
    /// A file of no room the table lists.
    Unlisted { file: String, room: String },
    /// Files of one room that import each other in a circle.
    Circle { room: String, files: Vec<String> },
}

impl fmt::Display for Breach {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Upward {
                file,
                line,
                from,
                to,
            } => {
                let how = if from.1 == to.1 {
                    "a room of its own level"
                } else {
                    "a higher layer"
                };
                write!(
                    f,
                    "{file}:{line}: `{}` (level {}) imports `{}` (level {}), {how}",
                    from.0, from.1, to.0, to.1
                )
            }
            Self::Unlisted { file, room } => write!(
                f,
                "{file}: room `{room}` is not in ARCHITECTURE.md's layer table"
            ),
            Self::Circle { room, files } => write!(
                f,
                "room `{room}`: these files import each other in a circle: {}",
                files.join(", ")
            ),
        }
    }
}

/// Source text with comments, string and character literals blanked (newlines kept, so
/// that positions keep their lines), and `#[cfg(test)]` modules left out.
fn code_of(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |out: &mut String, piece: &str| {
        out.extend(piece.chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
    };
    while i < bytes.len() {
        let rest = &text[i..];
        let end = if rest.starts_with("//") {
            rest.find('\n').map_or(text.len(), |at| i + at)
        } else if rest.starts_with("/*") {
            rest.find("*/").map_or(text.len(), |at| i + at + 2)
        } else if rest.starts_with("r#\"") || rest.starts_with("r\"") {
            let hashes = rest[1..].bytes().take_while(|b| *b == b'#').count();
            let close = format!("\"{}", "#".repeat(hashes));
            rest[2 + hashes..]
                .find(&close)
                .map_or(text.len(), |at| i + 2 + hashes + at + close.len())
        } else if rest.starts_with('"') {
            let mut j = 1;
            while j < rest.len() && rest.as_bytes()[j] != b'"' {
                j += if rest.as_bytes()[j] == b'\\' { 2 } else { 1 };
            }
            i + (j + 1).min(rest.len())
        } else if let Some(escaped) = rest.strip_prefix("'\\") {
            escaped.find('\'').map_or(text.len(), |at| i + 2 + at + 1)
        } else if rest.starts_with('\'') && rest.chars().nth(2) == Some('\'') {
            i + 1 + rest[1..].chars().next().map_or(0, char::len_utf8) + 1
        } else {
            let c = rest.chars().next().unwrap_or(' ');
            out.push(c);
            i += c.len_utf8();
            continue;
        };
        blank(&mut out, &text[i..end]);
        i = end;
    }
    without_test_modules(&out)
}

/// `code` with the bodies of `#[cfg(test)] mod name { … }` blanked.
fn without_test_modules(code: &str) -> String {
    let mut out = code.to_owned();
    let mut from = 0;
    while let Some(at) = out[from..].find("#[cfg(test)]").map(|at| from + at) {
        let after = &out[at + "#[cfg(test)]".len()..];
        let item = after.trim_start();
        from = at + 1;
        if !(item.starts_with("mod ") || item.starts_with("pub(crate) mod ")) {
            continue;
        }
        let Some(open) = after
            .find(['{', ';'])
            .map(|o| at + "#[cfg(test)]".len() + o)
        else {
            continue;
        };
        if out.as_bytes()[open] == b';' {
            continue;
        }
        let mut depth = 0;
        let mut close = out.len();
        for (offset, byte) in out.as_bytes()[open..].iter().enumerate() {
            match byte {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = open + offset + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        let blanked: String = out[at..close]
            .chars()
            .map(|c| if c == '\n' { '\n' } else { ' ' })
            .collect();
        out.replace_range(at..close, &blanked);
    }
    out
}

/// The paths a file's code names from `crate`, `$crate`, `self` or `super`, each with its
/// line, as written (`["super", "ask", "Asks"]`); a group `use a::{b, c::{d, e}}` gives
/// each of its paths.
fn paths_in(code: &str) -> Vec<(usize, Vec<String>, bool)> {
    let bytes = code.as_bytes();
    let line_starts: Vec<usize> = code.match_indices('\n').map(|(at, _)| at).collect();
    let line_of = |at: usize| line_starts.partition_point(|start| *start < at) + 1;
    let mut found = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let word_start = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        let head = ["crate", "super", "self"].into_iter().find(|head| {
            word_start && code[i..].starts_with(head) && code[i + head.len()..].starts_with("::")
        });
        let Some(head) = head else {
            i += 1;
            continue;
        };
        let before = code[..i].trim_end();
        let reexport = before.ends_with("pub use")
            || before.ends_with("pub(crate) use")
            || (before.ends_with('{') || before.ends_with(',')) && statement_is_reexport(code, i);
        let (tree, end) = use_tree(code, i);
        for path in expand(&tree, head) {
            found.push((line_of(i), path, reexport));
        }
        i = end.max(i + head.len());
    }
    found
}

/// Whether the statement around `at` is a `pub use`.
fn statement_is_reexport(code: &str, at: usize) -> bool {
    let start = code[..at].rfind(';').map_or(0, |s| s + 1);
    let statement = code[start..at].trim_start();
    statement.starts_with("pub use") || statement.starts_with("pub(crate) use")
}

/// The use tree starting at `at`: its text up to its end (a group closed, or the first
/// character that cannot be in a path), and that end.
fn use_tree(code: &str, at: usize) -> (String, usize) {
    let mut depth = 0_usize;
    let mut end = at;
    for (offset, c) in code[at..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    end = at + offset + 1;
                    break;
                }
            }
            c if depth > 0 || c.is_alphanumeric() || c == '_' || c == ':' => {}
            _ => break,
        }
        end = at + offset + c.len_utf8();
    }
    (code[at..end].to_owned(), end)
}

/// The paths of a use tree: `a::{b, c::{d, self}}` gives `a::b`, `a::c::d`, `a::c`.
fn expand(tree: &str, head: &str) -> Vec<Vec<String>> {
    let tree: String = without_aliases(tree)
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let mut paths = Vec::new();
    expand_into(&tree, &mut Vec::new(), &mut paths);
    paths.retain(|path| path.first().is_some_and(|first| first == head));
    paths
}

/// `tree` without its renamings (`a::B as C` is `a::B`).
fn without_aliases(tree: &str) -> String {
    let words: Vec<&str> = tree.split_whitespace().collect();
    let mut kept = Vec::new();
    let mut i = 0;
    while i < words.len() {
        if words[i] == "as" && i + 1 < words.len() {
            // The alias ends where its name does: keep what follows it (`,` or `}`).
            let after = words[i + 1].trim_start_matches(|c: char| c.is_alphanumeric() || c == '_');
            kept.push(after);
            i += 2;
        } else {
            kept.push(words[i]);
            i += 1;
        }
    }
    kept.join(" ")
}

fn expand_into(tree: &str, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    let (path, group) = match tree.find('{') {
        Some(open) => (
            &tree[..open],
            Some(&tree[open + 1..tree.len().saturating_sub(1)]),
        ),
        None => (tree, None),
    };
    let depth = prefix.len();
    for segment in path.split("::").filter(|s| !s.is_empty()) {
        // `self` within a group names the group's own path; at the head, the module.
        if segment != "self" || prefix.is_empty() {
            prefix.push(segment.to_owned());
        }
    }
    match group {
        None => out.push(prefix.clone()),
        Some(group) => {
            let mut level = 0;
            let mut start = 0;
            let bytes = group.as_bytes();
            for (i, byte) in bytes.iter().enumerate() {
                match byte {
                    b'{' => level += 1,
                    b'}' => level -= 1,
                    b',' if level == 0 => {
                        expand_into(&group[start..i], prefix, out);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            if start < group.len() {
                expand_into(&group[start..], prefix, out);
            }
        }
    }
    prefix.truncate(depth);
}

/// A module path from the source file's path under `src`: `talk/ask.rs` is `talk::ask`,
/// `talk/mod.rs` is `talk`, `lib.rs` the crate root.
fn module_of(file: &str) -> Vec<String> {
    let mut parts: Vec<String> = file
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_owned)
        .collect();
    if parts
        .last()
        .is_some_and(|last| last == "mod" || last == "lib")
    {
        parts.pop();
    }
    parts
}

/// The imports of every file, by file, resolved from the crate root; and the names
/// `lib.rs` re-exports, by name, to their paths.
struct Crate {
    files: BTreeMap<String, Vec<Import>>,
    modules: BTreeMap<Vec<String>, String>,
    root_names: BTreeMap<String, Vec<String>>,
}

impl Crate {
    /// Reads `sources` (path under `src`, text).
    fn new(sources: &[(String, String)]) -> Self {
        let modules = sources
            .iter()
            .map(|(file, _)| (module_of(file), file.clone()))
            .collect();
        let mut files = BTreeMap::new();
        let mut root_names = BTreeMap::new();
        for (file, text) in sources {
            let code = code_of(text);
            let me = module_of(file);
            let mut imports = Vec::new();
            for (line, path, reexport) in paths_in(&code) {
                let Some(path) = absolute(&me, &path) else {
                    continue;
                };
                if file == "lib.rs" && reexport {
                    if let Some(name) = path.last() {
                        root_names.insert(name.clone(), path.clone());
                    }
                }
                imports.push(Import {
                    line,
                    path,
                    reexport,
                });
            }
            if file == "lib.rs" {
                for (name, path) in root_reexports(&code) {
                    root_names.entry(name).or_insert(path);
                }
            }
            files.insert(file.clone(), imports);
        }
        Self {
            files,
            modules,
            root_names,
        }
    }

    /// The file that defines what `path` names: the longest prefix of it that is a module
    /// of the crate, a name `lib.rs` re-exports followed to its module; `None` for what
    /// lies outside the crate.
    fn file_of(&self, path: &[String]) -> Option<&String> {
        if let Some(target) = path.first().and_then(|first| self.root_names.get(first)) {
            if !self.modules.contains_key(&path[..1]) {
                let mut followed = target.clone();
                followed.extend(path[1..].iter().cloned());
                return (1..=followed.len())
                    .rev()
                    .find_map(|k| self.modules.get(&followed[..k]));
            }
        }
        (1..=path.len())
            .rev()
            .find_map(|k| self.modules.get(&path[..k]))
    }
}

/// `lib.rs`'s `pub use room::…` of local modules, written without `crate::`, by name.
fn root_reexports(code: &str) -> Vec<(String, Vec<String>)> {
    let mut names = Vec::new();
    for statement in code.split(';') {
        let Some(tree) = statement
            .find("pub use ")
            .map(|at| &statement[at + "pub use ".len()..])
        else {
            continue;
        };
        let tree = tree.trim();
        let Some(head) = tree.split("::").next() else {
            continue;
        };
        for path in expand(tree, head) {
            if let Some(name) = path.last() {
                names.push((name.clone(), path.clone()));
            }
        }
    }
    names
}

/// `path` as written in module `me`, from the crate root; `None` for `self::`
/// and `super::` paths that climb out of the crate.
fn absolute(me: &[String], path: &[String]) -> Option<Vec<String>> {
    let (head, rest) = path.split_first()?;
    let mut base: Vec<String> = match head.as_str() {
        "crate" => Vec::new(),
        "self" => me.to_vec(),
        // `super` in `a/mod.rs` (module `a`) and in `a/b.rs` (module `a::b`) alike is the
        // parent of the file's module.
        "super" => me.get(..me.len().checked_sub(1)?)?.to_vec(),
        _ => return None,
    };
    let mut rest = rest.iter().peekable();
    while rest.peek().is_some_and(|segment| *segment == "super") {
        base.pop()?;
        rest.next();
    }
    base.extend(rest.cloned());
    Some(base)
}

/// Every breach of `layers` in the crate of `sources` (path under `src`, text).
fn check(sources: &[(String, String)], layers: &Layers) -> Vec<Breach> {
    let krate = Crate::new(sources);
    let room_of = |file: &str| {
        file.split('/')
            .next()
            .unwrap_or(file)
            .trim_end_matches(".rs")
            .to_owned()
    };
    let mut breaches = BTreeSet::new();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, imports) in &krate.files {
        if file == "lib.rs" {
            continue;
        }
        let from = room_of(file);
        let Some(&from_level) = layers.levels.get(&from) else {
            breaches.insert(Breach::Unlisted {
                file: file.clone(),
                room: from,
            });
            continue;
        };
        for import in imports {
            let Some(target) = krate.file_of(&import.path) else {
                continue;
            };
            if target == file || target == "lib.rs" {
                continue;
            }
            let to = room_of(target);
            if to == from {
                edges
                    .entry(file.clone())
                    .or_default()
                    .insert(target.clone());
                continue;
            }
            let to_level = layers.levels.get(&to).copied().unwrap_or(usize::MAX);
            let kept = import.reexport
                && layers
                    .kept
                    .contains(&(from.clone(), import.path.join("::")));
            if to_level >= from_level && !kept {
                breaches.insert(Breach::Upward {
                    file: file.clone(),
                    line: import.line,
                    from: (from.clone(), from_level),
                    to: (to, to_level),
                });
            }
        }
    }
    for files in circles(&edges) {
        breaches.insert(Breach::Circle {
            room: room_of(&files[0]),
            files,
        });
    }
    breaches.into_iter().collect()
}

/// The circles of a graph of files: its strongly connected components of two or more.
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Tarjan<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<Vec<String>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, v: &'a str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.edges.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    component.push(w.to_owned());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.found.push(component);
                }
            }
        }
    }
    let mut tarjan = Tarjan {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in edges.keys() {
        if !tarjan.index.contains_key(v.as_str()) {
            tarjan.visit(v);
        }
    }
    tarjan.found
}

/// The library sources of `mcp-runtime/src`, by path under it; `tests.rs` files left out.
fn library_sources(src: &Path) -> Vec<(String, String)> {
    fn walk(dir: &Path, src: &Path, out: &mut Vec<(String, String)>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap_or_else(|err| panic!("{}: {err}", dir.display()))
            .map(|entry| entry.expect("a directory entry").path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, src, out);
            } else if path.extension().is_some_and(|ext| ext == "rs")
                && path.file_name().is_some_and(|name| name != "tests.rs")
            {
                let file = path
                    .strip_prefix(src)
                    .expect("under src")
                    .to_string_lossy()
                    .replace('\\', "/");
                let text = std::fs::read_to_string(&path)
                    .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
                out.push((file, text));
            }
        }
    }
    let mut out = Vec::new();
    walk(src, src, &mut out);
    out
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn no_import_of_the_library_points_up_or_runs_in_a_circle() {
    let architecture = std::fs::read_to_string(workspace().join("ARCHITECTURE.md"))
        .expect("ARCHITECTURE.md at the workspace root");
    let layers = read_layers(&architecture);
    assert!(
        layers.levels.len() >= 10,
        "the layer table lists too few rooms: {:?}",
        layers.levels
    );
    let sources = library_sources(&workspace().join("mcp-runtime/src"));
    assert!(
        sources.len() > 50 && sources.iter().any(|(file, _)| file == "lib.rs"),
        "mcp-runtime/src read: {} files",
        sources.len()
    );
    let krate = Crate::new(&sources);
    let imports: usize = krate.files.values().map(Vec::len).sum();
    assert!(imports > 300, "only {imports} imports read");
    let breaches = check(&sources, &layers);
    let listed: Vec<String> = breaches.iter().map(ToString::to_string).collect();
    assert!(
        listed.is_empty(),
        "the layers of ARCHITECTURE.md do not hold:\n{}",
        listed.join("\n")
    );
}

/// A table of three rooms for the checker's own tests.
fn three_layers() -> Layers {
    read_layers(
        "# A\n\n## Layers\n\n| Level | Room | Job |\n|---|---|---|\n\
         | 1 | `low` | below |\n| 2 | `mid` | between |\n| 2 | `side` | beside |\n\
         | 3 | `high` | above |\n\nKept:\n\n- `low` re-exports `high::entry`.\n\n## Other\n\n| 9 | `x` | y |\n",
    )
}

fn sources(files: &[(&str, &str)]) -> Vec<(String, String)> {
    files
        .iter()
        .map(|(file, text)| ((*file).to_owned(), (*text).to_owned()))
        .collect()
}

#[test]
fn the_table_is_read_from_the_layers_section_only() {
    let layers = three_layers();
    assert_eq!(
        layers.levels,
        BTreeMap::from([
            ("low".to_owned(), 1),
            ("mid".to_owned(), 2),
            ("side".to_owned(), 2),
            ("high".to_owned(), 3),
        ])
    );
    assert_eq!(
        layers.kept,
        BTreeSet::from([("low".to_owned(), "high::entry".to_owned())])
    );
}

#[test]
fn a_planted_upward_import_is_caught_with_its_file_line_and_layers() {
    let lib = "mod low;\nmod mid;\nmod side;\nmod high;\npub use mid::Thing;\n";
    let clean = sources(&[
        ("lib.rs", lib),
        ("low.rs", "pub struct Base;\n"),
        (
            "mid/mod.rs",
            "mod part;\nuse crate::low::Base;\npub struct Thing;\n",
        ),
        (
            "mid/part.rs",
            "use super::Thing;\nfn f(_: crate::low::Base) {}\n",
        ),
        (
            "side.rs",
            "// use crate::high::Top; in a comment\nconst S: &str = \"crate::high::Top\";\n",
        ),
        (
            "high.rs",
            "use crate::{low::Base, mid::{Thing, part}};\npub struct Top;\n",
        ),
    ]);
    assert_eq!(check(&clean, &three_layers()), []);

    let planted = |file: &'static str, text: &'static str| {
        let mut planted = clean.clone();
        planted.retain(|(name, _)| name != file);
        planted.push((file.to_owned(), text.to_owned()));
        check(&planted, &three_layers())
    };
    let upward = |file: &str, line, from: (&str, usize), to: (&str, usize)| Breach::Upward {
        file: file.to_owned(),
        line,
        from: (from.0.to_owned(), from.1),
        to: (to.0.to_owned(), to.1),
    };
    // A plain `use`, up two levels.
    assert_eq!(
        planted("low.rs", "pub struct Base;\n\nuse crate::high::Top;\n"),
        [upward("low.rs", 3, ("low", 1), ("high", 3))]
    );
    // Inside a group, nested.
    assert_eq!(
        planted("mid/part.rs", "use crate::{low::Base, high::{Top}};\n"),
        [upward("mid/part.rs", 1, ("mid", 2), ("high", 3))]
    );
    // An inline path, through `super::super`.
    assert_eq!(
        planted(
            "mid/part.rs",
            "fn f() {\n    let _ = super::super::high::Top;\n}\n"
        ),
        [upward("mid/part.rs", 2, ("mid", 2), ("high", 3))]
    );
    // A name `lib.rs` re-exports is followed to its room: a sibling of the same level.
    assert_eq!(
        planted("side.rs", "fn f(_: crate::Thing) {}\n"),
        [upward("side.rs", 1, ("side", 2), ("mid", 2))]
    );
    // A kept re-export is allowed only as a `pub use` of the path the table lists.
    assert_eq!(planted("low.rs", "pub use crate::high::entry;\n"), []);
    assert_eq!(
        planted("low.rs", "use crate::high::entry;\n"),
        [upward("low.rs", 1, ("low", 1), ("high", 3))]
    );
    // A test module may import anything.
    assert_eq!(
        planted(
            "low.rs",
            "#[cfg(test)]\nmod tests {\n    use crate::high::Top;\n}\n"
        ),
        []
    );
}

#[test]
fn a_circle_within_a_room_is_caught_naming_its_files() {
    let circle = sources(&[
        ("lib.rs", "mod low;\n"),
        ("low/mod.rs", "mod a;\nmod b;\n"),
        ("low/a.rs", "use super::b::B;\npub struct A;\n"),
        ("low/b.rs", "pub struct B(crate::low::a::A);\n"),
    ]);
    assert_eq!(
        check(&circle, &three_layers()),
        [Breach::Circle {
            room: "low".to_owned(),
            files: vec!["low/a.rs".to_owned(), "low/b.rs".to_owned()],
        }]
    );
}

#[test]
fn a_room_the_table_does_not_list_is_a_breach() {
    let unlisted = sources(&[("lib.rs", "mod other;\n"), ("other.rs", "")]);
    assert_eq!(
        check(&unlisted, &three_layers()),
        [Breach::Unlisted {
            file: "other.rs".to_owned(),
            room: "other".to_owned(),
        }]
    );
}
