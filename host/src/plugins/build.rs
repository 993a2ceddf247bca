//! `tessera build`: compiles plugin crates to WebAssembly and installs each module in its
//! mod.
//!
//! A plugin crate names its mod in its `Cargo.toml`:
//!
//! ```toml
//! [package]
//! name = "beasts"
//!
//! [lib]
//! crate-type = ["cdylib"]
//!
//! [package.metadata.tessera]
//! mod = "../../mods/beasts"   # relative to the crate
//! ```
//!
//! [`build`] then, for each crate: makes sure the `wasm32-unknown-unknown` target is
//! installed (adding it with `rustup` if missing, and saying so in [`Built::notes`]), runs
//! `cargo build --release --target wasm32-unknown-unknown` in the crate, and copies the
//! module to `<mod>/plugins/<name>.wasm`.
//!
//! With [`Target::Native`] (`tessera build --native`) it builds the same crate as a
//! trusted native extension instead: `cargo build --release --features
//! tessera-plugin-api/native` for the host, with `panic = "unwind"` (so a panic in the
//! plugin is reported rather than aborting the server), and copies the library to
//! `<mod>/plugins/<lib><name><.so|.dylib|.dll>`. The mod's `[[plugin]] file` must name
//! that file, and `server.toml` must list the mod in `trusted_native`.
//!
//! Cargo's own target directory rules apply: `CARGO_TARGET_DIR` if set (made absolute
//! against the current directory), otherwise the plugin workspace's `target/` (or its
//! `.cargo/config.toml`). The module is found from cargo's artifact messages, not guessed.
//! Nothing is printed; progress goes to `tracing`.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// The target plugins are built for.
pub const WASM_TARGET: &str = "wasm32-unknown-unknown";

/// How many lines of cargo's error output an error keeps.
const STDERR_TAIL_LINES: usize = 40;

/// One plugin that was built and installed.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Built {
    /// The crate's package name (also the module's file name, `<name>.wasm`).
    pub name: String,
    /// The crate's directory.
    pub crate_dir: PathBuf,
    /// The mod folder it was installed in (`[package.metadata.tessera] mod`).
    pub mod_dir: PathBuf,
    /// Where the module was copied: `<mod>/plugins/<name>.wasm` (or, for a native build,
    /// the library: `<mod>/plugins/lib<name>.so` on Linux).
    pub wasm: PathBuf,
    /// The module's size in bytes.
    pub size: u64,
    /// How long `cargo build` took (near zero when nothing changed).
    pub build_time: Duration,
    /// Things the user should be told, e.g. that the wasm target was added with rustup.
    pub notes: Vec<String>,
}

/// What a plugin crate's `Cargo.toml` says about it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PluginCrate {
    /// `[package] name`.
    pub name: String,
    /// The crate's directory.
    pub dir: PathBuf,
    /// `<dir>/Cargo.toml`.
    pub manifest: PathBuf,
    /// `[package.metadata.tessera] mod`, joined to `dir`.
    pub mod_dir: PathBuf,
}

