//! Scenario matches: a real game set up and played the way Hearthbreaker's card tests
//! do it (`generate_game_for`, `play_single_turn`), for any game whose rules have a
//! `[game]` table and `[move.*]` tables.
//!
//! Setup (`[match]`): players `p1`, `p2`, ... of the game's player class (or `heroes`);
//! stacked decks — each a pattern of classes repeated to 30 cards, drawn in order; the
//! opening — the first player draws 3 cards, the second 4 and gets the coin (when
//! `coin` names it), with no events, as Hearthbreaker's `pre_game`. The game's own start
//! event is not raised, so nothing random decides who goes first.
//!
//! A single turn (`turns = N` plays N): the player whose turn it is gets the game's
//! active tag (the previous player loses it) and `core:event/turn_started` is raised
//! for it — the game's rules give mana and draw a card on it; its testing agent makes
//! its moves; then `core:event/turn_ended` is raised. The player keeps the active tag
//! until the next turn starts, so steps between turns may `play` moves for it, as
//! Hearthbreaker tests call `game.play_card` between turns. Turns stop once a player
//! has the game's lost tag.

use crate::bus::Event;
use crate::game::{Game, Outcome};
use crate::id::{Id, Sym};
use crate::play::{TestAgent, TestSetup, TestStyle, MOVES_PER_TURN};
use crate::rules::compile::Generation;
use crate::state::ObjId;

use super::format::MatchSpec;
use super::paths::{self, Names};
use super::resolve_id;

/// A match in a scenario: its players, their agents, and the turns played.
pub(super) struct ScenarioMatch {
    players: Vec<ObjId>,
    agents: Vec<TestAgent>,
    first: usize,
    turns: u32,
    active: Sym,
    lost: Sym,
    /// A turn begun by a `turn = "start"` step and not ended yet.
    open: bool,
    /// The moves the test agents use (for agents a step puts in later).
    setup: TestSetup,
}

/// Half of a single turn, for tests that look inside a turn (Hearthbreaker's
/// `_start_turn` + `do_turn`, then `_end_turn`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Half {
    /// The next player's turn starts and its controller plays; the turn stays open.
    Start,
    /// The open turn ends.
    End,
}

/// Sets the match up (players, decks, the opening); names the players `p1`, `p2`, ...
pub(super) fn setup(
    game: &mut Game,
    ns: &str,
    spec: &MatchSpec,
    names: &mut Names,
) -> Result<ScenarioMatch, String> {
    let gen = game.generation().clone();
    let def = gen.game.as_ref().ok_or(
        "no loaded content defines `[game]`, so there is no game to play; load a rules mod such as `arena` (`tessera test --mods mods`)",
    )?;
    let n = def.players;
    let seats: Vec<String> = (1..=n).map(|i| format!("p{i}")).collect();
    let decks = read_decks(&gen, ns, spec, n)?;
    let heroes = match spec.heroes.len() {
        0 => vec![def.player_class; n],
        k if k == n => spec
            .heroes
            .iter()
            .enumerate()
            .map(|(i, c)| class(&gen, ns, c, &format!("heroes[{i}]")))
            .collect::<Result<Vec<_>, _>>()?,
        k => return Err(format!("heroes: the game has {n} players, so write {n} classes (or none for the game's player class), not {k}")),
    };
    let coin = spec
        .coin
        .as_deref()
        .map(|c| class(&gen, ns, c, "coin"))
        .transpose()?;
    let power = named_move(&gen, ns, &spec.power_move, "power_move")?;
    let attack = named_move(&gen, ns, &spec.attack_move, "attack_move")?;
    let setup = TestSetup {
        hand: Sym::new(spec.hand_zone.as_deref().unwrap_or("hand")),
        coin,
        attack,
        power,
    };
    let styles = read_controllers(&gen, spec, n, &setup)?;
    let first_name = spec.first.as_deref().unwrap_or("p1");
    let first = seats.iter().position(|s| s == first_name).ok_or_else(|| {
        format!(
            "first: `{first_name}` is not a player; write one of: {}",
            seats.join(", ")
        )
    })?;
    let hands = spec.hands.clone().unwrap_or_else(|| vec![3, 4]);
    if hands.len() > n {
        return Err(format!(
            "hands: the game has {n} players, so list at most {n} opening hands (in turn order), not {}",
            hands.len()
        ));
    }
    let deck_zone = def.deck.as_ref().map_or("deck", |d| d.zone.as_str());
    let size = spec.deck_size.unwrap_or(30);
    let mut players = Vec::new();
    for (i, seat) in seats.iter().enumerate() {
        let p = game
            .spawn(heroes[i], None, def.player_zone.as_str())
            .map_err(|e| format!("creating player {seat}: {e}"))?;
        names.insert(seat.clone(), p);
        players.push(p);
    }
    for (i, &p) in players.iter().enumerate() {
        // Hearthbreaker's StackedDeck: the pattern repeated, cut at the deck size.
        for k in 0..size {
            let c = decks[i][k % decks[i].len()];
            game.spawn(c, Some(p), deck_zone)
                .map_err(|e| format!("decks[{i}]: dealing `{c}`: {e}"))?;
        }
    }
    deal_opening(game, &players, first, &hands, deck_zone, &setup)?;
    let agents = styles
        .into_iter()
        .map(|s| TestAgent::new(s, setup.clone()))
        .collect();
    Ok(ScenarioMatch {
        players,
        agents,
        first,
        turns: 0,
        open: false,
        setup,
        active: def.active_tag,
        lost: def.lost_tag,
    })
}

