//! `tessera new mod NAME [--plugin]` and `tessera new plugin NAME --mod DIR`: a mod (and
//! plugin crate) that passes `tessera check` and `tessera test` as soon as it is made,
//! with one example of each part — manifest, a class with a trigger and an aura, its
//! translations, a scenario test, and (with a plugin) a condition used by content.

use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;

/// What `tessera new` makes.
#[derive(clap::Subcommand, Debug)]
pub enum NewCommand {
    /// A mod folder: mod.toml, content/, locale/en.toml and tests/, each with an example
    /// that passes `tessera check` and `tessera test` at once.
    Mod {
        /// The mod's id (its namespace): lowercase letters, digits, `_`, `.` and `-`.
        name: String,
        /// Where to make it (default `mods/NAME`, where the other commands look).
        #[arg(long, value_name = "DIR")]
        path: Option<PathBuf>,
        /// Also make a plugin crate for it (see `tessera new plugin`) and build it.
        #[arg(long)]
        plugin: bool,
    },
    /// A plugin crate for an existing mod, declared in its mod.toml, used by an example
    /// class and a scenario, and built (`tessera build`).
    Plugin {
        /// The crate's name (also the plugin module's file name).
        name: String,
        /// The mod folder it belongs to.
        #[arg(long = "mod", value_name = "DIR")]
        mod_dir: PathBuf,
        /// Where to make the crate (default `plugins/NAME`).
        #[arg(long, value_name = "DIR")]
        path: Option<PathBuf>,
    },
}

