//! Raw kernels from JavaScript (`rawKernel` in the npm entry): a whole WGSL module over
//! operands declared as `elementwise`'s are (`'T x'`), calling nxrig's `load_x(i)`,
//! `store_z(i, v)` and `numel_x()`, run on WebGPU on the workgroups a call gives.
//! Calls return Promises: a module's compile error, and what the device says of the
//! work, reject the call that caused them.

use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use super::elementwise::{parsed, settled, Operands};
use crate::kernels::{Compute, RawKernel};
use crate::AnyArray;

/// A raw kernel of one of the compute types.
#[derive(Clone)]
enum Typed {
    F32(RawKernel<f32>),
    I32(RawKernel<i32>),
    U32(RawKernel<u32>),
}

/// A raw kernel declared from JavaScript.
#[wasm_bindgen]
pub struct Raw {
    typed: Typed,
    name: String,
}

fn declared<C: Compute>(
    name: &str,
    inputs: &[String],
    outputs: &[String],
    wgsl: &str,
) -> Result<RawKernel<C>, JsError> {
    let mut k = RawKernel::<C>::new(name);
    let (ins, outs) = parsed(inputs, outputs)?;
    for (n, t) in ins {
        k = k.input(&n, t);
    }
    for (n, t) in outs {
        k = k.output(&n, t);
    }
    Ok(k.wgsl(wgsl))
}

/// The raw kernel `name`: operands `inputs` and `outputs` (`'T x'`), loaded and stored
/// in `compute` (`'float32'`, `'int32'` or `'uint32'`), `wgsl` its whole module.
///
/// Errors: an operand that is not a type and a name, a compute type other than those.
#[wasm_bindgen(js_name = rawKernel)]
pub fn raw_kernel(
    name: String,
    inputs: Vec<String>,
    outputs: Vec<String>,
    compute: String,
    wgsl: String,
) -> Result<Raw, JsError> {
    let typed = match compute.as_str() {
        "float32" => Typed::F32(declared(&name, &inputs, &outputs, &wgsl)?),
        "int32" => Typed::I32(declared(&name, &inputs, &outputs, &wgsl)?),
        "uint32" => Typed::U32(declared(&name, &inputs, &outputs, &wgsl)?),
        c => {
            return Err(JsError::new(&format!(
                "nxrig: compute type {c:?} (expected 'float32', 'int32' or 'uint32')"
            )))
        }
    };
    Ok(Raw { typed, name })
}

#[wasm_bindgen]
impl Raw {
    /// The module over `inputs` and `outputs` (written in place) on `x` by `y` by `z`
    /// workgroups; resolves to nothing.
    ///
    /// Errors (the Promise rejects): what `RawKernel::call_async` refuses.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn call(
        &self,
        inputs: &Operands,
        outputs: &Operands,
        x: u32,
        y: u32,
        z: u32,
    ) -> js_sys::Promise {
        let (typed, name) = (self.typed.clone(), self.name.clone());
        let (ins, outs) = (inputs.arrays.clone(), outputs.arrays.clone());
        future_to_promise(async move {
            let (i, o): (Vec<&AnyArray>, Vec<&AnyArray>) =
                (ins.iter().collect(), outs.iter().collect());
            let g = [x, y, z];
            let r = match &typed {
                Typed::F32(k) => k.call_async(&i, &o, g).await,
                Typed::I32(k) => k.call_async(&i, &o, g).await,
                Typed::U32(k) => k.call_async(&i, &o, g).await,
            };
            settled(&name, None, r).map(|()| JsValue::UNDEFINED)
        })
    }
}
