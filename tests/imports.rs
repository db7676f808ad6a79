//! No import cycle in any folder of `src/` or `cli/src/` (ARCHITECTURE.md, "Rules"):
//! each file is a module, and a file that names another module's item (a `use`, or a
//! path through `super::`, `crate::`, `self::` or a child module, an item re-exported
//! by a `use` counting as the module it comes from) depends on it. No cycle between
//! the files, in one folder or across folders, and none between the layers (the
//! crate's top folders and files, each folder standing for every file in it). The
//! files are parsed with `syn`; a cycle fails the test, naming its modules in order.
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
            let root = layer.is_empty() && (name == "lib" || name == "main");
            if name != "mod" && !root {
                m.push(name);
            }
            out.insert(m, p);
        }
    }
    out
}

/// Every path a file names, as segments, `use` trees flattened; and the local name
/// each `use` gives, with its path.
#[derive(Default)]
struct Paths(Vec<Vec<String>>, Vec<(String, Vec<String>)>);

impl<'a> Visit<'a> for Paths {
    fn visit_path(&mut self, p: &'a syn::Path) {
        self.0
            .push(p.segments.iter().map(|s| s.ident.to_string()).collect());
        syn::visit::visit_path(self, p);
    }

    fn visit_item_use(&mut self, u: &'a syn::ItemUse) {
        type Named = Vec<(String, Vec<String>)>;
        fn walk(
            t: &syn::UseTree,
            pre: &mut Vec<String>,
            out: &mut Vec<Vec<String>>,
            named: &mut Named,
        ) {
            let mut name = |local: String, last: String, out: &mut Vec<Vec<String>>| {
                let path = [&pre[..], &[last]].concat();
                named.push((local, path.clone()));
                out.push(path);
            };
            match t {
                syn::UseTree::Path(p) => {
                    pre.push(p.ident.to_string());
                    walk(&p.tree, pre, out, named);
                    pre.pop();
                }
                syn::UseTree::Name(n) => name(n.ident.to_string(), n.ident.to_string(), out),
                syn::UseTree::Rename(r) => name(r.rename.to_string(), r.ident.to_string(), out),
                syn::UseTree::Glob(_) => out.push(pre.clone()),
                syn::UseTree::Group(g) => g.items.iter().for_each(|i| walk(i, pre, out, named)),
            }
        }
        walk(&u.tree, &mut Vec::new(), &mut self.0, &mut self.1);
    }
}

/// The names each module's `use`s bring in, and the module each comes from: an item
/// re-exported by `rig/mod.rs` (`pub use device::Rig`) and named as `super::Rig` is a
/// dependency on `rig::device`.
type Aliases = BTreeMap<(Module, String), Module>;

/// The module of `all` that `path`, named in `from` (whose own module is `from`, and
/// whose `super` is `parent`), reaches: its longest prefix that is a module (or a name
/// a module's `use` brought in, which counts as the module it came from), after
/// `crate`, `super` and `self` are resolved; a path that starts with a child module of
/// `from` starts there. `None` for paths out of the crate.
fn target(
    path: &[String],
    from: &Module,
    parent: &Module,
    all: &BTreeMap<Module, PathBuf>,
    aliases: &Aliases,
) -> Option<Module> {
    let first = path.first()?;
    let (mut m, mut rest): (Module, &[String]) = match first.as_str() {
        "crate" => (Vec::new(), &path[1..]),
        "super" => (parent.clone(), &path[1..]),
        "self" => (from.clone(), &path[1..]),
        _ if all.contains_key(&[&from[..], std::slice::from_ref(first)].concat()) => {
            (from.clone(), path)
        }
        _ => return None,
    };
    while rest.first().is_some_and(|s| s == "super") {
        m.pop();
        rest = &rest[1..];
    }
    let mut best = None;
    for s in rest {
        if let Some(t) = aliases.get(&(m.clone(), s.clone())) {
            if !all.contains_key(&[&m[..], std::slice::from_ref(s)].concat()) {
                return Some(t.clone());
            }
        }
        m.push(s.clone());
        if all.contains_key(&m) {
            best = Some(m.clone());
        } else {
            break;
        }
    }
    best
}

/// Every module of the crate whose sources are in `root` (`src`, `cli/src`), and who
/// names whom.
fn graph(root: &Path) -> BTreeMap<Module, BTreeSet<Module>> {
    let all = modules(root, &Vec::new());
    let mut parsed = BTreeMap::new();
    for (m, file) in &all {
        let text = std::fs::read_to_string(file).expect("a source file");
        let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let mut paths = Paths::default();
        paths.visit_file(&ast);
        parsed.insert(m.clone(), paths);
    }
    // `super` of `rig/foo.rs` (module rig::foo) and of `rig/wgpu/mod.rs` (module
    // rig::wgpu) alike: the module above.
    let parent = |m: &Module| -> Module { m[..m.len().saturating_sub(1)].to_vec() };
    // Re-exports first (twice: a name brought in through another's), then the edges.
    let mut aliases = Aliases::new();
    for _ in 0..2 {
        for (m, p) in &parsed {
            for (local, path) in &p.1 {
                if let Some(t) = target(path, m, &parent(m), &all, &aliases) {
                    aliases.insert((m.clone(), local.clone()), t);
                }
            }
        }
    }
    let mut g = BTreeMap::new();
    for (m, p) in &parsed {
        let edges: &mut BTreeSet<Module> = g.entry(m.clone()).or_default();
        for path in &p.0 {
            if let Some(t) = target(path, m, &parent(m), &all, &aliases) {
                // A module's own items and its ancestors' are not a dependency.
                if !m.starts_with(&t) {
                    edges.insert(t);
                }
            }
        }
    }
    g
}

