//! One hosted world: a [`Match`] of the loaded game, its seats (clients or server AIs),
//! the move a client is answering choices for, and who is connected. It lives on one
//! worker thread and is only touched there, one message at a time, so every world is
//! single-threaded and deterministic: its checksum depends only on its seed and inputs.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::sync::Arc;

use crate::game::{Choice, MoveOption};
use crate::play::{Ending, Match, Translate};
use crate::rules::Generation;

use super::protocol::{ClientMsg, SeatKind, ServerMsg, View};
use super::seat::{Inputs, Probe, Probed, Seat};
use super::view::{self, Visibility};

/// Where a connection's messages go.
pub(crate) type Out = tokio::sync::mpsc::UnboundedSender<String>;

/// Why a client's message was not carried out: a stable code and a message that says
/// what to do instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    pub code: &'static str,
    pub message: String,
}

pub(crate) fn refuse<T>(code: &'static str, message: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal {
        code,
        message: message.into(),
    })
}

/// A client's move waiting for its choices to be answered.
struct Pending {
    seat: usize,
    index: usize,
    mv: MoveOption,
    answers: Vec<Vec<usize>>,
    /// The choice asked last (`None` until the move was tried).
    choice: Option<Choice>,
}

/// What a new (or restored) world is made of.
pub(crate) struct Spec {
    pub id: u64,
    pub seed: u64,
    pub kinds: Vec<SeatKind>,
    pub tokens: Vec<String>,
    /// Saved inputs to repeat first (empty for a new match).
    pub replay: VecDeque<crate::play::Input>,
}

/// One world as `GET /worlds` lists it.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct WorldSummary {
    #[serde(rename = "match")]
    pub match_id: u64,
    pub seats: Vec<SeatSummary>,
    /// Turns played.
    pub turn: u32,
    /// The seat (0-based) whose move it is, if any.
    pub active: Option<usize>,
    pub generation: u64,
    /// `playing`, or how the match ended.
    pub status: String,
}

/// A seat as `GET /worlds` lists it.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct SeatSummary {
    pub kind: SeatKind,
    /// Whether a client holds the seat now (server seats are never connected).
    pub connected: bool,
}

/// A match hosted by the server.
pub(crate) struct HostedWorld {
    pub id: u64,
    pub m: Match,
    pub kinds: Vec<SeatKind>,
    pub tokens: Vec<String>,
    conns: Vec<Option<(u64, Out)>>,
    inputs: Rc<RefCell<Inputs>>,
    pending: Option<Pending>,
    resigned: Option<usize>,
    failed: Option<String>,
    vis: Arc<Visibility>,
}

impl HostedWorld {
    /// Sets up a match (its start event runs) with saved inputs to repeat first.
    pub(crate) fn new(
        spec: Spec,
        gen: Arc<Generation>,
        translate: Translate,
        vis: Arc<Visibility>,
    ) -> Result<HostedWorld, String> {
        let Spec {
            id,
            seed,
            kinds,
            tokens,
            replay,
        } = spec;
        let inputs = Rc::new(RefCell::new(Inputs {
            seed,
            replay,
            ..Inputs::default()
        }));
        let seats = kinds
            .iter()
            .enumerate()
            .map(|(i, k)| {
                Box::new(Seat::new(i, *k, inputs.clone())) as Box<dyn crate::controller::Controller>
            })
            .collect();
        let m = Match::new(gen, seed, seats, translate, &mut |_| {}).map_err(|e| e.to_string())?;
        let mut w = HostedWorld {
            id,
            m,
            conns: vec![None; kinds.len()],
            kinds,
            tokens,
            inputs,
            pending: None,
            resigned: None,
            failed: None,
            vis,
        };
        w.repeat_saved()?;
        w.advance(&mut Vec::new());
        Ok(w)
    }

    /// Repeats saved inputs (restoring a save) until none are left.
    fn repeat_saved(&mut self) -> Result<(), String> {
        // Nobody reads the log of moves already played.
        self.m.set_log(false);
        let repeated = self.repeat_saved_quietly();
        self.m.set_log(true);
        repeated
    }

