//! `tessera explain --scenario`: runs a scenario (all of it, or its first N steps) and
//! says why an object's property has its value — each change the last effect pass
//! recorded, with the effects group's accounting label.

use std::path::Path;
use std::sync::Arc;

use super::{paths, read, run, SharedContent};
use crate::id::Sym;
use crate::rules::registry::Registry;
use crate::state::decimal;

/// Why a property could not be explained: the scenario did not read or run, or the
/// property names nothing (the message says which, with file:line where there is one).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ExplainError(pub String);

/// The explanation of `what` (`object.property`, the object a name or path such as
/// `p1.board.0`) after the scenario at `path` ran its first `steps` steps (all when
/// `None`): the value, then one line per recorded change. A failed step is an error.
pub fn explain(
    path: &Path,
    registry: &Arc<Registry>,
    shared: &SharedContent,
    steps: Option<usize>,
    what: &str,
) -> Result<String, ExplainError> {
    let (reference, prop) = what.rsplit_once('.').ok_or_else(|| {
        ExplainError(format!(
            "`{what}` is not `object.property` (e.g. `capital.target_industry`)"
        ))
    })?;
    let (text, file) = read(path).map_err(ExplainError)?;
    if let Some(n) = steps {
        if n > file.step.len() {
            return Err(ExplainError(format!(
                "{} has {} steps, not {n}",
                path.display(),
                file.step.len()
            )));
        }
    }
    let ran = run(path, &text, &file, registry, shared, steps).map_err(ExplainError)?;
    if let Some(f) = ran.failures.first() {
        return Err(ExplainError(format!(
            "the scenario failed before the explanation: {f}"
        )));
    }
    let world = ran.game.world();
    let id = paths::resolve(world, &ran.names, reference).map_err(ExplainError)?;
    let key = Sym::new(prop);
    let value = world
        .get_number(id, key)
        .map_or_else(|| "absent".to_owned(), decimal);
    let after = match steps {
        Some(n) => format!("after step {n}"),
        None => "at the end".to_owned(),
    };
    let mut out = format!("{what} = {value} ({after} of {})\n", path.display());
    // Each line names the group's source: the object it acts for (a tech acts for its
    // empire's capital).
    let entries = world.accounting().of(id, key);
    if entries.is_empty() {
        out.push_str("  no effect pass changed it (or none has run)\n");
    }
    for e in entries {
        let source = ran
            .names
            .iter()
            .find(|(_, o)| **o == e.source)
            .map_or_else(|| e.source.to_string(), |(n, _)| n.clone());
        let delta = e.after - e.before;
        let sign = if delta >= 0.0 { "+" } else { "" };
        out.push_str(&format!(
            "  {}: {} -> {} ({sign}{}) from {source}\n",
            e.label,
            decimal(e.before),
            decimal(e.after),
            decimal(delta)
        ));
    }
    Ok(out)
}