/// Why a plugin could not be built.
#[derive(Debug)]
#[non_exhaustive]
pub enum BuildError {
    /// A file could not be read or written.
    Io {
        /// What was being done, e.g. "failed to read plugin manifest".
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The crate's `Cargo.toml` is not what `tessera build` needs.
    Manifest {
        /// The manifest.
        path: PathBuf,
        /// What is wrong.
        message: String,
        /// How to fix it.
        help: String,
    },
    /// The mod folder named by the crate does not exist.
    ModNotFound {
        /// The crate's manifest.
        manifest: PathBuf,
        /// The missing folder.
        mod_dir: PathBuf,
    },
    /// A tool (`cargo`, `rustup`) could not be started.
    Spawn {
        /// The program.
        program: &'static str,
        /// The cause.
        source: std::io::Error,
    },
    /// `rustup target add wasm32-unknown-unknown` failed.
    AddTarget {
        /// The end of rustup's error output.
        stderr: String,
    },
    /// `cargo build` failed.
    Cargo {
        /// The plugin.
        name: String,
        /// Its directory.
        dir: PathBuf,
        /// The end of cargo's error output (compiler diagnostics included).
        stderr: String,
    },
    /// `cargo build` succeeded but produced no `.wasm` for the crate.
    NoModule {
        /// The plugin.
        name: String,
        /// Its manifest.
        manifest: PathBuf,
    },
}

impl BuildError {
    /// Whether this is a compile failure of the plugin's own code (as opposed to setup).
    pub fn is_compile_error(&self) -> bool {
        matches!(self, BuildError::Cargo { .. })
    }
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Io { what, path, source } => {
                write!(f, "{what}: {}: {source}", path.display())
            }
            BuildError::Manifest { path, message, help } => {
                write!(f, "{message}\n  --> {}\nhelp: {help}", path.display())
            }
            BuildError::ModNotFound { manifest, mod_dir } => write!(
                f,
                "mod folder not found: {}\nnote: named by [package.metadata.tessera] mod in {}\nhelp: fix the path (it is relative to the plugin crate), or create the mod first",
                mod_dir.display(),
                manifest.display()
            ),
            BuildError::Spawn { program, source } => write!(
                f,
                "failed to run `{program}`: {source}\nhelp: install Rust with rustup (https://rustup.rs) and make sure `{program}` is on PATH"
            ),
            BuildError::AddTarget { stderr } => write!(
                f,
                "`rustup target add {WASM_TARGET}` failed:\n{stderr}\nhelp: run it yourself and retry; it needs network access once"
            ),
            BuildError::Cargo { name, dir, stderr } => write!(
                f,
                "failed to build plugin `{name}`:\n{stderr}\nhelp: fix the errors above; to see everything, run `cargo build --release --target {WASM_TARGET}` in {}",
                dir.display()
            ),
            BuildError::NoModule { name, manifest } => write!(
                f,
                "cargo built plugin `{name}` but produced no module (.wasm or native library)\nhelp: set `[lib] crate-type = [\"cdylib\"]` in {}",
                manifest.display()
            ),
        }
    }
}

impl std::error::Error for BuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BuildError::Io { source, .. } | BuildError::Spawn { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// What [`build_for`] produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Target {
    /// A sandboxed WebAssembly module (`wasm32-unknown-unknown`).
    #[default]
    Wasm,
    /// A trusted native extension: a shared library for this host.
    Native,
}

/// Builds each plugin crate in `plugin_dirs` (in order) and installs its module in its
/// mod. Stops at the first failure.
pub fn build(plugin_dirs: &[PathBuf]) -> Result<Vec<Built>, BuildError> {
    build_for(plugin_dirs, Target::Wasm)
}

/// [`build`], for either target.
pub fn build_for(plugin_dirs: &[PathBuf], target: Target) -> Result<Vec<Built>, BuildError> {
    let target_dir = target_dir_env()?;
    let mut built = Vec::with_capacity(plugin_dirs.len());
    for dir in plugin_dirs {
        let krate = read_plugin_crate(dir)?;
        if !krate.mod_dir.is_dir() {
            return Err(BuildError::ModNotFound {
                manifest: krate.manifest.clone(),
                mod_dir: krate.mod_dir.clone(),
            });
        }
        let mut notes = Vec::new();
        if target == Target::Wasm {
            ensure_wasm_target(&krate.dir, &mut notes)?;
        }
        tracing::info!(plugin = %krate.name, dir = %krate.dir.display(), ?target, "building plugin");
        let start = Instant::now();
        let module = cargo_build(&krate, target_dir.as_deref(), target)?;
        let build_time = start.elapsed();

        let plugins = krate.mod_dir.join("plugins");
        std::fs::create_dir_all(&plugins).map_err(|source| BuildError::Io {
            what: "failed to create the mod's plugins folder",
            path: plugins.clone(),
            source,
        })?;
        let wasm = plugins.join(match target {
            Target::Wasm => format!("{}.wasm", krate.name),
            Target::Native => native_file_name(&krate.name),
        });
        let size = std::fs::copy(&module, &wasm).map_err(|source| BuildError::Io {
            what: "failed to copy the module into the mod",
            path: wasm.clone(),
            source,
        })?;
        tracing::info!(plugin = %krate.name, wasm = %wasm.display(), size, ?build_time, "installed plugin");
        built.push(Built {
            name: krate.name,
            crate_dir: krate.dir,
            mod_dir: krate.mod_dir,
            wasm,
            size,
            build_time,
            notes,
        });
    }
    Ok(built)
}

