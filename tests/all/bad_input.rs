//! Bad input: malformed content, unknown ids, wrong parameters, cycles, runtime errors.
//! Each must be a clear error pointing at file:line (or naming the event chain), never a
//! panic, and a failed command must leave the world exactly as it was.

use std::sync::Arc;

use tessera_host::{
    ContentSource, Diagnostic, Diagnostics, Event, Game, Generation, Id, Registry,
    ScriptedController, SourceText,
};

fn build_files(files: &[(&str, &str)]) -> Result<Generation, Diagnostics> {
    let sources: Vec<ContentSource> = files
        .iter()
        .map(|(name, text)| ContentSource::new("test", SourceText::new(*name, *text)))
        .collect();
    Generation::build(Arc::new(Registry::with_core()), &sources, 1)
}

/// Builds one file that must fail; returns its diagnostics.
fn errors_of(name: &str, text: &str) -> Diagnostics {
    errors_of_files(&[(name, text)])
}

fn errors_of_files(files: &[(&str, &str)]) -> Diagnostics {
    match build_files(files) {
        Ok(_) => panic!("content should have been rejected:\n{files:?}"),
        Err(d) => {
            assert!(d.has_errors(), "diagnostics without errors");
            d
        }
    }
}

/// The only diagnostic (there must be exactly one).
fn only(d: &Diagnostics) -> &Diagnostic {
    assert_eq!(
        d.0.len(),
        1,
        "expected one diagnostic, got:\n{}",
        d.render(false)
    );
    &d.0[0]
}

fn line_col(d: &Diagnostic) -> (usize, usize) {
    d.location
        .as_ref()
        .and_then(|l| l.line_col())
        .unwrap_or_else(|| panic!("no line/column in:\n{}", d.render(false)))
}

fn help(d: &Diagnostic) -> String {
    d.help.join("\n")
}

const PRELUDE: &str = "[class.minion]\nproperties = { attack = 1, max_health = 2 }\n";

#[test]
fn malformed_toml_names_the_line() {
    let text = "[class.minion]\nproperties = { attack = 1 }\ntags = [\"a\", \n\n[class.bad\n";
    let d = errors_of("bad.toml", text);
    let e = only(&d);
    assert_eq!(e.code, "E-CONTENT-PARSE", "{}", e.render(false));
    let (line, _) = line_col(e);
    assert_eq!(line, 5, "{}", e.render(false));
    let r = e.render(false);
    assert!(r.contains("bad.toml:5:"), "{r}");
}

#[test]
fn malformed_json_names_the_line() {
    // Line 4 is fine; line 5 lacks the comma after `1`.
    let text = "{\n  \"class\": {\n    \"minion\": {\n      \"properties\": { \"attack\": 1 },\n      \"tags\": [\"a\" \"b\"]\n    }\n  }\n}\n";
    let d = errors_of("bad.json", text);
    let e = only(&d);
    assert_eq!(e.code, "E-CONTENT-PARSE", "{}", e.render(false));
    let (line, _) = line_col(e);
    assert_eq!(line, 5, "{}", e.render(false));
    assert!(
        e.render(false).contains("bad.json:5:"),
        "{}",
        e.render(false)
    );

    let trailing = "{\n  \"class\": {\n    \"minion\": { \"tags\": [], }\n  }\n}\n";
    let d = errors_of("trailing.json", trailing);
    let e = only(&d);
    // The caret is on the comma itself (the message says commas may not trail).
    assert_eq!(line_col(e), (3, 27), "{}", e.render(false));
    assert!(
        e.render(false).contains("Trailing commas"),
        "{}",
        e.render(false)
    );
}

#[test]
fn valid_json_content_loads() {
    let text =
        r#"{ "class": { "minion": { "properties": { "attack": 1 }, "tags": ["minion"] } } }"#;
    build_files(&[("ok.json", text)]).unwrap_or_else(|d| panic!("{}", d.render(false)));
}

#[test]
fn unknown_action_type_suggests_the_closest() {
    let text = format!(
        "{PRELUDE}\n[[class.minion.trigger]]\nwhen = \"created\"\ndo = [{{ type = \"damge\", amount = 1 }}]\n"
    );
    let d = errors_of("x.toml", &text);
    let e = only(&d);
    assert_eq!(e.code, "E-CONTENT-UNKNOWN-ID", "{}", e.render(false));
    assert!(e.message.contains("damge"), "{}", e.message);
    assert!(
        help(e).contains("core:action/damage"),
        "{}",
        e.render(false)
    );
    assert_eq!(line_col(e).0, 6, "{}", e.render(false));
}

