//! The content-loader contract: what a loader (TOML, JSON, or a foreign format a mod
//! adds) is given — a file's text and path, the mod's other files, a place for warnings —
//! and what it returns. Registered in the registry's loader table like any other kind.

use std::fmt;
use std::sync::Arc;

/// A mod's files as its loaders may read them: by a path relative to the mod's folder
/// (`data/common.macros`, `../../shared/corpora/x`), confined to what the mod may read
/// (its own folder and the folders the operator granted it).
pub trait ModFiles: Send + Sync + fmt::Debug {
    /// The bytes of the file at `path`.
    fn read(&self, path: &str) -> Result<Vec<u8>, FileError>;
}

/// Why a mod's file could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FileError {
    /// There is no such file, or it cannot be read.
    #[error("cannot read `{path}`: {reason}")]
    Unreadable {
        /// The path asked for.
        path: String,
        /// What the system said.
        reason: String,
    },
    /// The file is outside the folders the mod may read.
    #[error("`{path}` is outside the folders mod `{mod_id}` may read (its own, and those server.toml `[grants.{mod_id}] read` lists)")]
    Outside {
        /// The path asked for.
        path: String,
        /// The mod.
        mod_id: String,
    },
}

/// What a loader reads: a file's text, where the file is, and (for a mod's content) the
/// mod's other files, for formats that include one file from another.
#[derive(Clone, Copy)]
pub struct LoadInput<'a> {
    /// The file's text.
    pub text: &'a str,
    /// The file's path relative to its mod's folder, `/`-separated (empty when the text
    /// has no file: content built in memory).
    pub path: &'a str,
    /// The mod's files, when the text is a mod's content file.
    pub files: Option<&'a Arc<dyn ModFiles>>,
    /// Where the loader's warnings go (what it read but could not translate), when
    /// someone listens: see [`LoadInput::warn`].
    pub warnings: Option<&'a std::cell::RefCell<Vec<LoadWarning>>>,
}

/// A loader's warning: a message and, when known, the bytes it is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadWarning {
    /// What the loader could not translate, and what that means for the content.
    pub message: String,
    /// Where in the text.
    pub span: Option<std::ops::Range<usize>>,
    /// The unsupported construct it is about, when the loader named one.
    pub construct: Option<String>,
}

impl LoadInput<'_> {
    /// Reports a warning (kept only when the caller listens for them).
    pub fn warn(&self, message: impl Into<String>, span: Option<std::ops::Range<usize>>) {
        self.warn_unsupported(None, message, span);
    }

    /// Reports a warning about an unsupported `construct` of the format (when given):
    /// `tessera check --format json` counts the constructs in a histogram.
    pub fn warn_unsupported(
        &self,
        construct: Option<String>,
        message: impl Into<String>,
        span: Option<std::ops::Range<usize>>,
    ) {
        if let Some(w) = self.warnings {
            w.borrow_mut().push(LoadWarning {
                message: message.into(),
                span,
                construct,
            });
        }
    }
}

impl<'a> LoadInput<'a> {
    /// Text with no file behind it.
    pub fn text(text: &'a str) -> LoadInput<'a> {
        LoadInput {
            text,
            path: "",
            files: None,
            warnings: None,
        }
    }
}

/// A content loader: turns a file's text into the content tree (TOML, JSON, or a
/// foreign format a mod adds).
pub trait LoaderKind: Send + Sync {
    /// File extensions it reads (without the dot).
    fn extensions(&self) -> &[&str];
    /// Parses the file into the neutral content tree, reporting to `spans` the byte span
    /// of every table entry and list item by path (`class.wolf.trigger[0].do[1]`), for
    /// diagnostics. Errors carry a byte span.
    fn parse(
        &self,
        input: &LoadInput<'_>,
        spans: &mut dyn FnMut(&[crate::rules::PathSeg], std::ops::Range<usize>),
    ) -> Result<serde_json::Value, (String, Option<std::ops::Range<usize>>)>;
}