/// A class named in the match spec (`what` says where: `decks[0][2]`), with a
/// did-you-mean when it is not defined.
fn class(gen: &Generation, ns: &str, s: &str, what: &str) -> Result<Id, String> {
    let id = resolve_id(s, "class", ns).map_err(|m| format!("{what}: {m}"))?;
    if gen.class(id).is_some() {
        return Ok(id);
    }
    let known: Vec<&str> = gen.classes.keys().map(|c| c.as_str()).collect();
    let hint = crate::id::closest(id.as_str(), known.iter().copied())
        .first()
        .map(|c| format!("; did you mean `{c}`?"))
        .unwrap_or_else(|| "; write a full id such as `arena-classic:class/brook_lurker`".into());
    Err(format!("{what}: class `{id}` is not defined{hint}"))
}

/// `decks`: one non-empty list of classes per player.
fn read_decks(
    gen: &Generation,
    ns: &str,
    spec: &MatchSpec,
    n: usize,
) -> Result<Vec<Vec<Id>>, String> {
    if spec.decks.len() != n {
        return Err(format!(
            "decks: the game has {n} players, so write {n} decks (a list of class ids each), not {}",
            spec.decks.len()
        ));
    }
    let mut decks = Vec::new();
    for (p, pattern) in spec.decks.iter().enumerate() {
        if pattern.is_empty() {
            return Err(format!(
                "decks[{p}] is empty; list at least one class (it is repeated to fill the deck)"
            ));
        }
        let ids = pattern
            .iter()
            .enumerate()
            .map(|(i, c)| class(gen, ns, c, &format!("decks[{p}][{i}]")))
            .collect::<Result<Vec<_>, _>>()?;
        decks.push(ids);
    }
    Ok(decks)
}

/// `power_move` or `attack_move`: a move the game has.
fn named_move(
    gen: &Generation,
    ns: &str,
    text: &Option<String>,
    key: &str,
) -> Result<Option<Id>, String> {
    let Some(a) = text else { return Ok(None) };
    let id = resolve_id(a, "move", ns).map_err(|m| format!("{key}: {m}"))?;
    if !gen.moves.iter().any(|m| m.id == id) {
        let known: Vec<&str> = gen.moves.iter().map(|m| m.id.as_str()).collect();
        return Err(format!(
            "{key}: the game has no move `{id}`; its moves are: {}",
            known.join(", ")
        ));
    }
    Ok(Some(id))
}

