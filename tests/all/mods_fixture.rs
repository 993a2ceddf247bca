//! Fixture mod trees in temporary folders, shared by the `mods_*` tests.

use std::path::{Path, PathBuf};

use tessera_host::mods::{
    discover, resolve, Discovery, Resolution, ServerConfig, HOST_API_VERSION,
};

/// A folder of mod folders in a fresh temporary directory (`tempfile`), removed on drop.
pub struct Tree {
    pub root: PathBuf,
    _dir: tempfile::TempDir,
}

impl Tree {
    pub fn new(name: &str) -> Tree {
        let dir = tempfile::Builder::new()
            .prefix(&format!("tessera-mods-{name}-"))
            .tempdir()
            .expect("create temp dir");
        let root = dir.path().to_path_buf();
        std::fs::create_dir_all(root.join("mods")).expect("create temp dir");
        Tree { root, _dir: dir }
    }

    pub fn mods(&self) -> PathBuf {
        self.root.join("mods")
    }

    /// Writes `mods/<folder>/<rel>`.
    pub fn write(&self, folder: &str, rel: &str, text: &str) -> PathBuf {
        let path = self.mods().join(folder).join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, text).expect("write");
        path
    }

    /// A mod with `[mod]` filled in and `extra` appended (dependencies etc.).
    pub fn add(&self, id: &str, version: &str, extra: &str) -> PathBuf {
        let text = format!("[mod]\nid = \"{id}\"\nversion = \"{version}\"\napi = \"0.1\"\n{extra}");
        self.write(id, "mod.toml", &text);
        self.write(
            id,
            "content/defs.toml",
            &format!("[class.{id}_thing]\nproperties = {{ attack = 1 }}\n"),
        );
        self.mods().join(id)
    }

    pub fn discover(&self) -> Discovery {
        discover(&[self.mods()])
    }

    pub fn resolve(&self) -> Resolution {
        resolve(&self.discover(), &HOST_API_VERSION, None)
    }

    pub fn resolve_with(&self, server_toml: &str) -> Resolution {
        let cfg = ServerConfig::parse(&self.root.join("server.toml"), server_toml, &self.root)
            .unwrap_or_else(|e| panic!("server.toml: {}", e.render(false)));
        resolve(&discover(&cfg.mod_dirs), &HOST_API_VERSION, Some(&cfg))
    }

    pub fn manifest_path(&self, id: &str) -> PathBuf {
        self.mods().join(id).join("mod.toml")
    }
}

/// The diagnostic with `code`, or a panic listing all of them.
pub fn find<'a>(r: &'a Resolution, code: &str) -> &'a tessera_host::Diagnostic {
    r.diagnostics
        .0
        .iter()
        .find(|d| d.code == code)
        .unwrap_or_else(|| panic!("no {code} in:\n{}", r.diagnostics.render(false)))
}

pub fn codes(r: &Resolution) -> Vec<&'static str> {
    r.diagnostics.0.iter().map(|d| d.code).collect()
}

pub fn display(p: &Path) -> String {
    p.display().to_string()
}
