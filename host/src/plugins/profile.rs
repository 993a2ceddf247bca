//! Time split per mod: how long each mod's content (triggers, settle rules, moves) and
//! each mod's plugins ran. Off by default; a running game turns it on to report where
//! its time goes (`tessera run --profile`).

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::rules::Sandbox;

/// Accumulated time per mod.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TimeSplit {
    /// Time in each mod's content, excluding the plugin calls made from it.
    pub content: BTreeMap<String, Duration>,
    /// Time in each mod's plugins.
    pub plugins: BTreeMap<String, Duration>,
}

impl TimeSplit {
    /// Adds another split to this one.
    pub fn merge(&mut self, other: &TimeSplit) {
        for (m, d) in &other.content {
            *self.content.entry(m.clone()).or_default() += *d;
        }
        for (m, d) in &other.plugins {
            *self.plugins.entry(m.clone()).or_default() += *d;
        }
    }
}

/// The profiler a world's runtime carries.
#[derive(Debug, Default)]
pub(crate) struct Profiler {
    split: RefCell<Option<TimeSplit>>,
    plugin_total: Cell<Duration>,
}

impl Profiler {
    pub(crate) fn enabled(&self) -> bool {
        self.split.borrow().is_some()
    }

    pub(crate) fn set_enabled(&self, on: bool) {
        *self.split.borrow_mut() = on.then(TimeSplit::default);
    }

    pub(crate) fn take(&self) -> TimeSplit {
        self.split
            .borrow_mut()
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    pub(crate) fn plugin(&self, mod_id: &str, d: Duration) {
        self.plugin_total.set(self.plugin_total.get() + d);
        if let Some(s) = self.split.borrow_mut().as_mut() {
            *s.plugins.entry(mod_id.to_owned()).or_default() += d;
        }
    }

    /// Starts timing a piece of content; [`ContentTimer::stop`] charges it.
    pub(crate) fn start(&self) -> Option<ContentTimer> {
        self.enabled().then(|| ContentTimer {
            started: Instant::now(),
            plugins_before: self.plugin_total.get(),
        })
    }

    pub(crate) fn stop(&self, t: Option<ContentTimer>, mod_id: &str) {
        let Some(t) = t else { return };
        let wall = t.started.elapsed();
        let in_plugins = self.plugin_total.get().saturating_sub(t.plugins_before);
        if let Some(s) = self.split.borrow_mut().as_mut() {
            *s.content.entry(mod_id.to_owned()).or_default() += wall.saturating_sub(in_plugins);
        }
    }
}

/// A piece of content being timed.
#[derive(Debug)]
pub(crate) struct ContentTimer {
    started: Instant,
    plugins_before: Duration,
}

/// Starts timing a piece of content run under the runtime a rules context carries
/// (nothing when profiling is off).
pub(crate) fn start_content(rt: &Sandbox) -> Option<ContentTimer> {
    super::Runtime::of(rt).ok().and_then(|r| r.profiler.start())
}

/// Charges a piece of content started with [`start_content`] to `mod_id`.
pub(crate) fn stop_content(rt: &Sandbox, t: Option<ContentTimer>, mod_id: &str) {
    if let Ok(r) = super::Runtime::of(rt) {
        r.profiler.stop(t, mod_id);
    }
}
