//! The claims protocol, rule by rule: one test per rule that states a behaviour or an
//! error, named after it, then donation scenarios.
#![cfg(not(target_arch = "wasm32"))]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Barrier;

use nxrig::rig::{Access, Buffer, Claim, Kind, Rig, Submission};
use nxrig::Error;

fn buf(n: usize) -> Buffer {
    Buffer::create(&Rig::host(), n, Kind::Device).unwrap()
}

fn filled(n: usize, byte: u8) -> Buffer {
    let b = buf(n);
    b.write(|d| d.fill(byte)).unwrap();
    b
}

/// Whether a donation of `b` alone would be exclusive now.
fn would_be_exclusive(b: &Buffer) -> bool {
    Claim::with(&[], &[b], |c| c.exclusive(b)).unwrap()
}

fn bytes(b: &Buffer) -> Vec<u8> {
    b.read(|d| d.to_vec()).unwrap()
}

// --- The opening paragraphs -------------------------------------------------------

#[test]
fn every_view_and_borrow_of_an_allocation_shares_the_allocations_claims() {
    let b = buf(16);
    let v = b.view(4, 8).unwrap();
    let h = Claim::hold(&[&v]).unwrap();
    assert!(
        !would_be_exclusive(&b),
        "a hold on a view is a claim on the allocation"
    );
    h.release();
    let o = b.borrow(&Rig::virtual_host("other")).unwrap().unwrap();
    let h = Claim::hold(&[&o]).unwrap();
    assert!(
        !would_be_exclusive(&b),
        "a hold on a borrow is a claim on the allocation"
    );
    drop(h);
    assert!(would_be_exclusive(&b));
}

#[test]
fn the_host_holds_a_read_claim_during_buffer_read_and_buffer_write() {
    let b = buf(8);
    let seen = b.read(|_| would_be_exclusive(&b)).unwrap();
    assert!(!seen, "inside read");
    let seen = b.write(|_| would_be_exclusive(&b)).unwrap();
    assert!(!seen, "inside write");
}

#[test]
fn claim_with_holds_a_read_claim_on_every_buffer_it_is_given() {
    let (a, b) = (buf(8), buf(8));
    Claim::with(&[&a, &b], &[], |_| {
        assert!(!would_be_exclusive(&a));
        assert!(!would_be_exclusive(&b));
    })
    .unwrap();
    // A donated buffer whose claim stays a read claim holds the memory too.
    let v = b.view(0, 4).unwrap();
    Claim::with(&[], &[&v], |c| {
        assert!(!c.exclusive(&v));
        assert!(!would_be_exclusive(&b));
    })
    .unwrap();
}

#[test]
fn a_hold_lasts_until_release_or_until_it_is_unreachable() {
    let b = buf(8);
    let h = Claim::hold(&[&b]).unwrap();
    assert!(!would_be_exclusive(&b));
    h.release();
    assert!(would_be_exclusive(&b));
    {
        let _h = Claim::hold(&[&b]).unwrap();
        assert!(!would_be_exclusive(&b));
    }
    assert!(would_be_exclusive(&b), "dropping the hold ends it");
}

#[test]
fn no_consumption_ends_a_hold() {
    let b = buf(8);
    let _h = Claim::hold(&[&b]).unwrap();
    let r = Claim::with(&[], &[&b], |c| c.consume("donated to f", &b)).unwrap();
    assert!(matches!(r, Err(Error::Claim { .. })), "{r:?}");
    assert!(b.is_live());
}

#[test]
fn submit_holds_a_read_claim_on_every_allocation_the_work_uses_until_it_returns() {
    let (a, b) = (buf(8), buf(8));
    let inside = AtomicBool::new(true);
    Rig::host()
        .submit(&[&a], &[&b], || {
            inside.store(
                would_be_exclusive(&a) || would_be_exclusive(&b),
                Ordering::Relaxed,
            );
            Ok(())
        })
        .unwrap();
    assert!(!inside.load(Ordering::Relaxed));
    assert!(
        would_be_exclusive(&a) && would_be_exclusive(&b),
        "released on return"
    );
}

