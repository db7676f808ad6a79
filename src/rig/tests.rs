//! The host runtime's unit tests, small enough for Miri (`cargo +nightly miri test
//! --lib rig`), which checks the unsafe byte access in `memory.rs`.

use super::*;
use crate::error::Error;

fn buf(n: usize) -> Buffer {
    Buffer::create(&Rig::host(), n, Kind::Device).unwrap()
}

#[test]
fn bytes_round_trip_through_views_and_copies() {
    let b = buf(32);
    b.write(|d| d.iter_mut().enumerate().for_each(|(i, x)| *x = i as u8))
        .unwrap();
    let v = b.view(8, 8).unwrap();
    assert_eq!(
        v.read(|d| d.to_vec()).unwrap(),
        (8..16).collect::<Vec<u8>>()
    );
    let c = buf(8);
    Buffer::copy(&v, &c).unwrap();
    assert_eq!(
        c.read(|d| d.to_vec()).unwrap(),
        (8..16).collect::<Vec<u8>>()
    );
    // Overlapping blit within one memory moves like memmove.
    Buffer::blit(&b, 0, &b, 4, 8).unwrap();
    assert_eq!(
        b.read(|d| d[4..12].to_vec()).unwrap(),
        (0..8).collect::<Vec<u8>>()
    );
    Buffer::fill(&v, 0xaa).unwrap();
    assert_eq!(b.read(|d| d[8..16].to_vec()).unwrap(), [0xaa; 8]);
    assert!(Buffer::blit(&b, 30, &c, 0, 4).is_err());
    assert!(Buffer::copy(&b, &c).is_err());
}

#[test]
fn memory_made_outside_keeps_its_bytes_and_access() {
    let v = Buffer::of_vec(vec![1u32, 2, 3]);
    assert_eq!(v.len(), 12);
    v.write(|d| d[0] = 9).unwrap();
    assert_eq!(v.read(|d| d[0]).unwrap(), 9);
    static S: [u8; 4] = [5; 4];
    let s = Buffer::of_bytes(&S[..]);
    assert!(matches!(s.write(|_| ()), Err(Error::ReadOnly { .. })));
    assert_eq!(s.read(|d| d.to_vec()).unwrap(), [5; 4]);
    let e = Buffer::of_vec(Vec::<u8>::new());
    assert!(e.is_empty() && e.spans());
}

#[test]
fn donation_consumes_in_place_and_kills_the_old_buffers() {
    let b = buf(8);
    let n = Claim::with(&[], &[&b], |c| {
        assert!(c.exclusive(&b));
        c.consume("donated to test", &b).unwrap()
    })
    .unwrap();
    n.write(|d| d.fill(3)).unwrap();
    assert!(matches!(b.read(|_| ()), Err(Error::Dead { .. })));
    let h = Claim::hold(&[&n]).unwrap();
    assert!(!Claim::with(&[], &[&n], |c| c.exclusive(&n)).unwrap());
    drop(h);
    assert!(Claim::with(&[], &[&n], |c| c.exclusive(&n)).unwrap());
}

#[test]
fn submit_records_stamps_that_waits_follow() {
    let b = buf(4);
    let s1 = Rig::host()
        .submit(&[], &[&b], || b.write(|d| d.fill(1)))
        .unwrap();
    let s2 = Rig::host().submit(&[&b], &[], || Ok(())).unwrap();
    assert!(s2 > s1);
    #[cfg(not(target_arch = "wasm32"))]
    b.wait(true).unwrap();
    let r = Rig::host().submit(&[], &[&b], || {
        Err(Error::Claim {
            op: "test",
            reason: "work failed".into(),
        })
    });
    assert!(r.is_err());
}

#[test]
fn threads_share_buffers() {
    let b = buf(64);
    std::thread::scope(|s| {
        for t in 0..2u8 {
            let b = &b;
            s.spawn(move || {
                for i in 0..8 {
                    b.write(|d| d[t as usize * 32 + i] = t + 1).unwrap();
                }
            });
        }
    });
    let d = b.read(|d| d.to_vec()).unwrap();
    assert_eq!(&d[..8], &[1; 8]);
    assert_eq!(&d[32..40], &[2; 8]);
}

#[test]
fn every_runtime_type_is_send_and_sync() {
    fn both<T: Send + Sync>() {}
    both::<Rig>();
    both::<Buffer>();
    both::<Hold>();
    both::<Claims<'static>>();
    both::<Stamp>();
}

#[test]
fn the_async_wait_resolves_at_once_on_the_host_and_fails_on_a_lost_device() {
    use std::future::Future;
    use std::task::{Context, Poll, Waker};
    fn poll_once<F: Future>(f: F) -> Poll<F::Output> {
        let mut f = std::pin::pin!(f);
        f.as_mut().poll(&mut Context::from_waker(Waker::noop()))
    }
    let b = buf(4);
    Rig::host().submit(&[], &[&b], || Ok(())).unwrap();
    assert!(matches!(poll_once(b.wait_async(true)), Poll::Ready(Ok(()))));
    let d = Rig::virtual_host("lost");
    let l = Buffer::create(&d, 4, Kind::Device).unwrap();
    d.lose();
    assert!(matches!(
        poll_once(l.wait_async(false)),
        Poll::Ready(Err(Error::Lost { .. }))
    ));
}

#[test]
fn a_timeline_waiter_is_woken_when_its_stamp_completes_or_the_device_is_lost() {
    use std::future::Future;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc as StdArc;
    use std::task::{Context, Poll, Wake, Waker};
    struct Count(AtomicUsize);
    impl Wake for Count {
        fn wake(self: StdArc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    let t = super::timeline::Timeline::new();
    let s = t.next();
    let count = StdArc::new(Count(AtomicUsize::new(0)));
    let waker = Waker::from(count.clone());
    let mut f = std::pin::pin!(t.reached(s));
    assert!(f
        .as_mut()
        .poll(&mut Context::from_waker(&waker))
        .is_pending());
    t.complete(s);
    assert_eq!(count.0.load(Ordering::SeqCst), 1);
    assert_eq!(
        f.as_mut().poll(&mut Context::from_waker(&waker)),
        Poll::Ready(true)
    );
    let s2 = t.next();
    let mut g = std::pin::pin!(t.reached(s2));
    assert!(g
        .as_mut()
        .poll(&mut Context::from_waker(&waker))
        .is_pending());
    t.lose();
    assert_eq!(count.0.load(Ordering::SeqCst), 2);
    assert_eq!(
        g.as_mut().poll(&mut Context::from_waker(&waker)),
        Poll::Ready(false)
    );
}

#[test]
fn memory_use_counts_allocations_until_their_last_buffer_goes() {
    let rig = Rig::virtual_host("counted");
    assert_eq!(rig.memory_use(), MemoryUse::default());
    let a = Buffer::create(&rig, 1000, Kind::Device).unwrap();
    let v = a.view(10, 20).unwrap();
    let b = Buffer::create(&rig, 24, Kind::HostVisible).unwrap();
    let want = MemoryUse {
        bytes: 1024,
        allocations: 2,
    };
    assert_eq!(rig.memory_use(), want, "a view is no allocation of its own");
    drop(a);
    assert_eq!(rig.memory_use(), want, "the view keeps the memory alive");
    drop(v);
    assert_eq!(
        rig.memory_use(),
        MemoryUse {
            bytes: 24,
            allocations: 1
        }
    );
    drop(b);
    assert_eq!(rig.memory_use(), MemoryUse::default());
}
