//! Discover, resolve and hash 500 generated mods with a random dependency DAG.
//!
//! Each mod has a `mod.toml` with up to 4 dependencies on mods generated before it (so the
//! graph is a DAG), some optional, some `[load]` hints, and a `content/defs.toml` with 10
//! small definitions. Content parsing is not measured here (it belongs to the registry).

#![expect(
    missing_docs,
    reason = "`criterion_group!` generates an undocumented function"
)]

use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion};
use tessera_host::mods::{discover, resolve, Lockfile, HOST_API_VERSION};

const MODS: usize = 500;

/// A small deterministic generator, so every run measures the same tree.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, below: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % below.max(1) as u64) as usize
    }
}

fn generate(root: &Path) -> PathBuf {
    let mods = root.join("mods");
    let _ = std::fs::remove_dir_all(&mods);
    let mut rng = Lcg(42);
    for i in 0..MODS {
        let id = format!("mod_{i:03}");
        let dir = mods.join(&id);
        std::fs::create_dir_all(dir.join("content")).expect("mkdir");
        let mut toml = format!(
            "[mod]\nid = \"{id}\"\nversion = \"1.{}.0\"\napi = \"0.1\"\nname = \"Mod {i}\"\n\n[dependencies]\n",
            i % 7
        );
        let mut deps = Vec::new();
        if i > 0 {
            for _ in 0..rng.next(5) {
                let d = rng.next(i);
                if !deps.contains(&d) {
                    deps.push(d);
                }
            }
        }
        for d in &deps {
            if rng.next(4) == 0 {
                toml.push_str(&format!(
                    "mod_{d:03} = {{ version = \"^1\", optional = true }}\n"
                ));
            } else {
                toml.push_str(&format!("mod_{d:03} = \"^1\"\n"));
            }
        }
        if i > 1 && rng.next(3) == 0 {
            toml.push_str(&format!("\n[load]\nafter = [\"mod_{:03}\"]\n", rng.next(i)));
        }
        std::fs::write(dir.join("mod.toml"), toml).expect("write");
        let mut defs = String::new();
        for k in 0..10 {
            defs.push_str(&format!(
                "[class.thing_{k}]\nproperties = {{ attack = {}, max_health = {} }}\ntags = [\"beast\", \"tier_{}\"]\n\n[[class.thing_{k}.trigger]]\nwhen = \"core:event/turn_started\"\ndo = [{{ type = \"add\", key = \"attack\", amount = 1 }}]\n\n",
                k + 1,
                k + 2,
                k % 3
            ));
        }
        std::fs::write(dir.join("content/defs.toml"), defs).expect("write");
    }
    mods
}

fn bench(c: &mut Criterion) {
    let root = std::env::temp_dir().join(format!("tessera-bench-resolve-{}", std::process::id()));
    let mods = generate(&root);
    let dirs = vec![mods];
    // Sanity: everything resolves.
    let r = resolve(&discover(&dirs), &HOST_API_VERSION, None);
    assert_eq!(r.order.len(), MODS, "{}", r.diagnostics.render(false));

    c.bench_function("discover+resolve+lock 500 mods", |b| {
        b.iter(|| {
            let found = discover(&dirs);
            let r = resolve(&found, &HOST_API_VERSION, None);
            Lockfile::from_resolution(&r).expect("hash")
        })
    });
    let registry = std::sync::Arc::new(tessera_host::Registry::with_core());
    let loaded = tessera_host::mods::load(&dirs, None, registry.clone());
    assert_eq!(
        loaded.loaded.len(),
        MODS,
        "{}",
        loaded.diagnostics.render(false)
    );
    c.bench_function(
        "discover+resolve+load content of 500 mods (5,000 definitions)",
        |b| b.iter(|| tessera_host::mods::load(&dirs, None, registry.clone())),
    );
    c.bench_function("resolve 500 mods (already discovered)", |b| {
        let found = discover(&dirs);
        b.iter(|| resolve(&found, &HOST_API_VERSION, None))
    });
    let _ = std::fs::remove_dir_all(&root);
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