#[test]
fn work_on_a_device_holds_no_claim_once_submitted() {
    let a = buf(8);
    let s = Rig::host().submit(&[], &[&a], || Ok(())).unwrap();
    assert!(s.0 > 0);
    assert!(would_be_exclusive(&a));
}

#[test]
fn only_claim_with_holds_memory_exclusive_for_an_input_its_call_donates() {
    let b = buf(8);
    Claim::with(&[&b], &[], |c| assert!(!c.exclusive(&b))).unwrap();
    Claim::with(&[], &[&b], |c| assert!(c.exclusive(&b))).unwrap();
}

#[test]
fn memory_outside_rig_is_outside_the_claims_and_never_exclusive() {
    static BYTES: [u8; 8] = [1; 8];
    let s = Buffer::of_bytes(&BYTES[..]);
    assert_eq!(s.access(), Access::Read);
    assert!(!would_be_exclusive(&s), "of_bigarray/of_io memory");
    let e = buf(8);
    e.export().unwrap();
    assert!(!would_be_exclusive(&e), "exported memory");
    let sh = buf(8);
    Claim::share(&sh).unwrap();
    assert!(!would_be_exclusive(&sh), "shared memory");
}

#[test]
fn memory_that_admits_only_read_is_never_exclusive() {
    let b = buf(8);
    let r = Claim::with(&[&b], &[], |c| c.consume("read-only now", &b))
        .unwrap()
        .unwrap();
    assert_eq!(r.access(), Access::Read);
    assert!(!would_be_exclusive(&r));
}

#[test]
fn a_call_that_uses_a_dead_buffers_bytes_fails_with_the_consumers_reason() {
    let b = buf(8);
    Claim::with(&[], &[&b], |c| c.consume("donated to Nx.mul", &b).unwrap()).unwrap();
    for e in [
        b.read(|_| ()).unwrap_err(),
        b.write(|_| ()).unwrap_err(),
        Buffer::copy(&b, &buf(8)).unwrap_err(),
        Buffer::fill(&b, 0).unwrap_err(),
        b.view(0, 1).unwrap_err(),
        Claim::hold(&[&b]).unwrap_err(),
    ] {
        assert!(
            matches!(&e, Error::Dead { why, .. } if why == "donated to Nx.mul"),
            "{e}"
        );
    }
}

#[test]
fn consuming_frees_nothing_and_the_memory_lives_on_in_the_returned_buffer() {
    let b = filled(8, 7);
    let n = Claim::with(&[], &[&b], |c| c.consume("donated", &b).unwrap()).unwrap();
    assert_eq!(bytes(&n), [7; 8]);
    assert!(n.same_memory(&b));
}

#[test]
fn where_held_exclusive_the_returned_buffer_admits_writes_and_no_earlier_buffer_sees_them() {
    let b = filled(8, 1);
    let v = b.view(0, 4).unwrap();
    let n = Claim::with(&[], &[&b], |c| {
        let n = c.consume("donated", &b).unwrap();
        n.write(|d| d.fill(9)).unwrap();
        n
    })
    .unwrap();
    assert_eq!(n.access(), Access::ReadWrite);
    // Earlier buffers are dead.
    for old in [&v, &b] {
        assert!(
            matches!(
                old.read(|_| ()),
                Err(Error::Dead {
                    op: "Buffer::read",
                    ..
                })
            ),
            "{:?}",
            old.read(|_| ())
        );
    }
    assert_eq!(bytes(&n), [9; 8]);
}

#[test]
fn otherwise_the_returned_buffer_admits_only_read() {
    let b = filled(8, 3);
    let _h = Claim::with(&[&b], &[], |_| ());
    let other = b.clone();
    let n = Claim::with(&[&other], &[&b], |c| {
        // `b` is donated but `other`'s read claim holds the memory: not exclusive.
        // The two overlap, so the call is refused.
        assert!(!c.exclusive(&b));
    });
    assert!(
        matches!(
            n,
            Err(Error::Claim {
                op: "Claim::with",
                ..
            })
        ),
        "a donated buffer may not overlap a read one: {n:?}"
    );
    let n = Claim::with(&[&b], &[], |c| {
        c.consume("consumed under a read claim", &b).unwrap()
    })
    .unwrap();
    assert_eq!(n.access(), Access::Read);
    assert!(matches!(n.write(|_| ()), Err(Error::ReadOnly { .. })));
    assert_eq!(bytes(&n), [3; 8]);
}