#[test]
fn wrong_parameter_type_is_located() {
    let text = format!(
        "{PRELUDE}\n[[class.minion.trigger]]\nwhen = \"created\"\ndo = [\n  {{ type = \"tag\", tag = 5 }},\n]\n"
    );
    let d = errors_of("x.toml", &text);
    let e = only(&d);
    assert_eq!(e.code, "E-CONTENT-TYPE", "{}", e.render(false));
    assert!(e.message.contains("`tag`"), "{}", e.message);
    assert!(e.message.contains("core:action/tag"), "{}", e.message);
    let (line, col) = line_col(e);
    assert_eq!(line, 7, "{}", e.render(false));
    // Points at the value `5`.
    assert_eq!(col, 25, "{}", e.render(false));
}

#[test]
fn missing_required_parameter_is_named() {
    let text =
        format!("{PRELUDE}\n[trigger.t]\nwhen = \"created\"\ndo = [{{ type = \"damage\" }}]\n");
    let d = errors_of("x.toml", &text);
    let e = only(&d);
    assert_eq!(e.code, "E-CONTENT-MISSING-PARAM", "{}", e.render(false));
    assert!(e.message.contains("amount"), "{}", e.message);
    assert_eq!(line_col(e).0, 6, "{}", e.render(false));
}

#[test]
fn unknown_parameter_key_suggests_the_closest() {
    let text = format!(
        "{PRELUDE}\n[trigger.t]\nwhen = \"created\"\ndo = [{{ type = \"damage\", amont = 1 }}]\n"
    );
    let d = errors_of("x.toml", &text);
    let e = only(&d);
    assert_eq!(e.code, "E-CONTENT-UNKNOWN-PARAM", "{}", e.render(false));
    assert!(e.message.contains("amont"), "{}", e.message);
    assert!(help(e).contains("`amount`"), "{}", e.render(false));
    assert_eq!(line_col(e).0, 6, "{}", e.render(false));
}

#[test]
fn unknown_key_in_a_class_suggests_the_closest() {
    let text = "[class.minion]\nproperties = { attack = 1 }\ntagz = [\"a\"]\n";
    let d = errors_of("x.toml", text);
    let e = only(&d);
    assert_eq!(e.code, "E-CONTENT-SCHEMA", "{}", e.render(false));
    assert!(help(e).contains("`tags`"), "{}", e.render(false));
    assert_eq!(line_col(e).0, 3, "{}", e.render(false));
}

#[test]
fn unknown_event_is_reported_with_a_suggestion() {
    let text = format!(
        "{PRELUDE}\n[trigger.t]\nwhen = \"damagd\"\ndo = [{{ type = \"damage\", amount = 1 }}]\n"
    );
    let d = errors_of("x.toml", &text);
    let e = only(&d);
    assert_eq!(e.code, "E-CONTENT-UNKNOWN-ID", "{}", e.render(false));
    assert!(e.message.contains("damagd"), "{}", e.message);
    assert!(
        help(e).contains("core:event/damaged"),
        "{}",
        e.render(false)
    );
    assert_eq!(line_col(e).0, 5, "{}", e.render(false));
}

