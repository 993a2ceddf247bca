//! `forge`: a content loader for Forge's card scripts (`cardsfolder/**/*.txt`, read with
//! the `forge-script` crate). Every script becomes one class of the `mtg` mod, named after
//! the card (`Serra Angel` → `mtg:class/serra_angel`):
//!
//! | Forge | Tessera |
//! |---|---|
//! | `Name` | property `title` |
//! | `ManaCost:3 W W` | `cost_generic = 3`, `cost_w = 2`, `mana_value = 5`; colour tags (`white`) ([`characteristics`]) |
//! | `Types:Legendary Creature Angel` | tags `legendary`, `creature`, `permanent`, `angel` (the rules' legend rule reads `legendary`) |
//! | `PT:4/4` | `power = 4`, `max_health = 4` (toughness) |
//! | `K:Flying`, `K:First Strike`, `K:Protection from black`, ... | tags `flying`, `first_strike`, `protection_from_black`, ... |
//! | `K:Prowess`, `K:Exalted` | triggers putting an ability on the stack ([`triggered_keywords`]) |
//! | `K:etbCounter:P1P1:N` | a replacement putting counters as it enters ([`counters`]) |
//! | `K:ETBReplacement:Other:X`, `X` = `AB$ Tap \| ETB$ True \| UnlessCost$ PayLife<N>` | tag `enters_tapped_unless_life`, `etb_life = N` ([`entering`]) |
//! | basic land types, `A:AB$ Mana \| Cost$ T \| Produced$ G \| Amount$ N` | tags `makes_g`, ..., `mana_amount` |
//! | `A:SP$ DealDamage` / `Pump` / `Counter` / `ChangeZone` / `Destroy` / `Discard` with `ValidTgts$` (+ `SubAbility$`) | a trigger on `resolve` ([`spell`]; targets over permanents: [`target`]) |
//! | `A:SP$ Charm \| Choices$ A,B,C` (choose one; one mode per kind of target) | each mode a spell of its own, told apart by the cast move (`cast_as`) ([`charm`]) |
//! | `A:SP$ DestroyAll` / `ChangeZoneAll` / `Token` / `GainLife` / `Draw` / `PumpAll` (no target) | a trigger on `resolve`, tag `untargeted` ([`effect`]) |
//! | `A:AB$ <api> \| Cost$ T / mana / PayLife / Sac / Discard / ExileFromGrave / Return / tapXType` (one a card; `ActivationLimit$ 1`, `ActivationCardsInHand$ N`) | an ability put on the stack ([`activated`]) |
//! | `Types:Planeswalker`, `Loyalty:N`, `A:AB$ <api> \| Cost$ AddCounter<N/LOYALTY> / SubCounter<N/LOYALTY> \| Planeswalker$ True` | tags `planeswalker`, `loyalty_ability_<slot>`, `loyalty`, `loyalty_cost_<slot>`: the rules' loyalty abilities ([`loyalty`]) |
//! | `A:AB$ Mana \| Amount$ X` with `X` a count (`Count$Valid Creature.YouCtrl`) | `mana_amount` kept by the card's aura (Gaea's Cradle) |
//! | `K:Enchant creature`, `A:SP$ Attach \| ValidTgts$ ...`, `S:... Affected$ Creature.EnchantedBy` | an Aura of the mtg rules (`tgt_*`, class auras over `enchanted`) |
//! | `K:Split second`; `R:Event$ Counter \| Layer$ CantHappen` | tags `split_second`, `uncounterable` |
//! | `SP$ AddTurn`, `SP$ Fog` | `extra_turns`; `prevents_combat_damage` ([`effect`]) |
//! | `T:Mode$ ChangesZone` (enters / leaves the battlefield), `Attacks`, `Phase` (upkeep, draw), `SpellCast`, `DamageDone` | an ability put on the stack ([`trigger`]) |
//! | `S:Mode$ Continuous` (with `CheckSVar$` over counts the rules have) | a class aura in the rules' layers ([`statics`]) |
//! | `R:Event$ Moved` / `AddCounter` / `DamageDone` | class replacements ([`replacement`], [`counters`]) |
//! | `Count$TypeYouCtrl.<type>` | a ref the card defines (`<card>_count_<type>`) counting it |
//! | `K:Kicker <mana>`, `K:Flashback <mana>`, `K:Evoke:<mana>`, `SVar:AltCost:Cost$ ...`, `S:Mode$ AlternativeCost \| Cost$ ...` (mana, `PayLife`, `ExileFromHand` / `Discard` / `Return<N/valid>`) | ways to pay the rules' `costs.toml` offers as the spell is cast (`kicker_cost_*`, `flashback_cost_*`, `alt_cost_*`, `alt_life`, `alt_available`; tag `cost_choice`) ([`costs`]) |
//! | `X` in `ManaCost` or an ability's `Cost$`, `Count$xPaid`, `Count$Kicked.A.B` | tags `x_cost` / `ability_x`; amounts `self.x_paid`, `B + (A-B) * self.kicked` |
//! | hybrid symbols of one colour pair (`GW`) | `cost_h_wg`, `cost_hybrid` ([`characteristics`]) |
//! | `T:Mode$ ChangesZone \| ValidCard$ Card.Self+kicked / +evoked` | an intervening "if" on `kicked` / `alt_paid`; with `Static$ True`, counters and keywords put at once ([`enters_with`]) |
//! | `K:Persist` | a replacement marking it as it dies without -1/-1 counters, and an ability returning it ([`persist`]) |
//! | `Cost$ SubCounter<X/LOYALTY>` with `SVar:X:XChoice`; `cmcLEChosenX`, `nonColorless` | `loyalty_x_slot` (the rules ask X); `target.mana_value <= self.x_paid`, any colour tag ([`loyalty`], [`valid`]) |
//! | `A:SP$ Mana`, `K:CARDNAME can't be countered.`, `DB$ DealDamage \| NoPrevention$ True \| Condition$ Kicked` | mana on resolution; tag `uncounterable`; damage from an `unpreventable` source |
//!
//! A card using anything else (an unsupported keyword, ability, trigger, static,
//! replacement, mana symbol or card type) is still a class — tagged `untranslated`, with
//! the constructs it lacks in its `missing` property — but not `deck_card`, so decks leave
//! it out. The loader reports each such construct at its line (`report_unsupported`:
//! `W-CONTENT-LOADER` warnings, which `tessera check --format json` counts in a
//! histogram; [`card::translate`] says why for each).

pub mod activated;
pub mod asks;
pub mod card;
pub mod characteristics;
pub mod charm;
pub mod costs;
pub mod counters;
pub mod effect;
pub mod entering;
pub mod enters_with;
pub mod library;
pub mod locate;
pub mod loyalty;
pub mod mana;
pub mod mass;
pub mod moment;
pub mod persist;
pub mod players;
pub mod replacement;
pub mod spell;
pub mod statics;
pub mod target;
pub mod trigger;
pub mod triggered_keywords;
pub mod valid;

use serde_json::Value;
use tessera_plugin_api::prelude::*;

/// One Forge card script → one `[class.*]`.
#[loader("mtg:loader/cards", extensions = ["forgecard"])]
fn cards(text: &str) -> Result<Value, LoadError> {
    let card = card::translate(text).map_err(|e| LoadError::at(e.offset, e.message))?;
    report_span(format!("class.{}", card.class), 0..text.len());
    for m in &card.missing {
        report_unsupported(
            m.clone(),
            format!("`{m}` is not supported yet: `{}` loads tagged `untranslated` and decks leave it out", card.class),
            Some(locate::offset_of(text, m)),
        );
    }
    Ok(card.tree)
}

export_plugin!(provides = [cards]);
