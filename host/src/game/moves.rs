//! Moves: what the active player may do (`[move.NAME]` in content), listing the legal
//! ones, playing one as a command, and trying one without keeping its effects.

use std::sync::Arc;

use super::{Controller, Game, MoveOption, Outcome};
use crate::rules::core::acting_player;
use crate::rules::registry::Selector;
use crate::rules::{Cx, RuleError, Scope};
use crate::state::{ObjId, World};

impl Game {
    /// Every legal move of `player` right now, in definition order, then subject order,
    /// then target order.
    pub fn legal_moves(&self, player: ObjId) -> Result<Vec<MoveOption>, RuleError> {
        let gen = &self.gen;
        let mut out = Vec::new();
        for def in &gen.moves {
            let pscope = Scope {
                this: Some(player),
                player: Some(player),
                ..Scope::default()
            };
            let cx = Cx {
                world: &self.world,
                gen,
                scope: &pscope,
                controller: None,
                rt: &self.rt,
            };
            let mut subjects = Vec::new();
            def.subject
                .select(&cx, &mut subjects)
                .map_err(|e| e.context(&def.origin))?;
            // The last targets selected, and the acting player they were selected for.
            let mut last: Option<(Option<ObjId>, Vec<ObjId>)> = None;
            for s in subjects {
                let Some(tsel) = &def.target else {
                    out.push(MoveOption {
                        id: def.id,
                        player,
                        subject: s,
                        target: None,
                    });
                    continue;
                };
                let sscope = Scope {
                    this: Some(s),
                    player: Some(player),
                    ..Scope::default()
                };
                let scx = cx.with_scope(&sscope);
                // Only a shared selection is keyed by the acting player.
                let acting = def.targets_shared.then(|| acting_player(&scx)).flatten();
                let reuse = def.targets_shared && last.as_ref().is_some_and(|(a, _)| *a == acting);
                if !reuse {
                    let mut targets = Vec::new();
                    tsel.select(&scx, &mut targets)
                        .map_err(|e| e.context(&def.origin))?;
                    last = Some((acting, targets));
                }
                let targets = last.as_ref().map_or(&[][..], |(_, t)| t.as_slice());
                out.extend(targets.iter().map(|&t| MoveOption {
                    id: def.id,
                    player,
                    subject: s,
                    target: Some(t),
                }));
            }
        }
        Ok(out)
    }

    /// Command: plays a move, if it is legal now (and, when the rules define `[game]`, it
    /// is the player's turn). Its actions run with `self` = the subject, `target` = the
    /// target and `player` = the player; an illegal move or any failure leaves the world
    /// as it was.
    pub fn play_move(&mut self, mv: &MoveOption) -> Result<Outcome, RuleError> {
        if let Some(game) = &self.gen.game {
            if !self.world.has_tag(mv.player, game.active_tag) {
                return Err(RuleError::Failed(format!(
                    "it is not {}'s turn: the player making a move needs the `{}` tag",
                    mv.player, game.active_tag
                )));
            }
        }
        let legal = self.legal_moves(mv.player)?;
        if !legal.contains(mv) {
            return Err(RuleError::Failed(format!(
                "`{}` by {} with {}{} is not a legal move now",
                mv.id,
                mv.player,
                mv.subject,
                mv.target.map(|t| format!(" on {t}")).unwrap_or_default()
            )));
        }
        self.run_move(mv)
    }

    /// Runs a move known to be legal (it came from [`Game::legal_moves`] on this world,
    /// for the player whose turn it is); a match uses it for the move its agent picked.
    pub(crate) fn run_move(&mut self, mv: &MoveOption) -> Result<Outcome, RuleError> {
        let gen = Arc::clone(&self.gen);
        let def = gen
            .moves
            .iter()
            .find(|d| d.id == mv.id)
            .ok_or_else(|| RuleError::Failed(format!("no move `{}`", mv.id)))?;
        let _span = tracing::debug_span!("move", id = %mv.id).entered();
        let targets: Vec<ObjId> = mv.target.into_iter().collect();
        self.command(mv.id.as_str(), |ax| {
            ax.scope = Scope {
                this: Some(mv.subject),
                target: mv.target,
                player: Some(mv.player),
                ..Scope::default()
            };
            let timer = crate::plugins::start_content(ax.rt);
            for a in &def.actions {
                a.run(ax, &targets)?;
                crate::rules::aura::recompute(ax.world, ax.gen, ax.rt)?;
            }
            crate::plugins::stop_content(ax.rt, timer, &def.origin.mod_id);
            Ok(())
        })
    }

    /// Plays a move with `controller` answering its choices, and returns the world it
    /// leads to; this game's world is left exactly as it was. `mv` must come from
    /// [`Game::legal_moves`] on the current world (it is not checked again). State a
    /// plugin keeps in its own memory is not rewound: look-ahead is for rules written as
    /// content.
    pub fn try_move(
        &mut self,
        mv: &MoveOption,
        controller: Box<dyn Controller>,
    ) -> (Result<World, RuleError>, Box<dyn Controller>) {
        let saved = self.world.clone();
        let previous = self.controller.replace(controller);
        let result = self.run_move(mv).map(|_| self.world.clone());
        self.world = saved;
        let used = self.controller.replace(previous);
        (result, used)
    }