/// The graph between the entries of the folder of module `folder`: its files and its
/// subfolders (each standing for all the modules in it), an edge where a module in
/// one names a module in another.
fn folder_graph(
    g: &BTreeMap<Module, BTreeSet<Module>>,
    folder: &Module,
) -> BTreeMap<Module, BTreeSet<Module>> {
    let entry = |m: &Module| -> Option<Module> {
        (m.len() > folder.len() && m.starts_with(folder)).then(|| m[..=folder.len()].to_vec())
    };
    let mut out: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (m, ts) in g {
        let Some(a) = entry(m) else { continue };
        let edges = out.entry(a.clone()).or_default();
        for t in ts {
            if let Some(b) = entry(t) {
                if b != a {
                    edges.insert(b);
                }
            }
        }
    }
    out
}

/// The first import cycle of the crate in `root`: between its files (in one folder or
/// across folders), else between its layers (the entries of its own folder).
fn first_cycle(root: &Path) -> Option<String> {
    let g = graph(root);
    let at = root.display();
    if let Some(c) = cycle(&g) {
        return Some(format!("{at}: {}", names(&c)));
    }
    cycle(&folder_graph(&g, &Vec::new())).map(|c| format!("{at} (its layers): {}", names(&c)))
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

fn src(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(dir)
}

#[test]
fn the_graph_sees_use_trees_paths_and_re_exports() {
    // Known edges of today's files, so that a parser that saw nothing would fail.
    let g = graph(&src("src"));
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
    assert!(
        has("kernels::cast", "array::any"),
        "use crate::array::AnyArray, a re-export"
    );
    assert!(
        has("convert::run", "rig::device"),
        "use crate::rig::Rig, a re-export"
    );
}

#[test]
fn a_planted_cycle_is_found_in_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    let write = |p: &str, t: &str| {
        let p = dir.path().join(p);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, t).unwrap();
    };
    write("lib.rs", "pub mod k;\npub mod low;\n");
    write("low.rs", "pub struct L;\n");
    write("k/mod.rs", "mod a;\nmod b;\npub use b::B;\n");
    write(
        "k/a.rs",
        "use crate::low::L;\npub(crate) fn a() -> L { L }\n",
    );
    write("k/b.rs", "pub struct B;\n");
    assert_eq!(first_cycle(dir.path()), None);
    // b names a's item directly; a names b's through the folder's re-export.
    write(
        "k/b.rs",
        "pub struct B(crate::low::L);\nfn f() { super::a::a(); }\n",
    );
    write(
        "k/a.rs",
        "use crate::low::L;\npub(crate) fn a() -> L { let _ = super::B; L }\n",
    );
    let c = first_cycle(dir.path()).expect("the planted cycle");
    assert!(
        c.ends_with(": k::a -> k::b -> k::a") || c.ends_with(": k::b -> k::a -> k::b"),
        "{c}"
    );
    // Between layers, with no cycle between files: low names k::a, k::b names low.
    write("k/mod.rs", "mod a;\nmod b;\npub use a::A;\npub use b::B;\n");
    write("k/a.rs", "pub struct A;\n");
    write("k/b.rs", "pub struct B(crate::low::L);\n");
    write("low.rs", "pub struct L;\nfn f() { let _ = crate::k::A; }\n");
    let c = first_cycle(dir.path()).expect("the layers' cycle");
    assert!(
        c.ends_with(" (its layers): k -> low -> k")
            || c.ends_with(" (its layers): low -> k -> low"),
        "{c}"
    );
}

#[test]
fn no_import_cycle_in_any_folder() {
    for root in ["src", "cli/src"] {
        if let Some(c) = first_cycle(&src(root)) {
            panic!("an import cycle in {c}");
        }
    }
}

#[test]
fn the_runtime_runs_kernels_as_data_and_knows_no_kernels_wgsl() {
    // The runtime runs a kernel described as data (`wgsl::kernel`), whose forms it
    // plans from the layouts; its own kernels are the transfer and the probe of
    // float32 sums. The WGSL of add, the cast, the operations and their first passes
    // is the kernels' (above it), and so is the module around a user's body.
    let g = graph(&src("src"));
    let theirs: [Module; 6] = ["add", "cast", "ops", "first_pass", "narrow", "elementwise"]
        .map(|m| vec!["wgsl".into(), m.into()]);
    let mut seen = Vec::new();
    for (from, to) in &g {
        if from.first().map(String::as_str) != Some("rig") {
            continue;
        }
        for t in to.iter().filter(|t| theirs.contains(t)) {
            seen.push(format!(
                "{} -> {}",
                names(std::slice::from_ref(from)),
                names(std::slice::from_ref(t))
            ));
        }
    }
    assert!(seen.is_empty(), "the runtime names kernels' WGSL: {seen:?}");
    assert!(
        g.iter()
            .any(|(f, t)| f.first().map(String::as_str) == Some("kernels")
                && t.contains(&vec!["wgsl".to_owned(), "cast".to_owned()])),
        "the cast's kernel is made above the runtime"
    );
}

#[test]
fn the_runtime_includes_no_kernel_source() {
    // No WGSL template, CUDA C file or header is compiled into the runtime: the
    // kernels above it hand it their source (`wgsl::Kernel`, CUDA programs by name).
    fn walk(dir: &Path, found: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, found);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let text = std::fs::read_to_string(&p).unwrap();
                if text.contains("include_str!(") {
                    found.push(p.display().to_string());
                }
            }
        }
    }
    let mut found = Vec::new();
    walk(&src("src").join("rig"), &mut found);
    assert!(found.is_empty(), "the runtime includes sources: {found:?}");
}
