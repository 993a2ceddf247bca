//! Parsing content sources into trees: each file through its loader (TOML, JSON, or a
//! mod's plugin loader), ahead of the build on every core, and each tree into the content
//! schema, with errors at file:line.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value as Json;

use super::{path_hash, ContentSource};
use crate::diag::{Diagnostic, Location};
use crate::id::closest;
use crate::rules::content::ContentFile;
use crate::rules::params::{path_string, PathSeg};
use crate::rules::registry::{LoadInput, Registry};

fn loader_of<'r>(
    registry: &'r Registry,
    src: &ContentSource,
) -> Result<
    &'r crate::rules::registry::Entry<dyn crate::rules::registry::LoaderKind>,
    Box<Diagnostic>,
> {
    let path = &src.source.path;
    if let Some(id) = src.loader {
        return registry.loaders.get(id).ok_or_else(|| {
            let known: Vec<&str> = registry.loaders.iter().map(|l| l.id.as_str()).collect();
            Diagnostic::error(
                "E-CONTENT-FORMAT",
                format!("no content loader `{id}` is registered"),
            )
            .in_file(path)
            .with_help(format!(
                "mod.toml `[content] loaders` names it for this file; the loaders are: {}",
                known.join(", ")
            ))
            .for_mod(&src.mod_id)
            .into()
        });
    }
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    registry.loader_for(ext).ok_or_else(|| {
        Diagnostic::error("E-CONTENT-FORMAT", format!("no content loader reads `.{ext}` files"))
            .in_file(path)
            .with_help("content files are `.toml` or `.json`, unless a mod registers a loader for another format")
            .for_mod(&src.mod_id)
            .into()
    })
}

/// The warnings the loader gave when it parsed `src`, as diagnostics at file:line.
pub(super) fn loader_warnings(src: &ContentSource) -> impl Iterator<Item = Diagnostic> + '_ {
    src.warnings.get().into_iter().flatten().map(|w| {
        let loc = match &w.span {
            Some(s) => Location::span(&src.source, s.clone()),
            None => Location::file(&src.source.path),
        };
        Diagnostic::warning("W-CONTENT-LOADER", w.message.clone())
            .at(loc)
            .for_mod(&src.mod_id)
            .with_construct(w.construct.clone())
    })
}

/// Parses every source not parsed yet on up to `threads` threads (one per core unless
/// told), keeping each tree in its source for the build to take in order: a loader's call
/// depends only on its file (the loader contract), so the files are independent. Failed
/// parses are left for the build, which parses them again and reports them in order.
pub(super) fn parse_ahead(registry: &Registry, sources: &[ContentSource], threads: usize) {
    let todo: Vec<&ContentSource> = sources.iter().filter(|s| !s.is_parsed()).collect();
    let threads = threads.min(todo.len() / MIN_FILES_A_THREAD);
    if threads < 2 {
        return;
    }
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                while let Some(src) = todo.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let _ = parse_tree(registry, src);
                }
            });
        }
    });
}

/// The threads to parse on: one per core.
pub(super) fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Below this many unparsed files a thread, parsing ahead is not worth a thread.
const MIN_FILES_A_THREAD: usize = 8;

pub(super) fn parse_tree(
    registry: &Registry,
    src: &ContentSource,
) -> Result<Json, Box<Diagnostic>> {
    if let Some(tree) = src.tree.get() {
        return Ok(tree.clone());
    }
    let loader = loader_of(registry, src)?;
    let mut map = HashMap::new();
    let warnings = std::cell::RefCell::new(Vec::new());
    let input = LoadInput {
        text: &src.source.text,
        path: &src.path,
        files: src.files.as_ref(),
        warnings: Some(&warnings),
    };
    let parsed = loader.imp.parse(&input, &mut |p, r| {
        map.insert(path_hash(p), r);
    });
    let _ = src.spans.set(map);
    if let Ok(tree) = &parsed {
        let _ = src.tree.set(tree.clone());
        let _ = src.warnings.set(warnings.into_inner());
    }
    parsed.map_err(|(msg, span)| {
        let loc = match span {
            Some(s) => Location::span(&src.source, s),
            None => Location::file(&src.source.path),
        };
        Box::new(
            Diagnostic::error("E-CONTENT-PARSE", format!("could not parse content: {msg}"))
                .at(loc)
                .for_mod(&src.mod_id),
        )
    })
}

