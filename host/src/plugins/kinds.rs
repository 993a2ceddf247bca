//! Plugin-provided registry entries: preparing a use site in the plugin at load, and the
//! prepared conditions, selectors, actions and nodes that call into it at run time. They
//! implement the same traits as built-ins; the engine cannot tell them apart.

use std::sync::Arc;

use serde_json::Value as Json;
use tessera_plugin_api::abi::{self, exports, Kind};

use super::host::{CallEnv, HostObject, HostRequest};
use super::instance::PluginInstance;
use super::Runtime;
use super::{CallSite, LoadedPlugin, PluginFaultKind, PrepareCall};
use crate::id::Id;
use crate::rules::registry::{
    Action, ActionKind, Condition, ConditionKind, Deps, Node, NodeKind, Selector, SelectorKind,
};
use crate::rules::{ActCx, ContentError, Cx, Params, Pipeline, RuleError};
use crate::state::ObjId;

/// Keys every use site may carry that belong to the engine, not the plugin.
pub(crate) const ENGINE_KEYS: &[&str] = &["type", "to", "where", "pick", "from"];

/// The registry entry of one id a plugin provides.
pub(crate) struct PluginKind {
    pub plugin: Arc<LoadedPlugin>,
    pub id: Id,
    pub kind: Kind,
}

fn pack(o: ObjId) -> i64 {
    abi::pack_obj(o.index, o.generation)
}

fn unpack(o: i64) -> Option<ObjId> {
    abi::unpack_obj(o).map(|(index, generation)| ObjId { index, generation })
}

impl PluginKind {
    /// Prepares one use site: the plugin's `tessera_prepare`, then the host objects it
    /// asked for, compiled like any content. Returns the handle and the site (file:line).
    fn prepare_site(&self, p: &mut Params<'_, '_>) -> Result<(i32, String), ContentError> {
        let plugin = &self.plugin;
        let mut params = p.map.clone();
        for k in ENGINE_KEYS {
            params.shift_remove(*k);
        }
        let json = Json::Object(params).to_string();
        let site = p.compiler.origin(&p.path, String::new());
        let site = format!("{}:{}", site.file.display(), site.line);
        let err = |msg: String| {
            ContentError::new(
                "E-PLUGIN-PREPARE",
                p.path.clone(),
                format!(
                    "{}: {msg}",
                    plugin.describe_site(exports::PREPARE, self.id.as_str(), &site)
                ),
            )
        };
        let result = {
            let mut loader = plugin.loader.lock().unwrap_or_else(|e| e.into_inner());
            if loader.is_none() {
                *loader = Some(PluginInstance::new(plugin).map_err(|e| err(e.into_message()))?);
            }
            let inst = loader.as_mut().ok_or_else(|| err("no instance".into()))?;
            let r = inst.prepare(plugin, self.kind, self.id.as_str(), &json, None);
            if r.as_ref().is_err_and(super::CallError::is_fault) {
                *loader = None;
            }
            r
        };
        let (handle, requests) = result.map_err(|e| err(e.into_message()))?;
        for (req, h) in &requests {
            let (text, what) = match req {
                HostRequest::Selector(t) => (t, "selector"),
                HostRequest::Action(t) => (t, "action list"),
                HostRequest::Expr(t) => (t, "expression"),
            };
            let value: Json = serde_json::from_str(text)
                .map_err(|e| err(format!("prepared {what} is not JSON: {e}")))?;
            let path = p.path.clone();
            let obj = match req {
                HostRequest::Selector(_) => {
                    HostObject::Selector(p.compiler.selector(&value, &path)?)
                }
                HostRequest::Action(_) => HostObject::Actions(p.compiler.actions(&value, &path)?),
                HostRequest::Expr(_) => HostObject::Expr(p.compiler.expr(&value, &path)?),
            };
            plugin.shared.fill(*h, obj);
        }
        plugin
            .prepared
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(PrepareCall {
                kind: self.kind,
                id: self.id.as_str().to_owned(),
                params: json,
                handle,
                requests,
            });
        Ok((handle, site))
    }
}

/// The common part of every prepared plugin use site.
#[derive(Debug)]
struct Site {
    plugin: Arc<LoadedPlugin>,
    handle: i32,
    def: Id,
    site: String,
}

impl Site {
    fn at<'a>(&'a self, export: &'a str) -> CallSite<'a> {
        CallSite {
            export,
            def: self.def.as_str(),
            site: &self.site,
        }
    }
}

