//! The count of arrays made from JavaScript and not yet disposed, per device: what
//! `Device.memory()` reports as `arrays`.

use std::cell::RefCell;
use std::collections::HashMap;

thread_local! {
    /// Arrays alive (not disposed) from JavaScript, per device id.
    static ALIVE: RefCell<HashMap<u64, usize>> = RefCell::new(HashMap::new());
}

/// Arrays alive (made and not disposed) from JavaScript on the device `rig_id`.
pub(crate) fn alive(rig_id: u64) -> usize {
    ALIVE.with(|m| m.borrow().get(&rig_id).copied().unwrap_or(0))
}

/// One more array alive on the device `rig_id`.
pub(crate) fn made(rig_id: u64) {
    ALIVE.with(|m| *m.borrow_mut().entry(rig_id).or_default() += 1);
}

/// One array fewer alive on the device `rig_id`.
pub(crate) fn disposed(rig_id: u64) {
    ALIVE.with(|m| {
        if let Some(n) = m.borrow_mut().get_mut(&rig_id) {
            *n = n.saturating_sub(1);
        }
    });
}
