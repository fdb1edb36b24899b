//! The module map in `docs/design.md` is the code's: every module of the
//! library belongs to one row of the map, each row's "Imports" column lists
//! exactly the rows its code names, and no two modules name each other in a
//! circle (file by file, not only between folders).
//!
//! The code is read here with a small lexer of its own (comments, strings
//! and `#[cfg(test)]` items dropped; `crate::`, `super::` and `self::` paths
//! and `use` trees followed), so the map is checked against the source as
//! written, not against anything kiln computes. `KILN_PRINT_MODULE_MAP=1`
//! prints the rows as the code has them, to redraw the map after a move.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type ModPath = Vec<String>;

#[test]
fn the_module_map_in_the_design_notes_is_the_code() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let modules = library_modules(&root.join("src"));
    let edges = edges(&modules);
    let (rows, order) = map_rows(&root.join("docs/design.md"));
    assert!(
        rows.len() > 20,
        "the module map has only {} rows",
        rows.len()
    );

    let mut unmapped = Vec::new();
    let mut actual: BTreeMap<ModPath, BTreeSet<ModPath>> =
        rows.keys().map(|r| (r.clone(), BTreeSet::new())).collect();
    for m in modules.keys() {
        if row_of(&rows, m).is_none() {
            unmapped.push(m.join("::"));
        }
    }
    assert!(
        unmapped.is_empty(),
        "modules missing from the map in docs/design.md: {unmapped:?}"
    );
    for (from, tos) in &edges {
        let rf = row_of(&rows, from).unwrap();
        for to in tos {
            let rt = row_of(&rows, to).unwrap();
            // A folder's own files may use its parts: that is what a
            // folder is. Everything else is an import the map must name.
            if rt == rf || is_prefix(&rf, &rt) {
                continue;
            }
            actual.get_mut(&rf).unwrap().insert(rt);
        }
    }
    if std::env::var_os("KILN_PRINT_MODULE_MAP").is_some() {
        for (row, imports) in &actual {
            eprintln!("{} | {}", show(row), list(imports));
        }
    }
    let mut wrong = Vec::new();
    for (row, listed) in &rows {
        let have = &actual[row];
        if have != listed {
            wrong.push(format!(
                "`{}`: the map says {} but the code imports {}",
                show(row),
                list(listed),
                list(have)
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "docs/design.md is not the code:\n{}",
        wrong.join("\n")
    );

    // The table is a layering: read top to bottom, nothing imports a row
    // below it.
    for (at, row) in order.iter().enumerate() {
        for import in &rows[row] {
            let below = order.iter().position(|r| r == import).unwrap();
            assert!(
                below < at,
                "`{}` imports `{}`, which the module map lists below it",
                show(row),
                show(import)
            );
        }
    }

    let file_cycles = cycles(&edges);
    assert!(file_cycles.is_empty(), "module cycles: {file_cycles:?}");
    let row_cycles = cycles(&actual);
    assert!(
        row_cycles.is_empty(),
        "cycles between map rows: {row_cycles:?}"
    );
}

/// The lexer and the path reader see what the compiler sees: an import in a
/// comment, a string or a test module is no import.
#[test]
fn the_reader_follows_use_trees_and_skips_what_is_not_code() {
    let text = r##"
        use crate::a::{b::{self, C}, d as e};
        use super::f;
        // use crate::comment;
        /* crate::block */
        const S: &str = "crate::string";
        const R: &str = r#"crate::raw"#;
        fn g<'a>(x: &'a u8) -> char { let _ = crate::h::I::new(); 'c' }
        #[cfg(test)]
        mod tests { use crate::tested; }
        #[cfg(test)]
        use crate::only_tests;
    "##;
    let mut seen: Vec<String> = paths(text, &["m".into(), "n".into()])
        .iter()
        .map(|p| p.join("::"))
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        ["a::b", "a::b::C", "a::d", "h::I::new", "m::f"],
        "paths read from the sample"
    );
}