impl ConditionKind for PluginKind {
    fn prepare(&self, p: &mut Params<'_, '_>) -> Result<Box<dyn Condition>, ContentError> {
        let (handle, site) = self.prepare_site(p)?;
        Ok(Box::new(PluginCondition(Site {
            plugin: self.plugin.clone(),
            handle,
            def: self.id,
            site,
        })))
    }
}

impl SelectorKind for PluginKind {
    fn prepare(&self, p: &mut Params<'_, '_>) -> Result<Box<dyn Selector>, ContentError> {
        let (handle, site) = self.prepare_site(p)?;
        Ok(Box::new(PluginSelector(Site {
            plugin: self.plugin.clone(),
            handle,
            def: self.id,
            site,
        })))
    }
}

impl ActionKind for PluginKind {
    fn prepare(&self, p: &mut Params<'_, '_>) -> Result<Box<dyn Action>, ContentError> {
        let (handle, site) = self.prepare_site(p)?;
        Ok(Box::new(PluginAction(Site {
            plugin: self.plugin.clone(),
            handle,
            def: self.id,
            site,
        })))
    }
}

impl NodeKind for PluginKind {
    fn prepare(&self, p: &mut Params<'_, '_>) -> Result<Box<dyn Node>, ContentError> {
        let (handle, site) = self.prepare_site(p)?;
        Ok(Box::new(PluginNode(Site {
            plugin: self.plugin.clone(),
            handle,
            def: self.id,
            site,
        })))
    }
}

#[derive(Debug)]
struct PluginCondition(Site);

impl Condition for PluginCondition {
    fn test(&self, cx: &Cx<'_>, obj: ObjId) -> Result<bool, RuleError> {
        let s = &self.0;
        let rt = Runtime::of(cx.rt)?;
        if rt.is_off(&s.plugin) {
            return Ok(false);
        }
        let env = CallEnv::read(cx);
        rt.call(&s.plugin, s.at(exports::CONDITION), |inst| {
            inst.condition(&s.plugin, env, s.handle, pack(obj))
        })
    }

    fn test_many(&self, cx: &Cx<'_>, objs: &[ObjId], out: &mut Vec<bool>) -> Result<(), RuleError> {
        let s = &self.0;
        let rt = Runtime::of(cx.rt)?;
        if rt.is_off(&s.plugin) {
            out.extend(objs.iter().map(|_| false));
            return Ok(());
        }
        let env = CallEnv::read(cx);
        let packed: Vec<i64> = objs.iter().map(|&o| pack(o)).collect();
        rt.call(&s.plugin, s.at(exports::CONDITION_BATCH), |inst| {
            inst.condition_batch(&s.plugin, env, s.handle, &packed, out)
        })
    }

    fn deps(&self, d: &mut Deps) {
        d.everything = true;
    }
}

#[derive(Debug)]
struct PluginSelector(Site);

impl Selector for PluginSelector {
    fn select(&self, cx: &Cx<'_>, out: &mut Vec<ObjId>) -> Result<(), RuleError> {
        let s = &self.0;
        let rt = Runtime::of(cx.rt)?;
        if rt.is_off(&s.plugin) {
            return Ok(());
        }
        let env = CallEnv::read(cx);
        let found = rt.call(&s.plugin, s.at(exports::SELECT), |inst| {
            inst.select(&s.plugin, env, s.handle)
        })?;
        for raw in found {
            match unpack(raw).filter(|o| cx.world.exists(*o)) {
                Some(o) => out.push(o),
                None => {
                    let m = format!("pushed {raw:#x}, which is no object of this world; push only ids the host gave");
                    return Err(s
                        .plugin
                        .fault(&s.at(exports::SELECT), PluginFaultKind::AbiMisuse, m)
                        .into());
                }
            }
        }
        Ok(())
    }

    fn deps(&self, d: &mut Deps) {
        d.everything = true;
    }
}

#[derive(Debug)]
struct PluginAction(Site);

impl Action for PluginAction {
    fn run(&self, ax: &mut ActCx<'_>, targets: &[ObjId]) -> Result<(), RuleError> {
        let s = &self.0;
        let rt = Runtime::of(ax.rt)?;
        if rt.is_off(&s.plugin) {
            return Ok(());
        }
        let env = CallEnv::write(ax, None);
        let packed: Vec<i64> = targets.iter().map(|&o| pack(o)).collect();
        rt.call(&s.plugin, s.at(exports::ACTION), |inst| {
            inst.action(&s.plugin, env, s.handle, &packed)
        })
    }
}

#[derive(Debug)]
struct PluginNode(Site);

