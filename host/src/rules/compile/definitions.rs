//! Compiling definitions: a file's classes, triggers, named auras and settle rules.

use std::sync::Arc;

use crate::bus::Binding;
use crate::diag::{Diagnostic, Location};
use crate::id::{Id, Sym};
use crate::rules::content::{
    AuraSpec, ClassSpec, ContentFile, GameSpec, ModifierSpec, ReplacementSpec, RuleSpec,
    TriggerSpec, UntilSpec, WhenSpec, WorldSpec,
};
use crate::rules::expr::Expr;
use crate::rules::params::{json_type, path_string, PathSeg};
use crate::rules::registry::{Condition, Deps, Registry};
use crate::rules::ContentError;
use crate::state::{Layer, Value};

use super::kinds::with;
use super::*;

impl<'c> Compiler<'c> {
    pub(crate) fn new(
        registry: &'c Registry,
        defs: &'c Defs,
        sources: &'c [ContentSource],
        file: usize,
    ) -> Self {
        Compiler {
            registry,
            defs,
            sources,
            file,
            ns: sources
                .get(file)
                .map(|s| s.mod_id.clone())
                .unwrap_or_default(),
            errors: Vec::new(),
            warnings: Vec::new(),
            auras: Vec::new(),
            effects: Vec::new(),
            stack: Vec::new(),
            inline: 0,
            depth: 0,
            locals: Vec::new(),
        }
    }

    pub(crate) fn namespace(&self) -> &str {
        &self.ns
    }

    pub(crate) fn src(&self) -> &ContentSource {
        &self.sources[self.file]
    }

    pub(crate) fn span(&self, path: &[PathSeg]) -> Option<std::ops::Range<usize>> {
        self.src().locate(self.registry, path)
    }

    pub(crate) fn origin(&self, path: &[PathSeg], def: String) -> Origin {
        let line = self.span(path).map_or(0, |s| self.src().line_of(s.start));
        Origin {
            mod_id: self.ns.clone(),
            file: self.src().source.path.clone(),
            line,
            def,
        }
    }

    pub(crate) fn diagnostic(&self, e: ContentError) -> Diagnostic {
        let src = self.src();
        let loc = match self.span(&e.path) {
            Some(s) => Location::span(&src.source, s),
            None => Location::file(&src.source.path),
        };
        let mut d = Diagnostic::error(e.code, e.message)
            .at(loc)
            .for_mod(&src.mod_id);
        d.notes.push(format!("in `{}`", path_string(&e.path)));
        d.help = e.help;
        d
    }

    pub(crate) fn file(&mut self, f: &ContentFile, gen: &mut Generation) {
        if let Some(w) = &f.world {
            apply_world(w, gen);
        }
        if let Some(g) = &f.game {
            self.game_once(g, gen);
        }
        for (name, spec) in &f.moves {
            match self.move_def(name, spec) {
                Ok(m) => gen.moves.push(m),
                Err(e) => self.errors.push(e),
            }
        }
        self.event_logs(f, gen);
        for (name, spec) in &f.class {
            let path = vec![PathSeg::Key("class".into()), PathSeg::Key(name.clone())];
            if let Ok(id) = Id::from_parts(&self.ns, "class", name) {
                if let Err(e) = self.class(id, spec, &path, gen) {
                    self.errors.push(e);
                }
            }
        }
        for (name, spec) in &f.pass {
            match self.pass_def(name, spec) {
                Ok(p) => {
                    gen.passes.insert(p.id, Arc::new(p));
                }
                Err(e) => self.errors.push(e),
            }
        }
        for (name, spec) in &f.aura {
            let path = vec![PathSeg::Key("aura".into()), PathSeg::Key(name.clone())];
            if let Ok(id) = Id::from_parts(&self.ns, "aura", name) {
                match self.aura(id, spec, &path, false) {
                    Ok(a) => self.auras.push((id, a)),
                    Err(e) => self.errors.push(e),
                }
            }
        }
        for (name, spec) in &f.trigger {
            let path = vec![PathSeg::Key("trigger".into()), PathSeg::Key(name.clone())];
            let def = format!("trigger `{}:trigger/{name}`", self.ns);
            match self.trigger(spec, &path, Binding::Global, def) {
                Ok(t) => gen.triggers.push(t),
                Err(e) => self.errors.push(e),
            }
        }
        for (name, spec) in &f.rule {
            match self.rule(name, spec) {
                Ok(c) => gen.checks.push(c),
                Err(e) => self.errors.push(e),
            }
        }
        // Aliases and refs are compiled where used; check unused ones compile too.
        for name in f.alias.keys() {
            if let Ok(id) = Id::from_parts(&self.ns, "alias", name) {
                let path = vec![PathSeg::Key("alias".into()), PathSeg::Key(name.clone())];
                if let Err(e) = self.alias_expr(id, &path) {
                    self.errors.push(e);
                }
            }
        }
    }

