//! The workspace's module graph has no import circle: within each crate, the files form layers, and a file
//! only imports from files below it (docs/architecture.md, "Rules of the house").
//!
//! An edge runs from file A to file B when A names an item of B: in a `use` (globs too) or a path in code
//! (`crate::status::OK`, `super::Limits`). A name is followed through the `pub use` re-exports of the module
//! that offers it to the file that defines it, so `use crate::CrawlUri` is an edge to `crawl_uri.rs`. A module's
//! `pub use` of its own descendants is its facade, not an import, and `mod` declarations are ownership, not
//! imports. Code under `#[cfg(test)]` is left out: tests may reach anywhere.

use std::{
    collections::{BTreeMap, BTreeSet, HashMap},
    fs,
    path::{Path, PathBuf},
};

use syn::visit::Visit;

/// One crate's modules: module path (`["decide", "sequence"]`) -> the file that holds it.
struct Crate {
    modules: BTreeMap<Vec<String>, PathBuf>,
    /// Per module: re-exported name -> the absolute path it stands for.
    reexports: HashMap<Vec<String>, HashMap<String, Vec<String>>>,
    /// Per file: absolute paths it names (before re-export resolution).
    refs: BTreeMap<PathBuf, BTreeSet<Vec<String>>>,
}

fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Meta>()
                .is_ok_and(|m| m.path().is_ident("test"))
    })
}

/// Walks one file: its inline modules, its `use` trees and paths, and the files of its `mod x;` items.
struct FileWalk<'a> {
    krate: &'a mut Crate,
    file: PathBuf,
    /// The module the walk is in (the file's, then any inline module).
    module: Vec<String>,
    /// Child modules declared `mod x;` (with their own file), to be read next.
    children: Vec<(Vec<String>, bool)>,
}

impl FileWalk<'_> {
    /// `segments` made absolute from the current module; `None` for paths outside the crate.
    fn absolute(&self, segments: &[String]) -> Option<Vec<String>> {
        let mut out = self.module.clone();
        let mut rest = segments;
        match rest.first().map(String::as_str) {
            Some("crate") => {
                out.clear();
                rest = &rest[1..];
            }
            Some("super") => {
                while rest.first().map(String::as_str) == Some("super") {
                    out.pop();
                    rest = &rest[1..];
                }
            }
            Some("self") => rest = &rest[1..],
            _ => return None,
        }
        out.extend(rest.iter().cloned());
        Some(out)
    }

    fn note(&mut self, segments: &[String]) {
        if let Some(abs) = self.absolute(segments) {
            self.krate
                .refs
                .entry(self.file.clone())
                .or_default()
                .insert(abs);
        }
    }

    /// Every leaf of a use tree as (path, name it is known by).
    fn use_leaves(
        tree: &syn::UseTree,
        prefix: &mut Vec<String>,
        out: &mut Vec<(Vec<String>, String)>,
    ) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                Self::use_leaves(&p.tree, prefix, out);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let name = n.ident.to_string();
                let mut path = prefix.clone();
                if name != "self" {
                    path.push(name.clone());
                }
                let known = if name == "self" {
                    prefix.last().cloned().unwrap_or_default()
                } else {
                    name
                };
                out.push((path, known));
            }
            syn::UseTree::Rename(r) => {
                let mut path = prefix.clone();
                if r.ident != "self" {
                    path.push(r.ident.to_string());
                }
                out.push((path, r.rename.to_string()));
            }
            syn::UseTree::Glob(_) => out.push((prefix.clone(), "*".into())),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    Self::use_leaves(t, prefix, out);
                }
            }
        }
    }
}

