//! `tessera pack` and `tessera install`: a mod folder as one `.zip` with its hash in
//! `mods.lock` form, and installing such a file into a mods folder (the work is done by
//! `tessera_host::mods::{pack, install}`).

use std::path::PathBuf;
use std::process::ExitCode;

use tessera_host::mods::{self, InstallOptions};

/// Options of `tessera pack`.
#[derive(clap::Args, Debug)]
pub struct PackArgs {
    /// The mod folder (the one holding `mod.toml`).
    pub dir: PathBuf,
    /// The archive to write (default: `ID-VERSION.zip` in the current folder).
    #[arg(long, short, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// Options of `tessera install`.
#[derive(clap::Args, Debug)]
pub struct InstallArgs {
    /// The packed mod (`tessera pack` wrote it).
    pub file: PathBuf,
    /// The mods folder to install into (the mod goes into `DIR/ID/`).
    #[arg(long = "mods", value_name = "DIR", default_value = "mods")]
    pub mods: PathBuf,
    /// Replace the mod's folder if it is already installed.
    #[arg(long)]
    pub replace: bool,
    /// Refuse the file unless its hash is this one (`sha256:…`, as `tessera pack` printed
    /// it or a `mods.lock` lists it).
    #[arg(long, value_name = "HASH")]
    pub hash: Option<String>,
}

/// `tessera pack`.
pub fn pack(args: &PackArgs) -> Result<ExitCode, String> {
    let out = match &args.out {
        Some(o) => o.clone(),
        None => {
            let manifest = mods::Manifest::load(&args.dir.join("mod.toml"))
                .map_err(|e| e.diagnostics.render(super::check::color()))?;
            PathBuf::from(format!("{}-{}.zip", manifest.id, manifest.version))
        }
    };
    let packed = mods::pack(&args.dir, &out).map_err(|e| e.to_string())?;
    outln!(
        "packed {} {} ({} files) into {}",
        packed.locked.id,
        packed.locked.version,
        packed.files.len(),
        out.display()
    );
    out!("{}", packed.lock_text());
    Ok(ExitCode::SUCCESS)
}

/// `tessera install`.
pub fn install(args: &InstallArgs) -> Result<ExitCode, String> {
    let options = InstallOptions {
        replace: args.replace,
        expect_hash: args.hash.clone(),
    };
    let packed = mods::install(&args.file, &args.mods, &options).map_err(|e| e.to_string())?;
    outln!(
        "installed {} {} ({} files, {}) into {}",
        packed.locked.id,
        packed.locked.version,
        packed.files.len(),
        packed.locked.hash,
        args.mods.join(&packed.locked.id).display()
    );
    outln!(
        "next: `tessera check --mods {}` validates and locks it",
        args.mods.display()
    );
    Ok(ExitCode::SUCCESS)
}
