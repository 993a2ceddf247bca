//! What a loader plugin may ask while `tessera_load` runs: the path of the file it is
//! reading (`load_path`) and the bytes of another file of its mod (`load_read`, for
//! formats with includes), confined to the folders the mod may read. Outside a load both
//! return -1.

use std::sync::Arc;

use tessera_plugin_api::abi;
use wasmtime::{Caller, Extern, Linker};

use super::host::HostState;
use crate::rules::registry::{FileError, ModFiles};

/// The largest file `load_read` hands a plugin (a larger one is reported unreadable).
pub(crate) const MAX_READ: usize = 64 << 20;

/// The file a loader is reading, and its mod's files.
#[derive(Debug, Clone, Default)]
pub(crate) struct LoadCx {
    /// The file's path relative to its mod's folder.
    pub path: String,
    /// The mod's files (none for text with no mod behind it).
    pub files: Option<Arc<dyn ModFiles>>,
}

/// `load_read`'s answer for a file that cannot be read.
pub(crate) const UNREADABLE: i64 = -1;
/// `load_read`'s answer for a file outside what the mod may read.
pub(crate) const OUTSIDE: i64 = -2;

impl HostState {
    /// The bytes of `path` (relative to the mod's folder) for the running loader, or
    /// `UNREADABLE`/`OUTSIDE`; the reason goes to the host's error for the call.
    fn load_read(&mut self, path: Option<Vec<u8>>) -> Result<Vec<u8>, i64> {
        let running = self
            .load
            .as_ref()
            .and_then(|l| Some((l.files.clone()?, l.path.clone())));
        let Some((files, loading)) = running else {
            return Err(self.fail("load_read: no loader is running", UNREADABLE));
        };
        let Some(path) = path.and_then(|p| String::from_utf8(p).ok()) else {
            return Err(self.fail("load_read: the path is not UTF-8 in memory", UNREADABLE));
        };
        let read = files.read(&path);
        // The file being loaded is its text, already part of the reply's cache key.
        if path != loading {
            let d = read.as_ref().ok().map(|b| super::load_cache::digest(b));
            self.load_reads.insert(path.clone(), d);
        }
        match read {
            Ok(bytes) if bytes.len() > MAX_READ => Err(self.fail(
                format!("load_read: `{path}` is larger than {} MiB", MAX_READ >> 20),
                UNREADABLE,
            )),
            Ok(bytes) => Ok(bytes),
            Err(e @ FileError::Outside { .. }) => Err(self.fail(e.to_string(), OUTSIDE)),
            Err(e) => Err(self.fail(e.to_string(), UNREADABLE)),
        }
    }
}

/// Copies `bytes` (as many as fit in `cap`) to guest memory at `out`; false when the
/// range is outside its memory.
fn write_bytes(c: &mut Caller<'_, HostState>, out: i32, cap: i32, bytes: &[u8]) -> bool {
    let Some(Extern::Memory(mem)) = c.get_export("memory") else {
        return false;
    };
    let n = usize::try_from(cap.max(0)).unwrap_or(0).min(bytes.len());
    let Ok(out) = usize::try_from(out) else {
        return false;
    };
    let Some(dst) = out
        .checked_add(n)
        .and_then(|end| mem.data_mut(&mut *c).get_mut(out..end))
    else {
        return false;
    };
    dst.copy_from_slice(&bytes[..n]);
    true
}

/// Links `load_path` and `load_read`.
pub(crate) fn link(l: &mut Linker<HostState>) -> wasmtime::Result<()> {
    let m = abi::IMPORT_MODULE;
    l.func_wrap(
        m,
        "load_path",
        |mut c: Caller<'_, HostState>, out: i32, cap: i32| -> i32 {
            let Some(path) = c.data().load.as_ref().map(|l| l.path.clone()) else {
                return -1;
            };
            if !write_bytes(&mut c, out, cap, path.as_bytes()) {
                return c
                    .data_mut()
                    .fail("load_path: the buffer is outside memory", -1);
            }
            i32::try_from(path.len()).unwrap_or(i32::MAX)
        },
    )?;
    l.func_wrap(
        m,
        "load_read",
        |mut c: Caller<'_, HostState>, ptr: i32, len: i32, out: i32, cap: i32| -> i64 {
            let path = super::linker::read_bytes(&mut c, ptr, len);
            let bytes = match c.data_mut().load_read(path) {
                Ok(b) => b,
                Err(status) => return status,
            };
            if !write_bytes(&mut c, out, cap, &bytes) {
                return c
                    .data_mut()
                    .fail("load_read: the buffer is outside memory", UNREADABLE);
            }
            i64::try_from(bytes.len()).unwrap_or(i64::MAX)
        },
    )?;
    Ok(())
}
