//! FOCS's grammar rules as data: which keywords start entries, which labels each kind
//! of node takes, and which labels hold enumeration words or conditions.
//!
//! FOCS's grammar is keyword-driven: which labels a node takes depends on the node.
//! This parser gives a label to the innermost open node that may take it, under three
//! rules read from FreeOrion's content: an entry's own labels (`effectsgroups`,
//! `researchcost`, `tags`, `stealth`, …) belong to entries only; an effects group's
//! (`scope`, `activation`, `stackinggroup`, `priority`, `effects`) to effects groups and
//! entries only, `accountinglabel` to those and `Set…` effects, `description` to those and
//! `Described`; an entry's flags (`Playable`, `CanColonize`, …) take no labels. A node
//! takes each label once (but `object`, and an entry any label). Enumeration values
//! (`type = Building`, `environment = Poor`) take no labels either, and a condition's or
//! effect's label (`condition`, `scope`, `effects`) holds one node, never arithmetic.

/// Keywords that start an entry.
pub const ENTRIES: &[&str] = &[
    "Tech",
    "BuildingType",
    "Species",
    "Special",
    "Policy",
    "Hull",
    "Part",
    "FieldType",
    "SpeciesCensusOrdering",
];

/// Labels only an entry takes.
pub(crate) const ENTRY_LABELS: &[&str] = &[
    "effectsgroups",
    "graphic",
    "icon",
    "researchcost",
    "researchturns",
    "prerequisites",
    "unlock",
    "category",
    "short_description",
    "buildcost",
    "buildtime",
    "location",
    "enqueuelocation",
    "captureresult",
    "tags",
    "stealth",
    "foci",
    "defaultfocus",
    "likes",
    "dislikes",
    "environments",
    "spawnrate",
    "spawnlimit",
    "adoptioncost",
    "exclusions",
    "gameplay_description",
    "slots",
    "mountableSlotTypes",
    "fuel",
    "speed",
    "structure",
    "producible",
    "combatTargets",
    "capacity",
    "damage",
    "shots",
    "destroyFightersPerBattleMax",
];

/// Labels of an effects group (entries take them too).
pub(crate) const GROUP_LABELS: &[&str] = &[
    "scope",
    "activation",
    "stackinggroup",
    "priority",
    "effects",
];

/// Entry flags: keywords that take no labels.
pub(crate) const FLAGS: &[&str] = &[
    "Playable",
    "CanColonize",
    "CanProduceShips",
    "Unproducible",
    "Unresearchable",
    "NoDefaultFuelEffect",
    "NoDefaultCapacityEffect",
    "Native",
];

/// Values that are one word and take no labels (`x = UniverseCentreX y = …`: the `y`
/// is the effect's).
pub(crate) const BARE_VALUES: &[&str] = &[
    "CurrentContent",
    "UniverseCentreX",
    "UniverseCentreY",
    "UniverseWidth",
    "CurrentTurn",
    "GalaxySize",
    "GalaxyMonsterFrequency",
    "GalaxyMaxAIAggression",
    "GalaxyPlanetDensity",
    "GalaxyShape",
    "Value",
];

/// Labels a node may take more than once (`JumpsBetween object = A object = B`).
pub(crate) const REPEATABLE: &[&str] = &["object"];

/// Labels whose value is an enumeration word (or a list of them), never a node with
/// labels of its own.
pub(crate) const ENUM_LABELS: &[&str] = &[
    "type",
    "environment",
    "size",
    "affiliation",
    "planetsize",
    "class",
];

/// Labels whose value is a condition or an effect, never arithmetic: `condition = Planet`
/// ends at the condition (`Statistic Count condition = Planet * 2` multiplies the count).
pub(crate) const CONDITION_LABELS: &[&str] = &[
    "condition",
    "scope",
    "activation",
    "location",
    "enqueuelocation",
    "effects",
];

/// Keywords that take one positional argument.
pub(crate) const PREFIX: &[&str] = &["Not", "NOT", "Contains", "ContainedBy", "Statistic"];

/// Whether a node of kind `kind` (an entry when `entry`) takes label `label`.
pub(crate) fn takes(kind: &str, entry: bool, label: &str) -> bool {
    if entry {
        return true;
    }
    if FLAGS.contains(&kind) || BARE_VALUES.contains(&kind) {
        return false;
    }
    let group = kind == "EffectsGroup";
    match label {
        // `If condition = … effects = [ … ] else = [ … ]` takes its own branches.
        "effects" if kind == "If" => true,
        "else" => kind == "If",
        l if GROUP_LABELS.contains(&l) => group,
        "accountinglabel" => group || kind.starts_with("Set"),
        "description" => group || matches!(kind, "Described" | "Focus"),
        l if ENTRY_LABELS.contains(&l) => {
            // A few entry labels are also some effects' or conditions' own.
            matches!(
                (kind, l),
                ("GenerateSitRepMessage" | "GenerateSitrepMessage", "icon")
                    | ("MoveInOrbit" | "MoveTowards" | "SetSpeed", "speed")
                    | ("ShortRange", "damage")
                    | ("SetSpeciesOpinion" | "SetSpeciesTargetOpinion", "opinion")
                    | ("Focus", "location" | "graphic")
            )
        }
        _ => !group,
    }
}