/// `controllers`: one test controller per player (or none), each with the moves it needs.
fn read_controllers(
    gen: &Generation,
    spec: &MatchSpec,
    n: usize,
    setup: &TestSetup,
) -> Result<Vec<TestStyle>, String> {
    let styles = match spec.controllers.len() {
        0 => vec![TestStyle::None; n],
        k if k == n => spec
            .controllers
            .iter()
            .enumerate()
            .map(|(i, c)| {
                TestStyle::parse(c).ok_or_else(|| {
                    let all: Vec<&str> = TestStyle::ALL.iter().map(|(n, _)| *n).collect();
                    format!(
                        "controllers[{i}]: unknown controller `{c}`; write one of: {}",
                        all.join(", ")
                    )
                })
            })
            .collect::<Result<Vec<_>, _>>()?,
        k => return Err(format!("controllers: the game has {n} players, so write {n} controllers (or none: every player does nothing), not {k}")),
    };
    check_styles(gen, &styles, setup, "controllers")?;
    Ok(styles)
}

/// Fails when an agent needs a move the game does not have (`key` names where they were
/// written).
fn check_styles(
    gen: &Generation,
    styles: &[TestStyle],
    setup: &TestSetup,
    key: &str,
) -> Result<(), String> {
    if let Some(s) = styles.iter().find(|s| s.attacks()) {
        if !gen.moves.iter().any(|m| setup.is_attack(m.id)) {
            return Err(format!("{key}: `{}` attacks, but the game has no move named `attack`; name the attack move with `attack_move = \"...\"`", s.name()));
        }
    }
    if styles.contains(&TestStyle::Predictable) && !gen.moves.iter().any(|m| setup.is_power(m.id)) {
        return Err(format!("{key}: `predictable` uses the hero power, but the game has no move named `hero_power`; name it with `power_move = \"...\"`"));
    }
    Ok(())
}

/// The opening, in turn order: each player draws its hand from the top of its deck; every
/// player after the first gets the coin, if there is one.
fn deal_opening(
    game: &mut Game,
    players: &[ObjId],
    first: usize,
    hands: &[usize],
    deck_zone: &str,
    setup: &TestSetup,
) -> Result<(), String> {
    let n = players.len();
    let deck = Sym::new(deck_zone);
    for (k, &cards) in hands.iter().enumerate() {
        let p = players[(first + k) % n];
        game.setup(|w| {
            for card in paths::zone_of(w, p, deck).into_iter().take(cards) {
                w.move_to(card, setup.hand)?;
            }
            Ok(())
        })
        .map_err(|e| format!("dealing the opening hands: {e}"))?;
    }
    if let Some(coin) = setup.coin {
        for k in 1..n {
            game.spawn(coin, Some(players[(first + k) % n]), setup.hand.as_str())
                .map_err(|e| format!("coin: {e}"))?;
        }
    }
    Ok(())
}