    /// `[game]`: compiled, and refused when another file already defined it.
    fn game_once(&mut self, g: &GameSpec, gen: &mut Generation) {
        match self.game(g) {
            Ok(def) => match &gen.game {
                Some(prev) => self.errors.push(
                    ContentError::new(
                        "E-CONTENT-DUPLICATE",
                        vec![PathSeg::Key("game".into())],
                        format!(
                            "`[game]` is defined twice; the first is in {}:{}",
                            prev.origin.file.display(),
                            prev.origin.line
                        ),
                    )
                    .help("one rules mod defines the game; patch it from other mods instead"),
                ),
                None => gen.game = Some(def),
            },
            Err(e) => self.errors.push(e),
        }
    }

    /// The `log` templates of the file's events.
    fn event_logs(&mut self, f: &ContentFile, gen: &mut Generation) {
        for (name, spec) in &f.event {
            let Some(log) = &spec.log else { continue };
            let path = vec![
                PathSeg::Key("event".into()),
                PathSeg::Key(name.clone()),
                PathSeg::Key("log".into()),
            ];
            match super::play::check_template(log, &["source", "target", "player", "amount"], &path)
            {
                Ok(()) => {
                    if let Ok(id) = Id::from_parts(&self.ns, "event", name) {
                        gen.event_logs.insert(id, log.clone());
                    }
                }
                Err(e) => self.errors.push(e),
            }
        }
    }

    /// One `[rule.<name>]`: a check run on what `select` finds.
    fn rule(&mut self, name: &str, spec: &RuleSpec) -> Result<Check, ContentError> {
        let path = vec![PathSeg::Key("rule".into()), PathSeg::Key(name.to_owned())];
        let mut p = path.clone();
        p.push(PathSeg::Key("select".into()));
        let select = self.selector(&spec.select, &p)?;
        p.pop();
        p.push(PathSeg::Key("do".into()));
        let actions = self.actions(&spec.actions, &p)?;
        let origin = self.origin(&path, format!("rule `{}:rule/{name}`", self.ns));
        Ok(Check::new(select, actions, origin))
    }

    pub(crate) fn class(
        &mut self,
        id: Id,
        spec: &ClassSpec,
        path: &[PathSeg],
        gen: &mut Generation,
    ) -> Result<(), ContentError> {
        let mut props = Vec::new();
        for (k, v) in &spec.properties {
            let mut p = path.to_vec();
            p.push(PathSeg::Key("properties".into()));
            p.push(PathSeg::Key(k.clone()));
            self.check_property_key(id.as_str(), k, &p);
            let value = Value::from_json(v).ok_or_else(|| {
                ContentError::new(
                    "E-CONTENT-TYPE",
                    p.clone(),
                    format!(
                        "property `{k}` must be a number, bool, text or list, found {}",
                        json_type(v)
                    ),
                )
            })?;
            props.push((Sym::new(k), value));
        }
        let mut auras = Vec::new();
        for (n, a) in spec.aura.iter().enumerate() {
            let mut p = path.to_vec();
            p.push(PathSeg::Key("aura".into()));
            p.push(PathSeg::Index(n));
            let aura_id = Id::from_parts(&self.ns, "aura", &format!("class/{}/{n}", id.name()))
                .map_err(|e| ContentError::new("E-CONTENT-ID", p.clone(), e.to_string()))?;
            let def = self.aura(aura_id, a, &p, true)?;
            auras.push(Arc::new(def));
        }
        for (n, t) in spec.trigger.iter().enumerate() {
            let mut p = path.to_vec();
            p.push(PathSeg::Key("trigger".into()));
            p.push(PathSeg::Index(n));
            match self.trigger(
                t,
                &p,
                Binding::Class(id),
                format!("class `{id}` trigger[{n}]"),
            ) {
                Ok(t) => gen.triggers.push(t),
                Err(e) => self.errors.push(e),
            }
        }
        for (n, r) in spec.replacement.iter().enumerate() {
            let mut p = path.to_vec();
            p.push(PathSeg::Key("replacement".into()));
            p.push(PathSeg::Index(n));
            match self.replacement(r, &p, id, format!("class `{id}` replacement[{n}]")) {
                Ok(r) => gen.replacements.push(r),
                Err(e) => self.errors.push(e),
            }
        }
        if !auras.is_empty() {
            gen.aura_classes.push(id);
        }
        let effects = self.effects_groups(id, &spec.effects, path)?;
        if !effects.is_empty() {
            gen.effects_classes.push(id);
        }
        let tags: Vec<Sym> = spec.tags.iter().map(|t| Sym::new(t)).collect();
        // Made for the health rule known now; creation remakes it if the world's differs.
        let blueprint =
            crate::state::Blueprint::new(props.clone(), tags.clone(), &gen.world.health);
        gen.classes.insert(
            id,
            Arc::new(ClassDef {
                id,
                props,
                tags,
                blueprint,
                auras,
                effects,
                name: spec.name.clone(),
                description: spec.description.clone(),
                origin: self.origin(path, format!("class `{id}`")),
            }),
        );
        Ok(())
    }

