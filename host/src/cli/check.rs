//! `tessera check`, `tessera mods` and `tessera explain`.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use tessera_host::mods::{self, LoadedMods, Lockfile, ServerConfig};
use tessera_host::{Diagnostic, Id, Registry, Severity};

use super::{Format, ModArgs};

/// The mod folders the arguments name (or server.toml's, or `./mods`).
pub fn mod_dirs(args: &ModArgs) -> Result<Vec<PathBuf>, String> {
    let (_, dirs) = server_and_dirs(args)?;
    Ok(dirs)
}

pub(crate) fn server_and_dirs(
    args: &ModArgs,
) -> Result<(Option<ServerConfig>, Vec<PathBuf>), String> {
    // Like Cargo with Cargo.toml: a server.toml in the current folder is used by default.
    let default_server = PathBuf::from("server.toml");
    let server_path = args
        .server
        .clone()
        .or_else(|| default_server.is_file().then_some(default_server));
    let server = match &server_path {
        Some(p) => Some(ServerConfig::load(p).map_err(|d| d.render(color()))?),
        None => None,
    };
    let dirs: Vec<PathBuf> = if !args.mods.is_empty() {
        args.mods.clone()
    } else if let Some(s) = &server {
        s.mod_dirs.clone()
    } else {
        vec![PathBuf::from("mods")]
    };
    Ok((server, dirs))
}

/// Loads mods as the arguments say.
pub fn load(args: &ModArgs, registry: Arc<Registry>) -> Result<LoadedMods, String> {
    let (server, dirs) = server_and_dirs(args)?;
    Ok(mods::load(&dirs, server.as_ref(), registry))
}

/// Whether stderr gets colours: a terminal, and `NO_COLOR` unset.
pub fn color() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

/// Every diagnostic, rendered for a terminal.
pub fn render_all(loaded: &LoadedMods) -> String {
    let c = color();
    loaded
        .all_diagnostics()
        .map(|d| d.render(c))
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The lock file of the server file the arguments name: `mods.lock` for `server.toml`
/// (or none), `NAME.mods.lock` beside any other `NAME.toml`.
pub fn default_lock(args: &ModArgs) -> PathBuf {
    let Some(server) = &args.server else {
        return PathBuf::from("mods.lock");
    };
    match server.file_stem().and_then(|s| s.to_str()) {
        Some("server") | None => server.with_file_name("mods.lock"),
        Some(stem) => server.with_file_name(format!("{stem}.mods.lock")),
    }
}

/// What `check` does with the lock file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockMode {
    /// Write it when missing, compare with it otherwise.
    Compare,
    /// Write it even if it exists (`--update-lock`).
    Update,
    /// Leave it alone (re-checks under `--watch`: every save changes a hash, and that
    /// drift was reported once already).
    Ignore,
}

impl LockMode {
    /// `--update-lock` given or not.
    pub fn from_flag(update: bool) -> LockMode {
        if update {
            LockMode::Update
        } else {
            LockMode::Compare
        }
    }
}

/// The lock file's diagnostics for this load (writing or comparing it as `mode` says).
fn lock_diagnostics(loaded: &LoadedMods, lock_path: &Path, mode: LockMode) -> Vec<Diagnostic> {
    let mut extra: Vec<Diagnostic> = Vec::new();
    if mode == LockMode::Ignore {
        return extra;
    }
    match Lockfile::from_resolution(&loaded.resolution) {
        Ok(current) => match Lockfile::read(lock_path) {
            Ok(Some(old)) if mode == LockMode::Compare => {
                extra.extend(old.compare(&current, lock_path).0)
            }
            Ok(_) => {
                if let Err(e) = current.write(lock_path) {
                    extra.push(
                        Diagnostic::warning(
                            "W-LOCK-WRITE",
                            format!("failed to write lock file: {e}"),
                        )
                        .in_file(lock_path),
                    );
                }
            }
            Err(d) => extra.extend(d.0),
        },
        Err(e) => extra.push(Diagnostic::warning(
            "W-LOCK-HASH",
            format!("failed to hash mod files: {e}"),
        )),
    }
    extra
}

/// ` (arena 52 classes, hearthbreaker 455 classes)`: what each loaded mod defines, so a
/// pack whose files were not read shows up as fewer classes than expected.
fn class_counts(loaded: &LoadedMods) -> String {
    let Some(gen) = &loaded.generation else {
        return String::new();
    };
    let counts: Vec<String> = loaded
        .loaded
        .iter()
        .map(|m| {
            let n = gen.classes.keys().filter(|c| c.namespace() == m).count();
            format!("{m} {n} {}", if n == 1 { "class" } else { "classes" })
        })
        .collect();
    if counts.is_empty() {
        String::new()
    } else {
        format!(" ({})", counts.join(", "))
    }
}

/// `1 mod`, `3 mods`.
fn mods_count(n: usize) -> String {
    format!("{n} {}", if n == 1 { "mod" } else { "mods" })
}

