//! The process around the commands: standard output that ends quietly on a closed
//! pipe (`nxrig info FILE | head`), interrupts that remove the temporary files, a file
//! size limit that fails the write instead of killing the process, and the GPU
//! drivers' messages kept off standard error while a device opens.

use std::io::{IsTerminal, Write};

/// Writes `line` and a newline to standard output; on a closed pipe (the reader is
/// gone, as with `| head`) the process ends quietly with status 0, as `ls` and
/// `ripgrep` do.
pub fn say(line: &str) {
    let mut out = Lines::new();
    out.line(line);
}

/// Standard output, buffered, flushed when dropped; a closed pipe ends the process
/// quietly (see [`say`]).
pub struct Lines(std::io::BufWriter<std::io::StdoutLock<'static>>);

impl Lines {
    pub fn new() -> Lines {
        Lines(std::io::BufWriter::with_capacity(
            1 << 16,
            std::io::stdout().lock(),
        ))
    }

    /// Writes `line` and a newline.
    pub fn line(&mut self, line: &str) {
        let r = writeln!(self.0, "{line}");
        ended(r);
    }
}

impl Drop for Lines {
    fn drop(&mut self) {
        let r = self.0.flush();
        ended(r);
    }
}

/// Ends the process on a write error: quietly (0) for a closed pipe, else with the
/// error (2).
fn ended(r: std::io::Result<()>) {
    if let Err(e) = r {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        let _ = writeln!(std::io::stderr(), "nxrig: standard output: {e}");
        std::process::exit(2);
    }
}

/// Installs the handlers: on SIGINT, SIGTERM or SIGHUP the temporary files are removed
/// (output being renamed into place is waited for: it is then whole) and the process
/// exits with 128 plus the signal's number, as a shell reports a process the signal
/// ended (130, 143, 129; elsewhere Ctrl-C, 130); SIGXFSZ is ignored, so that a write
/// past a file size limit fails with an error (and its temporary is removed).
pub fn install_handlers() {
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        if let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) {
            std::thread::spawn(move || {
                if let Some(signal) = signals.forever().next() {
                    interrupted(128 + signal);
                }
            });
        }
        // SAFETY: setting a signal's disposition has no other effect; `bus` only removes
        // files and writes to a descriptor before it ends the process.
        unsafe {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            libc::signal(libc::SIGBUS, bus as *const () as libc::sighandler_t);
        }
    }
    #[cfg(not(unix))]
    let _ = ctrlc::set_handler(|| interrupted(130));
}

/// An interrupt: the temporaries go (output being renamed into place is waited for),
/// one line says whether the output was written whole, and the process ends with
/// `status`.
fn interrupted(status: i32) -> ! {
    nxrig::formats::remove_temporaries();
    let said = if nxrig::formats::committed() {
        "nxrig: interrupted after the output was written whole"
    } else {
        "nxrig: interrupted; no output written"
    };
    // On a terminal the progress bar's line is cleared first, not written after.
    let clear = if std::io::stderr().is_terminal() {
        "\r\x1b[2K"
    } else {
        ""
    };
    let _ = writeln!(std::io::stderr(), "{clear}{said}");
    std::process::exit(status);
}

/// SIGBUS: a mapped input file shrank while it was read (another process truncated
/// it). The temporaries go, one line says so, and the process ends with status 2.
#[cfg(unix)]
extern "C" fn bus(_: libc::c_int) {
    nxrig::formats::remove_temporaries();
    let msg = b"nxrig: an input file changed size while it was read; no output written\n";
    // SAFETY: write(2) of a static buffer, then _exit(2): both async-signal-safe.
    unsafe {
        libc::write(2, msg.as_ptr().cast(), msg.len());
        libc::_exit(2);
    }
}

/// Runs `f` with standard error sent to /dev/null (Unix), so that what GPU drivers
/// print while a device opens ("lavapipe is not a conformant vulkan implementation")
/// does not join nxrig's one line; restored before returning.
pub fn without_driver_chatter<T>(f: impl FnOnce() -> T) -> T {
    #[cfg(unix)]
    let _held = Held::new();
    f()
}

/// Standard error sent to /dev/null until dropped (even by a panic's unwinding).
#[cfg(unix)]
struct Held(libc::c_int);

#[cfg(unix)]
impl Held {
    fn new() -> Option<Held> {
        // SAFETY: plain descriptor calls on descriptors this function owns.
        unsafe {
            let saved = libc::dup(2);
            if saved < 0 {
                return None;
            }
            let null = libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY);
            if null < 0 {
                libc::close(saved);
                return None;
            }
            libc::dup2(null, 2);
            libc::close(null);
            Some(Held(saved))
        }
    }
}

#[cfg(unix)]
impl Drop for Held {
    fn drop(&mut self) {
        // SAFETY: `self.0` is the saved standard error, owned here.
        unsafe {
            libc::dup2(self.0, 2);
            libc::close(self.0);
        }
    }
}
