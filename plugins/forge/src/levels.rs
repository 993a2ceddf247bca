//! Level up (702.87): `K:Level up:W` is "{W}: put a level counter on this card; level up
//! only as a sorcery" — translated as the activated ability `AB$ PutCounter | Cost$ W |
//! CounterType$ LEVEL | CounterNum$ 1 | SorcerySpeed$ True` (the rules' `level`
//! counters, `sorcery_speed_ability`). The level bands (`LEVEL 2-6`) are the script's
//! statics with `CheckSVar$` over `Count$Valid Card.Self+counters_GE2_LEVEL+...`.

use forge_script::Face;

/// `face` with its level up keyword as an activated ability, when it has one.
pub fn with_level_up(face: &Face) -> Option<Face> {
    let k = face
        .keywords
        .iter()
        .find(|k| k.name == "Level up" && k.params.len() == 1)?;
    let line = format!(
        "Name:x\nA:AB$ PutCounter | Cost$ {} | CounterType$ LEVEL | CounterNum$ 1 | SorcerySpeed$ True | SpellDescription$ Level up\n",
        k.params[0]
    );
    let ability = forge_script::parse(&line)
        .faces
        .first()?
        .abilities
        .first()?
        .clone();
    let mut out = face.clone();
    out.abilities.push(ability);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_up_is_an_activated_ability() {
        let face =
            forge_script::parse("Name:S\nManaCost:W\nTypes:Creature Human\nPT:1/1\nK:Level up:W\n")
                .faces[0]
                .clone();
        let f = with_level_up(&face).unwrap();
        let a = f.abilities.last().unwrap();
        assert_eq!(a.params.get("Cost"), Some("W"));
        assert_eq!(a.params.get("CounterType"), Some("LEVEL"));
    }
}