    fn repeat_saved_quietly(&mut self) -> Result<(), String> {
        while !self.inputs.borrow().replay.is_empty() {
            if self
                .m
                .step(&mut |_| {})
                .map_err(|e| e.to_string())?
                .is_some()
            {
                let left = self.inputs.borrow().replay.len();
                return Err(format!("the match ended with {left} saved input(s) left over: the save does not match these rules"));
            }
        }
        Ok(())
    }

    /// How the match ended, if it has.
    pub fn result(&self) -> Option<String> {
        if let Some(why) = &self.failed {
            return Some(format!("aborted: {why}"));
        }
        if let Some(r) = self.resigned {
            let standing: Vec<usize> = (0..self.kinds.len()).filter(|&s| s != r).collect();
            return Some(match standing.as_slice() {
                [one] => format!("{} (Player {} resigned)", Ending::Won(*one), r + 1),
                _ => format!("Player {} resigned", r + 1),
            });
        }
        self.m.ending().map(|e| e.to_string())
    }

    /// What the admin page shows of this world (`GET /worlds`).
    pub fn summary(&self) -> WorldSummary {
        WorldSummary {
            match_id: self.id,
            seats: self
                .kinds
                .iter()
                .zip(&self.conns)
                .map(|(kind, c)| SeatSummary {
                    kind: *kind,
                    connected: c.is_some(),
                })
                .collect(),
            turn: self.m.turns(),
            active: self.m.offered().ok().map(|(s, _)| s),
            generation: self.m.game().generation().number,
            status: match self.result() {
                Some(r) => r,
                None if self.pending.is_some() => "playing (a choice is pending)".into(),
                None => "playing".into(),
            },
        }
    }

    /// The world checksum, hex.
    pub fn checksum(&self) -> String {
        format!("{:016x}", self.m.game().world().checksum())
    }

    /// Plays server seats until a client must move or the match is over; log lines go to
    /// `log`.
    fn advance(&mut self, log: &mut Vec<String>) {
        while self.result().is_none() {
            let seat = match self.m.offered() {
                Ok((seat, _)) => seat,
                Err(e) => {
                    self.failed = Some(e.to_string());
                    return;
                }
            };
            if self.kinds[seat] == SeatKind::Human {
                return;
            }
            if let Err(e) = self.m.step(&mut |l| log.push(l.to_owned())) {
                self.failed = Some(e.to_string());
            }
        }
    }

    /// Seats a connection: a free human seat, or any human seat with its token.
    pub fn join(
        &mut self,
        seat: Option<usize>,
        token: Option<&str>,
        conn: (u64, Out),
    ) -> Result<(usize, String), Refusal> {
        let seat = match (seat, token) {
            (_, Some(t)) => match self.tokens.iter().position(|x| !x.is_empty() && x == t) {
                Some(s) => s,
                None => {
                    return refuse(
                        "bad_token",
                        format!(
                        "no seat of match {} has this token; join with `seat` to take a free seat",
                        self.id
                    ),
                    )
                }
            },
            (Some(s), None) => {
                if self.kinds.get(s) != Some(&SeatKind::Human) {
                    return refuse(
                        "bad_seat",
                        format!(
                            "match {} has no human seat {s}: its seats are {:?} (0-based)",
                            self.id, self.kinds
                        ),
                    );
                }
                if self.conns[s].is_some() {
                    return refuse("seat_taken", format!("seat {s} of match {} is taken; take a free seat, or send the seat's token to reconnect", self.id));
                }
                s
            }
            (None, None) => match (0..self.kinds.len())
                .find(|&s| self.kinds[s] == SeatKind::Human && self.conns[s].is_none())
            {
                Some(s) => s,
                None => {
                    return refuse(
                        "seat_taken",
                        format!("match {} has no free human seat", self.id),
                    )
                }
            },
        };
        self.conns[seat] = Some(conn);
        Ok((seat, self.tokens[seat].clone()))
    }

    /// Forgets a connection (its seat stays, to be taken back with its token).
    pub fn disconnect(&mut self, conn: u64) {
        for c in &mut self.conns {
            if c.as_ref().is_some_and(|(id, _)| *id == conn) {
                *c = None;
            }
        }
    }

    /// Which seats a client holds now.
    pub fn connected(&self) -> Vec<bool> {
        self.conns.iter().map(Option::is_some).collect()
    }

