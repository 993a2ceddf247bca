//! How a permanent enters the battlefield besides counters ([`crate::counters`]):
//! `K:ETBReplacement:Other:<svar>` whose ability taps the card unless its controller pays
//! life (`AB$ Tap | ETB$ True | Defined$ Self | UnlessCost$ PayLife<N> | UnlessPayer$
//! You`: Hallowed Fountain and the other shock lands). The card is tagged
//! `enters_tapped_unless_life` with `etb_life` = N; the mtg rules ask its owner as it
//! enters (`unless.toml`). Any other `ETBReplacement` is reported missing. And "if this
//! card is in your opening hand, you may begin the game with it on the battlefield"
//! (`K:MayEffectFromOpeningHand:<svar>`: the Leylines), the tag `begins_on_battlefield`.

use forge_script::{Face, Keyword};

/// The parameters of an "enters tapped unless you pay N life" ability.
const UNLESS_LIFE_KEYS: &[&str] = &[
    "AB",
    "Cost",
    "ETB",
    "Defined",
    "UnlessCost",
    "UnlessPayer",
    "UnlessAI",
    "StackDescription",
    "SpellDescription",
];

/// `K:ETBReplacement:Other:<svar>` → the tag and the property the rules read; `Err`
/// names the construct the card lacks.
pub fn etb_replacement(face: &Face, k: &Keyword) -> Result<(String, (String, i64)), String> {
    let lacks = || format!("K:ETBReplacement:{}", k.params.join(":"));
    let [kind, svar] = k.params.as_slice() else {
        return Err(lacks());
    };
    let ability = face
        .svar(svar)
        .and_then(|s| s.ability.as_ref())
        .filter(|_| kind == "Other")
        .ok_or_else(lacks)?;
    let p = |key: &str| ability.params.get(key);
    let life = p("UnlessCost")
        .and_then(|c| c.strip_prefix("PayLife<"))
        .and_then(|c| c.strip_suffix('>'))
        .and_then(|n| n.parse::<i64>().ok());
    let fits = ability.api.as_deref() == Some("Tap")
        && p("ETB") == Some("True")
        && p("Defined") == Some("Self")
        && matches!(p("Cost"), None | Some("0"))
        && matches!(p("UnlessPayer"), None | Some("You"))
        && ability
            .params
            .0
            .iter()
            .all(|(key, _)| UNLESS_LIFE_KEYS.contains(&key.as_str()));
    match life {
        Some(n) if fits && n > 0 => {
            Ok(("enters_tapped_unless_life".into(), ("etb_life".into(), n)))
        }
        _ => Err(lacks()),
    }
}

/// `K:MayEffectFromOpeningHand:<svar>` with `<svar>` = `AB$ ChangeZone | Defined$ Self |
/// Origin$ Hand | Destination$ Battlefield` → the tag `begins_on_battlefield` (the mtg
/// rules put such cards of an opening hand onto the battlefield, `rules.toml`); `Err`
/// names the construct the card lacks.
pub fn from_opening_hand(face: &Face, k: &Keyword) -> Result<String, String> {
    let lacks = || format!("K:MayEffectFromOpeningHand:{}", k.params.join(":"));
    let [svar] = k.params.as_slice() else {
        return Err(lacks());
    };
    let a = face
        .svar(svar)
        .and_then(|s| s.ability.as_ref())
        .ok_or_else(lacks)?;
    let p = |key: &str| a.params.get(key);
    let fits = a.api.as_deref() == Some("ChangeZone")
        && p("Defined") == Some("Self")
        && p("Origin") == Some("Hand")
        && p("Destination") == Some("Battlefield")
        && matches!(p("Cost"), None | Some("0"))
        && a.params.0.iter().all(|(key, _)| {
            [
                "AB",
                "Cost",
                "Defined",
                "Origin",
                "Destination",
                "SpellDescription",
            ]
            .contains(&key.as_str())
        });
    if fits {
        Ok("begins_on_battlefield".into())
    } else {
        Err(lacks())
    }
}
