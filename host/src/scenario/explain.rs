//! `tessera explain --scenario`: runs a scenario (all of it, or its first N steps) and
//! says why an object's property has its value — each change the last effect pass
//! recorded, with the effects group's accounting label.

use std::path::Path;
use std::sync::Arc;

use super::{paths, read, run, SharedContent};
use crate::id::Sym;
use crate::rules::registry::Registry;
use crate::state::decimal;

/// The explanation of `what` (`object.property`, the object a name or path such as
/// `p1.board.0`) after the scenario at `path` ran its first `steps` steps (all when
/// `None`): the value, then one line per recorded change. A failed step is an error.
pub fn explain(
    path: &Path,
    registry: &Arc<Registry>,
    shared: &SharedContent,
    steps: Option<usize>,
    what: &str,
) -> Result<String, String> {
    let (reference, prop) = what.rsplit_once('.').ok_or_else(|| {
        format!("`{what}` is not `object.property` (e.g. `capital.target_industry`)")
    })?;
    let (text, file) = read(path)?;
    if let Some(n) = steps {
        if n > file.step.len() {
            return Err(format!("{} has {} steps, not {n}", path.display(), file.step.len()));
        }
    }
    let ran = run(path, &text, &file, registry, shared, steps)?;
    if let Some(f) = ran.failures.first() {
        return Err(format!("the scenario failed before the explanation: {f}"));
    }
    let world = ran.game.world();
    let id = paths::resolve(world, &ran.names, reference)?;
    let key = Sym::new(prop);
    let value = world.get_number(id, key).map_or_else(|| "absent".to_owned(), decimal);
    let after = match steps {
        Some(n) => format!("after step {n}"),
        None => "at the end".to_owned(),
    };
    let mut out = format!("{what} = {value} ({after} of {})\n", path.display());
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
