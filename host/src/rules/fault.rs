//! What a failed plugin call looks like to the rules engine: [`PluginFault`] names the
//! mod, plugin file, export, definition and use site, and [`PluginFaultKind`] says what
//! went wrong, so callers match on a type instead of on message text. Lives here, below
//! the plugins layer, because [`RuleError`](super::RuleError) carries it; the plugins
//! layer produces it (and re-exports it).

use std::fmt;
use std::path::PathBuf;

/// What went wrong in a plugin call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PluginFaultKind {
    /// The call ran out of fuel (an endless loop, or a budget set too low).
    OutOfFuel,
    /// The guest overflowed its stack (runaway recursion).
    StackOverflow,
    /// The call hit the wall-clock deadline (epoch interruption).
    Deadline,
    /// The guest's memory hit the memory limit (growing it was refused).
    MemoryLimit,
    /// The guest trapped: an `unreachable`, an out-of-bounds access, or another trap.
    Trap,
    /// The guest panicked and said why (its message is in [`PluginFault::message`]).
    Panicked,
    /// The mod is quarantined in this world after too many faults; nothing ran.
    Quarantined,
    /// The plugin re-entered itself (one of its definitions ran another of its own).
    ReEntered,
    /// The plugin broke the ABI: a missing export, a range outside its memory, a
    /// wrong count, an object id the host never gave, a non-deterministic prepare.
    AbiMisuse,
    /// A host function the plugin called refused it (a bad handle or object, a bad
    /// pointer, a write in a read-only call).
    HostCall,
    /// Another plugin faulted inside a host call this plugin made (`query`, `eval`,
    /// `run_action`), so this call fails too.
    Nested,
    /// The plugin reported failure itself (returned an error status with a message).
    Failed,
    /// A fault injected by the host on purpose ([`crate::plugins::Runtime::inject_faults`]).
    Injected,
}

impl PluginFaultKind {
    /// Whether the guest itself trapped or exhausted a budget (fuel, stack, deadline,
    /// memory), as opposed to failing, misusing the ABI or being refused. Whether the
    /// instance was thrown away is [`PluginFault::replaced`].
    pub fn is_trap(self) -> bool {
        matches!(
            self,
            PluginFaultKind::OutOfFuel
                | PluginFaultKind::StackOverflow
                | PluginFaultKind::Deadline
                | PluginFaultKind::MemoryLimit
                | PluginFaultKind::Trap
                | PluginFaultKind::Panicked
        )
    }
}

/// A mod was quarantined in a world by the fault it comes with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Quarantine {
    /// Faults counted within the window.
    pub faults: usize,
    /// The window, in calls.
    pub window: u64,
}

/// A plugin call failed. The command that made it rolls back; the message says which
/// mod, plugin file, export, definition and content line, and what went wrong. Its
/// display is the message the host has always printed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PluginFault {
    /// The mod whose plugin failed.
    pub mod_id: String,
    /// The plugin file, as written in `mod.toml`.
    pub file: PathBuf,
    /// The export that was called (`tessera_condition`, ...).
    pub export: String,
    /// The definition id the use site names (`mymod:condition/strong`).
    pub definition: String,
    /// Where the definition is used (`content/file.toml:12`).
    pub site: String,
    /// What went wrong.
    pub kind: PluginFaultKind,
    /// The details (the trap, the guest's message, the refused call).
    pub message: String,
    /// Whether the instance was thrown away (the next call gets a fresh one).
    pub replaced: bool,
    /// Set when this fault quarantined the mod in this world.
    pub quarantine: Option<Quarantine>,
}

impl fmt::Display for PluginFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "mod `{}`, plugin {}, export `{}`, definition `{}` used at {}: {}",
            self.mod_id,
            self.file.display(),
            self.export,
            self.definition,
            self.site,
            self.message
        )?;
        if self.replaced {
            f.write_str("; the instance was replaced")?;
        }
        if let Some(q) = self.quarantine {
            write!(
                f,
                "; the mod is now quarantined in this world ({} faults within {} calls): its definitions are switched off and the game goes on without them",
                q.faults, q.window
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for PluginFault {}
