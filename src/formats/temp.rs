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

/// Removes every temporary file not yet renamed into place (for an interrupt
/// handler, before the process exits: no `.nxrig-*.tmp` is left behind).
pub fn remove_temporaries() {
    for p in live().drain(..) {
        let _ = std::fs::remove_file(p);
    }
    for d in DIRS.lock().unwrap_or_else(|e| e.into_inner()).drain(..) {
        let _ = std::fs::remove_dir(d);
    }
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
