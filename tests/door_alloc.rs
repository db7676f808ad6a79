//! The door allocates nothing: a counting global
//! allocator sees no allocation while it claims, runs and releases three operands.
#![cfg(not(target_arch = "wasm32"))]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use nxrig::array::{door, Answer};
use nxrig::{AnyArray, Array};

struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static A: Counting = Counting;

#[test]
fn the_door_allocates_nothing() {
    let xs: Vec<AnyArray> = (0..3)
        .map(|_| Array::<f32>::of_array(&[4], &[1.0; 4]).unwrap().into())
        .collect();
    let (w, r) = ([&xs[0]], [&xs[1], &xs[2]]);
    // Warm up (lazy statics), then count.
    door(&w, &r, || ()).unwrap();
    COUNTING.store(true, Ordering::Relaxed);
    let mut n = 0;
    for _ in 0..1000 {
        if door(&w, &r, || n += 1).unwrap() == Answer::Done {
            continue;
        }
    }
    COUNTING.store(false, Ordering::Relaxed);
    assert_eq!(n, 1000);
    assert_eq!(ALLOCS.load(Ordering::Relaxed), 0, "the door allocated");
}
