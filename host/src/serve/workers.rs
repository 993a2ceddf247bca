//! The worker pool: a few threads, each owning the worlds whose id falls to it
//! (`id % workers`) and running jobs for them one at a time. Worlds hold `Rc`s and never
//! leave their thread; connections and admin requests reach them through jobs.

use std::collections::{HashMap, VecDeque};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crate::play::Translate;
use crate::reload::Staged;

use super::protocol::{ClientMsg, SeatKind, ServerMsg};
use super::save::SaveFile;
use super::world::{HostedWorld, Out, Refusal, Spec};
use super::{Core, PlayerChange, PlayerId};

/// Work for a worker thread.
pub(crate) type Job = Box<dyn FnOnce(&mut Worker) + Send>;

/// The worlds of one thread.
pub(crate) struct Worker {
    core: Arc<Core>,
    worlds: HashMap<u64, HostedWorld>,
    translate: Option<(u64, Translate)>,
    /// The seats of each world last reported connected to the player tracker.
    reported: HashMap<u64, Vec<bool>>,
}

/// The pool.
pub(crate) struct Workers {
    senders: Mutex<Vec<Sender<Job>>>,
    handles: Mutex<Vec<JoinHandle<()>>>,
    count: usize,
}

impl Workers {
    /// Starts `n` worker threads.
    pub(crate) fn start(n: usize, core: &Arc<Core>) -> Result<Workers, String> {
        let mut senders = Vec::new();
        let mut handles = Vec::new();
        for i in 0..n.max(1) {
            let (tx, rx) = channel::<Job>();
            let core = core.clone();
            let h = std::thread::Builder::new()
                .name(format!("tessera-world-{i}"))
                .spawn(move || {
                    let mut w = Worker {
                        core,
                        worlds: HashMap::new(),
                        translate: None,
                        reported: HashMap::new(),
                    };
                    while let Ok(job) = rx.recv() {
                        job(&mut w);
                    }
                })
                .map_err(|e| format!("could not start a world worker thread: {e}"))?;
            senders.push(tx);
            handles.push(h);
        }
        Ok(Workers {
            count: senders.len(),
            senders: Mutex::new(senders),
            handles: Mutex::new(handles),
        })
    }

    /// Runs a job on the worker owning match `id`. Returns false once the pool stopped.
    pub fn send(&self, id: u64, job: Job) -> bool {
        let senders = self.senders.lock().unwrap_or_else(|e| e.into_inner());
        let n = u64::try_from(senders.len()).unwrap_or(1).max(1);
        let i = usize::try_from(id % n).unwrap_or(0);
        senders.get(i).is_some_and(|s| s.send(job).is_ok())
    }

    /// Runs `f` on every worker and collects the results.
    pub async fn each<T: Send + 'static>(
        &self,
        f: impl Fn(&mut Worker) -> T + Send + Sync + 'static,
    ) -> Vec<T> {
        let f = Arc::new(f);
        let mut waits = Vec::new();
        for i in 0..self.count {
            let (tx, rx) = tokio::sync::oneshot::channel();
            let f = f.clone();
            let job: Job = Box::new(move |w| {
                let _ = tx.send(f(w));
            });
            if self.send(i as u64, job) {
                waits.push(rx);
            }
        }
        let mut out = Vec::new();
        for w in waits {
            if let Ok(v) = w.await {
                out.push(v);
            }
        }
        out
    }

    /// Stops the threads once their queued jobs are done, and waits for them.
    pub fn stop(&self) {
        self.senders
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        let handles = std::mem::take(&mut *self.handles.lock().unwrap_or_else(|e| e.into_inner()));
        for h in handles {
            let _ = h.join();
        }
    }
}

fn send(out: &Out, msg: ServerMsg) {
    let _ = out.send(msg.to_text());
}

impl Worker {
    fn translate(&mut self, loaded: &crate::mods::LoadedMods, number: u64) -> Translate {
        if let Some((n, t)) = &self.translate {
            if *n == number {
                return t.clone();
            }
        }
        let text = loaded.locale.text.get("en").cloned().unwrap_or_default();
        let t: Translate = Rc::new(move |k: &str| text.get(k).cloned());
        self.translate = Some((number, t.clone()));
        t
    }