#[test]
fn ref_cycle_names_the_path() {
    let text = "\
[ref.a]
action = [{ ref = \"b\" }]

[ref.b]
action = [{ ref = \"a\" }]

[trigger.t]
when = \"created\"
do = [{ ref = \"a\" }]
";
    let d = errors_of("x.toml", text);
    let r = d.render(false);
    let cycle =
        d.0.iter()
            .find(|e| e.code == "E-CONTENT-CYCLE")
            .unwrap_or_else(|| panic!("no cycle error:\n{r}"));
    assert!(
        cycle
            .message
            .contains("test:ref/a -> test:ref/b -> test:ref/a"),
        "{}",
        cycle.message
    );
    assert_eq!(line_col(cycle).0, 9, "{r}");
}

#[test]
fn alias_cycle_names_the_path() {
    let text = "[alias]\nx = \"y + 1\"\ny = \"z * 2\"\nz = \"x\"\n";
    let d = errors_of("x.toml", text);
    let r = d.render(false);
    let e = &d.0[0];
    assert!(
        e.message
            .contains("test:alias/x -> test:alias/y -> test:alias/z -> test:alias/x"),
        "{r}"
    );
    assert_eq!(line_col(e).0, 2, "{r}");
    // A cycle is a cycle, not an expression syntax error, and the message should not
    // repeat "at column N of expression ..." once per alias on the way.
    assert!(d.0.iter().all(|e| e.code == "E-CONTENT-CYCLE"), "{r}");
    assert_eq!(e.message.matches("at column").count(), 0, "{r}");
}

#[test]
fn bad_id_is_rejected_with_the_character() {
    let text = "[class.Wolf]\nproperties = { attack = 1 }\n";
    let d = errors_of("x.toml", text);
    let e = only(&d);
    assert_eq!(e.code, "E-CONTENT-ID", "{}", e.render(false));
    assert!(e.message.contains("Wolf"), "{}", e.message);
    assert!(
        e.message.contains("'W'") || e.message.contains("`W`"),
        "{}",
        e.message
    );
    assert_eq!(line_col(e).0, 1, "{}", e.render(false));
}

#[test]
fn duplicate_class_across_two_files_names_both() {
    let a = "[class.wolf]\nproperties = { attack = 1 }\n";
    let b = "# the same wolf again\n\n[class.wolf]\nproperties = { attack = 2 }\n";
    let d = errors_of_files(&[("content/a.toml", a), ("content/b.toml", b)]);
    let e = only(&d);
    assert_eq!(e.code, "E-CONTENT-DUPLICATE", "{}", e.render(false));
    assert!(e.message.contains("test:class/wolf"), "{}", e.message);
    let r = e.render(false);
    assert!(r.contains("content/a.toml"), "{r}");
    assert!(r.contains("content/b.toml:3:"), "{r}");
    assert_eq!(line_col(e).0, 3, "{r}");
}

#[test]
fn expression_syntax_errors_name_the_column() {
    let text = format!(
        "{PRELUDE}\n[trigger.t]\nwhen = \"created\"\ndo = [{{ type = \"damage\", amount = \"1 + * 2\" }}]\n"
    );
    let d = errors_of("x.toml", &text);
    let e = only(&d);
    assert_eq!(e.code, "E-CONTENT-EXPR", "{}", e.render(false));
    assert!(e.message.contains("column 5"), "{}", e.message);
    assert_eq!(line_col(e).0, 6, "{}", e.render(false));

    for (expr, needle) in [
        ("(1 + 2", "expected `)`"),
        ("attack + 1", "self.attack"),
        ("me.attack", "`me` is not an object"),
        ("0d6", "dice"),
        ("min(1 2)", "two arguments"),
        ("1 +", "ended"),
    ] {
        let text = format!("[trigger.t]\nwhen = \"created\"\ndo = [{{ type = \"damage\", amount = \"{expr}\" }}]\n");
        let d = errors_of("x.toml", &text);
        let e = only(&d);
        assert_eq!(e.code, "E-CONTENT-EXPR", "{expr}: {}", e.render(false));
        assert!(e.message.contains(needle), "{expr}: {}", e.message);
        assert!(e.message.contains("column"), "{expr}: {}", e.message);
        assert_eq!(line_col(e).0, 3, "{expr}: {}", e.render(false));
    }

    // An unknown selector ref inside `count(...)` keeps its own code and message.
    let text = "[trigger.t]\nwhen = \"created\"\ndo = [{ type = \"damage\", amount = \"count(nothing)\" }]\n";
    let d = errors_of("x.toml", text);
    let e = only(&d);
    assert_eq!(e.code, "E-CONTENT-UNKNOWN-ID", "{}", e.render(false));
    assert!(e.message.contains("test:ref/nothing"), "{}", e.message);
    assert_eq!(line_col(e).0, 3);
}

#[test]
fn every_problem_is_reported_at_once() {
    let text = "\
[class.a]
properties = { attack = 1 }
[[class.a.trigger]]
when = \"created\"
do = [{ type = \"damge\", amount = 1 }]

[trigger.b]
when = \"nope\"
do = [{ type = \"damage\", amount = 1 }]

[trigger.c]
when = \"created\"
do = [{ type = \"damage\", amount = \"1 +\" }]
";
    let d = errors_of("x.toml", text);
    let mut lines: Vec<usize> = d.0.iter().map(|e| line_col(e).0).collect();
    lines.sort_unstable();
    assert_eq!(lines, [5, 8, 13], "{}", d.render(false));
}

#[test]
fn rendered_diagnostics_look_like_cargo() {
    let text = format!(
        "{PRELUDE}\n[[class.minion.trigger]]\nwhen = \"created\"\ndo = [{{ type = \"damge\", amount = 1 }}]\n"
    );
    let d = errors_of("content/x.toml", &text);
    let r = d.render(false);
    assert!(r.contains("error[E-CONTENT-UNKNOWN-ID]"), "{r}");
    assert!(r.contains("--> content/x.toml:6:"), "{r}");
    assert!(
        r.contains("help: did you mean `core:action/damage`?"),
        "{r}"
    );
}

// ---- runtime bad input ----

fn game(text: &str) -> Game {
    let gen =
        build_files(&[("rules.toml", text)]).unwrap_or_else(|d| panic!("{}", d.render(false)));
    Game::new(Arc::new(gen), 1, Box::new(ScriptedController::default()))
}

fn id(s: &str) -> Id {
    Id::parse(s).unwrap()
}

#[test]
fn division_by_zero_at_runtime_rolls_back() {
    let mut g = game(
        "\
[event.boom]
[class.chest]
properties = { gold = 0, max_health = 5 }

[trigger.t]
when = \"boom\"
do = [
  { type = \"add\", key = \"gold\", amount = 1 },
  { type = \"add\", key = \"gold\", amount = 2 },
  { type = \"damage\", amount = \"target.gold / (target.gold - 3)\" },
]
",
    );
    let chest = g.spawn(id("test:class/chest"), None, "board").unwrap();
    let before = g.world().checksum();
    let err = g
        .emit(Event::new(id("test:event/boom")).target(chest))
        .expect_err("division by zero must fail");
    let msg = err.to_string();
    assert!(msg.contains("division by zero"), "{msg}");
    // The error says where the failing action is written.
    assert!(msg.contains("rules.toml:10"), "{msg}");
    assert_eq!(g.world().checksum(), before, "the world must be unchanged");
    assert_eq!(g.world().get_int(chest, tessera_host::Sym::new("gold")), 0);
    // The game keeps working after the error.
    g.emit(Event::new(id("core:event/turn_started"))).unwrap();
}

#[test]
fn runaway_cascade_is_stopped_and_named() {
    let mut g = game(
        "\
[world]
cascade_limit = 200

[event.ping]
[event.pong]

[class.wall]
properties = { hits = 0 }

[trigger.a]
when = \"ping\"
do = [{ type = \"add\", key = \"hits\", amount = 1 }, { type = \"emit\", event = \"pong\" }]

[trigger.b]
when = \"pong\"
do = [{ type = \"emit\", event = \"ping\" }]
",
    );
    let wall = g.spawn(id("test:class/wall"), None, "board").unwrap();
    let before = g.world().checksum();
    let started = std::time::Instant::now();
    let err = g
        .emit(Event::new(id("test:event/ping")).target(wall))
        .expect_err("the cascade must be stopped");
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    let msg = err.to_string();
    assert!(msg.contains("cascade limit of 200"), "{msg}");
    assert!(msg.contains("the loop is"), "{msg}");
    assert!(msg.contains("test:event/ping -> test:event/pong"), "{msg}");
    assert_eq!(g.world().checksum(), before, "the world must be unchanged");
    assert_eq!(g.world().get_int(wall, tessera_host::Sym::new("hits")), 0);
}

#[test]
fn default_cascade_limit_also_stops_a_self_loop() {
    let mut g = game(
        "\
[event.echo]
[trigger.loop]
when = \"echo\"
do = [{ type = \"emit\", event = \"echo\" }]
",
    );
    let before = g.world().checksum();
    let err = g
        .emit(Event::new(id("test:event/echo")))
        .expect_err("the cascade must be stopped");
    let msg = err.to_string();
    assert!(msg.contains("cascade limit of 1000"), "{msg}");
    assert!(msg.contains("test:event/echo -> test:event/echo"), "{msg}");
    assert_eq!(g.world().checksum(), before);
}

#[test]
fn missing_object_at_runtime_is_an_error_not_a_panic() {
    let mut g = game(
        "\
[event.hit]
[class.dummy]
properties = { max_health = 5 }
[trigger.t]
when = \"hit\"
select = { type = \"objects\", class = \"dummy\" }
do = [{ type = \"damage\", amount = \"source.owner.attack\" }]
",
    );
    g.spawn(id("test:class/dummy"), None, "board").unwrap();
    let before = g.world().checksum();
    let err = g
        .emit(Event::new(id("test:event/hit")))
        .expect_err("no source");
    assert!(err.to_string().contains("source.owner"), "{err}");
    assert_eq!(g.world().checksum(), before);
}

#[test]
fn game_and_move_mistakes_are_located_errors() {
    let base = "[class.hero]\ntags = [\"player\"]\n[event.go]\n";
    let d = errors_of_files(&[
        ("rules.toml", base),
        (
            "game.toml",
            "[game]\nplayer_class = \"heroo\"\nstart = \"go\"\n",
        ),
    ]);
    let e = only(&d);
    assert_eq!(e.code, "E-CONTENT-UNKNOWN-ID");
    assert!(
        e.render(false).contains("game.toml:2:"),
        "{}",
        e.render(false)
    );

    let d = errors_of_files(&[
        ("rules.toml", base),
        (
            "moves.toml",
            "[move.pass]\nsubject = \"self\"\ndo = []\nlog = \"{player} passes {nobody}\"\n",
        ),
    ]);
    let e = only(&d);
    assert!(
        e.message.contains("`{nobody}` is not a placeholder"),
        "{}",
        e.message
    );
    assert!(
        e.render(false).contains("moves.toml:4:"),
        "{}",
        e.render(false)
    );

    let game = "[game]\nplayer_class = \"hero\"\nstart = \"go\"\n";
    let d = errors_of_files(&[("rules.toml", base), ("a.toml", game), ("b.toml", game)]);
    let e = only(&d);
    assert_eq!(e.code, "E-CONTENT-DUPLICATE");
    assert!(
        e.message.contains("`[game]` is defined twice"),
        "{}",
        e.message
    );
    assert!(
        e.message.contains("a.toml"),
        "it names the first: {}",
        e.message
    );
}

/// Issue 18, finding 1: a chain of 3,000 aliases each naming the next overflowed the
/// stack (the process aborted); now it is an error naming the chain.
#[test]
fn a_long_alias_chain_is_an_error_not_a_stack_overflow() {
    let mut text = String::from("[alias]\n");
    for i in 0..3000 {
        text.push_str(&format!("a{i} = \"a{} + 1\"\n", i + 1));
    }
    text.push_str("a3000 = 1\n\n[class.c]\nproperties = { x = 1 }\n[[class.c.aura]]\nmodifiers = [{ key = \"x\", op = \"add\", value = \"a0\" }]\n");
    let d = errors_of("aliases.toml", &text);
    let e =
        d.0.iter()
            .find(|d| d.code == "E-CONTENT-DEPTH")
            .unwrap_or_else(|| panic!("no depth error:\n{d}"));
    assert!(
        e.message
            .contains("aliases use each other more than 64 deep: test:alias/a0 -> test:alias/a1"),
        "{}",
        e.message
    );
}

/// Issue 18, finding 1: 12,000 `[ref]` conditions each naming the next.
#[test]
fn a_long_ref_chain_is_an_error_not_a_stack_overflow() {
    let mut text = String::new();
    for i in 0..12_000 {
        text.push_str(&format!(
            "[ref.r{i}]\ncondition = {{ ref = \"r{}\" }}\n",
            i + 1
        ));
    }
    text.push_str("[ref.r12000]\ncondition = { type = \"is_self\" }\n\n[trigger.t]\nwhen = \"core:event/tick\"\nselect = { type = \"objects\", where = { ref = \"r0\" } }\ndo = [{ type = \"tag\", tag = \"x\" }]\n");
    let d = errors_of("refs.toml", &text);
    let e =
        d.0.iter()
            .find(|d| d.code == "E-CONTENT-DEPTH")
            .unwrap_or_else(|| panic!("no depth error:\n{d}"));
    assert!(
        e.message.contains("refs use each other more than 64 deep"),
        "{}",
        e.message
    );
}

/// Found by fuzzing (`fuzz/`, target `content_json`): a long line whose error sits
/// inside more than 20 leading blanks (vertical tabs here) made the snippet renderer
/// subtract with overflow (a panic with debug assertions) when it quoted the line.
/// Control characters are quoted as spaces, and quoted lines are never trimmed.
#[test]
fn a_long_line_with_an_error_in_its_leading_blanks_renders() {
    let text = format!(
        "{}{}{}{}\"\"",
        "\u{b}".repeat(42),
        "]".repeat(64),
        "\0".repeat(200),
        "]".repeat(15),
    );
    let d = errors_of("x.json", &text);
    let out = d.render(false);
    assert!(out.contains("x.json:1:"), "{out}");
    let padded = format!("{}{text}", " ".repeat(30));
    let _ = errors_of("y.json", &padded).render(true);
}

/// The first input of that kind fuzzing found.
#[test]
fn control_characters_in_a_quoted_line_render() {
    let text = format!(
        "{}{}{}{}{}\"\"",
        "\u{b}".repeat(20),
        "\0".repeat(9),
        "\u{b}".repeat(22),
        "]".repeat(77),
        "\u{b}".repeat(14)
    );
    let d = errors_of("x.json", &text);
    let out = d.render(false);
    assert!(out.contains("x.json:1:"), "{out}");
    assert!(!out.contains('\u{b}') && !out.contains('\0'), "{out}");
}