#[test]
fn taking_a_claim_never_waits_and_a_read_claim_on_exclusive_memory_fails() {
    let b = buf(8);
    Claim::with(&[], &[&b], |c| {
        assert!(c.exclusive(&b));
        let t = std::time::Instant::now();
        assert!(matches!(
            Claim::with(&[&b], &[], |_| ()),
            Err(Error::HeldExclusive { .. })
        ));
        assert!(matches!(
            Claim::hold(&[&b]),
            Err(Error::HeldExclusive { .. })
        ));
        assert!(matches!(b.read(|_| ()), Err(Error::HeldExclusive { .. })));
        assert!(t.elapsed() < std::time::Duration::from_secs(1));
    })
    .unwrap();
}

#[test]
fn a_donated_input_whose_memory_another_claim_holds_gets_a_read_claim_only() {
    let b = buf(8);
    let h = Claim::hold(&[&b]).unwrap();
    Claim::with(&[], &[&b], |c| assert!(!c.exclusive(&b))).unwrap();
    drop(h);
}

#[test]
fn a_caller_holding_a_read_claim_across_a_donating_call_keeps_its_bytes() {
    let x = filled(8, 5);
    // The donating function: consume in place where exclusive, else write elsewhere.
    let donating_add = |x: &Buffer| -> Buffer {
        Claim::with(&[], &[x], |c| {
            if c.exclusive(x) {
                let y = c.consume("donated to add", x).unwrap();
                y.write(|d| d.iter_mut().for_each(|v| *v += 1)).unwrap();
                y
            } else {
                let y = buf(x.len());
                let src = x.read(|d| d.to_vec()).unwrap();
                y.write(|d| d.iter_mut().zip(src).for_each(|(v, s)| *v = s + 1))
                    .unwrap();
                y
            }
        })
        .unwrap()
    };
    let y = Claim::with(&[&x], &[], |_| donating_add(&x)).unwrap();
    assert_eq!(bytes(&x), [5; 8], "the caller's bytes stay as they were");
    assert_eq!(bytes(&y), [6; 8]);
    assert!(!y.same_memory(&x));
}

#[test]
fn a_function_that_consumes_its_input_kills_the_buffer_under_any_claim() {
    let x = buf(8);
    let h = Claim::hold(&[&x.view(0, 0).unwrap()]);
    drop(h);
    Claim::with(&[&x], &[], |c| c.consume("consumed", &x).unwrap()).unwrap();
    assert!(!x.is_live());
}

#[test]
fn every_call_that_touches_the_bytes_of_exclusive_memory_fails() {
    let b = buf(8);
    let other = buf(8);
    Claim::with(&[], &[&b], |c| {
        assert!(c.exclusive(&b));
        assert!(matches!(b.read(|_| ()), Err(Error::HeldExclusive { .. })));
        assert!(matches!(b.write(|_| ()), Err(Error::HeldExclusive { .. })));
        assert!(matches!(
            Buffer::copy(&b, &other),
            Err(Error::HeldExclusive { .. })
        ));
        assert!(matches!(
            Buffer::copy(&other, &b),
            Err(Error::HeldExclusive { .. })
        ));
        assert!(matches!(
            Buffer::fill(&b, 1),
            Err(Error::HeldExclusive { .. })
        ));
        assert!(matches!(
            Rig::host().submit(&[&b], &[], || Ok(())),
            Err(Error::HeldExclusive { .. })
        ));
    })
    .unwrap();
}

