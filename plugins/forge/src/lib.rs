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
//! | `A:AB$ <api> \| Cost$ T / mana / PayLife / Sac / Discard / ExileFromGrave / Return / tapXType` (up to four a card, [`slot`]; `ActivationLimit$ 1`, `ActivationCardsInHand$ N`) | an ability put on the stack ([`activated`]) |
//! | `Types:Planeswalker`, `Loyalty:N`, `A:AB$ <api> \| Cost$ AddCounter<N/LOYALTY> / SubCounter<N/LOYALTY> \| Planeswalker$ True` | tags `planeswalker`, `loyalty_ability_<slot>`, `loyalty`, `loyalty_cost_<slot>`: the rules' loyalty abilities ([`loyalty`]) |
//! | `A:AB$ Mana \| Amount$ X` with `X` a count (`Count$Valid Creature.YouCtrl`) | `mana_amount` kept by the card's aura (Gaea's Cradle) |
//! | `K:Enchant creature`, `A:SP$ Attach \| ValidTgts$ ...`, `S:... Affected$ Creature.EnchantedBy` | an Aura of the mtg rules (`tgt_*`, class auras over `enchanted`) |
//! | `K:Equip N`, `S:... Affected$ Creature.EquippedBy` | tag `equip`, `equip_cost_*`: the rules' equip move; class auras over `equipped` ([`equipment`]) |
//! | `A:AB$ ChangeZone \| Ninjutsu$ True \| Cost$ N U Return<1/Creature.attacking+unblocked>` | tag `ninjutsu`, `ninjutsu_cost_*`: the rules' ninjutsu move ([`ninjutsu`]) |
//! | `T:Mode$ AttackerUnblocked`; `KW$ HIDDEN CARDNAME assigns no combat damage` | the rules' `attacker_unblocked`; tag `assigns_no_combat_damage` |
//! | `K:Level up:W`; `K:Modular N` | a sorcery-speed activated ability putting `level` counters ([`levels`]); enters with counters, a dies trigger moving them ([`modular`]) |
//! | `K:Protection from Demons` / `Dragons` | tags `protection_from_demon` / `_dragon` |
//! | `A:AB$ Charm \| Cost$ SubCounter<1/CHARGE> \| Choices$ ...` | a modal ability ([`charm_ability`]) costing the card's counters (`removes_counters`) |
//! | `K:CantBeBlockedBy Creature.powerLEN`; `S:Mode$ CantPreventDamage \| IsCombat$ True` | tag `blocked_only_by_power`, `blockers_power_above`; the controller's `combat_damage_unpreventable` |
//! | `A:SP$ Charm \| CharmNum$ 2` | modes and targets chosen as it is cast, counted legal targets on resolution ([`charm_two`]) |
//! | `K:Split second`; `R:Event$ Counter \| Layer$ CantHappen` | tags `split_second`, `uncounterable` |
//! | `Dig \| DigNum$ N \| ChangeNum$ M` (`ChangeValid$`, `DestinationZone$`, `LibraryPosition2$`, `Optional$`, `Defined$ DefendingPlayer` / `TargetedController`, `DestinationZone$ Battlefield`, `RememberChanged$`: tag `remembered`, read by `Remembered$CardManaCost`, cleared by `Cleanup`) | the top N tagged `digging`; M chosen (or all that fit) moved, the rest to the bottom or left on top ([`library`]) |
//! | `Sacrifice \| Defined$ Player \| SacValid$ Creature` (no target) | the rules' `sacrifices_creature` for each player ([`players`]) |
//! | `Token \| TokenScript$ b_1_1_harpy_flying` (colours, size, types, keywords), `TokenTapped$`, `TokenAttacking$` | a token class; tokens entering attacking attack the defending player (the rules' `enters_attacking`) ([`tokens`]) |
//! | `Count$Devotion.<Colour>` | `sum(my_permanents, cost_<letter>)` |
//! | `K:MayEffectFromOpeningHand:<svar>` (`ChangeZone` of itself from hand to battlefield) | tag `begins_on_battlefield`: the rules put it onto the battlefield once the opening hand is drawn ([`entering`]) |
//! | `S:Mode$ Continuous \| Affected$ You \| AddKeyword$ Skip your draw step.` / `AdjustLandPlays:N` | an aura over the controller: tag `skips_draw_step` / `land_limit` + N ([`statics`]) |
//! | `S:Continuous \| Affected$ Creature.powerGTX \| AddHiddenKeyword$ CARDNAME can't attack.` (`X` an SVar amount) | a class aura tagging `cannot_attack`, its filter comparing with X ([`statics`], [`valid`]) |
//! | `AB$ Effect \| Duration$ Permanent \| Triggers$ T` (`ValidTgts$ Opponent \| EffectOwner$ Targeted`), `T` = `Mode$ Drawn \| TriggerZones$ Command` | an emblem: an object of class `<card>_emblem` in its owner's `command` zone, whose trigger puts an ability on the stack ([`emblem`]) |
//! | `SP$ ChangeZone \| Destination$ Library \| Shuffle$ True` | moved, then its owner's `shuffle` ([`spell`]) |
//! | `K:Chapter:N:A1,...,AN` (Sagas) | tag `saga`, `chapters` = N; the card's trigger on the rules' `lore_added` puts chapter `lore`'s ability on the stack ([`saga`]) |
//! | a subtype as a valid's base (`Knight.YouCtrl`) | the subtype's tag ([`valid`]) |
//! | `Count$Valid <valid>` (any valid, `named<Name>` included) | a ref of the card's own, `count(<card>_valid_<i>)` ([`counting`]); `S:Continuous AddPower$ X` reads it |
//! | `K:ETBReplacement:Copy:<svar>:Optional` (`ChooseCard` + `Clone`) | a replacement as it would enter: the controller may choose a permanent, the card `become`s its class (tag `<card>_copy`); a world trigger of the card's turns it back once it leaves ([`copies`]) |
//! | `AB$ CopyPermanent \| Keywords$ Haste \| AtEOT$ Sacrifice` at a creature | a token of the target's class (`create` with `class_of` and `tags`), tagged `sacrificed_at_end_step` for the rules ([`activated`]) |
//! | `SP$ AddTurn`, `SP$ Fog` | `extra_turns`; `prevents_combat_damage` ([`effect`]) |
//! | `T:Mode$ ChangesZone` (enters / leaves the battlefield), `Attacks`, `Phase` (upkeep, draw, end of turn; `TriggerZones$ Graveyard` at upkeep), `SpellCast`, `DamageDone` | an ability put on the stack ([`trigger`]; a cost paid as it resolves: [`trigger_cost`]) |
//! | `SP$ Discard \| Mode$ Hand \| Defined$ Each`, `SP$ ChangeZoneAll \| Destination$ Library \| Shuffle$ True` (then each draws) | effects on every player ([`everyone`]) |
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
pub mod amounts;
pub mod asks;
pub mod card;
pub mod characteristics;
pub mod charm;
pub mod charm_ability;
pub mod charm_two;
pub mod copies;
pub mod costs;
pub mod counters;
pub mod counting;
pub mod effect;
pub mod emblem;
pub mod entering;
pub mod enters_with;
pub mod equipment;
pub mod everyone;
pub mod keywords;
pub mod levels;
pub mod library;
pub mod locate;
pub mod loyalty;
pub mod mana;
pub mod mass;
pub mod modular;
pub mod moment;
pub mod ninjutsu;
pub mod persist;
pub mod players;
pub mod replacement;
pub mod saga;
pub mod slot;
pub mod spell;
pub mod statics;
pub mod sub_ability;
pub mod target;
pub mod tokens;
pub mod trigger;
pub mod trigger_cost;
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
