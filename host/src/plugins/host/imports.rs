//! The `tessera` imports themselves, as methods of [`HostState`] over plain values: reads
//! of the world and the call's context, writes through the running command, and the
//! capabilities (`random`, `log`). Each dereference of the call environment happens while
//! a guest call holds its borrows (see the parent module).

use super::*;

impl HostState {
    /// `intern` of bytes (`None`: outside guest memory). Symbols live for the whole
    /// process, so names no content or plugin used before are bounded: see
    /// [`guest_symbol`].
    pub(crate) fn intern(&mut self, bytes: Option<&[u8]>) -> i32 {
        let Some(text) = bytes.and_then(|b| std::str::from_utf8(b).ok()) else {
            return -1;
        };
        match guest_symbol(text) {
            Some(sym) => self.sym_id(sym),
            None => -1,
        }
    }

    pub(crate) fn ctx(&self, which: i32) -> i64 {
        let Some(env) = self.env else {
            return abi::NO_OBJECT;
        };
        // SAFETY: see module docs.
        let scope = unsafe { &*env.scope };
        pack(match which {
            abi::ctx::SELF => scope.this,
            abi::ctx::SOURCE => scope.source,
            abi::ctx::TARGET => scope.target,
            abi::ctx::PLAYER => scope.player,
            _ => None,
        })
    }

    pub(crate) fn event_amount(&self) -> i64 {
        let Some(env) = self.env else { return 0 };
        // SAFETY: see module docs.
        unsafe { &*env.scope }
            .event
            .as_ref()
            .map_or(0, |e| e.amount)
    }

    pub(crate) fn exists(&self, o: i64) -> i32 {
        i32::from(obj(o).is_some_and(|o| self.world().is_some_and(|w| w.exists(o))))
    }

    pub(crate) fn get_int(&self, o: i64, key: i32) -> i64 {
        match (obj(o), self.sym(key), self.world()) {
            (Some(o), Some(k), Some(w)) => w.get_int(o, k),
            _ => 0,
        }
    }

    pub(crate) fn get_float(&self, o: i64, key: i32) -> f64 {
        match (obj(o), self.sym(key), self.world()) {
            (Some(o), Some(k), Some(w)) => w.get_number(o, k).unwrap_or(0.0),
            _ => 0.0,
        }
    }

    pub(crate) fn has_prop(&self, o: i64, key: i32) -> i32 {
        match (obj(o), self.sym(key), self.world()) {
            (Some(o), Some(k), Some(w)) => {
                i32::from(w.get_number(o, k).is_some() || w.base(o, k).is_some())
            }
            _ => 0,
        }
    }

    pub(crate) fn has_tag(&self, o: i64, tag: i32) -> i32 {
        match (obj(o), self.sym(tag), self.world()) {
            (Some(o), Some(t), Some(w)) => i32::from(w.has_tag(o, t)),
            _ => 0,
        }
    }

    /// `zone` (`class = false`) or `class` (`class = true`).
    pub(crate) fn zone_or_class(&mut self, o: i64, class: bool) -> i32 {
        let s = match (obj(o), self.world()) {
            (Some(o), Some(w)) => match w.object(o) {
                Ok(obj) if !class => obj.zone,
                Ok(obj) => obj.class.sym(),
                Err(_) => return -1,
            },
            _ => return -1,
        };
        self.sym_id(s)
    }

    /// `owner` (`parent = false`) or `parent` (`parent = true`).
    pub(crate) fn owner_or_parent(&self, o: i64, parent: bool) -> i64 {
        let found = match (obj(o), self.world()) {
            (Some(o), Some(w)) => {
                w.object(o)
                    .ok()
                    .and_then(|x| if parent { x.parent } else { x.owner })
            }
            _ => None,
        };
        pack(found)
    }

    pub(crate) fn push(&mut self, o: i64) {
        self.pushed.push(o);
    }

    /// `query`: every selected id, or the failure status (recorded).
    pub(crate) fn query(&mut self, h: i32) -> Result<Vec<i64>, i32> {
        let Some(object) = self.host_object(h) else {
            return Err(self.fail("query: no such prepared selector", -1));
        };
        let HostObject::Selector(sel) = &*object else {
            return Err(self.fail("query: the handle is not a selector", -1));
        };
        let before = self.faults_seen();
        let result = self.with_cx(|cx| {
            let mut v = Vec::new();
            sel.select(cx, &mut v).map(|()| v)
        });
        match result {
            Some(Ok(objs)) => Ok(objs.iter().map(|o| pack(Some(*o))).collect()),
            Some(Err(e)) => Err(self.fail_nested(before, format!("query failed: {e}"), -1)),
            None => Err(self.fail("query outside a call", -1)),
        }
    }