/// `tessera check`.
pub fn check(
    args: &ModArgs,
    format: Format,
    lock_path: &Path,
    lock: LockMode,
) -> Result<ExitCode, String> {
    let registry = Arc::new(Registry::with_core());
    let loaded = load(args, registry)?;
    let extra = lock_diagnostics(&loaded, lock_path, lock);
    let all: Vec<&Diagnostic> = loaded.all_diagnostics().chain(extra.iter()).collect();
    let count = |severity| -> usize {
        all.iter()
            .filter(|d| d.severity == severity)
            .map(|d| d.count())
            .sum()
    };
    let (errors, warnings) = (count(Severity::Error), count(Severity::Warning));
    match format {
        Format::Json => {
            let doc = serde_json::json!({
                "loaded": loaded.loaded,
                "disabled": loaded.resolution.disabled.iter().map(|d| serde_json::json!({"id": d.id, "reasons": d.reasons}))
                    .chain(loaded.content_disabled.iter().map(|(id, why)| serde_json::json!({"id": id, "reasons": [why]})))
                    .collect::<Vec<_>>(),
                "errors": errors,
                "warnings": warnings,
                "diagnostics": all.iter().map(|d| d.to_json()).collect::<Vec<_>>(),
                "unsupported": unsupported(&all),
            });
            outln!(
                "{}",
                serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?
            );
        }
        Format::Human => {
            let c = color();
            // One buffered writer: thousands of warnings (a corpus' untranslated cards)
            // are not thousands of unbuffered writes.
            let mut err = std::io::BufWriter::new(std::io::stderr().lock());
            for d in &all {
                let _ = writeln!(err, "{}\n", d.render(c));
            }
            for (id, why) in &loaded.content_disabled {
                let _ = writeln!(err, "disabled `{id}`: {why}");
            }
            let _ = err.flush();
            drop(err);
            outln!(
                "checked {}: {} loaded{}, {} disabled; {}, {}",
                mods_count(loaded.resolution.order.len() + loaded.resolution.disabled.len()),
                loaded.loaded.len(),
                class_counts(&loaded),
                loaded.resolution.disabled.len() + loaded.content_disabled.len(),
                counted(errors, "error"),
                counted(warnings, "warning"),
            );
        }
    }
    Ok(if errors > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// What loaders reported unsupported (diagnostics naming a `construct`): a histogram,
/// most frequent first (`[{ "construct", "count" }]`), and each file with the constructs
/// it uses that are not supported (`[{ "file", "constructs" }]`, in the order of the
/// diagnostics).
fn unsupported(all: &[&Diagnostic]) -> serde_json::Value {
    let mut counts: indexmap::IndexMap<&str, usize> = indexmap::IndexMap::new();
    let mut files: indexmap::IndexMap<String, Vec<&str>> = indexmap::IndexMap::new();
    for d in all {
        let Some(c) = d.construct.as_deref() else {
            continue;
        };
        *counts.entry(c).or_default() += d.count();
        let file = d
            .location
            .as_ref()
            .map_or_else(String::new, |l| l.path.display().to_string());
        files.entry(file).or_default().push(c);
    }
    let mut counts: Vec<(&str, usize)> = counts.into_iter().collect();
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    serde_json::json!({
        "histogram": counts.iter().map(|(c, n)| serde_json::json!({ "construct": c, "count": n })).collect::<Vec<_>>(),
        "files": files.iter().map(|(f, cs)| serde_json::json!({ "file": f, "constructs": cs })).collect::<Vec<_>>(),
    })
}

/// `3 errors`, `1 warning`, `0 warnings`.
fn counted(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// `check --watch`: checks, then checks again after every (debounced) save.
pub fn watch(args: &ModArgs, format: Format, lock_path: &Path) -> Result<ExitCode, String> {
    let dirs = mod_dirs(args)?;
    let watcher =
        tessera_host::reload::ModWatcher::new(&dirs, std::time::Duration::from_millis(200))
            .map_err(|e| e.to_string())?;
    let mut last = check(args, format, lock_path, LockMode::Compare)?;
    outln!(
        "watching {} for changes (Ctrl-C to stop)",
        dirs.iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    loop {
        let changed = watcher.changes(std::time::Duration::from_secs(3600));
        if changed.is_empty() {
            continue;
        }
        outln!(
            "changed: {}",
            changed
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        last = check(args, format, lock_path, LockMode::Ignore).unwrap_or(last);
        use std::io::Write;
        let _ = std::io::stdout().flush();
    }
}

pub fn mods(args: &ModArgs) -> Result<ExitCode, String> {
    let registry = Arc::new(Registry::with_core());
    let loaded = load(args, registry)?;
    out!("{}", loaded.resolution.summary());
    for (id, why) in &loaded.content_disabled {
        outln!("  {id}: disabled because {why}");
    }
    outln!("dependencies:");
    for m in &loaded.resolution.order {
        let deps: Vec<String> = m
            .manifest
            .dependencies
            .iter()
            .map(|d| {
                format!(
                    "{} {}{}",
                    d.id,
                    d.req,
                    if d.optional { " (optional)" } else { "" }
                )
            })
            .collect();
        let deps = if deps.is_empty() {
            "nothing".to_owned()
        } else {
            deps.join(", ")
        };
        outln!("  {} depends on {deps}", m.id);
    }
    if loaded.has_errors() {
        eprintln!("{}", render_all(&loaded));
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints a registry entry (kind, provider, parameters) if `id` names one.
fn explain_entry(registry: &Registry, id: Id) -> bool {
    let found = [
        (
            "action",
            registry
                .actions
                .get(id)
                .map(|e| (&e.provider, &e.doc, &e.params)),
        ),
        (
            "condition",
            registry
                .conditions
                .get(id)
                .map(|e| (&e.provider, &e.doc, &e.params)),
        ),
        (
            "selector",
            registry
                .selectors
                .get(id)
                .map(|e| (&e.provider, &e.doc, &e.params)),
        ),
        (
            "node",
            registry
                .nodes
                .get(id)
                .map(|e| (&e.provider, &e.doc, &e.params)),
        ),
    ];
    for (kind, entry) in found {
        if let Some((provider, doc, params)) = entry {
            outln!("{id}: {kind}, {provider}\n  {doc}");
            for p in params {
                let req = if p.required { "required" } else { "optional" };
                outln!("  {} ({req}): {} — {}", p.name, p.ty.describe(), p.doc);
            }
            return true;
        }
    }
    false
}

/// The ids of the loaded mods (and their registry) whose short form is `short`
/// (`river_giant` or `class/river_giant`).
fn ids_named(gen: &tessera_host::Generation, short: &str) -> Vec<Id> {
    let mut out: Vec<Id> = gen
        .provenance
        .touches
        .keys()
        .copied()
        .filter(|i| {
            i.name() == short || i.as_str().split_once(':').is_some_and(|(_, r)| r == short)
        })
        .collect();
    out.sort_by_key(|i| i.as_str());
    out
}

/// `explain` given an id with no namespace: names the full ids it may stand for.
fn explain_short(short: &str, error: String, args: &ModArgs) -> Result<ExitCode, String> {
    let loaded = load(args, Arc::new(Registry::with_core()))?;
    let found = loaded
        .generation
        .as_ref()
        .map(|g| ids_named(g, short))
        .unwrap_or_default();
    if found.is_empty() {
        return Err(error);
    }
    let list: Vec<String> = found.iter().map(|i| format!("`{i}`")).collect();
    Err(format!(
        "`{short}` is not a full id (`namespace:category/name`); did you mean {}?",
        list.join(" or ")
    ))
}

pub fn explain(id: &str, args: &ModArgs) -> Result<ExitCode, String> {
    let registry = Arc::new(Registry::with_core());
    let id = match Id::parse(id) {
        Ok(id) => id,
        Err(e @ tessera_host::IdError::NoNamespace { .. }) => {
            return explain_short(id, e.to_string(), args)
        }
        Err(e) => return Err(e.to_string()),
    };
    if explain_entry(&registry, id) {
        return Ok(ExitCode::SUCCESS);
    }
    let loaded = load(args, registry)?;
    let Some(gen) = &loaded.generation else {
        eprintln!("{}", render_all(&loaded));
        return Err("no mods could be loaded".into());
    };
    // Plugins of the loaded mods add entries too.
    if explain_entry(&gen.registry, id) {
        return Ok(ExitCode::SUCCESS);
    }
    let Some(touches) = gen.provenance.touches.get(&id) else {
        let names: Vec<&str> = gen.provenance.touches.keys().map(|i| i.as_str()).collect();
        let hint = tessera_host::closest(id.as_str(), names)
            .first()
            .map(|b| format!("; did you mean `{b}`?"))
            .unwrap_or_default();
        return Err(format!("`{id}` is not defined by any loaded mod{hint}"));
    };
    outln!("{id}");
    for t in touches {
        let what = if t.op == "defined" {
            "defined".to_owned()
        } else {
            format!("patched ({})", t.op)
        };
        outln!(
            "  {what} by `{}` at {}:{}",
            t.mod_id,
            t.file.display(),
            t.line
        );
    }
    match gen.provenance.definition(id) {
        Some(def) => {
            let text = toml::to_string_pretty(def)
                .unwrap_or_else(|_| serde_json::to_string_pretty(def).unwrap_or_default());
            outln!(
                "final definition:\n{}",
                text.lines()
                    .map(|l| format!("  {l}"))
                    .collect::<Vec<_>>()
                    .join("\n")
            );
        }
        None => outln!("final definition: removed"),
    }
    Ok(ExitCode::SUCCESS)
}
