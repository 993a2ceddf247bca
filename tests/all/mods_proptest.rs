//! Property tests: random dependency graphs resolve to an order that respects every edge,
//! deterministically whatever the input order, without disabling any valid mod.

use proptest::prelude::*;
use semver::{Version, VersionReq};
use tessera_host::mods::{resolve, Dependency, Discovery, FoundMod, Manifest, HOST_API_VERSION};

/// `edges[i]` lists mods with a *smaller* index that mod `i` depends on, so the graph is a
/// DAG; `optional[i][k]` makes an edge optional; `hints` adds `load.after` edges along the DAG.
/// (dependency lists, load hints, a permutation of the mods).
type Generated = (Vec<Vec<(usize, bool)>>, Vec<(usize, usize)>, Vec<usize>);

fn graph() -> impl Strategy<Value = Generated> {
    (1usize..24).prop_flat_map(|n| {
        let edges = (0..n)
            .map(|i| proptest::collection::vec((0..i.max(1), any::<bool>()), 0..4.min(i + 1)))
            .collect::<Vec<_>>();
        let hints = proptest::collection::vec((0..n, 0..n), 0..6);
        let perm = Just((0..n).collect::<Vec<_>>()).prop_shuffle();
        (edges, hints, perm)
    })
}

fn mods(edges: &[Vec<(usize, bool)>], hints: &[(usize, usize)]) -> Vec<FoundMod> {
    // Ids in an order unrelated to the DAG so the id tie-break is exercised.
    let id = |i: usize| format!("m{:02}", (i * 7) % 97);
    edges
        .iter()
        .enumerate()
        .map(|(i, deps)| {
            let mut m = Manifest::new(
                id(i),
                Version::new(1, 0, i as u64),
                VersionReq::parse("0.1").unwrap(),
            );
            for &(d, optional) in deps {
                if d < i && !m.dependencies.iter().any(|x| x.id == id(d)) {
                    let dep = Dependency::new(id(d), VersionReq::parse("1").unwrap());
                    m.dependencies
                        .push(if optional { dep.optional() } else { dep });
                }
            }
            for &(a, b) in hints {
                if a < b && b == i {
                    m.load.after.push(id(a));
                }
            }
            FoundMod {
                dir: format!("/virtual/{}", id(i)).into(),
                manifest: m,
            }
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn order_respects_edges_and_is_deterministic((edges, hints, perm) in graph()) {
        let found = mods(&edges, &hints);
        let r = resolve(&Discovery::from_mods(found.clone()), &HOST_API_VERSION, None);
        prop_assert!(r.disabled.is_empty(), "valid mods disabled: {:?}", r.disabled);
        prop_assert!(r.diagnostics.0.is_empty(), "{}", r.diagnostics.render(false));
        prop_assert_eq!(r.order.len(), found.len());
        let pos = |id: &str| r.order.iter().position(|m| m.id == id).unwrap();
        for m in &found {
            for d in &m.manifest.dependencies {
                prop_assert!(pos(&d.id) < pos(&m.manifest.id), "{} must load before {}", d.id, m.manifest.id);
            }
            for a in &m.manifest.load.after {
                prop_assert!(pos(a) < pos(&m.manifest.id));
            }
        }
        let shuffled: Vec<FoundMod> = perm.iter().map(|&i| found[i].clone()).collect();
        let r2 = resolve(&Discovery::from_mods(shuffled), &HOST_API_VERSION, None);
        prop_assert_eq!(r.ids(), r2.ids());
        let r3 = resolve(&Discovery::from_mods(found), &HOST_API_VERSION, None);
        prop_assert_eq!(r.ids(), r3.ids());
    }

    #[test]
    fn one_broken_mod_disables_exactly_its_dependents((edges, hints, _perm) in graph(), pick in any::<proptest::sample::Index>()) {
        let mut found = mods(&edges, &hints);
        let broken = pick.index(found.len());
        found[broken].manifest.api = VersionReq::parse("9").unwrap();
        let broken_id = found[broken].manifest.id.clone();
        // Expected: the broken mod and everything that requires it, transitively.
        let mut dead = std::collections::BTreeSet::from([broken_id.clone()]);
        loop {
            let before = dead.len();
            for m in &found {
                if m.manifest.dependencies.iter().any(|d| !d.optional && dead.contains(&d.id)) {
                    dead.insert(m.manifest.id.clone());
                }
            }
            if dead.len() == before { break; }
        }
        let r = resolve(&Discovery::from_mods(found.clone()), &HOST_API_VERSION, None);
        let disabled: std::collections::BTreeSet<String> = r.disabled.iter().map(|d| d.id.clone()).collect();
        prop_assert_eq!(&disabled, &dead);
        prop_assert_eq!(r.order.len() + dead.len(), found.len());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Parsers never panic, whatever the text; every error has a location in the file.
    #[test]
    fn parsers_never_panic(text in "(\\[mod\\]|\\[dependencies\\]|\\[\\[plugin\\]\\]|id|version|api|=|\"|1\\.0|\\{|\\}|,|optional|true|\n| |[a-zé]{1,3}|\\[limits\\.a\\]|fuel|-1|0x1F){0,40}") {
        let path = std::path::Path::new("mod.toml");
        if let Err(e) = Manifest::parse(path, &text) {
            for d in &e.diagnostics.0 {
                prop_assert!(d.location.is_some(), "{d}");
                let _ = d.render(true);
            }
        }
        let _ = tessera_host::mods::ServerConfig::parse(path, &text, std::path::Path::new("."));
        let _ = tessera_host::mods::Lockfile::parse(path, &text);
    }
}
