//! Object references in expressions and parameters: where one starts (`self`, `source`,
//! `target`, `player`, `giver`, `root`, `event.target`), the hops it follows (`owner`,
//! `parent`, object-valued properties), resolving it in a scope, and which part of the
//! scope it reads.

use std::fmt;

use super::{check_ident, ExprError};
use crate::id::Sym;
use crate::rules::{Cx, RuleError};
use crate::state::ObjId;

/// Where a reference starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Base {
    /// The object holding the trigger or aura.
    This,
    /// The event's source.
    Source,
    /// The event's target, or the object under test in a condition.
    Target,
    /// The event's player.
    Player,
    /// The source of the event being handled (`event.source`), even where `source` was
    /// rebound.
    EventSource,
    /// The target of the event being handled (`event.target`), even while an action
    /// acts on (and rebinds `target` to) other objects.
    EventTarget,
    /// The object that gave the effect being run (`giver`: a given effect's actions
    /// reach the object whose action gave it, as Echoing Ooze's copy reaches the Ooze).
    Giver,
    /// The object under test of the outermost condition (`root`: FOCS's
    /// `RootCandidate`, the candidate a nested `number` or `contains` was reached from).
    Root,
    /// The object an effect pass's effect is setting a property of (`effect_target`:
    /// FOCS's `Target` inside an effect's value), kept inside nested conditions where
    /// `target` is the object under test.
    EffectTarget,
}

impl Base {
    /// The part of the scope a reference starting here reads. `target` counts as
    /// [`ScopeReads::OTHER`]: where it is the object under test, callers do not ask.
    pub(crate) fn scope_reads(self) -> crate::state::ScopeReads {
        use crate::state::ScopeReads as R;
        match self {
            Base::This => R::THIS,
            Base::Source => R::SOURCE,
            Base::Player => R::PLAYER,
            // `root` is the outermost candidate: nothing a reuse could key on.
            Base::Target
            | Base::EventSource
            | Base::EventTarget
            | Base::Giver
            | Base::Root
            | Base::EffectTarget => R::OTHER,
        }
    }

    fn parse(s: &str) -> Option<Base> {
        Some(match s {
            "self" => Base::This,
            "source" => Base::Source,
            "target" => Base::Target,
            "player" => Base::Player,
            "giver" => Base::Giver,
            "root" => Base::Root,
            "effect_target" => Base::EffectTarget,
            _ => return None,
        })
    }
}

/// A path to an object: a base then hops through `owner`, `parent` or object-valued
/// properties (`source.owner`, `self.parent.parent`).
#[derive(Debug, Clone, PartialEq)]
pub struct ObjRef {
    /// Where it starts.
    pub base: Base,
    /// Hops.
    pub hops: smallvec::SmallVec<[Sym; 2]>,
}

impl ObjRef {
    /// Parses `self`, `source.owner`, ... (no trailing property). The error's message
    /// says what is wrong; its span points into `s`.
    pub fn parse(s: &str) -> Result<ObjRef, ExprError> {
        let lead = s.len() - s.trim_start().len();
        let err = |m: String| ExprError::at(s, lead, m);
        let mut parts = s.trim().split('.');
        let head = parts.next().unwrap_or("");
        let base = if head == "event" {
            match parts.next() {
                Some("source") => Base::EventSource,
                Some("target") => Base::EventTarget,
                other => {
                    return Err(err(format!(
                        "`event.{}` is not an object; use `event.source` or `event.target`",
                        other.unwrap_or("")
                    )))
                }
            }
        } else {
            Base::parse(head).ok_or_else(|| {
                err(format!("`{head}` is not an object; start with `self`, `source`, `target`, `player`, `giver`, `root`, `effect_target` or `event.target`"))
            })?
        };
        let mut hops = smallvec::SmallVec::new();
        for p in parts {
            check_ident(p).map_err(err)?;
            hops.push(Sym::new(p));
        }
        Ok(ObjRef { base, hops })
    }

    /// Resolves the reference in a scope.
    pub fn resolve(&self, cx: &Cx<'_>) -> Result<ObjId, RuleError> {
        let start = match self.base {
            Base::This => cx.scope.this,
            Base::Source => cx.scope.source,
            Base::Target => cx.scope.target,
            Base::Player => cx.scope.player,
            Base::EventSource => cx.scope.event.as_ref().and_then(|e| e.source),
            Base::EventTarget => cx.scope.event.as_ref().and_then(|e| e.target),
            Base::Giver => cx.scope.giver,
            Base::Root => cx.scope.root,
            Base::EffectTarget => cx.scope.effect_target,
        };
        let mut cur = start.ok_or_else(|| RuleError::NoObject(self.to_string()))?;
        for hop in &self.hops {
            cur = hop_from(cx, cur, *hop).ok_or_else(|| RuleError::NoObject(self.to_string()))?;
        }
        Ok(cur)
    }
}

fn hop_from(cx: &Cx<'_>, obj: ObjId, hop: Sym) -> Option<ObjId> {
    // Symbols compare by identity: no text is compared on a hop.
    static NAMES: std::sync::OnceLock<(Sym, Sym)> = std::sync::OnceLock::new();
    let &(owner, parent) = NAMES.get_or_init(|| (Sym::new("owner"), Sym::new("parent")));
    let o = cx.world.object(obj).ok()?;
    if hop == owner {
        o.owner
    } else if hop == parent {
        o.parent
    } else {
        o.props.get(&hop)?.as_obj()
    }
}

impl fmt::Display for ObjRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = match self.base {
            Base::This => "self",
            Base::Source => "source",
            Base::Target => "target",
            Base::Player => "player",
            Base::EventSource => "event.source",
            Base::EventTarget => "event.target",
            Base::Giver => "giver",
            Base::Root => "root",
            Base::EffectTarget => "effect_target",
        };
        f.write_str(b)?;
        for h in &self.hops {
            write!(f, ".{h}")?;
        }
        Ok(())
    }
}