    /// Whether any client is connected.
    pub fn has_clients(&self) -> bool {
        self.conns.iter().any(Option::is_some)
    }

    /// Tells every connected client the server is draining.
    pub fn announce_drain(&self) {
        for (_, out) in self.conns.iter().flatten() {
            let _ = out.send(ServerMsg::Draining.to_text());
        }
    }

    fn seat_of(&self, conn: u64) -> Option<usize> {
        self.conns
            .iter()
            .position(|c| c.as_ref().is_some_and(|(id, _)| *id == conn))
    }

    /// Carries out a client's message; replies and pushes go to the clients.
    pub fn handle(&mut self, conn: u64, out: &Out, msg: ClientMsg) -> Result<(), Refusal> {
        let Some(seat) = self.seat_of(conn) else {
            return refuse(
                "not_joined",
                format!(
                    "this connection has no seat in match {}; send `join` first",
                    self.id
                ),
            );
        };
        match msg {
            ClientMsg::State {} => self.send_state(seat),
            ClientMsg::Moves {} => {
                let moves = self
                    .my_moves(seat)
                    .map(|m| view::moves(&self.m, &m))
                    .unwrap_or_default();
                let _ = out.send(ServerMsg::Moves { moves }.to_text());
            }
            ClientMsg::Play { index } => self.play(seat, index)?,
            ClientMsg::Answer { choice } => self.answer(seat, choice)?,
            ClientMsg::Resign {} => self.resign(seat)?,
            ClientMsg::Leave {} => {
                self.conns[seat] = None;
                let _ = out.send(ServerMsg::Left.to_text());
            }
            ClientMsg::Create { .. } | ClientMsg::Join { .. } => {
                return refuse(
                    "internal",
                    "create and join are handled by the server, not the world",
                );
            }
        }
        Ok(())
    }

    /// The seat's legal moves, when it is its turn and no choice is pending.
    fn my_moves(&self, seat: usize) -> Option<Vec<MoveOption>> {
        if self.result().is_some() || self.pending.is_some() {
            return None;
        }
        match self.m.offered() {
            Ok((s, moves)) if s == seat => Some(moves),
            _ => None,
        }
    }

    fn play(&mut self, seat: usize, index: usize) -> Result<(), Refusal> {
        if let Some(r) = self.result() {
            return refuse(
                "match_over",
                format!("match {} is over ({r}); create or join another", self.id),
            );
        }
        if let Some(p) = &self.pending {
            let prompt = p
                .choice
                .as_ref()
                .map(|c| c.prompt.as_str())
                .unwrap_or_default();
            return refuse(
                "choice_pending",
                format!("answer the pending choice `{prompt}` first (send `answer`)"),
            );
        }
        let (turn, moves) = self.m.offered().map_err(|e| Refusal {
            code: "internal",
            message: e.to_string(),
        })?;
        if turn != seat {
            return refuse(
                "not_your_turn",
                format!(
                    "it is Player {}'s turn; wait for a `state` with moves",
                    turn + 1
                ),
            );
        }
        let Some(mv) = moves.get(index).copied() else {
            return refuse("illegal_move", format!("there is no move {index}: the legal moves are 0 to {}; send `moves` to list them", moves.len().saturating_sub(1)));
        };
        self.try_answers(Pending {
            seat,
            index,
            mv,
            answers: Vec::new(),
            choice: None,
        })
    }

    fn answer(&mut self, seat: usize, choice: Vec<usize>) -> Result<(), Refusal> {
        let Some(mut p) = self.pending.take() else {
            return refuse(
                "no_choice",
                "no choice is pending; `answer` follows a `choice` message",
            );
        };
        if p.seat != seat {
            self.pending = Some(p);
            return refuse("not_your_turn", "the pending choice is another seat's");
        }
        let checked = p
            .choice
            .as_ref()
            .map(|c| super::seat::check_answer(c, &choice));
        if let Some(Err(why)) = checked {
            self.pending = Some(p);
            return refuse("bad_answer", why);
        }
        p.answers.push(choice);
        self.try_answers(p)
    }

