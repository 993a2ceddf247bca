//! Refs and content-defined kinds: expanding `{ ref = "x", arg = ... }` and
//! `{ type = "ns:action/x", ... }` (an `[action.X]`, `[condition.X]` or `[selector.X]` a mod
//! defines in content) into their bodies, with arguments and defaults substituted.

use serde_json::{Map, Value as Json};

use crate::id::{closest, Id};
use crate::rules::params::PathSeg;
use crate::rules::ContentError;

use super::kinds::with;
use super::*;

impl Compiler<'_> {
    /// Expands `{ ref = "name", arg = ... }` into its body with arguments substituted.
    pub(crate) fn expand_ref(
        &mut self,
        m: &Map<String, Json>,
        want: &str,
        path: &[PathSeg],
    ) -> Result<(Id, Json), ContentError> {
        let name = m.get("ref").and_then(Json::as_str).ok_or_else(|| {
            ContentError::new(
                "E-CONTENT-TYPE",
                with(path, "ref"),
                "`ref` must be the name of a `[ref.NAME]`",
            )
        })?;
        let full = if name.contains(':') || name.contains('/') {
            name.to_owned()
        } else {
            format!("ref/{name}")
        };
        let id = Id::resolve(&full, Some(&self.ns))
            .map_err(|e| ContentError::new("E-CONTENT-ID", with(path, "ref"), e.to_string()))?;
        let Some((spec, _)) = self.defs.refs.get(&id) else {
            let names: Vec<&str> = self.defs.refs.keys().map(|i| i.as_str()).collect();
            let mut e = ContentError::new(
                "E-CONTENT-UNKNOWN-ID",
                with(path, "ref"),
                format!("unknown ref `{id}`"),
            );
            if let Some(b) = closest(id.as_str(), names).first() {
                e = e.help(format!("did you mean `{b}`?"));
            }
            return Err(e);
        };
        if let Some(pos) = self.stack.iter().position(|s| *s == id) {
            let mut cycle: Vec<&str> = self.stack[pos..].iter().map(|i| i.as_str()).collect();
            cycle.push(id.as_str());
            return Err(ContentError::new(
                "E-CONTENT-CYCLE",
                path.to_vec(),
                format!("refs use each other in a cycle: {}", cycle.join(" -> ")),
            )
            .help("a ref may not (even indirectly) use itself"));
        }
        self.check_chain(id, path, "refs")?;
        let body = match want {
            "action" => spec.action.as_ref(),
            "condition" => spec.condition.as_ref(),
            _ => spec.selector.as_ref(),
        }
        .ok_or_else(|| {
            ContentError::new(
                "E-CONTENT-TYPE",
                with(path, "ref"),
                format!("ref `{id}` has no `{want}` body, but it is used as a {want}"),
            )
        })?;
        let generic: &[&str] = if want == "action" {
            &["ref", "to"]
        } else {
            &["ref"]
        };
        for k in m.keys().filter(|k| !generic.contains(&k.as_str())) {
            if !spec.params.iter().any(|p| p == k) {
                return Err(ContentError::new(
                    "E-CONTENT-UNKNOWN-PARAM",
                    with(path, k),
                    format!("ref `{id}` has no parameter `{k}`"),
                )
                .help(format!("its parameters are: {}", spec.params.join(", "))));
            }
        }
        let mut args = m.clone();
        for p in &spec.params {
            if !m.contains_key(p) {
                let Some(v) = spec.defaults.get(p) else {
                    return Err(ContentError::new(
                        "E-CONTENT-MISSING-PARAM",
                        path.to_vec(),
                        format!("`{id}` needs the argument `{p}`"),
                    ));
                };
                args.insert(p.clone(), v.clone());
            }
        }
        Ok((id, substitute(body, &args)))
    }

    /// If `m` names a content-defined kind (`[action.X]`, `[condition.X]`,
    /// `[selector.X]`) in its `type`, the same table written as a ref use.
    pub(crate) fn content_kind(
        &self,
        kind: &str,
        m: &Map<String, Json>,
    ) -> Option<Map<String, Json>> {
        let t = m.get("type")?.as_str()?;
        let candidates = self.kind_candidates(kind, t);
        let table_has = |id: Id| match kind {
            "action" => self.registry.actions.get(id).is_some(),
            "condition" => self.registry.conditions.get(id).is_some(),
            _ => self.registry.selectors.get(id).is_some(),
        };
        for c in &candidates {
            let Ok(id) = Id::parse(c) else { continue };
            if id.category() != kind {
                return None;
            }
            if self.defs.refs.contains_key(&id) {
                let mut out: Map<String, Json> = m
                    .iter()
                    .filter(|(k, _)| *k != "type")
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                out.insert("ref".into(), Json::String(id.as_str().to_owned()));
                return Some(out);
            }
            if table_has(id) {
                return None;
            }
        }
        None
    }

    pub(crate) fn with_ref<T>(
        &mut self,
        id: Id,
        f: impl FnOnce(&mut Self) -> Result<T, ContentError>,
    ) -> Result<T, ContentError> {
        self.stack.push(id);
        let ns = std::mem::replace(&mut self.ns, id.namespace().to_owned());
        let r = f(self);
        self.ns = ns;
        self.stack.pop();
        r
    }
}

/// Replaces `$name` in a ref body with the arguments: a whole-string `"$name"` becomes
/// the argument value; `$name` inside text is replaced by the argument's text.
fn substitute(body: &Json, args: &Map<String, Json>) -> Json {
    match body {
        // Most strings name no argument: copied as they are.
        Json::String(s) if !s.contains('$') => Json::String(s.clone()),
        Json::String(s) => {
            if let Some(name) = s.strip_prefix('$') {
                if let Some(v) = args.get(name) {
                    return v.clone();
                }
            }
            let mut out = s.clone();
            for (k, v) in args {
                let name = format!("${k}");
                if !out.contains(&name) {
                    continue;
                }
                let text = match v {
                    Json::String(t) => t.clone(),
                    other => other.to_string(),
                };
                out = out.replace(&name, &format!("({text})"));
            }
            Json::String(out)
        }
        Json::Array(a) => Json::Array(a.iter().map(|x| substitute(x, args)).collect()),
        Json::Object(m) => Json::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), substitute(v, args)))
                .collect(),
        ),
        other => other.clone(),
    }
}