/// Runs `tessera new ...`.
pub fn new(cmd: &NewCommand) -> Result<ExitCode, String> {
    match cmd {
        NewCommand::Mod { name, path, plugin } => {
            let dir = path.clone().unwrap_or_else(|| default_mod_dir(name));
            new_mod(name, &dir)?;
            if *plugin {
                new_plugin(name, &dir, &Path::new("plugins").join(name))?;
            }
            outln!("next: `tessera check` validates it, `tessera test` runs its tests");
        }
        NewCommand::Plugin {
            name,
            mod_dir,
            path,
        } => {
            let dir = path
                .clone()
                .unwrap_or_else(|| Path::new("plugins").join(name));
            new_plugin(name, mod_dir, &dir)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `mods/NAME`: where `tessera check`, `test` and `run` look by default.
fn default_mod_dir(name: &str) -> PathBuf {
    Path::new("mods").join(name)
}

/// `{id}` and `{title}` filled in.
fn fill(template: &str, id: &str, extra: &[(&str, String)]) -> String {
    let mut out = template.replace("{id}", id).replace("{title}", &title(id));
    for (key, value) in extra {
        out = out.replace(key, value);
    }
    out
}

/// `my-cards` → `My Cards`.
fn title(id: &str) -> String {
    id.split(['-', '_', '.'])
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Writes `files` (relative path, text) under `dir`, refusing to overwrite anything.
fn write_files(dir: &Path, files: &[(&str, String)]) -> Result<(), String> {
    for (rel, _) in files {
        let path = dir.join(rel);
        if path.exists() {
            return Err(format!(
                "{} already exists; `tessera new` never overwrites a file: choose another name or `--path`",
                path.display()
            ));
        }
    }
    for (rel, text) in files {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("failed to create {}: {e}", parent.display()))?;
        }
        std::fs::write(&path, text)
            .map_err(|e| format!("failed to write {}: {e}", path.display()))?;
        outln!("    created {}", path.display());
    }
    Ok(())
}

/// Makes the mod folder `dir` for mod `id`.
pub fn new_mod(id: &str, dir: &Path) -> Result<(), String> {
    tessera_host::validate_namespace(id).map_err(|e| {
        format!("`{id}` cannot be a mod id: {e}; use lowercase letters, digits, `_`, `.` and `-`")
    })?;
    outln!("creating mod `{id}` in {}", dir.display());
    write_files(
        dir,
        &[
            (
                "mod.toml",
                fill(include_str!("templates/mod.toml"), id, &[]),
            ),
            (
                "content/example.toml",
                fill(include_str!("templates/content.toml"), id, &[]),
            ),
            (
                "locale/en.toml",
                fill(include_str!("templates/locale.toml"), id, &[]),
            ),
            (
                "tests/example.toml",
                fill(include_str!("templates/scenario.toml"), id, &[]),
            ),
        ],
    )
}

/// Makes the plugin crate `crate_dir` (package `name`) for the mod in `mod_dir`, declares
/// it in the mod, adds content and a scenario that use it, and builds it.
pub fn new_plugin(name: &str, mod_dir: &Path, crate_dir: &Path) -> Result<(), String> {
    tessera_host::validate_namespace(name)
        .map_err(|e| format!("`{name}` cannot be a plugin name: {e}"))?;
    let manifest = mod_dir.join("mod.toml");
    let manifest_text = std::fs::read_to_string(&manifest).map_err(|e| {
        format!(
            "failed to read {}: {e}; `--mod` must name a mod folder (make one with `tessera new mod`)",
            manifest.display()
        )
    })?;
    let id = mod_id(&manifest_text).ok_or_else(|| {
        format!(
            "{}: no `[mod] id`; fix the manifest first (`tessera check` says how)",
            manifest.display()
        )
    })?;
    let sdk = find_sdk()?;
    let abs_crate = absolute(crate_dir)?;
    let extra = [
        ("{crate_dir}", crate_dir.display().to_string()),
        ("{sdk}", relative(&abs_crate, &sdk)),
        ("{mod_dir}", relative(&abs_crate, &absolute(mod_dir)?)),
    ];
    outln!("creating plugin `{name}` in {}", crate_dir.display());
    let cargo = fill(include_str!("templates/plugin_cargo.toml"), name, &extra);
    let lib = fill(include_str!("templates/plugin_lib.rs"), &id, &extra);
    write_files(crate_dir, &[("Cargo.toml", cargo), ("src/lib.rs", lib)])?;
    write_files(
        mod_dir,
        &[
            (
                "content/plugin_example.toml",
                fill(include_str!("templates/plugin_content.toml"), &id, &[]),
            ),
            (
                "tests/plugin_example.toml",
                fill(include_str!("templates/plugin_scenario.toml"), &id, &[]),
            ),
        ],
    )?;
    let declare = fill(include_str!("templates/plugin_manifest.toml"), name, &extra);
    append(&manifest, &declare)?;
    let locale = mod_dir.join("locale/en.toml");
    append(
        &locale,
        &fill(include_str!("templates/plugin_locale.toml"), &id, &[]),
    )?;
    super::build(vec![crate_dir.to_path_buf()], false).map(|_| ())
}

fn append(path: &Path, text: &str) -> Result<(), String> {
    let old = std::fs::read_to_string(path).unwrap_or_default();
    std::fs::write(path, format!("{old}{text}"))
        .map_err(|e| format!("failed to write {}: {e}", path.display()))?;
    outln!("    updated {}", path.display());
    Ok(())
}

/// `[mod] id` of a manifest's text.
fn mod_id(manifest: &str) -> Option<String> {
    let doc: toml::Table = toml::from_str(manifest).ok()?;
    Some(doc.get("mod")?.get("id")?.as_str()?.to_owned())
}

fn absolute(p: &Path) -> Result<PathBuf, String> {
    std::path::absolute(p).map_err(|e| format!("failed to resolve {}: {e}", p.display()))
}

/// The plugin SDK (`tessera-plugin-api`): `$TESSERA_SDK`, else a `plugin-api` folder in
/// the current folder or above it (a Tessera checkout).
fn find_sdk() -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os("TESSERA_SDK") {
        return absolute(Path::new(&dir));
    }
    let here = absolute(Path::new("."))?;
    here.ancestors()
        .map(|d| d.join("plugin-api"))
        .find(|d| {
            std::fs::read_to_string(d.join("Cargo.toml"))
                .is_ok_and(|t| t.contains("name = \"tessera-plugin-api\""))
        })
        .ok_or_else(|| {
            "the plugin SDK (`tessera-plugin-api`) was not found in this folder or above it; \
             run `tessera new plugin` inside a Tessera checkout, or set TESSERA_SDK to the SDK's folder"
                .to_owned()
        })
}

/// `to` as a path relative to the folder `from` (both absolute), with `/` separators.
fn relative(from: &Path, to: &Path) -> String {
    let from: Vec<Component> = from
        .components()
        .filter(|c| *c != Component::CurDir)
        .collect();
    let to: Vec<Component> = to
        .components()
        .filter(|c| *c != Component::CurDir)
        .collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let ups = std::iter::repeat_n("..".to_owned(), from.len() - common);
    let downs = to[common..]
        .iter()
        .map(|c| c.as_os_str().to_string_lossy().into_owned());
    ups.chain(downs).collect::<Vec<_>>().join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_and_relative_paths() {
        assert_eq!(title("my-cards"), "My Cards");
        assert_eq!(
            relative(Path::new("/r/plugins/x"), Path::new("/r/mods/x")),
            "../../mods/x"
        );
        assert_eq!(
            relative(Path::new("/r/plugins/x"), Path::new("/r/plugin-api")),
            "../../plugin-api"
        );
    }
}
