//! Donation to an elementwise kernel: inputs the declaration donates, whose memory an
//! output of their dtype and shape may take where the call holds it exclusive (the
//! claims' rule, as `add_donated`'s), written in place.

use super::call::{Body, CALL_DONATED};
use super::{Compute, Elementwise};
use crate::array::AnyArray;
use crate::error::Error;
use crate::rig::{Buffer, Claim};

impl<C: Compute> Elementwise<C> {
    /// Declares input `name` donated: [`Elementwise::call_donated`] may write an
    /// output over its memory.
    #[must_use]
    pub fn donates(mut self, name: &str) -> Self {
        self.donated.push(name.to_owned());
        self
    }

    /// [`Elementwise::call`], taking the inputs: each output goes in place over the
    /// memory of a donated input of its dtype and of the outputs' shape (the first
    /// such, in declaration order) where the call holds that memory exclusive (nothing
    /// else claims it, the input's buffer spans it, and it reaches no element twice);
    /// the input and every buffer over its memory then lose it ("donated to kernel
    /// NAME"), and the output keeps the input's layout. Other outputs are made as
    /// [`Elementwise::call`] makes them; other inputs stay as they were. Everything
    /// that can refuse before an element is written (the declaration, the arrays, the
    /// body for the device, a WGSL body's compilation) is checked before any memory
    /// is taken.
    ///
    /// ```
    /// use nxrig::kernels::Elementwise;
    /// use nxrig::{AnyArray, Array};
    /// let double = Elementwise::<f32>::new("double")
    ///     .input("x", "T")
    ///     .output("z", "T")
    ///     .donates("x")
    ///     .host(|i, o| o[0].iter_mut().zip(i[0]).for_each(|(z, x)| *z = 2.0 * x));
    /// let x: AnyArray = Array::<f32>::of_array(&[3], &[1.0, 2.0, 3.0])?.into();
    /// let kept = x.clone(); // another handle: it loses the memory too
    /// let z = double.call_donated(vec![x])?.remove(0);
    /// assert!(z.buffer().same_memory(kept.buffer()));
    /// assert_eq!(z.expect::<f32>()?.to_vec()?, [2.0, 4.0, 6.0]);
    /// assert!(kept.to_bits_vec().is_err()); // "donated to kernel \"double\""
    /// # Ok::<(), nxrig::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Elementwise::call`], naming `Elementwise::call_donated`; a declaration
    /// that donates a name it does not declare as an input; [`Error::Claim`] at once
    /// if a donated input shares memory with another input.
    pub fn call_donated(&self, inputs: Vec<AnyArray>) -> Result<Vec<AnyArray>, Error> {
        let op = CALL_DONATED;
        let refs: Vec<&AnyArray> = inputs.iter().collect();
        let (dtypes, shape) = self.planned(op, &refs)?;
        if let Body::Wgpu(g, wgsl) = self.body(op, inputs[0].rig())? {
            let viewed = self.viewed(op, &refs, &shape)?;
            let p = super::wgpu::prepare(self, wgsl, &viewed, &dtypes, op)
                .map_err(|e| self.named(e))?;
            super::wgpu::compile(g, &p, op).map_err(|e| self.named(e))?;
        }
        let (ins, outs) = self.donors(op, &inputs, &dtypes, &shape)?;
        let ins: Vec<&AnyArray> = ins.iter().collect();
        self.run(op, &ins, &outs.iter().collect::<Vec<_>>())?;
        Ok(outs)
    }

    /// [`Elementwise::call_donated`], awaiting the compiler's and the device's word
    /// (in the browser too).
    ///
    /// # Errors
    /// As [`Elementwise::call_donated`].
    pub async fn call_donated_async(&self, inputs: Vec<AnyArray>) -> Result<Vec<AnyArray>, Error> {
        let op = CALL_DONATED;
        let refs: Vec<&AnyArray> = inputs.iter().collect();
        let (dtypes, shape) = self.planned(op, &refs)?;
        if let Body::Wgpu(g, wgsl) = self.body(op, inputs[0].rig())? {
            let viewed = self.viewed(op, &refs, &shape)?;
            let p = super::wgpu::prepare(self, wgsl, &viewed, &dtypes, op)
                .map_err(|e| self.named(e))?;
            super::wgpu::compile_async(g, &p, op)
                .await
                .map_err(|e| self.named(e))?;
        }
        let (ins, outs) = self.donors(op, &inputs, &dtypes, &shape)?;
        let ins: Vec<&AnyArray> = ins.iter().collect();
        self.run_async(op, &ins, &outs.iter().collect::<Vec<_>>())
            .await?;
        Ok(outs)
    }

    /// The inputs to read and the outputs to write: each output over the memory of
    /// its donor where it has one (taken under the claims), else fresh; a donor's
    /// place among the inputs goes to its output (identical to it: read in place).
    fn donors(
        &self,
        op: &'static str,
        inputs: &[AnyArray],
        dtypes: &[crate::DType],
        shape: &[usize],
    ) -> Result<(Vec<AnyArray>, Vec<AnyArray>), Error> {
        let candidate = |i: usize| {
            let a = &inputs[i];
            self.donated.contains(&self.inputs[i].0)
                && a.shape() == shape
                && a.layout().is_distinct()
        };
        let (give, keep): (Vec<usize>, Vec<usize>) = (0..inputs.len()).partition(|&i| candidate(i));
        let read: Vec<&Buffer> = keep.iter().map(|&i| inputs[i].buffer()).collect();
        let write: Vec<&Buffer> = give.iter().map(|&i| inputs[i].buffer()).collect();
        let why = format!("donated to kernel {:?}", self.name);
        // Each output's donor, taken under the claims; the outputs are written after
        // `with` has released them (held exclusive, the door would refuse them).
        let taken = Claim::with(&read, &write, |c| {
            let mut used = vec![false; inputs.len()];
            let mut taken: Vec<Option<(usize, AnyArray)>> = Vec::with_capacity(dtypes.len());
            for &d in dtypes {
                let donor = give.iter().copied().find(|&i| {
                    !used[i] && inputs[i].dtype() == d && c.exclusive(inputs[i].buffer())
                });
                let Some(i) = donor else {
                    taken.push(None);
                    continue;
                };
                used[i] = true;
                let buffer = c.consume(&why, inputs[i].buffer())?;
                taken.push(Some((i, AnyArray::v(d, *inputs[i].layout(), buffer)?)));
            }
            Ok::<_, Error>(taken)
        })
        .map_err(|e| e.called(op))?
        .map_err(|e| e.called(op))?;
        let rig = inputs[0].rig();
        let mut ins = inputs.to_vec();
        let mut outs = Vec::with_capacity(dtypes.len());
        for (t, &d) in taken.into_iter().zip(dtypes) {
            match t {
                Some((i, a)) => {
                    ins[i] = a.clone();
                    outs.push(a);
                }
                None => {
                    outs.push(AnyArray::create_to_fill(rig, d, shape).map_err(|e| e.called(op))?)
                }
            }
        }
        Ok((ins, outs))
    }
}
