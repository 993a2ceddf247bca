//! Effects on every matching permanent, without a target: `DestroyAll | ValidCards$
//! <valid>` (Wrath of God) and `DamageAll | NumDmg$ N | ValidCards$ <valid>` (Pyroclasm:
//! N damage to each, dealt by the spell; `NumDmg$ X` counted as it resolves, and with
//! `ValidPlayers$ Each` each player too: Earthquake, Pestilence); and, at a target player,
//! `ChangeZoneAll |
//! Origin$ Graveyard | Destination$ Exile | ChangeType$ Card` (Jund Charm: exile all cards
//! from target player's graveyard).

use forge_script::{Ability, Face};
use serde_json::{json, Value};

/// The parameters these effects read (`ValidDescription$` is only text).
pub const KEYS: &[&str] = &["ValidCards", "NumDmg", "ValidDescription", "ValidPlayers"];

/// The actions of the `api` (`DestroyAll` or `DamageAll`) effect `a`; `Err` names what the
/// rules lack.
pub fn actions(face: &Face, api: &str, a: &Ability) -> Result<Vec<Value>, String> {
    let which = crate::valid::condition(
        a.params.get("ValidCards").unwrap_or("Card"),
        &format!("{api} ValidCards$"),
    )?;
    let all = json!({ "type": "objects", "zone": "battlefield", "where": which });
    match api {
        "DestroyAll"
            if a.params.get("NumDmg").is_none() && a.params.get("ValidPlayers").is_none() =>
        {
            Ok(vec![json!({ "type": "destroy", "to": all })])
        }
        "DamageAll" => match crate::effect::amount(face, a.params.get("NumDmg")) {
            // `ValidPlayers$ Each`: and to each player (Pestilence, Earthquake).
            Some(n) => {
                let mut out =
                    vec![json!({ "type": "damage", "amount": n, "source": "self", "to": all })];
                match a.params.get("ValidPlayers") {
                    None => {}
                    Some("Each" | "Player") => out.push(
                        json!({ "type": "damage", "amount": n, "source": "self", "to": { "type": "players" } }),
                    ),
                    Some(v) => return Err(format!("DamageAll ValidPlayers$ {v}")),
                }
                Ok(out)
            }
            None => Err(format!(
                "DamageAll NumDmg$ {}",
                a.params.get("NumDmg").unwrap_or("")
            )),
        },
        _ => Err(format!("{api} with NumDmg$")),
    }
}

/// `ChangeZoneAll | Origin$ Graveyard | Destination$ Exile | ChangeType$ Card` at the
/// spell's target player (`self.chosen`): every card of their graveyard is exiled.
pub fn player_graveyard(a: &Ability) -> Result<Vec<Value>, String> {
    let p = |k: &str| a.params.get(k);
    if p("Origin") != Some("Graveyard")
        || p("Destination") != Some("Exile")
        || !matches!(p("ChangeType"), None | Some("Card"))
    {
        return Err(format!(
            "A:SP$ ChangeZoneAll at a player from {} to {}",
            p("Origin").unwrap_or("?"),
            p("Destination").unwrap_or("?")
        ));
    }
    Ok(vec![
        json!({ "type": "move", "zone": "exile", "to": { "type": "objects", "zone": "graveyard", "where": { "type": "owned_by", "by": "self.chosen" } } }),
    ])
}
