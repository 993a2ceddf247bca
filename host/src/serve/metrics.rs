//! Counters the server keeps and their Prometheus text exposition (`GET /metrics`).

use std::fmt::Write;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Mutex;

use crate::plugins::TimeSplit;
use crate::rules::Generation;

/// The server's counters. Gauges may go down; `_total` counters only go up.
#[derive(Debug, Default)]
pub(crate) struct Metrics {
    pub worlds: AtomicI64,
    pub worlds_created: AtomicU64,
    pub worlds_restored: AtomicU64,
    pub worlds_saved: AtomicU64,
    pub connections: AtomicI64,
    pub moves: AtomicU64,
    pub events: AtomicU64,
    pub protocol_errors: AtomicU64,
    pub reloads: AtomicU64,
    pub reload_failures: AtomicU64,
    /// Time in each mod's content and plugins, summed over every world.
    pub mod_time: Mutex<TimeSplit>,
}

/// Adds `n` to a counter.
pub(crate) fn add(c: &AtomicU64, n: u64) {
    c.fetch_add(n, Ordering::Relaxed);
}

fn line(out: &mut String, name: &str, kind: &str, help: &str, value: impl std::fmt::Display) {
    let _ = writeln!(
        out,
        "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {value}"
    );
}

/// Escapes a label value (Prometheus text format: backslash, quote, newline).
fn label(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

impl Metrics {
    /// The Prometheus text exposition (format 0.0.4).
    pub fn render(&self, gen: &Generation, draining: bool) -> String {
        let mut out = String::new();
        for (name, kind, help, value) in self.series(gen, draining) {
            line(&mut out, name, kind, help, value);
        }
        self.render_mod_time(&mut out);
        out
    }

    /// Every single-valued series: (name, type, help, value).
    fn series(
        &self,
        gen: &Generation,
        draining: bool,
    ) -> Vec<(&'static str, &'static str, &'static str, String)> {
        let g = |c: &AtomicI64| c.load(Ordering::Relaxed);
        let c = |c: &AtomicU64| c.load(Ordering::Relaxed);
        let plugins = gen.registry.plugins();
        let quarantined = plugins.iter().filter(|p| p.world_quarantines() > 0).count();
        let faults: u64 = plugins.iter().map(|p| p.faults_total()).sum();
        vec![
            ("tessera_worlds", "gauge", "Worlds (matches) hosted now.", g(&self.worlds).to_string()),
            ("tessera_connections", "gauge", "Open client WebSocket connections.", g(&self.connections).to_string()),
            ("tessera_generation", "gauge", "The rules generation in force.", gen.number.to_string()),
            ("tessera_draining", "gauge", "1 once POST /drain was received.", u8::from(draining).to_string()),
            ("tessera_worlds_created_total", "counter", "Worlds created.", c(&self.worlds_created).to_string()),
            ("tessera_worlds_restored_total", "counter", "Worlds restored from saves.", c(&self.worlds_restored).to_string()),
            ("tessera_worlds_saved_total", "counter", "Worlds saved.", c(&self.worlds_saved).to_string()),
            ("tessera_moves_total", "counter", "Moves played (rate() gives moves per second).", c(&self.moves).to_string()),
            ("tessera_events_total", "counter", "Events handled (rate() gives events per second).", c(&self.events).to_string()),
            ("tessera_protocol_errors_total", "counter", "Client messages refused (malformed or illegal).", c(&self.protocol_errors).to_string()),
            ("tessera_reloads_total", "counter", "Hot reloads that went live.", c(&self.reloads).to_string()),
            ("tessera_reload_failures_total", "counter", "Hot reloads refused (the last good generation stayed).", c(&self.reload_failures).to_string()),
            ("tessera_plugins", "gauge", "Plugins loaded in the current generation.", plugins.len().to_string()),
            ("tessera_plugins_quarantined", "gauge", "Plugins quarantined (in at least one world) after repeated faults.", quarantined.to_string()),
            ("tessera_plugin_faults_total", "counter", "Plugin faults (traps, fuel or memory exhausted) in the current generation's plugins.", faults.to_string()),
        ]
    }

    /// `tessera_mod_seconds_total`: time spent in each mod's content and plugins.
    fn render_mod_time(&self, out: &mut String) {
        let _ = writeln!(out, "# HELP tessera_mod_seconds_total Time spent in each mod's content and plugins.\n# TYPE tessera_mod_seconds_total counter");
        let split = self.mod_time.lock().unwrap_or_else(|e| e.into_inner());
        for (part, map) in [("content", &split.content), ("plugins", &split.plugins)] {
            for (m, d) in map {
                let _ = writeln!(
                    out,
                    "tessera_mod_seconds_total{{mod=\"{}\",part=\"{part}\"}} {}",
                    label(m),
                    d.as_secs_f64()
                );
            }
        }
    }
}