/// Reads a plugin crate's name and mod from `<dir>/Cargo.toml`. Paths in the result are
/// absolute (against the current directory), with `..` resolved lexically, as cargo does.
pub fn read_plugin_crate(dir: &Path) -> Result<PluginCrate, BuildError> {
    let dir = &std::path::absolute(dir)
        .map(|d| normalize(&d))
        .map_err(|source| BuildError::Io {
            what: "failed to resolve the plugin directory",
            path: dir.to_path_buf(),
            source,
        })?;
    let manifest = dir.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).map_err(|source| BuildError::Io {
        what: "failed to read plugin manifest",
        path: manifest.clone(),
        source,
    })?;
    let bad = |message: String, help: &str| BuildError::Manifest {
        path: manifest.clone(),
        message,
        help: help.to_owned(),
    };
    let doc: toml::Table = toml::from_str(&text)
        .map_err(|e| bad(format!("invalid Cargo.toml: {e}"), "fix the TOML syntax"))?;
    let package = doc
        .get("package")
        .and_then(toml::Value::as_table)
        .ok_or_else(|| {
            bad(
                "not a plugin crate: no [package] table".to_owned(),
                "give `tessera build` the directory of a plugin crate, not of a workspace",
            )
        })?;
    let name = package
        .get("name")
        .and_then(toml::Value::as_str)
        .ok_or_else(|| {
            bad(
                "[package] has no `name`".to_owned(),
                "add `name = \"...\"` under [package]",
            )
        })?
        .to_owned();
    let mod_path = package
        .get("metadata")
        .and_then(|m| m.get("tessera"))
        .and_then(|t| t.get("mod"))
        .ok_or_else(|| {
            bad(
                format!("plugin `{name}` does not say which mod it belongs to"),
                "add\n\n    [package.metadata.tessera]\n    mod = \"../../mods/<your mod>\"\n\n(a path relative to the crate)",
            )
        })?;
    let mod_path = mod_path.as_str().ok_or_else(|| {
        bad(
            "`[package.metadata.tessera] mod` must be a string (a path)".to_owned(),
            "write it like `mod = \"../../mods/<your mod>\"`",
        )
    })?;
    Ok(PluginCrate {
        name,
        dir: dir.to_path_buf(),
        manifest,
        mod_dir: normalize(&dir.join(mod_path)),
    })
}

