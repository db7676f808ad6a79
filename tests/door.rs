//! The door: every
//! answer, in the specification's precedence, and the refusal messages.

use nxrig::array::{door, refused, Answer, MAX_OPERANDS};
use nxrig::rig::{Buffer, Claim};
use nxrig::{AnyArray, Array, DType, Error, Move, Rig, Slice};

#[path = "common/dut.rs"]
#[macro_use]
mod dut;
use dut::On;

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

fn arr(n: usize) -> AnyArray {
    Array::<f32>::of_array(&[n], &vec![1.0; n])
        .unwrap()
        .on()
        .into()
}

fn dead(n: usize) -> AnyArray {
    let a = arr(n);
    Claim::with(&[], &[a.buffer()], |c| {
        c.consume("donated to Nx.mul", a.buffer()).unwrap()
    })
    .unwrap();
    a
}

fn ran(written: &[&AnyArray], read: &[&AnyArray]) -> (Answer, bool) {
    let mut called = false;
    let a = door(written, read, || called = true).unwrap();
    (a, called)
}

on_every_device! {
    fn done_runs_f_and_releases_every_claim() {
        let (w, r) = (arr(3), arr(3));
        assert_eq!(ran(&[&w], &[&r]), (Answer::Done, true));
        assert!(
            Claim::with(&[], &[w.buffer(), r.buffer()], |c| c.exclusive(w.buffer())
                && c.exclusive(r.buffer()))
            .unwrap()
        );
    }
}

on_every_device! {
    fn answers_follow_the_seeds_order_and_codes() {
        let names = [
            "Done",
            "Declined",
            "WrongDtype",
            "DeadBuffer",
            "OffHost",
            "HeldExclusive",
            "ReadOnly",
            "RepeatedElements",
            "Overlapping",
            "ShapeMismatch",
        ];
        for (i, (a, n)) in Answer::ALL.iter().zip(names).enumerate() {
            assert_eq!(*a as usize, i);
            assert_eq!(format!("{a:?}"), n);
            assert_eq!(Answer::of_code(i as i32), Some(*a));
        }
        assert_eq!(Answer::of_code(10), None);
        assert_eq!(MAX_OPERANDS, 18);
    }
}

on_every_device! {
    fn each_refusal_without_running_f_or_holding_a_claim() {
        let (w, r) = (arr(4), arr(4));
        // Dead buffer, for a read or a written array.
        let d = dead(4);
        assert_eq!(ran(&[&w], &[&d]), (Answer::DeadBuffer, false));
        assert_eq!(ran(&[&d], &[&r]), (Answer::DeadBuffer, false));
        // Held exclusive.
        Claim::with(&[], &[r.buffer()], |_| {
            assert_eq!(ran(&[&w], &[&r]), (Answer::HeldExclusive, false));
        })
        .unwrap();
        // Read-only, for a written array; a read-only array may be read.
        #[repr(align(16))]
        struct Aligned([u8; 16]);
        static RO: Aligned = Aligned([0; 16]);
        let ro = AnyArray::v(
            DType::Float32,
            nxrig::Layout::contiguous(&[4]).unwrap(),
            Buffer::of_bytes(&RO.0[..]),
        )
        .unwrap();
        assert_eq!(ran(&[&ro], &[&r]), (Answer::ReadOnly, false));
        assert_eq!(ran(&[&w], &[&ro]), (Answer::Done, true));
        // Repeated elements.
        let one = arr(1).move_(&Move::Expand(vec![4])).unwrap().unwrap();
        assert_eq!(ran(&[&one], &[&r]), (Answer::RepeatedElements, false));
        assert_eq!(
            ran(&[&w], &[&one]),
            (Answer::Done, true),
            "a broadcast may be read"
        );
        // Overlapping: two written arrays sharing a byte, or a written one and a read one
        // not identical to it.
        let lo = w
            .move_(&Move::Slice(vec![Slice::new(Some(0), Some(3), 1)]))
            .unwrap()
            .unwrap();
        let hi = w
            .move_(&Move::Slice(vec![Slice::new(Some(1), Some(4), 1)]))
            .unwrap()
            .unwrap();
        assert_eq!(ran(&[&lo, &hi], &[]), (Answer::Overlapping, false));
        assert_eq!(ran(&[&lo], &[&hi]), (Answer::Overlapping, false));
        assert_eq!(ran(&[&w], &[&w]), (Answer::Done, true), "identical arrays");
        let rev = w.move_(&Move::Flip(vec![0])).unwrap().unwrap();
        assert_eq!(ran(&[&w], &[&rev]), (Answer::Overlapping, false));
        // Nothing is left claimed by any refusal.
        for a in [&w, &r] {
            assert!(Claim::with(&[], &[a.buffer()], |c| c.exclusive(a.buffer())).unwrap());
        }
    }
}

on_every_device! {
    fn a_dead_operand_is_dead_buffer_whatever_else_is_wrong() {
        let d = dead(4);
        let w = arr(4);
        Claim::with(&[], &[w.buffer()], |_| {
            // w is held exclusive and d is dead: dead wins.
            assert_eq!(ran(&[&w], &[&d]).0, Answer::DeadBuffer);
        })
        .unwrap();
    }
}

on_every_device! {
    fn a_lost_device_fails_the_door_at_once() {
        let dev = Rig::virtual_host("lost-for-door");
        let a = AnyArray::create(&dev, DType::Float32, &[2]).unwrap();
        dev.lose();
        let mut called = false;
        let e = door(&[&a], &[], || called = true).unwrap_err();
        assert!(matches!(e, Error::Lost { .. }) && !called, "{e}");
    }
}

on_every_device! {
    fn refused_names_the_function_the_reason_and_each_operand() {
        let (x, d) = (arr(3), dead(3));
        let i8s: AnyArray = Array::<i8>::of_array(&[2, 2], &[0; 4]).unwrap().on().into();
        let e = refused("Nx.add", Answer::DeadBuffer, &[&x, &d, &i8s]);
        assert_eq!(
            e.to_string(),
            "Nx.add: float32 [3] was donated to Nx.mul (float32 [3], float32 [3], int8 [2, 2])"
        );
        let e = refused("Nx.add", Answer::Overlapping, &[&x, &i8s]);
        assert_eq!(
            e.to_string(),
            "Nx.add: a written operand shares bytes with another operand (float32 [3], int8 [2, 2])"
        );
        let e = refused("Nx.add", Answer::Done, &[&x]);
        assert!(e.to_string().contains("refuses nothing"), "{e}");
        let e = refused("Nx.add", Answer::Declined, &[]);
        assert!(e.to_string().contains("refuses nothing"), "{e}");
    }
}

on_every_device! {
    fn the_door_claims_up_to_max_operands_and_beyond() {
        let xs: Vec<AnyArray> = (0..MAX_OPERANDS + 3).map(|_| arr(2)).collect();
        let refs: Vec<&AnyArray> = xs.iter().collect();
        assert_eq!(
            ran(&refs[..1], &refs[1..MAX_OPERANDS]),
            (Answer::Done, true)
        );
        assert_eq!(ran(&refs[..2], &refs[2..]), (Answer::Done, true));
    }
}