fn show(row: &ModPath) -> String {
    row.join("/")
}

fn list(rows: &BTreeSet<ModPath>) -> String {
    if rows.is_empty() {
        "—".into()
    } else {
        rows.iter().map(show).collect::<Vec<_>>().join(", ")
    }
}

fn is_prefix(a: &[String], b: &[String]) -> bool {
    a.len() <= b.len() && b[..a.len()] == *a
}

fn row_of(rows: &Rows, m: &ModPath) -> Option<ModPath> {
    rows.keys()
        .filter(|r| is_prefix(r, m))
        .max_by_key(|r| r.len())
        .cloned()
}

/// The rows between the `module-map` markers: `| `name` | … | imports |`,
/// a name as `error.rs`, `scene/` or `bake/sheet/`.
type Rows = BTreeMap<ModPath, BTreeSet<ModPath>>;

/// The rows in the table's order, too.
fn map_rows(design: &Path) -> (Rows, Vec<ModPath>) {
    let text = std::fs::read_to_string(design).unwrap();
    let start = text
        .find("<!-- module-map")
        .expect("docs/design.md has no <!-- module-map --> marker");
    let end = text
        .find("<!-- /module-map -->")
        .expect("docs/design.md has no <!-- /module-map --> marker");
    let name = |s: &str| -> ModPath {
        let s = s.trim().trim_matches('`');
        let s = s.strip_suffix(".rs").unwrap_or(s).trim_end_matches('/');
        s.split('/').map(str::to_string).collect()
    };
    let mut rows = BTreeMap::new();
    let mut order = Vec::new();
    for line in text[start..end].lines() {
        let Some(rest) = line.strip_prefix("| `") else {
            continue;
        };
        let cells: Vec<&str> = rest.trim_end().trim_end_matches('|').split('|').collect();
        let module = name(cells[0]);
        let imports = cells.last().unwrap().trim();
        let imports: BTreeSet<ModPath> = if imports == "—" {
            BTreeSet::new()
        } else {
            imports.split(',').map(name).collect()
        };
        assert!(
            rows.insert(module.clone(), imports).is_none(),
            "`{}` has two rows in the module map",
            show(&module)
        );
        order.push(module);
    }
    for imports in rows.values() {
        for i in imports {
            assert!(
                rows.contains_key(i),
                "the module map imports `{}`, which has no row",
                show(i)
            );
        }
    }
    (rows, order)
}

/// Every module of the library by its path, with its source. The binary
/// (`main.rs`, `cli/`) and the crate root are not in the map: they may use
/// anything the library offers.
fn library_modules(src: &Path) -> BTreeMap<ModPath, String> {
    modules(src, false)
}

/// The binary's modules (`main.rs` as the root, `cli/`), or the library's.
fn modules(src: &Path, binary: bool) -> BTreeMap<ModPath, String> {
    fn walk(dir: &Path, src: &Path, binary: bool, out: &mut BTreeMap<ModPath, String>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, src, binary, out);
                continue;
            }
            if p.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = p.strip_prefix(src).unwrap().with_extension("");
            let mut parts: ModPath = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            let in_binary = parts[0] == "cli" || parts == ["main"];
            if parts == ["lib"] || in_binary != binary {
                continue;
            }
            if parts == ["main"] {
                parts.clear();
            }
            if parts.last().is_some_and(|l| l == "mod") {
                parts.pop();
            }
            out.insert(parts, std::fs::read_to_string(&p).unwrap());
        }
    }
    let mut out = BTreeMap::new();
    walk(src, src, binary, &mut out);
    out
}

/// The command line's modules (one per command, one per group of flags)
/// name each other in no circle either.
#[test]
fn the_command_line_modules_have_no_cycle() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let modules = modules(&src, true);
    assert!(modules.len() > 10, "{} binary modules", modules.len());
    let found = cycles(&edges(&modules));
    assert!(found.is_empty(), "cycles in src/cli: {found:?}");
}

