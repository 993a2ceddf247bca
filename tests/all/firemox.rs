//! Magic Project (Firemox) cards on the mtg rules (`mods/firemox`): every card file of the
//! corpus (`../shared/corpora/firemox/cards`, read where it lies, never copied) becomes a
//! class through the `firemox` loader plugin — playable ones tagged `deck_card`, the others
//! `untranslated` with what they lack —, the fraction translated and a histogram of the
//! missing features are printed, the same cards read from Forge's scripts and Firemox's XML
//! have the same characteristics, and the scenarios and seeded games pass.

use std::collections::BTreeMap;
use std::path::PathBuf;

use tessera_host::rules::ClassDef;
use tessera_host::{Id, Sym, Value};

use crate::plugin_build::{ensure_built, repo, tessera_at_root as tessera};

/// The corpus folder; a clear failure when the folder beside the checkout is missing.
fn corpus() -> PathBuf {
    let p = repo().join("../shared/corpora/firemox");
    assert!(
        p.join("cards").is_dir(),
        "Firemox's card files are read from {} (the `shared` folder beside the checkout); it is missing",
        p.display()
    );
    p
}

fn prop(c: &ClassDef, k: &str) -> Option<Value> {
    c.props
        .iter()
        .find(|(key, _)| *key == Sym::new(k))
        .map(|(_, v)| v.clone())
}

/// Every card file is a class (none dropped), each either `deck_card` or `untranslated`
/// with a `missing` list; the fraction that translates and the histogram of what the
/// others lack are printed (`cargo test -p tessera-host --test all firemox -- --nocapture`).
/// Then the cross-check: cards read from both Forge's scripts and Firemox's XML have the
/// same cost, power, toughness and rules tags.
#[test]
fn every_firemox_card_becomes_a_class_and_matches_forge_where_both_have_it() {
    ensure_built();
    let files = std::fs::read_dir(corpus().join("cards"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "xml"))
        .count();
    let loaded = crate::plugin_build::load_server_without_errors("firemox.toml");
    let gen = loaded.generation.expect("a generation");
    let cards: Vec<&ClassDef> = gen
        .classes
        .values()
        .filter(|c| c.id.namespace() == "firemox" && !c.tags.contains(&Sym::new("ability")))
        .map(|c| &**c)
        .collect();
    assert_eq!(cards.len(), files, "one class per card file, none dropped");
    let (mut playable, mut histogram) = (0usize, BTreeMap::<String, usize>::new());
    for c in &cards {
        let deck = c.tags.contains(&Sym::new("deck_card"));
        assert!(
            deck != c.tags.contains(&Sym::new("untranslated")),
            "`{}`: exactly one of deck_card / untranslated",
            c.id
        );
        match prop(c, "missing") {
            Some(Value::Text(t)) if !deck && !t.is_empty() => {
                for m in t.split("; ") {
                    *histogram.entry(m.to_owned()).or_default() += 1;
                }
            }
            None if deck => playable += 1,
            other => panic!("`{}`: deck_card={deck}, missing={other:?}", c.id),
        }
    }
    let mut by_count: Vec<(String, usize)> = histogram.into_iter().collect();
    by_count.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    println!(
        "{playable} of {files} Firemox cards translate ({:.1}%); most missing:",
        100.0 * playable as f64 / files as f64
    );
    for (m, n) in by_count.iter().take(40) {
        println!("{n:6}  {m}");
    }
    assert!(playable >= 2852, "{playable} playable cards");
    // The loader reports every lacking feature at its card's file (what `tessera check
    // --format json` lists): each untranslated card, and each entry of its `missing`.
    let reported: Vec<&str> = loaded
        .diagnostics
        .0
        .iter()
        .filter(|d| d.construct.is_some())
        .filter_map(|d| d.location.as_ref())
        .filter_map(|l| l.path.to_str())
        .filter(|p| p.ends_with(".xml"))
        .collect();
    let reporting: std::collections::BTreeSet<&str> = reported.iter().copied().collect();
    assert_eq!(
        reporting.len(),
        cards.len() - playable,
        "every untranslated card reported"
    );
    let missing: usize = by_count.iter().map(|(_, n)| n).sum();
    assert_eq!(
        reported.len(),
        missing,
        "every missing feature reported once"
    );
    for name in [
        "lightning_bolt",
        "giant_growth",
        "serra_angel",
        "counterspell",
        "llanowar_elves",
        "prodigal_sorcerer",
    ] {
        let forge = gen
            .class(Id::parse(&format!("mtg:class/{name}")).unwrap())
            .unwrap_or_else(|| panic!("Forge's {name}"));
        let firemox = gen
            .class(Id::parse(&format!("firemox:class/{name}")).unwrap())
            .unwrap_or_else(|| panic!("Firemox's {name}"));
        for k in [
            "power",
            "max_health",
            "mana_value",
            "cost_generic",
            "cost_w",
            "cost_u",
            "cost_b",
            "cost_r",
            "cost_g",
            "title",
        ] {
            assert_eq!(
                prop(forge, k),
                prop(firemox, k),
                "{name}: `{k}` differs between Forge and Firemox"
            );
        }
        let rules_tags = [
            "creature",
            "instant",
            "spell",
            "permanent",
            "flying",
            "vigilance",
            "white",
            "blue",
            "red",
            "green",
            "makes_g",
            "targets_creature",
            "targets_player",
            "targets_spell",
            "tap_ability",
            "deck_card",
        ];
        for t in rules_tags {
            assert_eq!(
                forge.tags.contains(&Sym::new(t)),
                firemox.tags.contains(&Sym::new(t)),
                "{name}: tag `{t}` differs between Forge and Firemox"
            );
        }
    }
}