impl<'ast> Visit<'ast> for FileWalk<'_> {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if is_cfg_test(&m.attrs) {
            return;
        }
        let name = m.ident.to_string();
        match &m.content {
            None => {
                let has_path_attr = m.attrs.iter().any(|a| a.path().is_ident("path"));
                let mut child = self.module.clone();
                child.push(name);
                self.children.push((child, has_path_attr));
            }
            Some((_, items)) => {
                self.module.push(name);
                self.krate
                    .modules
                    .insert(self.module.clone(), self.file.clone());
                for item in items {
                    self.visit_item(item);
                }
                self.module.pop();
            }
        }
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if !is_cfg_test(&f.attrs) {
            syn::visit::visit_item_fn(self, f);
        }
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        if !is_cfg_test(&i.attrs) {
            syn::visit::visit_item_impl(self, i);
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        if is_cfg_test(&u.attrs) {
            return;
        }
        let mut leaves = Vec::new();
        FileWalk::use_leaves(&u.tree, &mut Vec::new(), &mut leaves);
        let public = !matches!(u.vis, syn::Visibility::Inherited);
        for (path, known) in leaves {
            let Some(abs) = self.absolute(&path) else {
                continue;
            };
            if public && known != "*" {
                self.krate
                    .reexports
                    .entry(self.module.clone())
                    .or_default()
                    .insert(known, abs.clone());
            }
            // A module's re-export of its own descendants is its facade.
            if public && abs.len() > self.module.len() && abs.starts_with(&self.module) {
                continue;
            }
            self.krate
                .refs
                .entry(self.file.clone())
                .or_default()
                .insert(abs);
        }
    }

    /// `pub(super)` and `pub(in crate::x)` say who may see an item, not what it uses.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segments: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        self.note(&segments);
        syn::visit::visit_path(self, p);
    }
}

/// Reads a crate from its root file (lib.rs or main.rs).
fn read_crate(root: &Path) -> Crate {
    let mut krate = Crate {
        modules: BTreeMap::new(),
        reexports: HashMap::new(),
        refs: BTreeMap::new(),
    };
    let mut todo = vec![(Vec::<String>::new(), root.to_path_buf())];
    while let Some((module, file)) = todo.pop() {
        let text = fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        krate.modules.insert(module.clone(), file.clone());
        let mut walk = FileWalk {
            krate: &mut krate,
            file: file.clone(),
            module: module.clone(),
            children: Vec::new(),
        };
        walk.visit_file(&ast);
        let children = std::mem::take(&mut walk.children);
        // A file's children live in a folder named after it (or beside mod.rs / lib.rs / main.rs).
        let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
        let dir = if matches!(stem.as_str(), "mod" | "lib" | "main") {
            file.parent().unwrap().to_path_buf()
        } else {
            file.parent().unwrap().join(&stem)
        };
        for (child, has_path_attr) in children {
            if has_path_attr {
                continue; // shared helpers pulled in by #[path]: not part of this crate's tree
            }
            let name = child.last().unwrap();
            let flat = dir.join(format!("{name}.rs"));
            let nested = dir.join(name).join("mod.rs");
            let found = if flat.is_file() { flat } else { nested };
            todo.push((child, found));
        }
    }
    krate
}

/// The file that defines what `path` names, through re-exports.
fn resolve(krate: &Crate, path: &[String]) -> Option<PathBuf> {
    let mut path = path.to_vec();
    for _ in 0..16 {
        let module_len = (0..=path.len())
            .rev()
            .find(|&n| krate.modules.contains_key(&path[..n]))?;
        let module = &path[..module_len];
        if let Some(name) = path.get(module_len)
            && let Some(target) = krate.reexports.get(module).and_then(|r| r.get(name))
            && target.as_slice() != &path[..=module_len]
        {
            let mut next = target.clone();
            next.extend_from_slice(&path[module_len + 1..]);
            path = next;
            continue;
        }
        return krate.modules.get(module).cloned();
    }
    None
}

/// File -> the files it imports from.
fn edges(krate: &Crate) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let mut edges: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for (file, refs) in &krate.refs {
        for r in refs {
            if let Some(target) = resolve(krate, r)
                && &target != file
            {
                edges.entry(file.clone()).or_default().insert(target);
            }
        }
    }
    edges
}