/// Module → the modules its code names, by the longest module prefix of
/// each path; a module's own ancestors (its `super::…` re-exports) left out.
fn edges(modules: &BTreeMap<ModPath, String>) -> BTreeMap<ModPath, BTreeSet<ModPath>> {
    let resolve = |path: &[String]| -> Option<ModPath> {
        (1..=path.len())
            .rev()
            .map(|n| path[..n].to_vec())
            .find(|p| modules.contains_key(p))
    };
    let mut out = BTreeMap::new();
    for (m, text) in modules {
        let mut to = BTreeSet::new();
        for p in paths(text, m) {
            if let Some(t) = resolve(&p) {
                if &t != m && !is_prefix(&t, m) {
                    to.insert(t);
                }
            }
        }
        out.insert(m.clone(), to);
    }
    out
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Path,
    Open,
    Close,
    Comma,
    Semi,
    Punct(char),
}

fn lex(text: &str) -> Vec<Tok> {
    let c: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        let next = c.get(i + 1).copied();
        if ch == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && next == Some('*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if ch == 'r' && (next == Some('"') || (next == Some('#') && raw_start(&c, i + 1))) {
            let mut hashes = 0;
            i += 1;
            while c[i] == '#' {
                hashes += 1;
                i += 1;
            }
            i += 1;
            loop {
                if i >= c.len() {
                    break;
                }
                if c[i] == '"' && (0..hashes).all(|h| c.get(i + 1 + h) == Some(&'#')) {
                    i += 1 + hashes;
                    break;
                }
                i += 1;
            }
        } else if ch == '"' {
            i += 1;
            while i < c.len() && c[i] != '"' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if ch == '\'' {
            // 'x' and '\n' are characters; 'a is a lifetime.
            if next == Some('\\') {
                i += 2;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if c.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
            }
        } else if ch.is_alphanumeric() || ch == '_' {
            let s = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            out.push(Tok::Ident(c[s..i].iter().collect()));
        } else {
            match ch {
                ':' if next == Some(':') => {
                    out.push(Tok::Path);
                    i += 1;
                }
                '{' => out.push(Tok::Open),
                '}' => out.push(Tok::Close),
                ',' => out.push(Tok::Comma),
                ';' => out.push(Tok::Semi),
                c if !c.is_whitespace() => out.push(Tok::Punct(c)),
                _ => {}
            }
            i += 1;
        }
    }
    out
}

fn raw_start(c: &[char], mut i: usize) -> bool {
    while c.get(i) == Some(&'#') {
        i += 1;
    }
    c.get(i) == Some(&'"')
}

/// The tokens with every `#[cfg(test)]` item taken out.
fn without_tests(toks: Vec<Tok>) -> Vec<Tok> {
    let attr = [
        Tok::Punct('#'),
        Tok::Punct('['),
        Tok::Ident("cfg".into()),
        Tok::Punct('('),
        Tok::Ident("test".into()),
        Tok::Punct(')'),
        Tok::Punct(']'),
    ];
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if toks[i..].starts_with(&attr) {
            i += attr.len();
            // The item ends at its first `;` outside braces, or with the
            // brace that closes its body.
            let mut depth = 0usize;
            while i < toks.len() {
                match toks[i] {
                    Tok::Open => depth += 1,
                    Tok::Close if depth == 0 => break,
                    Tok::Close => {
                        depth -= 1;
                        if depth == 0 {
                            i += 1;
                            break;
                        }
                    }
                    Tok::Semi if depth == 0 => {
                        i += 1;
                        break;
                    }
                    _ => {}
                }
                i += 1;
            }
        } else {
            out.push(toks[i].clone());
            i += 1;
        }
    }
    out
}

