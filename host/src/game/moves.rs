//! Moves: what the active player may do (`[move.NAME]` in content), listing the legal
//! ones, playing one as a command, and trying one without keeping its effects.

use std::sync::Arc;

use super::{Controller, Game, MoveOption, Outcome};
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
                let mut targets = Vec::new();
                tsel.select(&cx.with_scope(&sscope), &mut targets)
                    .map_err(|e| e.context(&def.origin))?;
                out.extend(targets.into_iter().map(|t| MoveOption {
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
