//! Elementwise kernels of the user's own from JavaScript (`elementwise` in the npm
//! entry): operands declared as CuPy writes them (`'T x'`, `'float32 y'`: a dtype or a
//! type variable, then the name), a compute type, a WGSL body (WebGPU) and a
//! JavaScript body (the host device: a function over TypedArray chunks of the compute
//! type). Calls return Promises: a WGSL body's compile error, and what the device
//! says of the work, reject the call that caused them.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use super::array::NxArray;
use super::js_error;
use crate::kernels::{Compute, DTypeOrVar, Elementwise};
use crate::AnyArray;

/// The arrays of one call, in order (JavaScript pushes them one at a time).
#[wasm_bindgen]
#[derive(Default)]
pub struct Operands {
    pub(super) arrays: Vec<AnyArray>,
}

#[wasm_bindgen]
impl Operands {
    /// No arrays yet.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Operands {
        Operands::default()
    }

    /// `a` next (a handle of the same array, not a copy).
    ///
    /// Errors: a disposed array.
    pub fn push(&mut self, a: &NxArray) -> Result<(), JsError> {
        self.arrays.push(a.get()?.clone());
        Ok(())
    }
}

/// A JavaScript body and the first exception it threw in a call.
#[derive(Clone)]
struct JsBody {
    f: js_sys::Function,
    thrown: Rc<RefCell<Option<JsValue>>>,
}

// SAFETY: wasm32 without threads: the body is called on the one thread there is.
unsafe impl Send for JsBody {}
unsafe impl Sync for JsBody {}

/// The compute types' TypedArrays.
macro_rules! host_body {
    ($fname:ident, $t:ty, $array:ty) => {
        fn $fname(b: JsBody) -> impl Fn(&[&[$t]], &mut [&mut [$t]]) + Send + Sync + 'static {
            move |ins, outs| {
                // The whole body, not its fields: `JsBody` is what is Send and Sync.
                let b = &b;
                if b.thrown.borrow().is_some() {
                    return;
                }
                let i = js_sys::Array::new();
                for x in ins {
                    i.push(&<$array>::from(*x));
                }
                let o = js_sys::Array::new();
                for z in outs.iter() {
                    o.push(&<$array>::new_with_length(z.len() as u32));
                }
                match b.f.call2(&JsValue::UNDEFINED, &i, &o) {
                    Ok(_) => {
                        for (k, z) in outs.iter_mut().enumerate() {
                            <$array>::from(o.get(k as u32)).copy_to(z);
                        }
                    }
                    Err(e) => *b.thrown.borrow_mut() = Some(e),
                }
            }
        }
    };
}

host_body!(f32_host, f32, js_sys::Float32Array);
host_body!(i32_host, i32, js_sys::Int32Array);
host_body!(u32_host, u32, js_sys::Uint32Array);

/// A kernel of one compute type.
#[derive(Clone)]
enum Typed {
    F32(Elementwise<f32>),
    I32(Elementwise<i32>),
    U32(Elementwise<u32>),
}

/// An elementwise kernel declared from JavaScript.
#[wasm_bindgen]
pub struct Kernel {
    typed: Typed,
    name: String,
    /// Whether it donates an input (its calls then go through `call_donated_async`).
    donates: bool,
    thrown: Option<Rc<RefCell<Option<JsValue>>>>,
}

/// `'T x'` as (name, type).
fn operand(decl: &str) -> Result<(String, DTypeOrVar), JsError> {
    let parts: Vec<&str> = decl.split_whitespace().collect();
    let [ty, name] = parts[..] else {
        return Err(JsError::new(&format!(
            "nxrig: operand {decl:?} is not a type and a name ('T x', 'float32 y')"
        )));
    };
    // A dtype's name, or a type variable (checked with the declaration).
    Ok((name.to_owned(), DTypeOrVar::from(ty)))
}

/// Operands as (name, type).
pub(super) type Declared = Vec<(String, DTypeOrVar)>;

/// The operands `inputs` and `outputs` (`'T x'` each) parsed by [`operand`].
///
/// Errors: one that is not a type and a name.
pub(super) fn parsed(
    inputs: &[String],
    outputs: &[String],
) -> Result<(Declared, Declared), JsError> {
    let each = |v: &[String]| {
        v.iter()
            .map(|d| operand(d))
            .collect::<Result<Declared, _>>()
    };
    Ok((each(inputs)?, each(outputs)?))
}

fn declared<C: Compute>(
    name: &str,
    inputs: &[String],
    outputs: &[String],
    wgsl: Option<String>,
    donate: &[String],
) -> Result<Elementwise<C>, JsError> {
    let mut k = Elementwise::<C>::new(name);
    for n in donate {
        k = k.donates(n);
    }
    let (ins, outs) = parsed(inputs, outputs)?;
    for (n, t) in ins {
        k = k.input(&n, t);
    }
    for (n, t) in outs {
        k = k.output(&n, t);
    }
    // Refused when declared, not at its first call.
    k.declared()
        .map_err(|r| JsError::new(&format!("elementwise: kernel {name:?}: {r}")))?;
    Ok(match wgsl {
        Some(w) => k.wgsl(&w),
        None => k,
    })
}

