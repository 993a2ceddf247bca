//! `tessera schema`: JSON Schemas of mod.toml, server.toml and content files, for editor
//! completion and validation (see the README's "Editor support").

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use tessera_host::{schema, Registry};

use super::{check, ModArgs};

/// Which schema.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    /// Content files (`content/*.toml`), with every kind of the loaded mods' registry.
    Content,
    /// A mod's manifest (`mod.toml`).
    Mod,
    /// The operator's `server.toml`.
    Server,
}

/// Options of `tessera schema`.
#[derive(clap::Args, Debug)]
pub struct SchemaArgs {
    /// Print only this schema to stdout (default: write all three into `--out`).
    pub which: Option<Which>,
    /// The folder to write `content.schema.json`, `mod.schema.json` and
    /// `server.schema.json` into.
    #[arg(long, value_name = "DIR", default_value = "schemas")]
    pub out: PathBuf,
    /// Print the content reference in Markdown instead (every kind, its parameters and
    /// docs: the user guide's `docs/src/reference.md`).
    #[arg(long, conflicts_with = "which")]
    pub markdown: bool,
    /// Only the host's built-in kinds, without loading any mod (what the user guide's
    /// reference lists).
    #[arg(long)]
    pub core_only: bool,
    #[command(flatten)]
    pub mods: ModArgs,
}

/// The registry with the kinds of every mod that loads (plugins' and content-defined).
fn registry(args: &SchemaArgs) -> Result<Arc<Registry>, String> {
    if args.core_only {
        return Ok(Arc::new(Registry::with_core()));
    }
    let mods = &args.mods;
    let loaded = check::load(mods, Arc::new(Registry::with_core()))?;
    if loaded.has_errors() {
        eprintln!(
            "warning: some mods did not load, so their kinds are not in the schema:\n{}",
            check::render_all(&loaded)
        );
    }
    Ok(loaded
        .generation
        .map_or_else(|| Arc::new(Registry::with_core()), |g| g.registry.clone()))
}

fn text(which: Which, args: &SchemaArgs) -> Result<String, String> {
    let value = match which {
        Which::Content => schema::content(registry(args)?.as_ref()),
        Which::Mod => schema::manifest(),
        Which::Server => schema::server(),
    };
    serde_json::to_string_pretty(&value).map_err(|e| format!("serializing the schema: {e}"))
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("failed to write {}: {e}", path.display()))?;
    outln!("wrote {}", path.display());
    Ok(())
}

/// `tessera schema`.
pub fn schema(args: &SchemaArgs) -> Result<ExitCode, String> {
    if args.markdown {
        out!("{}", schema::markdown(registry(args)?.as_ref()));
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(which) = args.which {
        outln!("{}", text(which, args)?);
        return Ok(ExitCode::SUCCESS);
    }
    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("failed to create {}: {e}", args.out.display()))?;
    for (which, file) in [
        (Which::Content, "content.schema.json"),
        (Which::Mod, "mod.schema.json"),
        (Which::Server, "server.schema.json"),
    ] {
        write(&args.out.join(file), &text(which, args)?)?;
    }
    outln!(
        "point your editor at them: see the README's \"Editor support\" (a .taplo.toml for Even Better TOML)"
    );
    Ok(ExitCode::SUCCESS)
}
