//! Which of the mtg rules' activated-ability slots an ability of a permanent takes, and
//! the names it uses there. The first ability (other than mana abilities) uses the rules'
//! own names (`paid_ability`, `ability_cost_w`, `mtg:event/activated_paid`,
//! `<card>_ab`); the second to fourth use slot N's (`ability_N`, `ability_N_cost_w`,
//! `mtg:event/activated_N`, `<card>_ab_N`: `mods/mtg/content/abilities.toml`).

/// The most activated abilities a card may have besides mana abilities.
pub const MAX: usize = 4;

/// One slot (1 to [`MAX`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot(usize);

impl Slot {
    /// The slot after the `taken` abilities a card already has, if there is one.
    pub fn after(taken: usize) -> Option<Slot> {
        (taken < MAX).then_some(Slot(taken + 1))
    }

    /// Whether this is the first slot (the rules' own names).
    pub fn is_first(self) -> bool {
        self.0 == 1
    }

    /// The class of the ability object this slot's ability puts on the stack.
    pub fn class(self, card: &str) -> String {
        match self.0 {
            1 => format!("{card}_ab"),
            n => format!("{card}_ab_{n}"),
        }
    }

    /// The event raised at the card when the ability is activated: the first slot's
    /// depends on whether `paid` (anything beyond `{T}`).
    pub fn event(self, paid: bool) -> String {
        match (self.0, paid) {
            (1, false) => "mtg:event/activated".into(),
            (1, true) => "mtg:event/activated_paid".into(),
            (n, _) => format!("mtg:event/activated_{n}"),
        }
    }

    /// The card's tag saying it has the ability: the first slot's depends on `paid`.
    pub fn marker(self, paid: bool) -> String {
        match (self.0, paid) {
            (1, false) => "tap_ability".into(),
            (1, true) => "paid_ability".into(),
            (n, _) => format!("ability_{n}"),
        }
    }

    /// A first-slot tag (`ability_taps`, `sacrifices_creature`, `once_each_turn`,
    /// `sorcery_speed_ability`, `ability_forbidden`) or property (`ability_cost_w`,
    /// `ability_mana_value`, `ability_life`) as this slot names it.
    pub fn name(self, first: &str) -> String {
        let n = self.0;
        if n == 1 {
            return first.to_owned();
        }
        match first {
            "ability_taps" => format!("ability_{n}_taps"),
            "once_each_turn" => format!("ability_{n}_once"),
            "sorcery_speed_ability" => format!("ability_{n}_sorcery"),
            "ability_forbidden" => format!("ability_{n}_forbidden"),
            "ability_mana_value" => format!("ability_{n}_mana_value"),
            "ability_life" => format!("ability_{n}_life"),
            other => match (
                other.strip_prefix("sacrifices_"),
                other.strip_prefix("ability_cost_"),
            ) {
                (Some(kind), _) => format!("ability_{n}_sacrifices_{kind}"),
                (_, Some(part)) => format!("ability_{n}_cost_{part}"),
                _ => format!("ability_{n}_{other}"),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_slot_keeps_the_rules_names() {
        let s = Slot::after(0).unwrap();
        assert_eq!(s.class("atog"), "atog_ab");
        assert_eq!(s.event(true), "mtg:event/activated_paid");
        assert_eq!(s.marker(false), "tap_ability");
        assert_eq!(s.name("ability_cost_w"), "ability_cost_w");
    }

    #[test]
    fn later_slots_are_numbered() {
        let s = Slot::after(1).unwrap();
        assert_eq!(s.class("ana_disciple"), "ana_disciple_ab_2");
        assert_eq!(s.event(false), "mtg:event/activated_2");
        assert_eq!(s.marker(true), "ability_2");
        assert_eq!(s.name("ability_cost_u"), "ability_2_cost_u");
        assert_eq!(s.name("sacrifices_land"), "ability_2_sacrifices_land");
        assert_eq!(s.name("once_each_turn"), "ability_2_once");
        assert!(Slot::after(MAX).is_none());
    }
}
