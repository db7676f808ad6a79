//! Temporary files beside their target, renamed into place once whole. A temporary
//! not committed is removed when dropped (a failed write) or by
//! [`remove_temporaries`] (the command line calls it on SIGINT and SIGTERM).

use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Temporaries not yet committed or removed.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
/// Folders made for output, removed (when empty) on an interrupt.
static DIRS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Registers `dir`, a folder about to be made for output, to be removed by
/// [`remove_temporaries`] if it is empty then.
pub fn remove_on_interrupt(dir: &Path) {
    DIRS.lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(dir.to_owned());
}

fn live() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

fn forget(p: &Path) {
    live().retain(|x| x != p);
}

/// Held while a set of temporaries is renamed into place ([`commit_all`]), so that
/// an interrupt waits for the set; whether a set was committed whole.
static COMMITTING: Mutex<bool> = Mutex::new(false);

/// Removes every temporary file not yet renamed into place (for an interrupt
/// handler, before the process exits: no `.nxrig-*.tmp` is left behind). A set of
/// files being renamed into place is waited for: the output is all there or none of
/// it ([`committed`] says which).
pub fn remove_temporaries() {
    let _set = COMMITTING.lock().unwrap_or_else(|e| e.into_inner());
    for p in live().drain(..) {
        let _ = std::fs::remove_file(p);
    }
    for d in DIRS.lock().unwrap_or_else(|e| e.into_inner()).drain(..) {
        let _ = std::fs::remove_dir(d);
    }
}

/// Whether a set of output files (a conversion's, renamed together) was renamed into
/// place whole: an interrupt handler says so rather than that nothing was written.
pub fn committed() -> bool {
    *COMMITTING.lock().unwrap_or_else(|e| e.into_inner())
}

/// Renames each temporary to its target, all or none: every file synced first, the
/// renames under a lock an interrupt waits for ([`remove_temporaries`]); a rename that
/// fails removes the targets renamed before it (and every temporary).
///
/// # Errors
/// The target and the error of the sync or rename that failed.
pub(crate) fn commit_all(items: Vec<(Temp, PathBuf)>) -> Result<(), (PathBuf, io::Error)> {
    for (t, p) in &items {
        t.file.sync_all().map_err(|e| (p.clone(), e))?;
    }
    let mut set = COMMITTING.lock().unwrap_or_else(|e| e.into_inner());
    let mut renamed: Vec<PathBuf> = Vec::new();
    for (mut t, p) in items {
        if let Err(e) = std::fs::rename(&t.path, &p) {
            for r in renamed {
                let _ = std::fs::remove_file(r);
            }
            return Err((p, e));
        }
        t.done = true;
        forget(&t.path);
        renamed.push(p);
    }
    *set = true;
    Ok(())
}

/// A temporary file beside a target.
pub(crate) struct Temp {
    path: PathBuf,
    file: File,
    done: bool,
}

impl Temp {
    /// A new file `.nxrig-PID-N.tmp` in `target`'s folder.
    pub(crate) fn beside(target: &Path) -> io::Result<Temp> {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = target
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        loop {
            let path = dir.join(format!(
                ".nxrig-{}-{}.tmp",
                std::process::id(),
                N.fetch_add(1, Ordering::Relaxed)
            ));
            // Known before it exists, so that an interrupt between the two removes it.
            live().push(path.clone());
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(file) => {
                    return Ok(Temp {
                        path,
                        file,
                        done: false,
                    })
                }
                Err(e) => {
                    forget(&path);
                    if e.kind() != io::ErrorKind::AlreadyExists {
                        return Err(e);
                    }
                }
            }
        }
    }

    /// The file, to write.
    pub(crate) fn file(&mut self) -> &mut File {
        &mut self.file
    }

    /// Syncs the file and renames it to `target`.
    pub(crate) fn commit(mut self, target: &Path) -> io::Result<()> {
        self.file.sync_all()?;
        std::fs::rename(&self.path, target)?;
        self.done = true;
        forget(&self.path);
        Ok(())
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_file(&self.path);
            forget(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    /// A set whose second rename fails (its target a folder that is not empty) leaves
    /// neither the first target nor a temporary: all of the set, or none of it.
    #[test]
    fn a_set_is_renamed_whole_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.safetensors"), dir.path().join("b"));
        std::fs::create_dir(&b).unwrap();
        std::fs::write(b.join("x"), b"x").unwrap();
        let mut ta = Temp::beside(&a).unwrap();
        ta.file().write_all(b"a").unwrap();
        let tb = Temp::beside(&b).unwrap();
        let (pa, pb) = (ta.path.clone(), tb.path.clone());
        let (at, _) = commit_all(vec![(ta, a.clone()), (tb, b.clone())]).unwrap_err();
        assert_eq!(at, b);
        assert!(!a.exists() && !pa.exists() && !pb.exists());
        // And a set that renames is whole.
        let mut ta = Temp::beside(&a).unwrap();
        ta.file().write_all(b"a").unwrap();
        let c = dir.path().join("c.json");
        let tc = Temp::beside(&c).unwrap();
        commit_all(vec![(ta, a.clone()), (tc, c.clone())]).unwrap();
        assert_eq!(std::fs::read(&a).unwrap(), b"a");
        assert!(c.exists() && committed());
    }
}