/// Resolves `.` and `..` components lexically.
fn normalize(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push(c);
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// `CARGO_TARGET_DIR`, made absolute (cargo runs in each crate's directory).
fn target_dir_env() -> Result<Option<PathBuf>, BuildError> {
    let Some(dir) = std::env::var_os("CARGO_TARGET_DIR").filter(|d| !d.is_empty()) else {
        return Ok(None);
    };
    let dir = PathBuf::from(dir);
    if dir.is_absolute() {
        return Ok(Some(dir));
    }
    let cwd = std::env::current_dir().map_err(|source| BuildError::Io {
        what: "failed to read the current directory",
        path: PathBuf::from("."),
        source,
    })?;
    Ok(Some(cwd.join(dir)))
}

fn run(program: &'static str, cmd: &mut Command) -> Result<Output, BuildError> {
    cmd.output()
        .map_err(|source| BuildError::Spawn { program, source })
}

/// Checks that the toolchain used in `dir` has the wasm target; adds it with rustup if not.
fn ensure_wasm_target(dir: &Path, notes: &mut Vec<String>) -> Result<(), BuildError> {
    let listed = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .current_dir(dir)
        .output();
    let listed = match listed {
        Ok(out) if out.status.success() => out,
        Ok(_) | Err(_) => {
            // No rustup (a distro toolchain, say): cargo will say if the target is missing.
            tracing::debug!("rustup unavailable; not checking for the {WASM_TARGET} target");
            return Ok(());
        }
    };
    if String::from_utf8_lossy(&listed.stdout)
        .lines()
        .any(|l| l.trim() == WASM_TARGET)
    {
        return Ok(());
    }
    tracing::info!("adding the {WASM_TARGET} target with rustup");
    let out = run(
        "rustup",
        Command::new("rustup")
            .args(["target", "add", WASM_TARGET])
            .current_dir(dir),
    )?;
    if !out.status.success() {
        return Err(BuildError::AddTarget {
            stderr: tail(&out.stderr, STDERR_TAIL_LINES),
        });
    }
    notes.push(format!(
        "the {WASM_TARGET} target was missing; added it with `rustup target add {WASM_TARGET}`"
    ));
    Ok(())
}

/// The file name of a native build of plugin `name` on this platform
/// (`libbeasts.so` on Linux, `libbeasts.dylib` on macOS, `beasts.dll` on Windows).
pub fn native_file_name(name: &str) -> String {
    format!(
        "{}{}{}",
        std::env::consts::DLL_PREFIX,
        name.replace('-', "_"),
        std::env::consts::DLL_SUFFIX
    )
}

/// Runs cargo for one crate; the path of the module it produced.
fn cargo_build(
    krate: &PluginCrate,
    target_dir: Option<&Path>,
    target: Target,
) -> Result<PathBuf, BuildError> {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.args([
        "build",
        "--release",
        "--message-format=json-render-diagnostics",
    ]);
    match target {
        Target::Wasm => {
            cmd.args(["--target", WASM_TARGET]);
        }
        Target::Native => {
            cmd.args([
                "--features",
                "tessera-plugin-api/native",
                "--config",
                "profile.release.panic=\"unwind\"",
            ]);
        }
    }
    cmd.arg("--manifest-path")
        .arg(&krate.manifest)
        .current_dir(&krate.dir);
    if let Some(t) = target_dir {
        cmd.env("CARGO_TARGET_DIR", t);
    }
    let out = run("cargo", &mut cmd)?;
    if !out.status.success() {
        let base = std::env::current_dir()
            .ok()
            .and_then(|cwd| krate.dir.strip_prefix(cwd).ok().map(Path::to_path_buf))
            .unwrap_or_else(|| krate.dir.clone());
        return Err(BuildError::Cargo {
            name: krate.name.clone(),
            dir: krate.dir.clone(),
            stderr: locate(&tail(&out.stderr, STDERR_TAIL_LINES), &base),
        });
    }
    let suffix = match target {
        Target::Wasm => ".wasm",
        Target::Native => std::env::consts::DLL_SUFFIX,
    };
    artifact(&String::from_utf8_lossy(&out.stdout), &krate.name, suffix).ok_or_else(|| {
        BuildError::NoModule {
            name: krate.name.clone(),
            manifest: krate.manifest.clone(),
        }
    })
}

/// The `.wasm` file of package `name`'s library in cargo's JSON messages.
#[cfg(test)]
fn wasm_artifact(messages: &str, name: &str) -> Option<PathBuf> {
    artifact(messages, name, ".wasm")
}

/// The file ending in `suffix` of package `name`'s library in cargo's JSON messages.
fn artifact(messages: &str, name: &str, suffix: &str) -> Option<PathBuf> {
    let lib_name = name.replace('-', "_");
    messages
        .lines()
        .rev()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == lib_name.as_str())
        .find_map(|m| {
            m["filenames"]
                .as_array()?
                .iter()
                .filter_map(|f| f.as_str())
                .find(|f| f.ends_with(suffix))
                .map(PathBuf::from)
        })
}