    fn refused(&self, out: &Out, r: Refusal) {
        super::metrics::add(&self.core.metrics.protocol_errors, 1);
        send(out, ServerMsg::error(r.code, r.message));
    }

    /// Hosts a new world.
    pub(crate) fn create(&mut self, spec: Spec) -> Result<(), String> {
        let current = self.core.current();
        let translate = self.translate(&current.stage.loaded, current.gen.number);
        let id = spec.id;
        let w = HostedWorld::new(
            spec,
            current.gen.clone(),
            translate,
            self.core.opts.visibility.clone(),
        )?;
        w.m.set_profiling(true);
        self.worlds.insert(id, w);
        self.core.metrics.worlds.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// `create` from a client.
    pub fn create_for(&mut self, id: u64, seed: u64, kinds: Vec<SeatKind>, out: &Out) {
        let tokens = kinds
            .iter()
            .enumerate()
            .map(|(s, k)| self.core.token(id, s, *k))
            .collect();
        let spec = Spec {
            id,
            seed,
            kinds: kinds.clone(),
            tokens,
            replay: VecDeque::new(),
        };
        match self.create(spec) {
            Ok(()) => {
                super::metrics::add(&self.core.metrics.worlds_created, 1);
                send(
                    out,
                    ServerMsg::Created {
                        match_id: id,
                        seed,
                        seats: kinds,
                    },
                );
            }
            Err(e) => self.refused(
                out,
                Refusal {
                    code: "create_failed",
                    message: e,
                },
            ),
        }
    }

    /// Restores a saved world; checks that it reached the saved checksum.
    pub(crate) fn restore(&mut self, save: SaveFile) -> Result<(), String> {
        let id = save.match_id;
        if save.tokens.len() != save.seats.len() {
            return Err(format!(
                "match {id}: the save lists {} seats but {} tokens; it was edited or is damaged",
                save.seats.len(),
                save.tokens.len()
            ));
        }
        let spec = Spec {
            id,
            seed: save.recording.seed,
            kinds: save.seats.clone(),
            tokens: save.tokens.clone(),
            replay: save.recording.inputs.iter().cloned().collect(),
        };
        self.create(spec)
            .map_err(|e| format!("match {id} could not be restored: {e}"))?;
        let w = self
            .worlds
            .get_mut(&id)
            .ok_or("the restored world is gone")?;
        let got = w.checksum();
        if got != save.recording.checksum {
            self.drop_world(id);
            return Err(format!("match {id} restored to checksum {got}, but was saved at {}: the rules do not replay it the same way", save.recording.checksum));
        }
        super::metrics::add(&self.core.metrics.worlds_restored, 1);
        Ok(())
    }

    fn drop_world(&mut self, id: u64) {
        if self.worlds.remove(&id).is_some() {
            self.core.metrics.worlds.fetch_sub(1, Ordering::Relaxed);
        }
        self.track(id);
    }

    /// Tells the player tracker (Agones, when on) which seats of match `id` a client
    /// took or left since the last call; a world that is gone has no one seated.
    fn track(&mut self, id: u64) {
        let Some(players) = &self.core.players else {
            return;
        };
        let now = self.worlds.get(&id).map(HostedWorld::connected);
        let before = self.reported.remove(&id).unwrap_or_default();
        let after = now.clone().unwrap_or_default();
        for seat in 0..before.len().max(after.len()) {
            let (was, is) = (
                before.get(seat) == Some(&true),
                after.get(seat) == Some(&true),
            );
            if was != is {
                let player = PlayerId { match_id: id, seat };
                let _ = players.send(if is {
                    PlayerChange::Connected(player)
                } else {
                    PlayerChange::Disconnected(player)
                });
            }
        }
        if now.is_some() {
            self.reported.insert(id, after);
        }
    }

    fn world(&mut self, id: u64, out: &Out) -> Option<&mut HostedWorld> {
        if !self.worlds.contains_key(&id) {
            let why = if self.core.is_draining() {
                "the server is draining: reconnect with your seat token after it restarts"
            } else {
                "create a match, or check the id `created` gave"
            };
            self.refused(
                out,
                Refusal {
                    code: "no_match",
                    message: format!("there is no match {id}; {why}"),
                },
            );
            return None;
        }
        self.worlds.get_mut(&id)
    }

    /// `join` from a client.
    pub fn join(
        &mut self,
        id: u64,
        seat: Option<usize>,
        token: Option<String>,
        conn: u64,
        out: Out,
        seated: &AtomicU64,
    ) {
        let Some(w) = self.world(id, &out) else {
            return;
        };
        match w.join(seat, token.as_deref(), (conn, out.clone())) {
            Ok((seat, token)) => {
                seated.store(id, Ordering::SeqCst);
                send(
                    &out,
                    ServerMsg::Joined {
                        match_id: id,
                        seat,
                        token,
                    },
                );
                w.send_state(seat);
                self.track(id);
            }
            Err(r) => self.refused(&out, r),
        }
    }

    /// Any other message of a seated client.
    pub fn handle(&mut self, id: u64, conn: u64, out: Out, msg: ClientMsg, seated: &AtomicU64) {
        let Some(w) = self.world(id, &out) else {
            return;
        };
        let leaving = matches!(msg, ClientMsg::Leave {});
        let (moves, events) = (w.m.moves(), w.m.events());
        let r = w.handle(conn, &out, msg);
        let (moves, events) = (w.m.moves() - moves, w.m.events() - events);
        let (profile, _) = w.m.take_profile();
        let done = w.result().is_some() && !w.has_clients();
        if leaving && r.is_ok() {
            seated.store(0, Ordering::SeqCst);
        }
        let metrics = &self.core.metrics;
        super::metrics::add(&metrics.moves, moves as u64);
        super::metrics::add(&metrics.events, events as u64);
        metrics
            .mod_time
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .merge(&profile);
        if let Err(r) = r {
            self.refused(&out, r);
        }
        if done {
            self.drop_world(id);
        } else if leaving {
            self.track(id);
        }
    }

    /// A connection closed.
    pub fn disconnect(&mut self, id: u64, conn: u64) {
        if let Some(w) = self.worlds.get_mut(&id) {
            w.disconnect(conn);
            if w.result().is_some() && !w.has_clients() {
                self.drop_world(id);
            } else {
                self.track(id);
            }
        }
    }

    /// The worlds of this thread, for the admin page.
    pub fn summaries(&self) -> Vec<super::world::WorldSummary> {
        self.worlds.values().map(HostedWorld::summary).collect()
    }

    /// Switches every world to a staged generation; returns how many switched.
    pub fn reload(&mut self, staged: &Staged) -> usize {
        let Some(gen) = staged.loaded.generation.clone() else {
            return 0;
        };
        let translate = self.translate(&staged.loaded, gen.number);
        let mut switched = 0;
        for w in self.worlds.values_mut() {
            let (_, report) = w.m.apply_reload(staged);
            if report.is_some() {
                switched += 1;
                w.m.set_translate(translate.clone());
                w.push_all(Vec::new());
            }
        }
        switched
    }

    /// Saves every running world to `dir` and stops hosting them (the server is
    /// draining). Returns the saved match ids and the errors.
    pub fn drain(&mut self, dir: &std::path::Path) -> (Vec<u64>, Vec<String>) {
        let mods = self.core.current().mods.clone();
        let (mut saved, mut errors) = (Vec::new(), Vec::new());
        let ids: Vec<u64> = self.worlds.keys().copied().collect();
        for id in ids {
            let Some(w) = self.worlds.get(&id) else {
                continue;
            };
            w.announce_drain();
            if w.result().is_none() {
                match SaveFile::of(w, mods.clone()).write(dir) {
                    Ok(_) => saved.push(id),
                    Err(e) => errors.push(e.to_string()),
                }
            }
            self.drop_world(id);
        }
        super::metrics::add(&self.core.metrics.worlds_saved, saved.len() as u64);
        (saved, errors)
    }
}