impl Node for PluginNode {
    fn run(&self, ax: &mut ActCx<'_>, pipeline: &mut Pipeline) -> Result<(), RuleError> {
        let s = &self.0;
        let rt = Runtime::of(ax.rt)?;
        if rt.is_off(&s.plugin) {
            return Ok(());
        }
        let env = CallEnv::write(ax, Some(pipeline));
        rt.call(&s.plugin, s.at(exports::NODE), |inst| {
            inst.node(&s.plugin, env, s.handle)
        })
    }
}

/// A content loader a plugin provides: the mod's load-time instance turns a file's text
/// into the content tree (`tessera_load`). Loaders run while mods load, never in a world.
pub(crate) struct PluginLoader {
    pub(crate) plugin: Arc<LoadedPlugin>,
    pub(crate) id: Id,
    pub(crate) extensions: Vec<&'static str>,
}

impl PluginLoader {
    /// Runs `tessera_load` on an idle instance (a new one when all are busy): the reply's
    /// bytes and, when `with_reads` (for the load cache), every file that instance has
    /// read besides the ones it loaded.
    fn translate(
        &self,
        input: &crate::rules::registry::LoadInput<'_>,
        with_reads: bool,
    ) -> Result<(Vec<u8>, Option<super::load_cache::Reads>), super::CallError> {
        let plugin = &self.plugin;
        let idle = plugin
            .parsers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop();
        let mut inst = match idle {
            Some(i) => i,
            None => PluginInstance::new(plugin)?,
        };
        let cx = super::loading::LoadCx {
            path: input.path.to_owned(),
            files: input.files.cloned(),
        };
        let r = inst.load_content(plugin, self.id.as_str(), input.text, cx);
        let reads = inst.load_reads().filter(|_| with_reads).cloned();
        // A faulted instance is dropped; the next call makes a fresh one.
        if !r.as_ref().is_err_and(super::CallError::is_fault) {
            plugin
                .parsers
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(inst);
        }
        Ok((r?, reads))
    }
}

impl crate::rules::registry::LoaderKind for PluginLoader {
    fn extensions(&self) -> &[&str] {
        &self.extensions
    }

    fn parse(
        &self,
        input: &crate::rules::registry::LoadInput<'_>,
        spans: &mut dyn FnMut(&[crate::rules::PathSeg], std::ops::Range<usize>),
    ) -> Result<Json, (String, Option<std::ops::Range<usize>>)> {
        let plugin = &self.plugin;
        let text = input.text;
        let what = |m: String| {
            (
                format!("loader `{}` of mod `{}`: {m}", self.id, plugin.mod_id),
                None,
            )
        };
        let cache = plugin.load_cache();
        let key = cache.map(|c| c.key(self.id.as_str(), input.path, text));
        let cached = cache
            .zip(key.as_ref())
            .and_then(|(c, k)| c.get(k, input.files));
        let (bytes, reads) = match cached {
            Some(bytes) => (bytes, None),
            None => self
                .translate(input, cache.is_some())
                .map_err(|e| what(e.into_message()))?,
        };
        let reply: tessera_plugin_api::abi::LoadReply = serde_json::from_slice(&bytes)
            .map_err(|e| what(format!("its reply is not a load reply: {e}")))?;
        // Only a translation is kept: a failing file runs (and is reported) every time.
        if let (Some(c), Some(k), Some(reads)) = (cache, &key, &reads) {
            if reply.tree.is_some() && reply.error.is_none() {
                c.put(k, reads, &bytes);
            }
        }
        match (reply.tree, reply.error) {
            (_, Some(message)) => {
                let span = reply.offset.and_then(|o| usize::try_from(o).ok()).map(|o| {
                    let o = o.min(text.len());
                    o..(o + 1).min(text.len())
                });
                Err((message, span))
            }
            (Some(tree), None) => {
                for w in reply.warnings {
                    let span = w.offset.and_then(|o| usize::try_from(o).ok()).map(|o| {
                        let o = o.min(text.len());
                        o..(o + 1).min(text.len())
                    });
                    input.warn_unsupported(w.construct, w.message, span);
                }
                for sp in &reply.spans {
                    let path: Vec<crate::rules::PathSeg> = sp
                        .path
                        .split('.')
                        .map(|k| crate::rules::PathSeg::Key(k.to_owned()))
                        .collect();
                    let clamp = |n: u64| usize::try_from(n).unwrap_or(usize::MAX).min(text.len());
                    let (start, end) = (clamp(sp.start), clamp(sp.end));
                    if start <= end {
                        spans(&path, start..end);
                    }
                }
                Ok(tree)
            }
            (None, None) => Err(what("it returned neither a tree nor an error".into())),
        }
    }
}