#[test]
fn the_donor_uses_the_consumed_buffer_as_one_it_made() {
    let b = buf(8);
    let src = filled(8, 4);
    Claim::with(&[], &[&b], |c| {
        let n = c.consume("donated", &b).unwrap();
        n.write(|d| d.fill(1)).unwrap();
        Buffer::copy(&src, &n).unwrap();
        Rig::host().submit(&[], &[&n], || Ok(())).unwrap();
        assert_eq!(bytes(&n), [4; 8]);
        Claim::share(&n).unwrap();
        n.export().unwrap();
    })
    .unwrap();
}

#[test]
fn a_donor_of_an_input_on_several_devices_consumes_it_only_where_it_holds_every_buffer_exclusive() {
    let (d1, d2) = (Rig::virtual_host("gpu0"), Rig::virtual_host("gpu1"));
    let s1 = Buffer::create(&d1, 8, Kind::Device).unwrap();
    let s2 = Buffer::create(&d2, 8, Kind::Device).unwrap();
    let donate = |bs: &[&Buffer]| {
        Claim::with(&[], bs, |c| {
            if bs.iter().all(|b| c.exclusive(b)) {
                Some(
                    bs.iter()
                        .map(|b| c.consume("donated to shard_add", b).unwrap())
                        .collect::<Vec<_>>(),
                )
            } else {
                None
            }
        })
        .unwrap()
    };
    let h = Claim::hold(&[&s2]).unwrap();
    assert!(
        donate(&[&s1, &s2]).is_none(),
        "one shard is held: no donation"
    );
    assert!(s1.is_live() && s2.is_live());
    drop(h);
    let out = donate(&[&s1, &s2]).unwrap();
    assert_eq!(out.len(), 2);
    assert!(!s1.is_live() && !s2.is_live());
    assert_eq!(out[0].rig(), &d1);
    assert_eq!(out[1].rig(), &d2);
}

#[test]
fn the_buffers_consume_returns_may_be_written_in_place_after_with_returns() {
    let b = buf(8);
    let n = Claim::with(&[], &[&b], |c| c.consume("donated", &b).unwrap()).unwrap();
    n.write(|d| d.fill(2)).unwrap();
    assert!(
        would_be_exclusive(&n),
        "claimed as any other, and donatable again"
    );
}

#[test]
fn share_puts_memory_outside_the_claims_for_good_through_every_view_and_borrow() {
    let b = buf(8);
    Claim::share(&b.view(2, 2).unwrap()).unwrap();
    assert!(!would_be_exclusive(&b));
    let n = Claim::with(&[&b], &[], |c| c.consume("x", &b).unwrap()).unwrap();
    assert!(!would_be_exclusive(&n), "for good: across consumption");
}

#[test]
fn share_fails_if_b_is_dead_or_held_exclusive() {
    let b = buf(8);
    Claim::with(&[], &[&b], |_| {
        assert!(matches!(Claim::share(&b), Err(Error::HeldExclusive { .. })))
    })
    .unwrap();
    Claim::with(&[], &[&b], |c| c.consume("gone", &b).unwrap()).unwrap();
    assert!(matches!(Claim::share(&b), Err(Error::Dead { .. })));
}

#[test]
fn with_calls_f_with_its_claims_and_returns_what_f_returns() {
    let b = buf(8);
    assert_eq!(Claim::with(&[&b], &[], |_| 42).unwrap(), 42);
}

#[test]
fn a_donated_claim_is_exclusive_only_if_the_buffer_spans_its_memory() {
    let b = buf(8);
    let v = b.view(0, 4).unwrap();
    Claim::with(&[], &[&v], |c| assert!(!c.exclusive(&v))).unwrap();
    Claim::with(&[], &[&b], |c| assert!(c.exclusive(&b))).unwrap();
}

#[test]
fn every_claim_is_released_when_f_returns_or_panics_and_c_then_holds_nothing() {
    let b = buf(8);
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        Claim::with(&[], &[&b], |_| panic!("f raises")).unwrap();
    }));
    assert!(r.is_err());
    assert!(would_be_exclusive(&b), "released after a panic");
    // c used after return: a consume through a scoped thread that outlives f is not
    // expressible in safe Rust (c borrows the call); consumable reports the return.
    std::thread::scope(|s| {
        Claim::with(&[], &[&b], |c| {
            s.spawn(|| ());
            assert!(c.consumable(&b));
        })
        .unwrap();
    });
}