    pub(crate) fn eval(&mut self, h: i32) -> f64 {
        let Some(object) = self.host_object(h) else {
            return self.fail("eval: no such prepared expression", 0.0);
        };
        let HostObject::Expr(e) = &*object else {
            return self.fail("eval: the handle is not an expression", 0.0);
        };
        let before = self.faults_seen();
        match self.with_cx(|cx| e.eval(cx)) {
            Some(Ok(v)) => v,
            Some(Err(e)) => self.fail_nested(before, format!("eval failed: {e}"), 0.0),
            None => 0.0,
        }
    }

    pub(crate) fn pipeline_get(&self, key: i32) -> f64 {
        let (Some(env), Some(k)) = (self.env, self.sym(key)) else {
            return 0.0;
        };
        if env.pipeline.is_null() {
            return 0.0;
        }
        // SAFETY: see module docs; non-null only during a node call.
        unsafe { &*env.pipeline }.value(k).unwrap_or(0.0)
    }

    pub(crate) fn pipeline_set(&mut self, key: i32, v: f64) {
        let (Some(env), Some(k)) = (self.env, self.sym(key)) else {
            return;
        };
        if env.pipeline.is_null() {
            self.fail("pipeline_set outside a node call", ());
            return;
        }
        // SAFETY: see module docs; non-null only during a node call.
        unsafe { &mut *env.pipeline }
            .values
            .push((k, if v.is_nan() { 0.0 } else { v }));
    }

    pub(crate) fn set_int(&mut self, o: i64, key: i32, v: i64) -> i32 {
        let (Some(o), Some(k)) = (obj(o), self.sym(key)) else {
            return self.fail("set_int: bad object or key", -1);
        };
        match self.world_mut() {
            Some(w) => match w.set(o, k, crate::state::Value::Int(v)) {
                Ok(_) => 0,
                Err(e) => self.fail(format!("set_int: {e}"), -1),
            },
            None => self.refuse_write("set_int", -1),
        }
    }

    /// Sets a decimal base property; a value that is not finite is refused (a fault).
    pub(crate) fn set_float(&mut self, o: i64, key: i32, v: f64) -> i32 {
        let (Some(o), Some(k)) = (obj(o), self.sym(key)) else {
            return self.fail("set_float: bad object or key", -1);
        };
        if !v.is_finite() {
            return self.fail(format!("set_float: {v} is not a finite number"), -1);
        }
        match self.world_mut() {
            Some(w) => match w.set(o, k, crate::state::Value::Float(v)) {
                Ok(_) => 0,
                Err(e) => self.fail(format!("set_float: {e}"), -1),
            },
            None => self.refuse_write("set_float", -1),
        }
    }

    pub(crate) fn add_int(&mut self, o: i64, key: i32, d: i64) -> i64 {
        let (Some(o), Some(k)) = (obj(o), self.sym(key)) else {
            return self.fail("add_int: bad object or key", 0);
        };
        match self.world_mut() {
            Some(w) => match w.add(o, k, d) {
                Ok(v) => v,
                Err(e) => self.fail(format!("add_int: {e}"), 0),
            },
            None => self.refuse_write("add_int", 0),
        }
    }

    /// `add_tag` (`add = true`) or `remove_tag`.
    pub(crate) fn tag(&mut self, o: i64, tag: i32, add: bool) -> i32 {
        let (Some(o), Some(t)) = (obj(o), self.sym(tag)) else {
            return self.fail("tag: bad object or tag", -1);
        };
        match self.world_mut() {
            Some(w) => match if add { w.tag(o, t) } else { w.untag(o, t) } {
                Ok(_) => 0,
                Err(e) => self.fail(format!("tag: {e}"), -1),
            },
            None => self.refuse_write("tag", -1),
        }
    }