/// The groups of files that import each other in a circle (strongly connected components of more than one
/// file), each sorted; Tarjan's algorithm.
fn circles(edges: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<Vec<PathBuf>> {
    struct Tarjan<'a> {
        edges: &'a BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        index: HashMap<&'a PathBuf, usize>,
        low: HashMap<&'a PathBuf, usize>,
        stack: Vec<&'a PathBuf>,
        on_stack: BTreeSet<&'a PathBuf>,
        found: Vec<Vec<PathBuf>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, node: &'a PathBuf) {
            let n = self.index.len();
            self.index.insert(node, n);
            self.low.insert(node, n);
            self.stack.push(node);
            self.on_stack.insert(node);
            for next in self.edges.get(node).into_iter().flatten() {
                if !self.index.contains_key(next) {
                    self.visit(next);
                    let low = self.low[node].min(self.low[next]);
                    self.low.insert(node, low);
                } else if self.on_stack.contains(next) {
                    let low = self.low[node].min(self.index[next]);
                    self.low.insert(node, low);
                }
            }
            if self.low[node] == self.index[node] {
                let mut group = Vec::new();
                while let Some(top) = self.stack.pop() {
                    self.on_stack.remove(top);
                    group.push(top.clone());
                    if top == node {
                        break;
                    }
                }
                if group.len() > 1 {
                    group.sort();
                    self.found.push(group);
                }
            }
        }
    }
    let mut t = Tarjan {
        edges,
        index: HashMap::new(),
        low: HashMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in edges.keys() {
        if !t.index.contains_key(node) {
            t.visit(node);
        }
    }
    t.found
}

#[test]
fn no_file_imports_in_a_circle() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    let mut crate_names: Vec<_> = fs::read_dir(&crates)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .collect();
    crate_names.sort();
    assert!(crate_names.len() >= 8, "crates found: {crate_names:?}");
    for dir in crate_names {
        for root in ["src/lib.rs", "src/main.rs"] {
            let root = dir.join(root);
            if !root.is_file() {
                continue;
            }
            let krate = read_crate(&root);
            let name = |p: &PathBuf| p.strip_prefix(&crates).unwrap_or(p).display().to_string();
            for group in circles(&edges(&krate)) {
                let names: Vec<String> = group.iter().map(name).collect();
                found.push(names.join(" <-> "));
                // Each import inside the circle, with one path that makes it, so the fix can be chosen.
                for (file, refs) in &krate.refs {
                    if !group.contains(file) {
                        continue;
                    }
                    let mut seen = BTreeSet::new();
                    for r in refs {
                        if let Some(target) = resolve(&krate, r)
                            && &target != file
                            && group.contains(&target)
                            && seen.insert(target.clone())
                        {
                            found.push(format!(
                                "    {} -> {} ({})",
                                name(file),
                                name(&target),
                                r.join("::")
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "files that import each other in a circle (move what both need into a module below both):\n{}",
        found.join("\n")
    );
}

/// The checker finds a circle when there is one: two modules that name each other's items.
#[test]
fn a_circle_is_found() {
    let dir = tempfile_dir();
    fs::write(dir.join("lib.rs"), "mod a;\nmod b;\n").unwrap();
    fs::write(dir.join("a.rs"), "use crate::b::B;\npub struct A;\n").unwrap();
    fs::write(dir.join("b.rs"), "pub struct B;\nfn f(_: crate::a::A) {}\n").unwrap();
    let krate = read_crate(&dir.join("lib.rs"));
    assert_eq!(circles(&edges(&krate)).len(), 1, "{:?}", edges(&krate));
    // Through a facade re-export it is the same circle.
    fs::write(dir.join("lib.rs"), "mod a;\nmod b;\npub use crate::a::A;\n").unwrap();
    fs::write(dir.join("b.rs"), "pub struct B;\nfn f(_: crate::A) {}\n").unwrap();
    let krate = read_crate(&dir.join("lib.rs"));
    assert_eq!(circles(&edges(&krate)).len(), 1, "{:?}", edges(&krate));
    fs::remove_dir_all(&dir).unwrap();
}

fn tempfile_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("trawl-module-graph-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    dir
}