/// The kernel `name`: operands `inputs` and `outputs` (`'T x'`), computing in
/// `compute` (`'float32'`, `'int32'` or `'uint32'`), with a WGSL body (statements that
/// set the outputs) and a JavaScript body (`(inputs, outputs) => void` over
/// TypedArrays of the compute type, one chunk of each operand at a time); `donate`
/// names the inputs whose memory an output may take (`Elementwise::donates`).
///
/// Errors: an operand that is not a type and a name, a compute type other than those.
#[wasm_bindgen(js_name = elementwiseKernel)]
pub fn elementwise_kernel(
    name: String,
    inputs: Vec<String>,
    outputs: Vec<String>,
    compute: String,
    wgsl: Option<String>,
    js: Option<js_sys::Function>,
    donate: Vec<String>,
) -> Result<Kernel, JsError> {
    let thrown = js.as_ref().map(|_| Rc::new(RefCell::new(None)));
    let body = js.map(|f| JsBody {
        f,
        thrown: thrown.clone().expect("a cell for the body"),
    });
    let typed = match compute.as_str() {
        "float32" => {
            let k = declared::<f32>(&name, &inputs, &outputs, wgsl, &donate)?;
            Typed::F32(match body {
                Some(b) => k.host(f32_host(b)),
                None => k,
            })
        }
        "int32" => {
            let k = declared::<i32>(&name, &inputs, &outputs, wgsl, &donate)?;
            Typed::I32(match body {
                Some(b) => k.host(i32_host(b)),
                None => k,
            })
        }
        "uint32" => {
            let k = declared::<u32>(&name, &inputs, &outputs, wgsl, &donate)?;
            Typed::U32(match body {
                Some(b) => k.host(u32_host(b)),
                None => k,
            })
        }
        c => {
            return Err(JsError::new(&format!(
                "nxrig: compute type {c:?} (expected 'float32', 'int32' or 'uint32')"
            )))
        }
    };
    Ok(Kernel {
        typed,
        name,
        donates: !donate.is_empty(),
        thrown,
    })
}

#[wasm_bindgen]
impl Kernel {
    /// The kernel over `inputs` into fresh outputs (the inputs' broadcast shape, C
    /// order, on their device), or over a donated input's memory where the claims
    /// allow (`Elementwise::call_donated`): resolves to the outputs, in declaration
    /// order.
    ///
    /// Errors (the Promise rejects): what `Elementwise::call_async` (or
    /// `call_donated_async`) refuses, and what the JavaScript body throws.
    #[wasm_bindgen(unchecked_return_type = "Promise<NxArray[]>")]
    pub fn call(&self, inputs: &Operands) -> js_sys::Promise {
        let (typed, thrown, name) = (self.typed.clone(), self.thrown.clone(), self.name.clone());
        let ins = inputs.arrays.clone();
        let donates = self.donates;
        future_to_promise(async move {
            let refs: Vec<&AnyArray> = ins.iter().collect();
            let r = match (&typed, donates) {
                (Typed::F32(k), true) => k.call_donated_async(ins.clone()).await,
                (Typed::I32(k), true) => k.call_donated_async(ins.clone()).await,
                (Typed::U32(k), true) => k.call_donated_async(ins.clone()).await,
                (Typed::F32(k), false) => k.call_async(&refs).await,
                (Typed::I32(k), false) => k.call_async(&refs).await,
                (Typed::U32(k), false) => k.call_async(&refs).await,
            };
            settled(&name, thrown, r).map(|outs| {
                let a = js_sys::Array::new();
                for o in outs {
                    a.push(&JsValue::from(NxArray::new(o)));
                }
                a.into()
            })
        })
    }

    /// The kernel over `inputs` into `outputs`, written in place whatever their
    /// layouts; resolves to nothing.
    ///
    /// Errors (the Promise rejects): what `Elementwise::call_into_async` refuses, and
    /// what the JavaScript body throws.
    #[wasm_bindgen(js_name = callInto, unchecked_return_type = "Promise<void>")]
    pub fn call_into(&self, inputs: &Operands, outputs: &Operands) -> js_sys::Promise {
        let (typed, thrown, name) = (self.typed.clone(), self.thrown.clone(), self.name.clone());
        let (ins, outs) = (inputs.arrays.clone(), outputs.arrays.clone());
        future_to_promise(async move {
            let (i, o): (Vec<&AnyArray>, Vec<&AnyArray>) =
                (ins.iter().collect(), outs.iter().collect());
            let r = match &typed {
                Typed::F32(k) => k.call_into_async(&i, &o).await,
                Typed::I32(k) => k.call_into_async(&i, &o).await,
                Typed::U32(k) => k.call_into_async(&i, &o).await,
            };
            settled(&name, thrown, r).map(|()| JsValue::UNDEFINED)
        })
    }
}

/// `r` as JavaScript has it: the JavaScript body's exception first, then nxrig's
/// error without the kernel's name (the function called says it).
pub(super) fn settled<T>(
    name: &str,
    thrown: Option<Rc<RefCell<Option<JsValue>>>>,
    r: Result<T, crate::Error>,
) -> Result<T, JsValue> {
    if let Some(e) = thrown.and_then(|t| t.borrow_mut().take()) {
        return Err(e);
    }
    r.map_err(|e| {
        let said = js_error(e);
        let v: JsValue = said.into();
        if let Some(err) = v.dyn_ref::<js_sys::Error>() {
            let m = String::from(err.message());
            let prefix = format!("nxrig: kernel {name:?}: ");
            if let Some(rest) = m.strip_prefix(&prefix) {
                err.set_message(&format!("nxrig: {rest}"));
            }
        }
        v
    })
}