/// Cargo's diagnostics name files relative to the crate (`--> src/lib.rs:18:1`); this
/// puts `crate_dir` in front of them, so the location opens from where `tessera` runs
/// (`--> plugins/my-cards/src/lib.rs:18:1`), not only from inside the crate.
fn locate(stderr: &str, crate_dir: &Path) -> String {
    stderr
        .lines()
        .map(|l| {
            let Some(at) = l.find("--> ") else {
                return l.to_owned();
            };
            let (head, file) = l.split_at(at + 4);
            if Path::new(file).is_absolute() || crate_dir.as_os_str().is_empty() {
                return l.to_owned();
            }
            format!("{head}{}", crate_dir.join(file).display())
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The last `n` lines of a tool's output.
fn tail(bytes: &[u8], n: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text.trim_end().lines().collect();
    let skip = lines.len().saturating_sub(n);
    let mut out = lines[skip..].join("\n");
    if skip > 0 {
        out.insert_str(0, &format!("... ({skip} earlier lines)\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh empty directory under the system temp dir.
    fn temp_dir(tag: &str) -> PathBuf {
        use std::sync::atomic::{AtomicU32, Ordering};
        static N: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "tessera-build-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn reads_name_and_mod_from_the_manifest() {
        let dir = temp_dir("ok");
        std::fs::write(
            dir.join("Cargo.toml"),
            "[package]\nname = \"my-beasts\"\nversion = \"0.1.0\"\n\n[lib]\ncrate-type = [\"cdylib\"]\n\n[package.metadata.tessera]\nmod = \"../mods/beasts\"\n",
        )
        .unwrap();
        let k = read_plugin_crate(&dir).unwrap();
        assert_eq!(k.name, "my-beasts");
        assert_eq!(k.mod_dir, dir.parent().unwrap().join("mods/beasts"));
        assert_eq!(k.manifest, dir.join("Cargo.toml"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn missing_metadata_says_how_to_fix_it() {
        let dir = temp_dir("nomod");
        std::fs::write(dir.join("Cargo.toml"), "[package]\nname = \"x\"\n").unwrap();
        let e = read_plugin_crate(&dir).unwrap_err().to_string();
        assert!(e.contains("plugin `x` does not say which mod"), "{e}");
        assert!(e.contains("[package.metadata.tessera]"), "{e}");

        std::fs::write(dir.join("Cargo.toml"), "[workspace]\nmembers = []\n").unwrap();
        let e = read_plugin_crate(&dir).unwrap_err().to_string();
        assert!(e.contains("no [package] table"), "{e}");

        let e = read_plugin_crate(&dir.join("nope")).unwrap_err();
        assert!(matches!(e, BuildError::Io { .. }), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Issue 21, defect 10: a plugin build error printed under `run --watch` (whose
    /// working folder is not the crate's) named `src/lib.rs`, a file that is not there.
    #[test]
    fn cargo_locations_name_the_file_from_where_tessera_runs() {
        let stderr = "error: expected expression\n  --> src/lib.rs:18:1\n   |\n18 | }\n";
        let out = locate(stderr, Path::new("plugins/my-cards"));
        assert!(
            out.contains("  --> plugins/my-cards/src/lib.rs:18:1\n"),
            "{out}"
        );
        assert!(out.starts_with("error: expected expression\n"), "{out}");
        let out = locate("  --> /abs/src/lib.rs:1:1", Path::new("plugins/x"));
        assert_eq!(out, "  --> /abs/src/lib.rs:1:1");
    }

    #[test]
    fn finds_the_module_in_cargo_messages() {
        let msgs = concat!(
            "{\"reason\":\"compiler-artifact\",\"target\":{\"name\":\"serde\",\"kind\":[\"lib\"]},\"filenames\":[\"/t/libserde.rlib\"]}\n",
            "not json\n",
            "{\"reason\":\"compiler-artifact\",\"target\":{\"name\":\"my_beasts\",\"kind\":[\"cdylib\"]},\"filenames\":[\"/t/wasm32-unknown-unknown/release/my_beasts.wasm\"]}\n",
            "{\"reason\":\"build-finished\",\"success\":true}\n",
        );
        assert_eq!(
            wasm_artifact(msgs, "my-beasts"),
            Some(PathBuf::from(
                "/t/wasm32-unknown-unknown/release/my_beasts.wasm"
            ))
        );
        assert_eq!(wasm_artifact(msgs, "serde"), None);
    }

    #[test]
    fn keeps_the_tail_of_tool_output() {
        let text: String = (1..=50).map(|i| format!("line {i}\n")).collect();
        let t = tail(text.as_bytes(), 3);
        assert_eq!(t, "... (47 earlier lines)\nline 48\nline 49\nline 50");
        assert_eq!(tail(b"one\n", 3), "one");
    }
}
