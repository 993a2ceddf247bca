//! Instants and sorceries: the card's hand ability (`playable="this" zone="hand"`) whose
//! cost is `<pay-mana value="manacost"/>` and one target (`target-creature`,
//! `target-dealtable`, `target-player`, `target-spell`) or none (`untargeted`: the mtg
//! rules' `cast_untargeted`), and whose effects act on that target or on what the effects
//! themselves select (`all-creatures`, `<target type="you"/>`) ([`crate::effects::effect`]) and end with `finish-spell`. It becomes a trigger on
//! the mtg rules' `resolve` event: the target chosen on cast is re-checked (gone: the spell
//! fizzles), the effects run, and the card goes to its owner's graveyard.

use firemox_xml::{Card as Xml, Element, Fragments};
use serde_json::{json, Value};

use crate::card::{plain_list, Parts};
use crate::effects::groups;

/// Translates an instant's or sorcery's hand ability into `out`.
pub fn translate(card: &Xml, a: &Element, f: &Fragments, out: &mut Parts) {
    let _ = card;
    let before = out.missing.len();
    for c in &a.children {
        if !matches!(c.name.as_str(), "cost" | "effects") {
            out.missing.push(format!("spell with <{}>", c.name));
        }
    }
    let no = Element::default();
    let cost = a.child("cost").unwrap_or(&no);
    let effects = a.child("effects").unwrap_or(&no);
    let mut tags = Vec::new();
    let mut raw = None;
    let mut every = None;
    let mut paid = false;
    for g in groups(&cost.children) {
        match (g.reference, g.elems) {
            (None, [p])
                if p.name == "pay-mana"
                    && p.attr("value") == Some("manacost")
                    && p.children.is_empty()
                    && !paid =>
            {
                paid = true
            }
            // "Each creature [passing a test]" chosen in the cost (Squall: `all-creatures`
            // with a test): what the effects act on, untargeted.
            (Some(_), [t])
                if every.is_none() && t.name == "target" && t.attr("mode") == Some("all") =>
            {
                let cx = crate::effects::Cx::new(
                    &crate::card::slug(&card.name),
                    json!(null),
                    None,
                    &[],
                    false,
                );
                match crate::retarget::retarget(f, t, &cx) {
                    Some(Ok(sel)) => every = Some(sel),
                    Some(Err(m)) => out.missing.push(m),
                    None => out.missing.push(crate::effects::describe(&g)),
                }
            }
            (None, [t]) if tags.is_empty() && crate::graveyard::is_target(t) => {
                match crate::graveyard::spell_tags(t) {
                    Ok(t) => tags = t,
                    Err(m) => out.missing.push(m),
                }
            }
            _ if tags.is_empty() && g.reference.is_some_and(|r| r.starts_with("target-")) => {
                let read = crate::effects::filtered_target(f, &g);
                raw = read.clone().ok();
                match read {
                    Ok((t, None)) => tags = t,
                    Ok((t, Some(filter))) => match permanent_filter(&t, &filter) {
                        Some(t) => tags = t,
                        None => out.missing.push(format!(
                            "{} with a test the mtg rules' tgt_* cannot say",
                            g.reference.unwrap_or("target")
                        )),
                    },
                    Err(m) => out.missing.push(m),
                }
            }
            _ => out.missing.push(crate::effects::describe(&g)),
        }
    }
    if !paid {
        out.missing
            .push("spell cost without pay-mana manacost".into());
    }
    let targeted = !tags.is_empty();
    if !targeted {
        tags.push("untargeted".into());
    }
    let to = match every {
        Some(sel) if !targeted => sel,
        Some(_) => {
            out.missing
                .push("a target and every creature in the cost".into());
            crate::effects::chosen_ref(&tags)
        }
        None => crate::effects::chosen_ref(&tags),
    };
    let mut actions = Vec::new();
    let list = groups(&effects.children);
    let finished = list.last().is_some_and(|g| {
        g.reference == Some("finish-spell") && plain_list(f, "action", "finish-spell", g.elems)
    });
    if !finished {
        out.missing
            .push("spell effects not ending with finish-spell".into());
    }
    let body = effects.children.len()
        - list
            .last()
            .map_or(0, |g| if finished { g.elems.len() } else { 0 });
    let cx = crate::effects::Cx::new(&crate::card::slug(&card.name), to, None, &[], false);
    let read = crate::effects::actions(f, &effects.children[..body], &cx);
    cx.counted_into(&mut out.refs);
    match read {
        Ok(v) => actions = v,
        Err(m) => out
            .missing
            .extend(m.into_iter().map(|m| format!("spell effect {m}"))),
    }
    if let Some(k) = crate::kicker::of(card) {
        match crate::kicker::spell(f, k, raw.as_ref(), &cx) {
            Ok((props, kicked)) => {
                out.tags.extend(["kicker".into(), "cost_choice".into()]);
                out.props.extend(props);
                cx.counted_into(&mut out.refs);
                let when =
                    json!({ "type": "compare", "left": "self.kicked", "op": "==", "right": 1 });
                actions = vec![
                    json!({ "type": "if", "condition": when, "then": kicked, "else": actions }),
                ];
            }
            Err(m) => out.missing.push(format!("kicker {m}")),
        }
    }
    if actions.is_empty() && out.missing.len() == before {
        out.missing.push("spell without effects".into());
    }
    if out.missing.len() > before {
        return;
    }
    let check = crate::effects::chosen_ref(&tags);
    let (tags, props) = crate::effects::target_props(&tags);
    out.tags.extend(tags);
    out.props.extend(props);
    out.triggers
        .push(resolve_trigger(actions, targeted.then_some(check)));
}