/// `tessera check --server firemox.toml` is clean: no error, and no warning but the Forge
/// loader's about the constructs of the (mtg mod's) Forge cards that the rules lack.
#[test]
fn tessera_check_firemox_is_clean() {
    ensure_built();
    corpus();
    let _ = std::fs::remove_file(repo().join("target/firemox-check.lock"));
    let (ok, text) = tessera(&[
        "check",
        "--server",
        "firemox.toml",
        "--lock",
        "target/firemox-check.lock",
        "--format",
        "json",
    ]);
    assert!(ok, "{text}");
    crate::mtg::only_unsupported_card_constructs(&text);
}

/// The mod's scenarios (`mods/firemox/tests`: Grizzly Bears, Serra Angel, Lightning Bolt,
/// Counterspell, Giant Growth, Llanowar Elves, Prodigal Sorcerer, state-based actions, and
/// the Forge/Firemox cross-checks) pass.
#[test]
fn every_firemox_scenario_passes() {
    ensure_built();
    corpus();
    let (ok, text) = tessera(&["test", "--server", "firemox.toml", "mods/firemox/tests"]);
    assert!(ok, "{text}");
    assert!(text.trim_end().ends_with(" passed, 0 failed"), "{text}");
    for s in [
        "Cross-check: Lightning Bolt",
        "Cross-check: Giant Growth",
        "Cross-check: Serra Angel",
        "Prodigal Sorcerer",
    ] {
        assert!(text.contains(s), "{s}: {text}");
    }
}

/// Decks dealt from the corpus: seeded AI-vs-AI games finish with no error.
#[test]
fn seeded_firemox_games_finish_without_errors() {
    ensure_built();
    corpus();
    let (ok, text) = tessera(&[
        "run",
        "--server",
        "firemox.toml",
        "--games",
        "4",
        "--seed",
        "1",
        "--quiet",
        "--agents",
        "random,greedy",
    ]);
    assert!(ok, "{text}");
    let summary = text
        .lines()
        .find(|l| l.starts_with("4 games in"))
        .unwrap_or_else(|| panic!("no summary line: {text}"));
    assert!(summary.ends_with("errors 0"), "{summary}");
}

