//! Names and paths: how a scenario refers to objects.
//!
//! A reference is a name (`alice`, from `[[object]]`, `name_created` or a match's players
//! `p1`, `p2`), or a path through an owner's zone for objects nobody named — cards drawn
//! and minions summoned during a match:
//!
//! - `p1.board.0` — the object in slot 0 of `p1`'s `board` (slot order, 0 = first);
//! - `p1.weapon` — the only object `p1` has in `weapon`.
//!
//! An expectation key is a reference and a property: `alice.health`,
//! `p1.board.0.attack`, `p1.weapon.durability`, or a zone count: `p2.hand.count`.
//! Properties may hold dots (`mage.cooldown.original:fire/fireball`): `NAME.A.B` reads
//! the only object NAME has in zone `A` only when it has objects there.
//! Paths are resolved against the world when they are used, so a scripted answer may
//! name a minion summoned earlier in the same step.

use std::collections::BTreeMap;

use crate::id::Sym;
use crate::state::{ObjId, World};

/// What a scenario's names map to.
pub(super) type Names = BTreeMap<String, ObjId>;

/// How the grammar is described in error messages.
const FORMS: &str = "write NAME, NAME.ZONE.SLOT (e.g. `p1.board.0`) or NAME.ZONE (the zone's only object, e.g. `p1.weapon`)";

/// What an expectation key reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Key<'a> {
    /// A property (or `zone`, `class`, `tags`, ...) of the object a reference names.
    Property {
        /// The reference (`alice`, `p1.board.0`).
        reference: &'a str,
        /// The property (`attack`; it may hold dots: `cooldown.original:fire/fireball`).
        property: &'a str,
    },
    /// How many objects an owner has in a zone (`p1.board.count`).
    Count {
        /// The owner's name.
        owner: &'a str,
        /// The zone.
        zone: &'a str,
    },
    /// `NAME.A.B`: the property `B` of the only object NAME has in zone `A`
    /// (`p1.weapon.durability`) when NAME has objects there, else NAME's property `A.B`
    /// (properties may hold dots).
    ZoneOrProperty {
        /// The owner's name.
        owner: &'a str,
        /// The zone, if it is one.
        zone: &'a str,
        /// The property of the zone's object.
        property: &'a str,
        /// The property of the owner, if `zone` is not a zone.
        whole: &'a str,
    },
}

/// Splits an expectation key into what it reads; `Err` says how to write it.
pub(super) fn parse_key(key: &str) -> Result<Key<'_>, String> {
    let Some((owner, rest)) = key
        .split_once('.')
        .filter(|(o, r)| !o.is_empty() && !r.is_empty())
    else {
        return Err(format!(
            "expectation `{key}` must be a reference and a property: `alice.health`, `p1.board.0.attack`, `p1.weapon.durability` or `p1.hand.count`"
        ));
    };
    let Some((zone, after)) = rest.split_once('.') else {
        return Ok(Key::Property {
            reference: owner,
            property: rest,
        });
    };
    if after == "count" {
        return Ok(Key::Count { owner, zone });
    }
    let (slot, property) = after.split_once('.').unwrap_or((after, ""));
    if slot.parse::<usize>().is_ok() {
        if property.is_empty() {
            return Err(format!(
                "expectation `{key}` names an object but no property; write `{key}.attack` (or `.exists`, `.class`, `.tags`, ...)"
            ));
        }
        return Ok(Key::Property {
            reference: &key[..key.len() - property.len() - 1],
            property,
        });
    }
    Ok(Key::ZoneOrProperty {
        owner,
        zone,
        property: after,
        whole: rest,
    })
}

/// A hint for a dotted property that is not set: it may be a mistyped path.
pub(super) fn unset_hint(property: &str) -> &'static str {
    if property.contains('.') {
        " (no such property; a path to an object is NAME.ZONE.SLOT.property, e.g. `p1.board.0.attack`, or NAME.ZONE.property for a zone's only object)"
    } else {
        ""
    }
}

/// Checks that a reference is well formed and that its name exists, without resolving
/// its zone part (which may name objects that appear later in the step).
pub(super) fn check(names: &Names, reference: &str) -> Result<(), String> {
    let parts: Vec<&str> = reference.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) || parts.len() > 3 {
        return Err(format!("`{reference}` is not a reference: {FORMS}"));
    }
    if parts.len() == 3 && parts[2].parse::<usize>().is_err() {
        return Err(format!(
            "`{reference}`: `{}` is not a slot number; write `{}.{}.0` (slot 0 = first)",
            parts[2], parts[0], parts[1]
        ));
    }
    owner(names, parts[0]).map(|_| ())
}