    /// Replaces the controller, returning the one it replaces.
    pub fn replace_controller(&mut self, controller: Box<dyn Controller>) -> Box<dyn Controller> {
        self.controller.replace(controller)
    }

    /// Evaluates an expression over a world (one [`Game::try_move`] returned), with this
    /// game's rules, and `self` = `this` (a player: also `player`).
    pub fn eval_in(
        &self,
        world: &World,
        expr: &crate::rules::expr::Expr,
        this: ObjId,
    ) -> Result<f64, RuleError> {
        let scope = Scope {
            this: Some(this),
            player: Some(this),
            ..Scope::default()
        };
        let cx = Cx {
            world,
            gen: &self.gen,
            scope: &scope,
            controller: None,
            rt: &self.rt,
        };
        expr.eval(&cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::ScriptedController;
    use crate::diag::SourceText;
    use crate::id::{Id, Sym};
    use crate::rules::registry::Registry;
    use crate::rules::{ContentSource, Generation};
    use crate::state::Value;

    const CONTENT: &str = r#"
[class.player]
tags = ["player"]
[class.unit]
properties = { power = 1 }

# Targets read only the acting player: selected once for each acting player.
[move.hit]
subject = { type = "objects", zone = "board", owner = "friendly" }
target = { type = "objects", zone = "board", owner = "enemy" }
do = []

# Targets read the subject (`self.power`): selected for each subject.
[move.smaller]
subject = { type = "objects", zone = "board", owner = "friendly" }
target = { type = "objects", zone = "board", owner = "enemy", where = [
  { type = "compare", left = "target.power", op = "<", right = "self.power" },
] }
do = []

# Subjects of both players: each acting player has its own targets.
[move.any_hit]
subject = { type = "objects", zone = "board" }
target = { type = "objects", zone = "board", owner = "enemy" }
do = []
"#;

    /// (move name, subject, target) of every legal move.
    fn listed(game: &Game, player: ObjId) -> Vec<(String, ObjId, Option<ObjId>)> {
        let moves = game.legal_moves(player).expect("legal moves");
        moves
            .iter()
            .map(|m| (m.id.name().to_owned(), m.subject, m.target))
            .collect()
    }

    #[test]
    fn subjects_share_targets_only_when_the_targets_read_nothing_of_them() {
        let src = ContentSource::new("t", SourceText::new("t.toml", CONTENT));
        let gen = Generation::build(Arc::new(Registry::with_core()), &[src], 1).expect("builds");
        let shared: Vec<(&str, bool)> = gen
            .moves
            .iter()
            .map(|m| (m.id.name(), m.targets_shared))
            .collect();
        for (name, want) in [("hit", true), ("smaller", false), ("any_hit", true)] {
            assert!(shared.contains(&(name, want)), "{name}: {shared:?}");
        }
        let mut game = Game::new(Arc::new(gen), 1, Box::new(ScriptedController::default()));
        let id = |s: &str| Id::parse(s).expect("id");
        let (p1, p2) = (
            game.spawn(id("t:class/player"), None, "table").expect("p1"),
            game.spawn(id("t:class/player"), None, "table").expect("p2"),
        );
        // Interleaved owners, so the acting player changes from subject to subject.
        let units: Vec<ObjId> = [(p1, 1), (p2, 2), (p1, 3), (p2, 0)]
            .iter()
            .map(|&(owner, power)| {
                game.spawn_with(id("t:class/unit"), Some(owner), "board", |w, u| {
                    w.set(u, Sym::new("power"), Value::Int(power))?;
                    Ok(())
                })
                .expect("unit")
            })
            .collect();
        let [a1, b2, c1, d2] = [units[0], units[1], units[2], units[3]];
        let mv = |name: &str, s, t| (name.to_owned(), s, Some(t));
        let mut got = listed(&game, p1);
        got.sort();
        let mut want = vec![
            mv("hit", a1, b2),
            mv("hit", a1, d2),
            mv("hit", c1, b2),
            mv("hit", c1, d2),
            // a1 (power 1) is above d2 only; c1 (3) above both.
            mv("smaller", a1, d2),
            mv("smaller", c1, b2),
            mv("smaller", c1, d2),
            mv("any_hit", a1, b2),
            mv("any_hit", a1, d2),
            mv("any_hit", b2, a1),
            mv("any_hit", b2, c1),
            mv("any_hit", c1, b2),
            mv("any_hit", c1, d2),
            mv("any_hit", d2, a1),
            mv("any_hit", d2, c1),
        ];
        want.sort();
        assert_eq!(got, want);
    }
}