/// `tessera run --mods mods ARGS` in `root`: its stdout then stderr.
fn run_in(root: &std::path::Path, args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tessera"))
        .current_dir(root)
        .args(["run", "--mods", "mods"])
        .args(args)
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

/// The move loop's safety valve: after `MOVES_PER_TURN` moves in one turn only moves that
/// end the turn are offered — but while none is legal (Magic: a stack still to resolve),
/// the other legal moves still are, instead of the game failing with "no legal move" (seen
/// in firemox games where creatures pumped themselves through the stack for 60 moves).
#[test]
fn past_the_move_limit_a_turn_that_cannot_end_yet_goes_on() {
    let t = crate::mods_fixture::Tree::new("moves-per-turn");
    t.add("ticks", "1.0.0", "");
    t.write(
        "ticks",
        "content/game.toml",
        r#"
[game]
player_class = "player"
start = "started"
turn_limit = 3

[class.player]
properties = { ticks = 0 }
tags = ["player"]

[event.started]
[trigger.first]
when = "started"
select = { type = "players", pick = { first = 1 } }
do = [{ type = "tag", tag = "active" }]

# 70 ticks must happen before the turn may end (more than the 60-move limit).
[move.tick]
subject = { type = "self", where = { type = "compare", left = "target.ticks", op = "<", right = 70 } }
do = [{ type = "add", key = "ticks", amount = 1, to = "self" }]

[move.end]
subject = { type = "self", where = { type = "compare", left = "target.ticks", op = ">=", right = 70 } }
ends_turn = true
do = [{ type = "set", key = "ticks", value = 0, to = "self" }, { type = "untag", tag = "active", to = "self" }, { type = "tag", tag = "active", to = { type = "players", which = "enemy" } }]
"#,
    );
    let text = run_in(
        &t.root,
        &["--quiet", "--seed", "1", "--agents", "random,random"],
    );
    assert!(!text.contains("no legal move"), "{text}");
    assert!(text.contains("draw (") || text.contains("wins"), "{text}");
}

/// The loop guard (Magic's 104.4b in spirit): a greedy agent that gains score from a free
/// move (`spin`) would repeat it forever while the turn cannot end (a `pending` item must
/// be settled by passing first). Past `MOVES_PER_TURN` moves only the moves marked
/// `passes = true` are offered while no turn-ending move is legal, so the turn ends and
/// the match reaches its turn limit; the same seed gives the same game.
#[test]
fn past_the_move_limit_a_free_loop_gives_way_to_passing() {
    let t = crate::mods_fixture::Tree::new("loop-guard");
    t.add("spin", "1.0.0", "");
    t.write(
        "spin",
        "content/game.toml",
        r#"
[game]
player_class = "player"
start = "started"
turn_limit = 4
score = "self.spins"

[class.player]
properties = { spins = 0, pending = 1 }
tags = ["player"]

[event.started]
[trigger.first]
when = "started"
select = { type = "players", pick = { first = 1 } }
do = [{ type = "tag", tag = "active" }]

# Free and always legal: the greedy agent's favourite.
[move.spin]
subject = { type = "self" }
do = [{ type = "add", key = "spins", amount = 1, to = "self" }]

[move.settle]
subject = { type = "self", where = { type = "compare", left = "target.pending", op = ">", right = 0 } }
passes = true
do = [{ type = "set", key = "pending", value = 0, to = "self" }]

[move.end]
subject = { type = "self", where = { type = "compare", left = "target.pending", op = "==", right = 0 } }
ends_turn = true
do = [{ type = "untag", tag = "active", to = "self" }, { type = "set", key = "pending", value = 1, to = { type = "players", which = "enemy" } }, { type = "tag", tag = "active", to = { type = "players", which = "enemy" } }]
"#,
    );
    let run = || run_in(&t.root, &["--seed", "3", "--agents", "greedy,greedy"]);
    let text = run();
    assert!(text.contains("turn limit 4 reached"), "{text}");
    // Each turn: 60 spins, then the guard leaves only `settle`, then only `end`.
    let settles = text.lines().filter(|l| l.contains("settle")).count();
    assert_eq!(settles, 4, "{text}");
    // The log but for its timings, and the final checksum, agree.
    let checksum = |t: &str| t.split("(checksum ").nth(1).map(|c| c[..16].to_owned());
    let moves = |t: &str| {
        t.lines()
            .filter(|l| l.starts_with("  "))
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    let again = run();
    assert!(checksum(&text).is_some(), "{text}");
    assert_eq!(checksum(&again), checksum(&text), "same seed, same game");
    assert_eq!(moves(&again), moves(&text), "same seed, same moves");
}