/// The trigger that resolves a spell: a targeted one (`target`: its chosen target,
/// re-checked) with its target gone fizzles, else it
/// acts; then the card goes to its owner's graveyard.
fn resolve_trigger(effect: Vec<Value>, target: Option<Value>) -> Value {
    let act = if let Some(target) = target {
        json!({ "type": "if",
            "condition": { "type": "compare", "left": { "count": target }, "op": "==", "right": 0 },
            "then": [{ "type": "emit", "event": "mtg:event/fizzled", "to": "self" }],
            "else": effect })
    } else {
        json!({ "type": "if", "condition": { "all": [] }, "then": effect })
    };
    json!({
        "when": { "event": "mtg:event/resolve", "target": { "type": "is_self" } },
        "zones": ["stack"],
        "do": [act, { "type": "move", "zone": "graveyard", "to": "self" }],
    })
}

/// A creature or permanent target with a filter (the card's MACRO test) as the mtg rules'
/// targets over permanents: `targets_permanent` and `tgt_*` flags — the type it names
/// (`tgt_creature` for `target-creature`), colours and types it excludes (`<not>
/// <has-color color="black"/>`: `tgt_not_black`), whose (`controller`: `tgt_yours`,
/// `tgt_opponents`). `None` when the filter says anything else.
fn permanent_filter(tags: &[String], filter: &Value) -> Option<Vec<String>> {
    let mut out: Vec<String> = match tags {
        [t] if t == "targets_creature" => vec!["targets_permanent".into(), "tgt_creature".into()],
        [p, k] if p == "targets_permanent" => vec![p.clone(), k.clone()],
        _ => return None,
    };
    const EXCLUDABLE: &[&str] = &[
        "white", "blue", "black", "red", "green", "artifact", "creature", "land", "basic",
    ];
    let creature = out.iter().any(|t| t == "tgt_creature");
    let artifact_creature = json!({ "all": [{ "type": "has_tag", "tag": "artifact" }, { "type": "has_tag", "tag": "creature" }] });
    let mut conds = Vec::new();
    flatten_all(filter, &mut conds)?;
    for c in conds {
        // A creature that is not an artifact creature is a nonartifact creature (Terror).
        if creature && c.get("not") == Some(&artifact_creature) {
            out.push("tgt_not_artifact".into());
            continue;
        }
        let flag = match (c.get("not"), c.get("type").and_then(Value::as_str)) {
            (Some(n), None) if n.get("type").and_then(Value::as_str) == Some("has_tag") => {
                let tag = n.get("tag").and_then(Value::as_str)?;
                EXCLUDABLE
                    .contains(&tag)
                    .then(|| format!("tgt_not_{tag}"))?
            }
            (None, Some("owned_by")) => match c.get("owner").and_then(Value::as_str)? {
                "friendly" => "tgt_yours".to_owned(),
                "enemy" => "tgt_opponents".to_owned(),
                _ => return None,
            },
            _ => return None,
        };
        out.push(flag);
    }
    Some(out)
}

/// The conditions of nested `all` lists, in order; `None` for anything else at the top.
fn flatten_all<'a>(c: &'a Value, out: &mut Vec<&'a Value>) -> Option<()> {
    for x in c.get("all")?.as_array()? {
        if x.get("all").is_some() {
            flatten_all(x, out)?;
        } else {
            out.push(x);
        }
    }
    Some(())
}