    pub(crate) fn emit(&mut self, event: i32, target: i64, amount: i64) -> i32 {
        let Some(s) = self.sym(event) else {
            return self.fail("emit: bad event symbol", -1);
        };
        let Ok(id) = Id::parse(s.as_str()) else {
            return self.fail(format!("emit: `{s}` is not an event id"), -1);
        };
        let Some(env) = self.env else { return -1 };
        if env.queue.is_null() {
            return self.fail("emit: conditions and selectors cannot raise events", -1);
        }
        // SAFETY: see module docs.
        let (gen, scope) = unsafe { (&*env.gen, &*env.scope) };
        if !gen.events.contains(&id) {
            return self.fail(format!("emit: unknown event `{id}`"), -1);
        }
        let mut e = Event::new(id).amount(amount);
        e.source = scope.this;
        e.target = obj(target);
        // SAFETY: see module docs; the queue is exclusively ours during the call.
        unsafe { &mut *env.queue }.raise(e);
        0
    }

    /// `run_action` on targets read from guest memory (`None`: outside it).
    pub(crate) fn run_action(&mut self, h: i32, targets: Option<Vec<i64>>) -> i32 {
        let Some(object) = self.host_object(h) else {
            return self.fail("run_action: no such prepared action", -1);
        };
        let HostObject::Actions(actions) = &*object else {
            return self.fail("run_action: the handle is not an action list", -1);
        };
        let Some(targets) = targets else {
            return self.fail("run_action: targets are outside memory", -1);
        };
        let targets: Vec<ObjId> = targets.into_iter().filter_map(obj).collect();
        let Some(env) = self.env else { return -1 };
        if env.world_mut.is_null() || env.queue.is_null() || env.controller.is_null() {
            return self.fail(
                "run_action: conditions and selectors cannot run actions",
                -1,
            );
        }
        // SAFETY: see module docs; a writable environment holds `&mut` borrows of the
        // world and queue for the whole call, and nothing else uses them meanwhile.
        let mut ax = unsafe {
            ActCx {
                world: &mut *env.world_mut,
                gen: &*env.gen,
                scope: (*env.scope).clone(),
                queue: &mut *env.queue,
                controller: &*env.controller,
                rt: &*env.rt,
            }
        };
        let before = self.faults_seen();
        for a in actions {
            if let Err(e) = a.run(&mut ax, &targets) {
                return self.fail_nested(before, format!("run_action: {e}"), -1);
            }
        }
        0
    }

    /// `prepare_selector`/`prepare_action`/`prepare_expr` of bytes read from the guest.
    pub(crate) fn prepare_request(&mut self, kind: RequestKind, bytes: Option<Vec<u8>>) -> i32 {
        let name = kind.name();
        if !self.preparing {
            return self.fail(
                format!("{name} may only be called during tessera_prepare"),
                -1,
            );
        }
        let Some(bytes) = bytes else {
            return self.fail(format!("{name}: bytes outside memory"), -1);
        };
        let Ok(text) = String::from_utf8(bytes) else {
            return self.fail(format!("{name}: not UTF-8"), -1);
        };
        let req = match kind {
            RequestKind::Selector => HostRequest::Selector(text),
            RequestKind::Action => HostRequest::Action(text),
            RequestKind::Expr => HostRequest::Expr(text),
        };
        if let Some(replay) = &mut self.replay {
            return match replay.pop_front() {
                Some((r, h)) if r == req => h,
                _ => self.fail(format!("{name}: prepare is not deterministic (a new instance asked for something else than at load)"), -1),
            };
        }
        let h = self.shared.reserve_handle(self.requests.len());
        self.requests.push((req, h));
        h
    }

    /// `random` (capability).
    pub(crate) fn random(&self, lo: i64, hi: i64) -> i64 {
        self.world().map_or(lo, |w| w.random_range(lo, hi))
    }

    /// `log` (capability).
    pub(crate) fn log(&self, level: i32, bytes: Option<&[u8]>) {
        let text = bytes
            .map(|b| String::from_utf8_lossy(&b[..b.len().min(4096)]).into_owned())
            .unwrap_or_default();
        let mod_id = &self.shared.mod_id;
        match level {
            0 => tracing::error!(mod_id = %mod_id, "{text}"),
            1 => tracing::warn!(mod_id = %mod_id, "{text}"),
            2 => tracing::info!(mod_id = %mod_id, "{text}"),
            _ => tracing::debug!(mod_id = %mod_id, "{text}"),
        }
    }
}