    pub(crate) fn trigger(
        &mut self,
        spec: &TriggerSpec,
        path: &[PathSeg],
        binding: Binding,
        def: String,
    ) -> Result<Trigger, ContentError> {
        self.trigger_at(spec, path, binding, def, "when")
    }

    /// Compiles a trigger whose `when` is written under `when_key` (a replacement's
    /// `would`), so errors point at the key in the file.
    fn trigger_at(
        &mut self,
        spec: &TriggerSpec,
        path: &[PathSeg],
        binding: Binding,
        def: String,
        when_key: &str,
    ) -> Result<Trigger, ContentError> {
        let mut p = path.to_vec();
        p.push(PathSeg::Key(when_key.into()));
        let (event, player, condition, target_condition) = match &spec.when {
            WhenSpec::Event(e) => (e.as_str(), None, None, None),
            WhenSpec::Full {
                event,
                player,
                condition,
                target,
            } => (
                event.as_str(),
                player.as_deref(),
                condition.as_ref(),
                target.as_ref(),
            ),
        };
        let event = self.reference(event, "event", &p)?;
        let player = player_filter(player, &p)?;
        let condition = match condition {
            Some(c) => {
                p.push(PathSeg::Key("condition".into()));
                Some(self.condition(c, &p)?)
            }
            None => None,
        };
        let target_condition = match target_condition {
            Some(c) => Some(self.condition(c, &with(&with(path, when_key), "target"))?),
            None => None,
        };
        let select = match &spec.select {
            Some(s) => Some(self.selector(s, &with(path, "select"))?),
            None => None,
        };
        let actions = self.actions(&spec.actions, &with(path, "do"))?;
        Ok(Trigger {
            event,
            player,
            condition,
            target_condition,
            select,
            actions,
            priority: spec.priority,
            zones: spec.zones.iter().map(|z| Sym::new(z)).collect(),
            look_back: spec.look_back,
            binding,
            origin: self.origin(path, def),
        })
    }

    /// Compiles a class's replacement effect: its `would` and actions as a trigger, and
    /// what it changes.
    fn replacement(
        &mut self,
        spec: &ReplacementSpec,
        path: &[PathSeg],
        class: Id,
        def: String,
    ) -> Result<Replacement, ContentError> {
        if !spec.cancel && spec.amount.is_none() && spec.to.is_none() && spec.actions.is_none() {
            return Err(ContentError::new(
                "E-CONTENT-REPLACEMENT",
                path.to_vec(),
                "a replacement effect must change something",
            )
            .help("give it `cancel = true`, `amount = \"...\"`, `to = \"zone\"` or `do = [...]`"));
        }
        let as_trigger = TriggerSpec {
            when: spec.would.clone(),
            select: spec.select.clone(),
            actions: spec.actions.clone().unwrap_or(Json::Array(Vec::new())),
            priority: 0,
            zones: spec.zones.clone(),
            look_back: false,
        };
        let trigger = self.trigger_at(&as_trigger, path, Binding::Class(class), def, "would")?;
        let amount = match &spec.amount {
            Some(a) => Some(self.expr(a, &with(path, "amount"))?),
            None => None,
        };
        Ok(Replacement {
            trigger,
            cancel: spec.cancel,
            amount,
            to: spec.to.as_deref().map(Sym::new),
        })
    }

