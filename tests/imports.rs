//! No import cycles between the files of `src/rig` and of `src/array` (ARCHITECTURE.md,
//! "Rules"): each file is a module, and a file that names another module's item (a
//! `use`, or a path through `super::` or `crate::`) depends on it. The files are
//! parsed with `syn`; a cycle fails the test, naming its files in order.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// A module's path inside the crate, as `["rig", "wgpu", "io"]`.
type Module = Vec<String>;

/// The module of each `.rs` file under `dir` (`layer` the folder's module path).
fn modules(dir: &Path, layer: &Module) -> BTreeMap<Module, PathBuf> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(dir).expect("a source folder") {
        let p = e.expect("an entry").path();
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        let mut m = layer.clone();
        if p.is_dir() {
            m.push(name);
            out.extend(modules(&p, &m));
        } else if p.extension().is_some_and(|x| x == "rs") {
            if name != "mod" {
                m.push(name);
            }
            out.insert(m, p);
        }
    }
    out
}

/// Every path a file names, as segments, `use` trees flattened.
#[derive(Default)]
struct Paths(Vec<Vec<String>>);

impl<'a> Visit<'a> for Paths {
    fn visit_path(&mut self, p: &'a syn::Path) {
        self.0
            .push(p.segments.iter().map(|s| s.ident.to_string()).collect());
        syn::visit::visit_path(self, p);
    }

    fn visit_item_use(&mut self, u: &'a syn::ItemUse) {
        fn walk(t: &syn::UseTree, pre: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
            match t {
                syn::UseTree::Path(p) => {
                    pre.push(p.ident.to_string());
                    walk(&p.tree, pre, out);
                    pre.pop();
                }
                syn::UseTree::Name(n) => out.push([&pre[..], &[n.ident.to_string()]].concat()),
                syn::UseTree::Rename(r) => out.push([&pre[..], &[r.ident.to_string()]].concat()),
                syn::UseTree::Glob(_) => out.push(pre.clone()),
                syn::UseTree::Group(g) => g.items.iter().for_each(|i| walk(i, pre, out)),
            }
        }
        walk(&u.tree, &mut Vec::new(), &mut self.0);
    }
}

/// The module of `all` that `path`, named in `from` (whose own module is `from`, and
/// whose `super` is `parent`), reaches: its longest prefix that is a module, after
/// `crate`, `super` and `self` are resolved. `None` for paths out of the crate.
fn target(
    path: &[String],
    from: &Module,
    parent: &Module,
    all: &BTreeMap<Module, PathBuf>,
) -> Option<Module> {
    let mut m: Module = match path.first().map(String::as_str) {
        Some("crate") => Vec::new(),
        Some("super") => parent.clone(),
        Some("self") => from.clone(),
        _ => return None,
    };
    let mut rest = &path[1..];
    while rest.first().is_some_and(|s| s == "super") {
        m.pop();
        rest = &rest[1..];
    }
    let mut best = None;
    for s in rest {
        m.push(s.clone());
        if all.contains_key(&m) {
            best = Some(m.clone());
        }
    }
    best
}

/// The edges between the modules of `layer` (`src/<layer>`): who names whom.
fn graph(layer: &str) -> BTreeMap<Module, BTreeSet<Module>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src")
        .join(layer);
    let all = modules(&root, &vec![layer.to_owned()]);
    let mut g = BTreeMap::new();
    for (m, file) in &all {
        let text = std::fs::read_to_string(file).expect("a source file");
        let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let mut paths = Paths::default();
        paths.visit_file(&ast);
        // `super` of `rig/foo.rs` (module rig::foo) and of `rig/wgpu/mod.rs` (module
        // rig::wgpu) alike: the module above.
        let parent: Module = m[..m.len() - 1].to_vec();
        let edges: &mut BTreeSet<Module> = g.entry(m.clone()).or_default();
        for p in &paths.0 {
            if let Some(t) = target(p, m, &parent, &all) {
                // A module's own items and its ancestors' are not a dependency.
                if !m.starts_with(&t) {
                    edges.insert(t);
                }
            }
        }
    }
    g
}

/// A cycle of `g` (its modules in order, the first again at the end), if any.
fn cycle(g: &BTreeMap<Module, BTreeSet<Module>>) -> Option<Vec<Module>> {
    fn dfs(
        m: &Module,
        g: &BTreeMap<Module, BTreeSet<Module>>,
        state: &mut BTreeMap<Module, u8>,
        stack: &mut Vec<Module>,
    ) -> Option<Vec<Module>> {
        state.insert(m.clone(), 1);
        stack.push(m.clone());
        for t in g.get(m).into_iter().flatten() {
            match state.get(t).copied().unwrap_or(0) {
                1 => {
                    let at = stack.iter().position(|x| x == t).expect("on the stack");
                    let mut c = stack[at..].to_vec();
                    c.push(t.clone());
                    return Some(c);
                }
                0 => {
                    if let Some(c) = dfs(t, g, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(m.clone(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for m in g.keys() {
        if !state.contains_key(m) {
            if let Some(c) = dfs(m, g, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

fn names(c: &[Module]) -> String {
    c.iter()
        .map(|m| m.join("::"))
        .collect::<Vec<_>>()
        .join(" -> ")
}

#[test]
fn the_cycle_finder_finds_a_cycle_and_only_one() {
    let m = |s: &str| vec![s.to_owned()];
    let mut g: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    g.entry(m("a")).or_default().insert(m("b"));
    g.entry(m("b")).or_default().insert(m("c"));
    assert_eq!(cycle(&g), None);
    g.entry(m("c")).or_default().insert(m("a"));
    assert_eq!(names(&cycle(&g).unwrap()), "a -> b -> c -> a");
}

#[test]
fn the_graph_sees_use_trees_and_paths() {
    // Known edges of today's files, so that a parser that saw nothing would fail.
    let g = graph("rig");
    let has = |a: &str, b: &str| {
        let (a, b): (Module, Module) = (
            a.split("::").map(str::to_owned).collect(),
            b.split("::").map(str::to_owned).collect(),
        );
        g.get(&a).is_some_and(|e| e.contains(&b))
    };
    assert!(
        has("rig::claim", "rig::buffer"),
        "use super::buffer::Buffer"
    );
    assert!(
        has("rig::submit", "rig::word"),
        "use super::word::ReadClaims"
    );
    assert!(
        has("rig::wgpu::io", "rig::timeline"),
        "crate::rig::timeline::Stamp"
    );
}

#[test]
fn no_import_cycle_in_rig_or_array() {
    for layer in ["rig", "array"] {
        if let Some(c) = cycle(&graph(layer)) {
            panic!("src/{layer} has an import cycle: {}", names(&c));
        }
    }
}