#[test]
fn a_consume_on_another_thread_completes_before_the_release() {
    // In Rust the claims borrow the call: a thread that consumes is a scoped thread
    // started inside `f`, joined before `f` returns, so no consume can overlap the
    // release (the compile_fail example in `rig::Claims`' docs shows `c` cannot
    // escape). Here a consume runs on another thread while `f` runs.
    for _ in 0..100 {
        let b = buf(8);
        let n = Claim::with(&[], &[&b], |c| {
            std::thread::scope(|s| {
                s.spawn(|| c.consume("consumed on another thread", &b))
                    .join()
                    .unwrap()
            })
        })
        .unwrap()
        .unwrap();
        assert!(!b.is_live());
        assert!(would_be_exclusive(&n), "released once f returned");
    }
}

#[test]
fn with_fails_before_calling_f_releasing_what_it_took() {
    let (a, b) = (buf(8), buf(8));
    let dead = buf(8);
    Claim::with(&[], &[&dead], |c| c.consume("gone", &dead).unwrap()).unwrap();
    let called = AtomicBool::new(false);
    // A dead buffer.
    let r = Claim::with(&[&a, &dead], &[&b], |_| {
        called.store(true, Ordering::Relaxed)
    });
    assert!(matches!(r, Err(Error::Dead { .. })));
    // An allocation held exclusive.
    Claim::with(&[], &[&b], |_| {
        let r = Claim::with(&[&a], &[&b], |_| called.store(true, Ordering::Relaxed));
        assert!(matches!(r, Err(Error::HeldExclusive { .. })));
    })
    .unwrap();
    // A donated buffer overlapping another of read or donate.
    let r = Claim::with(&[&a.view(0, 2).unwrap()], &[&a], |_| {
        called.store(true, Ordering::Relaxed)
    });
    assert!(matches!(r, Err(Error::Claim { .. })));
    let r = Claim::with(&[], &[&a, &a.view(4, 2).unwrap()], |_| {
        called.store(true, Ordering::Relaxed)
    });
    assert!(matches!(r, Err(Error::Claim { .. })));
    assert!(!called.load(Ordering::Relaxed));
    assert!(
        would_be_exclusive(&a) && would_be_exclusive(&b),
        "nothing left claimed"
    );
}

#[test]
fn consume_kills_b_and_every_buffer_made_over_the_memory_and_returns_the_only_live_one() {
    let b = buf(8);
    let (v, o) = (
        b.view(1, 2).unwrap(),
        b.borrow(&Rig::virtual_host("o")).unwrap().unwrap(),
    );
    let n = Claim::with(&[], &[&b], |c| c.consume("why", &b).unwrap()).unwrap();
    for x in [&b, &v, &o] {
        assert_eq!(x.dead().as_deref(), Some("why"));
    }
    assert!(n.is_live() && n.spans());
}

#[test]
fn consume_clears_exclusivity_and_the_new_buffer_is_claimed_as_any_other() {
    let b = buf(8);
    Claim::with(&[], &[&b], |c| {
        let n = c.consume("d", &b).unwrap();
        assert!(!c.exclusive(&b) && !c.exclusive(&n));
        // c's read claim still holds the memory: a nested donation is not exclusive.
        assert!(!would_be_exclusive(&n));
        assert!(n.read(|_| ()).is_ok());
    })
    .unwrap();
}