    pub(crate) fn aura(
        &mut self,
        id: Id,
        spec: &AuraSpec,
        path: &[PathSeg],
        class_aura: bool,
    ) -> Result<AuraDef, ContentError> {
        let select = match &spec.select {
            Some(s) => Some(self.selector(s, &with(path, "select"))?),
            None => None,
        };
        let modifiers = spec
            .modifiers
            .iter()
            .enumerate()
            .map(|(n, m)| self.modifier(n, m, path))
            .collect::<Result<Vec<_>, _>>()?;
        let while_ = match &spec.while_ {
            Some(c) => Some(self.condition(c, &with(path, "while"))?),
            None => None,
        };
        let until = self.until_all(spec, path)?;
        let zones = match &spec.zones {
            Some(z) if z.iter().any(|z| z == "*") => AuraZones::Any,
            Some(z) => AuraZones::Listed(z.iter().map(|z| Sym::new(z)).collect()),
            None if class_aura => AuraZones::Listed(vec![Sym::new("board")]),
            None => AuraZones::WhereGiven,
        };
        let sources_memo = match (&spec.select, &select) {
            (Some(text), Some(sel)) => super::selectors::sources_memo(self.namespace(), text, sel),
            _ => None,
        };
        let deps = aura_deps(select.as_ref(), while_.as_deref(), &modifiers);
        let first_rank = modifiers.iter().map(|m| m.rank).min().unwrap_or(u16::MAX);
        let same_for_every_target = modifiers.iter().all(|m| {
            !m.value.reads_candidate() && m.max.as_ref().is_none_or(|x| !x.reads_candidate())
        });
        Ok(AuraDef {
            id,
            source_tag: select.as_ref().and_then(|s| s.source_tag()),
            select,
            sources_memo,
            first_rank,
            modifiers,
            same_for_every_target,
            while_,
            until,
            zones,
            deps,
            origin: self.origin(path, format!("aura `{id}`")),
        })
    }

    /// Modifier `n` of an aura: its layer, rank and value (or bounds, for `clamp`).
    fn modifier(
        &mut self,
        n: usize,
        m: &ModifierSpec,
        path: &[PathSeg],
    ) -> Result<ModifierDef, ContentError> {
        let mut p = with(path, "modifiers");
        p.push(PathSeg::Index(n));
        let layer = match m.op.as_str() {
            "set" => Layer::Set,
            "add" => Layer::Add,
            "multiply" => Layer::Multiply,
            "clamp" => Layer::Clamp,
            "tag" => Layer::Tag,
            "untag" => Layer::Untag,
            other => {
                return Err(ContentError::new(
                    "E-CONTENT-PARAM",
                    with(&p, "op"),
                    format!("`op = \"{other}\"` is not a modifier operation"),
                )
                .help("use `set`, `add`, `multiply`, `clamp`, `tag` or `untag`"))
            }
        };
        let (value, max) = if layer == Layer::Clamp {
            let min = match &m.min {
                Some(v) => self.expr(v, &with(&p, "min"))?,
                None => Expr::lit(f64::NEG_INFINITY),
            };
            let max = match &m.max {
                Some(v) => Some(self.expr(v, &with(&p, "max"))?),
                None => None,
            };
            (min, max)
        } else if layer.is_tag() {
            (Expr::lit(1.0), None)
        } else {
            let v = m.value.as_ref().ok_or_else(|| {
                ContentError::new(
                    "E-CONTENT-MISSING-PARAM",
                    p.clone(),
                    format!("modifier `{}` needs a `value`", m.op),
                )
            })?;
            (self.expr(v, &with(&p, "value"))?, None)
        };
        let rank = self.layer_rank(m.layer.as_deref(), layer, &p)?;
        Ok(ModifierDef {
            key: Sym::new(&m.key),
            layer,
            rank,
            value,
            max,
        })
    }

    /// An aura's `until`: one condition or a list of them.
    fn until_all(&mut self, spec: &AuraSpec, path: &[PathSeg]) -> Result<Vec<Until>, ContentError> {
        let whens: Vec<&WhenSpec> = match &spec.until {
            None => Vec::new(),
            Some(UntilSpec::One(w)) => vec![w],
            Some(UntilSpec::Any(list)) => list.iter().collect(),
        };
        let mut until = Vec::with_capacity(whens.len());
        for (i, w) in whens.into_iter().enumerate() {
            let mut p = with(path, "until");
            if matches!(spec.until, Some(UntilSpec::Any(_))) {
                p.push(PathSeg::Index(i));
            }
            until.push(self.until(w, &p)?);
        }
        Ok(until)
    }
}