impl ScenarioMatch {
    /// Puts new test agents in some seats (`{ p1 = "predictable" }`) from now on.
    pub(super) fn set_controllers(
        &mut self,
        game: &Game,
        map: &indexmap::IndexMap<String, String>,
    ) -> Result<(), String> {
        let seats = self.players.len();
        let mut changes = Vec::new();
        for (seat, name) in map {
            let i = seat
                .strip_prefix('p')
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|n| (1..=seats).contains(n))
                .ok_or_else(|| {
                    format!("controllers: `{seat}` is not a player; write p1 to p{seats}")
                })?;
            let style = TestStyle::parse(name).ok_or_else(|| {
                let all: Vec<&str> = TestStyle::ALL.iter().map(|(n, _)| *n).collect();
                format!(
                    "controllers.{seat}: unknown controller `{name}`; write one of: {}",
                    all.join(", ")
                )
            })?;
            changes.push((i - 1, style));
        }
        let styles: Vec<TestStyle> = changes.iter().map(|(_, s)| *s).collect();
        check_styles(game.generation(), &styles, &self.setup, "controllers")?;
        for (i, style) in changes {
            self.agents[i] = TestAgent::new(style, self.setup.clone());
        }
        Ok(())
    }

    /// Whether a player has lost (the game is over).
    fn over(&self, game: &Game) -> bool {
        self.players
            .iter()
            .any(|p| game.world().has_tag(*p, self.lost))
    }

    /// Plays `n` single turns (fewer if the game ends); returns every event they caused.
    pub(super) fn play_turns(
        &mut self,
        game: &mut Game,
        n: u32,
        names: &Names,
    ) -> Result<Outcome, String> {
        if self.open {
            return Err("a turn is still open: end it with a `turn = \"end\"` step first".into());
        }
        let mut events = Vec::new();
        for _ in 0..n {
            if self.over(game) {
                break;
            }
            self.begin(game, names, &mut events)?;
            self.finish(game, &mut events)?;
        }
        Ok(Outcome { events })
    }

    /// Plays half a turn: the start of the next one (and its controller's moves), or the end
    /// of the open one.
    pub(super) fn play_half(
        &mut self,
        game: &mut Game,
        half: Half,
        names: &Names,
    ) -> Result<Outcome, String> {
        let mut events = Vec::new();
        match (half, self.open) {
            (Half::Start, true) => {
                return Err("a turn is already open: end it with `turn = \"end\"`".into())
            }
            (Half::End, false) => {
                return Err("no turn is open: start one with `turn = \"start\"`".into())
            }
            (Half::Start, false) => {
                if !self.over(game) {
                    self.begin(game, names, &mut events)?;
                    self.open = true;
                }
            }
            (Half::End, true) => {
                self.open = false;
                self.finish(game, &mut events)?;
            }
        }
        Ok(Outcome { events })
    }

    fn seat(&self) -> usize {
        (self.first + self.turns as usize) % self.players.len()
    }

    fn label(&self) -> String {
        format!("turn {} (p{})", self.turns + 1, self.seat() + 1)
    }

    /// A turn's start: the active tag, `turn_started`, then the controller's moves.
    fn begin(
        &mut self,
        game: &mut Game,
        names: &Names,
        events: &mut Vec<Event>,
    ) -> Result<(), String> {
        let started = Id::parse("core:event/turn_started").map_err(|e| e.to_string())?;
        let seat = self.seat();
        let me = self.players[seat];
        let label = self.label();
        let (players, active) = (self.players.clone(), self.active);
        game.setup(|w| {
            for p in players {
                w.untag(p, active)?;
            }
            w.tag(me, active)?;
            Ok(())
        })
        .map_err(|e| format!("{label}: giving the `{active}` tag: {e}"))?;
        let o = game
            .emit(Event::new(started).target(me).player(Some(me)))
            .map_err(|e| format!("{label}: the turn's start failed: {e}"))?;
        events.extend(o.events);
        let agent = &mut self.agents[seat];
        agent.start_turn();
        let mut made = 0;
        while !self.over(game) {
            let moves = game.legal_moves(me).map_err(|e| format!("{label}: {e}"))?;
            let Some(i) = self.agents[seat].next_move(game, me, &moves) else {
                break;
            };
            made += 1;
            if made > MOVES_PER_TURN {
                return Err(format!(
                    "{label}: the `{}` controller made {MOVES_PER_TURN} moves without finishing its turn",
                    self.agents[seat].style().name()
                ));
            }
            let mv = moves[i];
            let what = format!(
                "`{}` by {}{}",
                mv.id,
                paths::name_of(game.world(), names, mv.subject),
                mv.target
                    .map(|t| format!(" on {}", paths::name_of(game.world(), names, t)))
                    .unwrap_or_default()
            );
            let o = game
                .play_move(&mv)
                .map_err(|e| format!("{label}: {what} failed: {e}"))?;
            events.extend(o.events);
        }
        Ok(())
    }

    /// A turn's end: `turn_ended` (unless the game is over); the next turn is the next seat's.
    fn finish(&mut self, game: &mut Game, events: &mut Vec<Event>) -> Result<(), String> {
        let ended = Id::parse("core:event/turn_ended").map_err(|e| e.to_string())?;
        let me = self.players[self.seat()];
        let label = self.label();
        if !self.over(game) {
            let o = game
                .emit(Event::new(ended).target(me).player(Some(me)))
                .map_err(|e| format!("{label}: the turn's end failed: {e}"))?;
            events.extend(o.events);
        }
        self.turns += 1;
        Ok(())
    }
}
