//! Loom models of the claims racing on two or three threads: every interleaving of
//! the claims word's compare-and-swaps is explored.
//!
//!     RUSTFLAGS="--cfg loom" cargo test --release --test claims_loom
#![cfg(loom)]

use loom::sync::Arc;
use loom::thread;
use nxrig::rig::{Access, Buffer, Claim, Claims, Kind, Rig};
use nxrig::Error;

fn buf(rig: &Rig) -> Buffer {
    Buffer::create(rig, 4, Kind::Device).unwrap()
}

/// The memory's claims are all released: a donation is exclusive again.
fn clean(b: &Buffer) -> bool {
    Claim::with(&[], &[b], |c| c.exclusive(b)).unwrap()
}

#[test]
fn donation_against_a_hold() {
    loom::model(|| {
        let rig = Rig::host();
        let b = buf(&rig);
        let b2 = b.clone();
        let t = thread::spawn(move || match Claim::hold(&[&b2]) {
            Ok(h) => {
                h.release();
                true
            }
            Err(e) => {
                assert!(
                    matches!(e, Error::HeldExclusive { .. } | Error::Dead { .. }),
                    "{e}"
                );
                false
            }
        });
        let donated = Claim::with(&[], &[&b], |c| {
            if c.exclusive(&b) {
                Some(c.consume("donated", &b).unwrap())
            } else {
                None
            }
        })
        .unwrap();
        let held = t.join().unwrap();
        match donated {
            Some(n) => {
                assert_eq!(n.access(), Access::ReadWrite);
                assert!(clean(&n));
                let _ = held;
            }
            None => {
                // Not exclusive: the hold held it at the time, so the hold succeeded.
                assert!(held);
                assert!(clean(&b));
            }
        }
    });
}

#[test]
fn a_shared_consume_and_a_hold_never_both_succeed() {
    loom::model(|| {
        let rig = Rig::host();
        let b = buf(&rig);
        let b2 = b.clone();
        // The hold is kept until the end, so it overlaps the consume whenever both succeed.
        let t = thread::spawn(move || Claim::hold(&[&b2]).ok());
        // A read claim only: the consume takes the shared path.
        let consumed = Claim::with(&[&b], &[], |c| c.consume("consumed", &b).is_ok()).unwrap();
        let held = t.join().unwrap();
        // The hold may precede the consume (which then fails) or follow it (and fail on
        // the dead buffer); the two may also both fail, never both succeed.
        assert!(!(consumed && held.is_some()), "consume ended a hold");
    });
}

/// Three threads: every interleaving with up to three preemptions.
fn model3(f: impl Fn() + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    b.preemption_bound = Some(3);
    b.check(f);
}

#[test]
fn two_readers_and_a_donor() {
    model3(|| {
        let rig = Rig::host();
        let b = buf(&rig);
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let b = b.clone();
                thread::spawn(move || match Claim::with(&[&b], &[], |_| ()) {
                    Ok(()) => true,
                    Err(Error::HeldExclusive { .. }) | Err(Error::Dead { .. }) => false,
                    Err(e) => panic!("{e}"),
                })
            })
            .collect();
        let excl = Claim::with(&[], &[&b], |c| {
            let e = c.exclusive(&b);
            if e {
                // Exclusive: no reader can claim the memory now.
                assert!(matches!(
                    Claim::with(&[&b], &[], |_| ()),
                    Err(Error::HeldExclusive { .. })
                ));
            }
            e
        })
        .unwrap();
        for r in readers {
            r.join().unwrap();
        }
        let _ = excl;
        assert!(clean(&b));
    });
}

#[test]
fn a_consume_that_overlaps_the_end_of_with_completes_before_the_release_or_fails() {
    loom::model(|| {
        let rig = Rig::host();
        let owned = Box::new(buf(&rig));
        // SAFETY: the thread that uses `b` is joined, and every claim dropped, before
        // `owned` is; loom's threads want 'static borrows.
        let b: &'static Buffer = unsafe { &*(owned.as_ref() as *const Buffer) };
        let claims: Arc<Claims<'static>> = Arc::new(Claims::begin(&[], &[b]).unwrap());
        let c2 = claims.clone();
        let t = thread::spawn(move || c2.consume("raced", b));
        claims.end();
        let r = t.join().unwrap();
        drop(claims);
        match r {
            Ok(n) => {
                // It completed before the release: the claims are all gone now.
                assert!(!b.is_live());
                assert!(clean(&n));
            }
            Err(e) => {
                assert!(matches!(e, Error::Claim { .. }), "{e}");
                assert!(b.is_live());
                assert!(clean(b));
            }
        }
        drop(owned);
    });
}

#[test]
fn release_racing_a_donation_on_three_threads() {
    model3(|| {
        let rig = Rig::host();
        let b = buf(&rig);
        let h = Arc::new(Claim::hold(&[&b]).unwrap());
        let (h1, h2) = (h.clone(), h.clone());
        let t1 = thread::spawn(move || h1.release());
        let t2 = thread::spawn(move || h2.release());
        let excl = Claim::with(&[], &[&b], |c| c.exclusive(&b)).unwrap();
        t1.join().unwrap();
        t2.join().unwrap();
        let _ = excl;
        drop(h);
        assert!(clean(&b), "two releases and a drop end the hold once");
    });
}