/// Every `crate::`, `super::` and `self::` path in `text`, as a path from
/// the crate root; `module` is the path of the file's own module.
fn paths(text: &str, module: &[String]) -> Vec<ModPath> {
    let toks = without_tests(lex(text));
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < toks.len() {
        let base = match &toks[i] {
            Tok::Ident(s) if toks[i + 1] == Tok::Path => match s.as_str() {
                "crate" => Some(Vec::new()),
                "self" => Some(module.to_vec()),
                "super" => Some(module[..module.len().saturating_sub(1)].to_vec()),
                _ => None,
            },
            _ => None,
        };
        // `a::self::x` or `x::super::y` are inside a path already read.
        let inside = i > 0 && toks[i - 1] == Tok::Path;
        match base {
            Some(base) if !inside => {
                i += 2;
                tree(&toks, &mut i, base, &mut out);
            }
            _ => i += 1,
        }
    }
    out
}

/// Reads one use tree (or expression path) from `toks[*i]` under `prefix`.
fn tree(toks: &[Tok], i: &mut usize, mut prefix: ModPath, out: &mut Vec<ModPath>) {
    loop {
        match toks.get(*i) {
            Some(Tok::Ident(s)) => {
                *i += 1;
                match s.as_str() {
                    "super" => {
                        prefix.pop();
                    }
                    "self" => {}
                    _ => prefix.push(s.clone()),
                }
                if toks.get(*i) == Some(&Tok::Path) {
                    *i += 1;
                } else {
                    out.push(prefix);
                    return;
                }
            }
            Some(Tok::Open) => {
                *i += 1;
                while *i < toks.len() && toks[*i] != Tok::Close {
                    if toks[*i] == Tok::Comma {
                        *i += 1;
                        continue;
                    }
                    tree(toks, i, prefix.clone(), out);
                    // Skip a rename (`as x`) up to the next item.
                    while *i < toks.len() && !matches!(toks[*i], Tok::Comma | Tok::Close) {
                        *i += 1;
                    }
                }
                *i += 1;
                return;
            }
            _ => {
                out.push(prefix);
                return;
            }
        }
    }
}

/// The groups of nodes that reach each other (Tarjan), larger than one.
fn cycles(edges: &BTreeMap<ModPath, BTreeSet<ModPath>>) -> Vec<Vec<String>> {
    struct T<'a> {
        edges: &'a BTreeMap<ModPath, BTreeSet<ModPath>>,
        index: BTreeMap<&'a ModPath, usize>,
        low: BTreeMap<&'a ModPath, usize>,
        stack: Vec<&'a ModPath>,
        on: BTreeSet<&'a ModPath>,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a ModPath) {
        let n = t.index.len();
        t.index.insert(v, n);
        t.low.insert(v, n);
        t.stack.push(v);
        t.on.insert(v);
        let empty = BTreeSet::new();
        let edges = t.edges;
        for w in edges.get(v).unwrap_or(&empty) {
            let Some((w, _)) = edges.get_key_value(w) else {
                continue;
            };
            if !t.index.contains_key(w) {
                visit(t, w);
                let lw = t.low[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if t.on.contains(w) {
                let iw = t.index[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if t.low[v] == t.index[v] {
            let mut group = Vec::new();
            loop {
                let w = t.stack.pop().unwrap();
                t.on.remove(w);
                group.push(w.join("::"));
                if w == v {
                    break;
                }
            }
            if group.len() > 1 {
                group.sort();
                t.found.push(group);
            }
        }
    }
    let mut t = T {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in edges.keys() {
        if !t.index.contains_key(v) {
            visit(&mut t, v);
        }
    }
    t.found
}

#[test]
fn a_cycle_is_found_and_a_chain_is_not() {
    let p = |s: &str| -> ModPath { vec![s.to_string()] };
    let mut e: BTreeMap<ModPath, BTreeSet<ModPath>> = BTreeMap::new();
    e.insert(p("a"), [p("b")].into());
    e.insert(p("b"), [p("c")].into());
    e.insert(p("c"), BTreeSet::new());
    assert!(cycles(&e).is_empty());
    e.insert(p("c"), [p("a")].into());
    assert_eq!(cycles(&e), [vec!["a", "b", "c"]]);
}