#[test]
fn consume_fails_after_return_for_unclaimed_memory_for_dead_or_partial_buffers_and_under_a_hold() {
    let (b, other) = (buf(8), buf(8));
    // c does not claim b's memory.
    let r = Claim::with(&[&other], &[], |c| c.consume("x", &b).map(|_| ())).unwrap();
    assert!(matches!(r, Err(Error::Claim { .. })));
    // b does not span its memory.
    let v = b.view(0, 4).unwrap();
    let r = Claim::with(&[&v], &[], |c| c.consume("x", &v).map(|_| ())).unwrap();
    assert!(matches!(r, Err(Error::Claim { .. })));
    // b is dead.
    let r = Claim::with(&[&b], &[], |c| {
        c.consume("first", &b).unwrap();
        c.consume("second", &b).map(|_| ())
    })
    .unwrap();
    assert!(
        matches!(r, Err(Error::Dead { ref why, .. }) if why == "first"),
        "{r:?}"
    );
    // A hold holds the memory.
    let x = buf(8);
    let _h = Claim::hold(&[&x]).unwrap();
    let r = Claim::with(&[&x], &[], |c| c.consume("x", &x).map(|_| ())).unwrap();
    assert!(matches!(r, Err(Error::Claim { .. })));
}

#[test]
fn consumable_is_true_iff_consume_would_succeed() {
    let b = buf(8);
    let v = b.view(0, 4).unwrap();
    Claim::with(&[&v], &[], |c| {
        assert!(!c.consumable(&v), "does not span");
        assert!(c.consumable(&b), "claims b's memory, live, spans");
        let h = Claim::hold(&[&b]).unwrap();
        assert!(!c.consumable(&b), "held");
        h.release();
        assert!(c.consumable(&b));
        assert!(!c.consumable(&buf(8)), "another memory");
        c.consume("d", &b).unwrap();
        assert!(!c.consumable(&b), "dead");
    })
    .unwrap();
}

#[test]
fn hold_takes_read_claims_that_no_donation_writes() {
    let b = filled(8, 6);
    let h = Claim::hold(&[&b]).unwrap();
    let y = Claim::with(&[], &[&b], |c| {
        assert!(!c.exclusive(&b));
        let y = buf(8);
        y.write(|d| d.fill(0)).unwrap();
        y
    })
    .unwrap();
    assert_eq!(bytes(&b), [6; 8]);
    drop((h, y));
}

#[test]
fn hold_fails_holding_none_if_a_buffer_is_dead_or_held_exclusive() {
    let (a, dead) = (buf(8), buf(8));
    Claim::with(&[], &[&dead], |c| c.consume("gone", &dead).unwrap()).unwrap();
    assert!(matches!(Claim::hold(&[&a, &dead]), Err(Error::Dead { .. })));
    assert!(would_be_exclusive(&a), "holding none");
    let b = buf(8);
    Claim::with(&[], &[&b], |_| {
        assert!(matches!(
            Claim::hold(&[&a, &b]),
            Err(Error::HeldExclusive { .. })
        ));
    })
    .unwrap();
    assert!(would_be_exclusive(&a));
}

#[test]
fn release_ends_the_claims_now_and_a_later_release_or_drop_ends_nothing() {
    let b = buf(8);
    let h1 = Claim::hold(&[&b]).unwrap();
    let h2 = Claim::hold(&[&b]).unwrap();
    h1.release();
    h1.release();
    drop(h1);
    assert!(!would_be_exclusive(&b), "h2 still holds");
    h2.release();
    assert!(would_be_exclusive(&b));
}

// --- Prepared submissions ---------------------------------------------------------

#[test]
fn a_prepared_submission_holds_its_fixed_memory_and_claims_a_runs_buffers_only_while_submitting() {
    let fixed = filled(8, 1);
    let run = buf(8);
    let mut s = Submission::make(
        &Rig::host(),
        &[&fixed],
        &[],
        |_r: &[&Buffer], w: &[&Buffer]| {
            w[0].write(|d| d.fill(2))?;
            Ok(())
        },
    )
    .unwrap();
    assert!(
        !would_be_exclusive(&fixed),
        "fixed memory is held for the submission's life"
    );
    assert!(
        would_be_exclusive(&run),
        "a run's buffer is not held between submits"
    );
    s.submit(&[], &[&run]).unwrap();
    assert_eq!(bytes(&run), [2; 8]);
    // A donation between two submits consumes the run's buffer: the next submit fails.
    Claim::with(&[], &[&run], |c| {
        c.consume("donated between submits", &run).unwrap()
    })
    .unwrap();
    assert!(matches!(s.submit(&[], &[&run]), Err(Error::Dead { .. })));
    drop(s);
    assert!(would_be_exclusive(&fixed));
}

