//! Panics in wasm: Rust panics abort the instance with a trap (`RuntimeError:
//! unreachable`), which says nothing. The hook installed at start writes the panic's
//! message to the console, keeps it for `lastPanic()` (the JS entry turns a trap into
//! an `Error` carrying it), and marks every GPU device lost, since its state is then
//! unknown.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;

thread_local! {
    /// The message of the last panic.
    static LAST: RefCell<Option<String>> = const { RefCell::new(None) };
    /// Marks each GPU device made lost.
    static GPUS: RefCell<Vec<Box<dyn Fn()>>> = RefCell::new(Vec::new());
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = error)]
    fn console_error(s: &str);
}

/// Installs the hook (wasm-bindgen runs this when the module starts).
#[wasm_bindgen(start)]
fn start() {
    std::panic::set_hook(Box::new(|info| {
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let at = info
            .location()
            .map(|l| format!(" at {l}"))
            .unwrap_or_default();
        let msg = crate::error::escaped(&format!("nxrig: internal error (a panic{at}): {what}"));
        console_error(&msg);
        LAST.with(|l| l.replace(Some(msg)));
        // `try_with`: the hook may run while the list is borrowed.
        let _ = GPUS.try_with(|g| {
            if let Ok(g) = g.try_borrow() {
                g.iter().for_each(|lose| lose());
            }
        });
    }));
}

/// Registers a GPU device for the hook to mark lost.
pub(crate) fn watch(rig: &crate::Rig) {
    let lose = rig.loser();
    GPUS.with(|g| g.borrow_mut().push(Box::new(lose)));
}

/// The message of the last Rust panic, if one happened: after one, nxrig's state is
/// unknown (the page should be reloaded) and every GPU device is marked lost.
#[wasm_bindgen(js_name = lastPanic)]
pub fn last_panic() -> Option<String> {
    LAST.with(|l| l.borrow().clone())
}