    /// Tries the move with the answers so far: asks the next choice, or plays it.
    fn try_answers(&mut self, mut p: Pending) -> Result<(), Refusal> {
        let found = Rc::new(RefCell::new(Probed::Answered));
        let probe = Probe {
            answers: p.answers.iter().cloned().collect(),
            found: found.clone(),
        };
        let _ = self.m.try_move(&p.mv, Box::new(probe));
        let probed = std::mem::take(&mut *found.borrow_mut());
        match probed {
            Probed::Needs(choice) => {
                let msg = self.choice_msg(&choice);
                p.choice = Some(choice);
                self.pending = Some(p);
                self.send(p_seat(&self.pending), msg);
                Ok(())
            }
            Probed::BadAnswer(why) => {
                p.answers.pop();
                self.pending = Some(p);
                refuse("bad_answer", why)
            }
            Probed::Answered => {
                self.commit(p);
                Ok(())
            }
        }
    }

    /// Plays a move whose choices all have answers, then the server seats' turns, and
    /// tells every client.
    fn commit(&mut self, p: Pending) {
        {
            let mut i = self.inputs.borrow_mut();
            i.next_move = Some(p.index);
            i.answers = p.answers.into_iter().collect();
        }
        let mut log = Vec::new();
        if let Err(e) = self.m.step(&mut |l| log.push(l.to_owned())) {
            self.failed = Some(e.to_string());
        }
        {
            let mut i = self.inputs.borrow_mut();
            i.next_move = None;
            i.answers.clear();
        }
        self.advance(&mut log);
        self.push_all(log);
    }

    fn resign(&mut self, seat: usize) -> Result<(), Refusal> {
        if let Some(r) = self.result() {
            return refuse(
                "match_over",
                format!("match {} is already over ({r})", self.id),
            );
        }
        self.pending = None;
        self.resigned = Some(seat);
        self.push_all(vec![format!("Player {} resigns", seat + 1)]);
        Ok(())
    }

    fn send(&self, seat: Option<usize>, msg: ServerMsg) {
        if let Some((_, out)) = seat
            .and_then(|s| self.conns.get(s))
            .and_then(Option::as_ref)
        {
            let _ = out.send(msg.to_text());
        }
    }

    /// The seat's view.
    pub fn view(&self, seat: usize) -> View {
        let (objects, hidden) = view::objects(&self.m, seat, &self.vis);
        View {
            match_id: self.id,
            seat,
            turns: self.m.turns(),
            active: self.m.offered().ok().map(|(s, _)| s),
            generation: self.m.game().generation().number,
            checksum: self.checksum(),
            objects,
            hidden,
            moves: self
                .my_moves(seat)
                .map(|m| view::moves(&self.m, &m))
                .unwrap_or_default(),
            result: self.result(),
        }
    }

    fn choice_msg(&self, choice: &Choice) -> ServerMsg {
        ServerMsg::Choice {
            prompt: choice.prompt.clone(),
            options: view::options(&self.m, choice),
            min: choice.min,
            max: choice.max.min(choice.len()),
        }
    }

    /// Sends a seat its view, then the choice it has pending (a client that reconnects
    /// sees it again), or `ended` once the match is over.
    pub fn send_state(&self, seat: usize) {
        self.send(Some(seat), ServerMsg::State(self.view(seat)));
        if let Some(Pending {
            seat: s,
            choice: Some(c),
            ..
        }) = &self.pending
        {
            if *s == seat {
                self.send(Some(seat), self.choice_msg(c));
            }
        }
        if let Some(result) = self.result() {
            self.send(
                Some(seat),
                ServerMsg::Ended {
                    result,
                    checksum: self.checksum(),
                },
            );
        }
    }

    /// Sends every connected seat the log lines and its new view.
    pub fn push_all(&self, lines: Vec<String>) {
        for seat in 0..self.conns.len() {
            if self.conns[seat].is_none() {
                continue;
            }
            if !lines.is_empty() {
                self.send(
                    Some(seat),
                    ServerMsg::Log {
                        lines: lines.clone(),
                    },
                );
            }
            self.send_state(seat);
        }
    }
}

fn p_seat(p: &Option<Pending>) -> Option<usize> {
    p.as_ref().map(|p| p.seat)
}