fn owner(names: &Names, name: &str) -> Result<ObjId, String> {
    names.get(name).copied().ok_or_else(|| {
        let known: Vec<&str> = names.keys().map(String::as_str).collect();
        let close = crate::id::closest(name, known.iter().copied());
        let hint = match close.first() {
            Some(c) => format!("did you mean `{c}`?"),
            None if known.is_empty() => "no object has a name yet".to_owned(),
            None => format!("names are: {}", known.join(", ")),
        };
        format!("`{name}` is not a named object ({hint})")
    })
}

/// The objects an owner has in a zone, in slot order.
pub(super) fn zone_of(world: &World, owner: ObjId, zone: Sym) -> Vec<ObjId> {
    let mut v: Vec<(i64, ObjId)> = world
        .objects_in_zone(zone)
        .filter(|o| world.object(*o).is_ok_and(|x| x.owner == Some(owner)))
        .map(|o| (world.slot(o), o))
        .collect();
    v.sort_unstable();
    v.into_iter().map(|(_, o)| o).collect()
}

/// Resolves a reference against the world as it is now.
pub(super) fn resolve(world: &World, names: &Names, reference: &str) -> Result<ObjId, String> {
    check(names, reference)?;
    let parts: Vec<&str> = reference.split('.').collect();
    let who = owner(names, parts[0])?;
    let Some(zone) = parts.get(1) else {
        return Ok(who);
    };
    let objects = zone_of(world, who, Sym::new(zone));
    match parts.get(2) {
        Some(slot) => {
            let i: usize = slot.parse().map_err(|_| format!("`{reference}`: {FORMS}"))?;
            objects.get(i).copied().ok_or_else(|| {
                format!(
                    "`{reference}` does not exist: {} has {} object(s) in `{zone}`",
                    parts[0],
                    objects.len()
                )
            })
        }
        None => match objects.as_slice() {
            [one] => Ok(*one),
            [] => Err(format!(
                "`{reference}` does not exist: {} has nothing in `{zone}`",
                parts[0]
            )),
            many => Err(format!(
                "`{reference}` is ambiguous: {} has {} objects in `{zone}`; write `{reference}.0` (slot 0 = first)",
                parts[0],
                many.len()
            )),
        },
    }
}

/// The name a reference would print for an object: its name if it has one, else its
/// path (`p1.board.0`) when its owner is named, else its id.
pub(super) fn name_of(world: &World, names: &Names, id: ObjId) -> String {
    if let Some((k, _)) = names.iter().find(|(_, v)| **v == id) {
        return k.clone();
    }
    let Ok(obj) = world.object(id) else {
        return id.to_string();
    };
    let Some((owner, _)) = obj.owner.and_then(|o| names.iter().find(|(_, v)| **v == o)) else {
        return id.to_string();
    };
    let zone = zone_of(world, obj.owner.unwrap_or(id), obj.zone);
    match zone.iter().position(|o| *o == id) {
        Some(i) => format!("{owner}.{}.{i}", obj.zone),
        None => id.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_split_into_references_and_properties() {
        let prop = |reference, property| Key::Property {
            reference,
            property,
        };
        assert_eq!(parse_key("alice.health").unwrap(), prop("alice", "health"));
        assert_eq!(
            parse_key("p1.board.0.attack").unwrap(),
            prop("p1.board.0", "attack")
        );
        assert_eq!(
            parse_key("p1.weapon.durability").unwrap(),
            Key::ZoneOrProperty {
                owner: "p1",
                zone: "weapon",
                property: "durability",
                whole: "weapon.durability"
            }
        );
        assert_eq!(
            parse_key("p2.hand.count").unwrap(),
            Key::Count {
                owner: "p2",
                zone: "hand"
            }
        );
        // Properties may hold dots (per-ability cooldowns, damage-over-time stacks).
        assert!(matches!(
            parse_key("mage.cooldown.original:fire/fireball").unwrap(),
            Key::ZoneOrProperty {
                whole: "cooldown.original:fire/fireball",
                ..
            }
        ));
        assert!(parse_key("p1.board.0").unwrap_err().contains("no property"));
        assert!(parse_key("p1").unwrap_err().contains("must be a reference"));
        assert!(parse_key(".x").unwrap_err().contains("must be a reference"));
    }

    #[test]
    fn references_are_checked_before_use() {
        let mut names = Names::new();
        names.insert(
            "p1".into(),
            ObjId {
                index: 0,
                generation: 0,
            },
        );
        assert!(check(&names, "p1.board.0").is_ok());
        assert!(check(&names, "p1.weapon").is_ok());
        assert!(check(&names, "p3.board.0")
            .unwrap_err()
            .contains("names are: p1"));
        assert!(check(&names, "p1.board.first")
            .unwrap_err()
            .contains("not a slot number"));
        assert!(check(&names, "p1..0")
            .unwrap_err()
            .contains("not a reference"));
    }
}