impl Compiler<'_> {
    /// Where a modifier's layer stands in `[world] layers`: its `layer`, else the layer
    /// named like its operation; a `tag` modifier without a layer comes after all.
    fn layer_rank(
        &self,
        layer: Option<&str>,
        op: Layer,
        path: &[PathSeg],
    ) -> Result<u16, ContentError> {
        let name = match (layer, op) {
            (Some(l), _) => l,
            (None, Layer::Tag | Layer::Untag) => return Ok(u16::MAX),
            (None, Layer::Set) => "set",
            (None, Layer::Add) => "add",
            (None, Layer::Multiply) => "multiply",
            (None, Layer::Clamp) => "clamp",
        };
        let layers = &self.defs.layers;
        let found = layers.iter().position(|l| l.as_str() == name);
        found.and_then(|i| u16::try_from(i).ok()).ok_or_else(|| {
            let names: Vec<&str> = layers.iter().map(|l| l.as_str()).collect();
            let at = if layer.is_some() { "layer" } else { "op" };
            let mut e = ContentError::new(
                "E-CONTENT-LAYER",
                with(path, at),
                format!("modifier layer `{name}` is not one of `[world] layers`"),
            )
            .help(format!("the layers are: {}", names.join(", ")));
            if let Some(c) = crate::id::closest(name, names.iter().copied()).first() {
                e = e.help(format!("did you mean `{c}`?"));
            }
            if layer.is_none() {
                e = e.help("give the modifier a `layer`, or add its op to `[world] layers`");
            }
            e
        })
    }

    /// One event of an aura's `until`.
    fn until(&mut self, w: &WhenSpec, p: &[PathSeg]) -> Result<Until, ContentError> {
        Ok(match w {
            WhenSpec::Event(e) => Until {
                event: self.reference(e, "event", p)?,
                player: PlayerFilter::Any,
                target: None,
            },
            WhenSpec::Full {
                event,
                player,
                condition,
                target,
            } => {
                if condition.is_some() {
                    return Err(ContentError::new(
                        "E-CONTENT-PARAM",
                        with(p, "condition"),
                        "`until` filters the event's `player` and `target` only",
                    )
                    .help("write the condition on the event's target as `target = ...`"));
                }
                Until {
                    event: self.reference(event, "event", p)?,
                    player: player_filter(player.as_deref(), p)?,
                    target: match target {
                        Some(c) => Some(self.condition(c, &with(p, "target"))?),
                        None => None,
                    },
                }
            }
        })
    }
}

/// `player = "friendly" | "enemy" | "any"` of a `when` or `until`.
fn player_filter(player: Option<&str>, path: &[PathSeg]) -> Result<PlayerFilter, ContentError> {
    match player {
        None | Some("any") => Ok(PlayerFilter::Any),
        Some("friendly") => Ok(PlayerFilter::Friendly),
        Some("enemy") => Ok(PlayerFilter::Enemy),
        Some(other) => Err(ContentError::new(
            "E-CONTENT-PARAM",
            with(path, "player"),
            format!("`player = \"{other}\"` is not a player filter"),
        )
        .help("use `friendly`, `enemy` or `any`")),
    }
}

/// What an aura reads: its selection's targets, its `while` (about the holder) and its
/// modifiers' values (confined with the selection when the selection is confined).
fn aura_deps(
    select: Option<&crate::rules::select::Select>,
    while_: Option<&dyn Condition>,
    modifiers: &[ModifierDef],
) -> Deps {
    let mut deps = Deps {
        structural: true,
        ..Deps::default()
    };
    if let Some(s) = select {
        s.deps_of_targets(&mut deps);
    }
    // Values read `target` from each selected object: confined with the selection.
    let confined = select.is_some() && deps.confined() && !deps.zones.is_empty();
    if let Some(w) = while_ {
        // `target` in `while` is the holder, not the aura's targets (a change to the
        // holder always counts).
        let mut inner = Deps::default();
        w.deps(&mut inner);
        inner.tested = false;
        deps.nested(&inner);
    }
    let mut values = Deps::default();
    for m in modifiers {
        m.value.deps(&mut values);
        if let Some(x) = &m.max {
            x.deps(&mut values);
        }
    }
    values.confine_tested(confined);
    deps.merge(&values);
    deps
}

/// `[world]` settings; a later file's setting wins.
fn apply_world(w: &WorldSpec, gen: &mut Generation) {
    if let Some(d) = w.on_max_health_drop {
        gen.world.health.on_drop = d;
    }
    if let Some(l) = w.cascade_limit {
        gen.world.cascade_limit = l.max(1);
    }
    if let Some(t) = &w.shield_tag {
        gen.world.health.shield_tag = Some(Sym::new(t));
    }
    if let Some(t) = &w.silence_tag {
        gen.world.silence_tag = Some(Sym::new(t));
    }
    if let Some(k) = &w.armor_key {
        gen.world.health.armor_key = Some(Sym::new(k));
    }
    if let Some(l) = w.last_known {
        gen.world.last_known = l;
    }
}