pub(super) fn parse_file(
    registry: &Registry,
    src: &ContentSource,
    json: &Json,
) -> Result<ContentFile, Box<Diagnostic>> {
    let path = &src.source.path;
    loader_of(registry, src)?;
    let stripped;
    let content_tree = if src.ignore_keys.is_empty() {
        json
    } else {
        let mut t = json.clone();
        if let Json::Object(m) = &mut t {
            for k in &src.ignore_keys {
                m.shift_remove(k);
            }
        }
        stripped = t;
        &stripped
    };
    serde_path_to_error::deserialize::<_, ContentFile>(content_tree).map_err(|e| {
        let segs = serde_path(e.path());
        let inner = e.into_inner().to_string();
        let span = src.locate(registry, &segs);
        let mut d = Diagnostic::error(
            "E-CONTENT-SCHEMA",
            format!("{inner} (at `{}`)", path_string(&segs)),
        )
        .at(match span {
            Some(s) => Location::span(&src.source, s),
            None => Location::file(path),
        })
        .for_mod(&src.mod_id);
        if let Some(help) = unknown_field_help(&inner) {
            d = d.with_help(help);
        }
        Box::new(d)
    })
}

/// Turns serde's path into ours.
fn serde_path(p: &serde_path_to_error::Path) -> Vec<PathSeg> {
    p.iter()
        .filter_map(|s| match s {
            serde_path_to_error::Segment::Map { key }
            | serde_path_to_error::Segment::Enum { variant: key } => {
                Some(PathSeg::Key(key.clone()))
            }
            serde_path_to_error::Segment::Seq { index } => Some(PathSeg::Index(*index)),
            serde_path_to_error::Segment::Unknown => None,
        })
        .collect()
}

/// From serde's "unknown field `x`, expected one of `a`, `b`" builds a did-you-mean.
fn unknown_field_help(msg: &str) -> Option<String> {
    let rest = msg.strip_prefix("unknown field `")?;
    let (field, expected) = rest.split_once('`')?;
    let known: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
    closest(field, known.iter().copied())
        .first()
        .map(|b| format!("did you mean `{b}`?"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::SourceText;

    fn sources(n: usize) -> Vec<ContentSource> {
        (0..n)
            .map(|i| {
                let text = if i == 7 {
                    "[class.broken\n".to_owned()
                } else {
                    format!("[class.c{i}]\nproperties = {{ n = {i} }}\ntags = [\"t{i}\"]\n")
                };
                ContentSource::new("m", SourceText::new(format!("c{i}.toml"), text))
            })
            .collect()
    }

    #[test]
    fn parsing_ahead_on_threads_gives_the_trees_parsing_in_order_gives() {
        let registry = Registry::with_core();
        let ahead = sources(64);
        parse_ahead(&registry, &ahead, 4);
        let in_order = sources(64);
        for (i, (a, b)) in ahead.iter().zip(&in_order).enumerate() {
            if i == 7 {
                assert!(
                    !a.is_parsed(),
                    "a failed parse is left for the build to report"
                );
                assert!(parse_tree(&registry, a).is_err());
                continue;
            }
            assert!(a.is_parsed(), "source {i} parsed ahead");
            let (a, b) = (parse_tree(&registry, a), parse_tree(&registry, b));
            assert_eq!(a.ok(), b.ok(), "source {i}");
        }
    }

    #[test]
    fn a_few_files_are_not_worth_a_thread() {
        let registry = Registry::with_core();
        let few = sources(MIN_FILES_A_THREAD * 2 - 1);
        parse_ahead(&registry, &few, 4);
        assert!(few.iter().all(|s| !s.is_parsed()), "left to the build");
    }
}