// --- Donation scenarios -----------------------------------------------------------

/// y = copy(x), then x donated and overwritten: y keeps its values (3s), and a later
/// read of x errs naming what it was donated to.
#[test]
fn copy_then_donate_keeps_the_copy_and_later_use_names_the_function() {
    let x = filled(8, 3);
    let y = buf(8);
    Buffer::copy(&x, &y).unwrap();
    Claim::with(&[], &[&x], |c| {
        let n = c.consume("donated to Nx.add", &x).unwrap();
        n.write(|d| d.fill(0)).unwrap();
    })
    .unwrap();
    assert_eq!(bytes(&y), [3; 8]);
    let e = x.read(|_| ()).unwrap_err();
    assert!(e.to_string().contains("donated to Nx.add"), "{e}");
}

/// A call that donates x and also reads x errs at once (within a second), never
/// hangs.
#[test]
fn a_call_that_donates_x_and_also_reads_x_fails_at_once() {
    let x = buf(8);
    let t = std::time::Instant::now();
    let r = Claim::with(&[&x], &[&x], |_| ());
    assert!(matches!(r, Err(Error::Claim { .. })));
    assert!(t.elapsed() < std::time::Duration::from_secs(1));
}

#[test]
fn donating_a_views_memory_consumes_the_whole_allocation() {
    let b = buf(16);
    let v = b.view(0, 16).unwrap();
    assert!(v.spans());
    let n = Claim::with(&[], &[&v], |c| {
        assert!(c.exclusive(&v));
        c.consume("donated", &v).unwrap()
    })
    .unwrap();
    assert!(!b.is_live() && n.len() == 16);
    // A partial view is never exclusive, so its memory is never consumed in place.
    let b = buf(16);
    let part = b.view(0, 8).unwrap();
    Claim::with(&[], &[&part], |c| {
        assert!(!c.exclusive(&part) && !c.consumable(&part))
    })
    .unwrap();
}

#[test]
fn donate_while_a_read_claim_exists_leaves_the_bytes_unchanged() {
    let x = filled(8, 8);
    let barrier = Barrier::new(2);
    std::thread::scope(|s| {
        let reader = s.spawn(|| {
            Claim::with(&[&x], &[], |_| {
                barrier.wait();
                barrier.wait();
            })
            .unwrap()
        });
        barrier.wait();
        let excl = Claim::with(&[], &[&x], |c| c.exclusive(&x)).unwrap();
        barrier.wait();
        reader.join().unwrap();
        assert!(!excl, "a read claim on another thread: read claim only");
    });
    assert_eq!(bytes(&x), [8; 8]);
}

// --- Lost devices -----------------------------------------------------------------

#[test]
fn a_lost_device_fails_every_later_operation_on_its_memory_at_once() {
    let d = Rig::virtual_host("doomed");
    let b = Buffer::create(&d, 8, Kind::Device).unwrap();
    d.lose();
    assert!(d.is_lost());
    for e in [
        b.read(|_| ()).unwrap_err(),
        b.write(|_| ()).unwrap_err(),
        Buffer::fill(&b, 0).unwrap_err(),
        b.view(0, 1).unwrap_err(),
        Claim::hold(&[&b]).unwrap_err(),
        Claim::with(&[&b], &[], |_| ()).unwrap_err(),
        d.submit(&[], &[], || Ok(())).unwrap_err(),
        Buffer::create(&d, 8, Kind::Device).unwrap_err(),
        b.wait(false).unwrap_err(),
    ] {
        assert!(matches!(e, Error::Lost { .. }), "{e}");
    }
    assert!(
        Buffer::create(&Rig::host(), 8, Kind::Device).is_ok(),
        "the host lives on"
    );
}
