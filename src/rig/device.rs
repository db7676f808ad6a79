//! Devices: where memory lives and work runs.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::backend::Backend;
use super::kind::RigKind;
use super::timeline::Timeline;
use crate::error::Error;
use crate::sync::Arc;

struct Inner {
    id: u64,
    name: String,
    /// A std `Arc` also under loom: the GPU's callbacks hold it weakly.
    timeline: std::sync::Arc<Timeline>,
    backend: Backend,
    /// Bytes and allocations of the device's memory alive (std atomics also under
    /// loom: a figure, not an order).
    held: (AtomicU64, AtomicU64),
}

/// What a device's memory holds now: [`Rig::memory_use`].
///
/// ```
/// use nxrig::rig::{Buffer, Kind};
/// use nxrig::Rig;
///
/// let dev = Rig::virtual_host("scratch");
/// let before = dev.memory_use();
/// let b = Buffer::create(&dev, 1 << 20, Kind::Device)?;
/// assert_eq!(dev.memory_use().bytes - before.bytes, 1 << 20);
/// drop(b);
/// assert_eq!(dev.memory_use(), before);
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryUse {
    /// Bytes of the allocations alive (arrays, views' buffers, borrowed `Vec`s and
    /// mapped files; not the freed memory a device keeps for reuse). 64 bits: a GPU's
    /// memory may pass 4 GiB where `usize` is 32 bits (wasm32).
    pub bytes: u64,
    /// Allocations alive.
    pub allocations: u64,
}

/// A device: the host, or one per GPU adapter. `Clone` copies the
/// handle; two handles are equal when they name the same device.
///
/// ```
/// use nxrig::{AnyArray, DType, Rig};
///
/// let host = Rig::host();
/// assert_eq!(host.name(), "host");
/// assert!(host.host_addressable());
/// let a = AnyArray::create(&host, DType::Float32, &[4])?;
/// if let Ok(gpu) = Rig::by_name("gpu") {
///     let g = a.to_device(&gpu)?; // bit for bit
///     assert_eq!(g.rig(), &gpu);
/// }
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Clone)]
pub struct Rig(Arc<Inner>);

fn next_id() -> u64 {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl Rig {
    /// A device named `name` over `backend`, on `timeline` (the backend's
    /// callbacks complete its stamps).
    pub(crate) fn make(name: &str, backend: Backend, timeline: std::sync::Arc<Timeline>) -> Rig {
        Rig(Arc::new(Inner {
            id: next_id(),
            name: name.to_owned(),
            timeline,
            backend,
            held: Default::default(),
        }))
    }

    /// A host device named `name`, with a timeline of its own.
    fn make_host(name: &str) -> Rig {
        let t = std::sync::Arc::new(Timeline::new());
        Rig::make(name, Backend::Host(super::host::Host), t)
    }

    /// The device's backend.
    pub(crate) fn backend(&self) -> &Backend {
        &self.0.backend
    }

    /// The host device, named `"host"`: always the same device.
    #[cfg(not(loom))]
    pub fn host() -> Rig {
        static HOST: std::sync::OnceLock<Rig> = std::sync::OnceLock::new();
        HOST.get_or_init(|| Rig::make_host("host")).clone()
    }

    /// Under loom every model makes its own host (loom's atomics live in one model).
    #[cfg(loom)]
    pub fn host() -> Rig {
        Rig::make_host("host")
    }

    /// A further host device named `name`, with its own identity and timeline, over
    /// host memory. Tests use it to lose a device without losing [`Rig::host`], and to
    /// spread an input's buffers over two devices.
    pub fn virtual_host(name: &str) -> Rig {
        Rig::make_host(name)
    }

    /// The bytes and allocations of this device's memory alive now: each allocation
    /// counts from its making until the last buffer over it is dropped.
    pub fn memory_use(&self) -> MemoryUse {
        MemoryUse {
            bytes: self.0.held.0.load(Relaxed),
            allocations: self.0.held.1.load(Relaxed),
        }
    }

    /// Counts an allocation of `len` bytes made (`made` true) or dropped.
    pub(crate) fn count_memory(&self, len: usize, made: bool) {
        if made {
            self.0.held.0.fetch_add(len as u64, Relaxed);
            self.0.held.1.fetch_add(1, Relaxed);
        } else {
            self.0.held.0.fetch_sub(len as u64, Relaxed);
            self.0.held.1.fetch_sub(1, Relaxed);
        }
    }

    /// The device's name, as `nxrig devices` lists it.
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// A number that identifies the device within this process.
    pub fn id(&self) -> u64 {
        self.0.id
    }

    /// What the device is and offers, in one line (a GPU's adapter: its type, the
    /// shader types it has, its buffer limits in bytes), as `nxrig devices` prints it;
    /// `None` for the host, whose name says it all.
    pub fn describe(&self) -> Option<String> {
        self.0.backend.device().describe()
    }

    /// What kind of device it is.
    pub fn kind(&self) -> RigKind {
        self.0.backend.device().kind()
    }

    /// True when the host addresses the device's memory.
    pub fn host_addressable(&self) -> bool {
        self.0.backend.device().host_addressable()
    }

    /// Every device nxrig can use, the host first: natively then one per GPU adapter
    /// (`Rig::gpus`) and one per CUDA device (`Rig::cudas`), opened on the first call
    /// (blocking); in the browser the GPU devices opened so far with
    /// [`Rig::gpu_async`].
    pub fn all() -> Vec<Rig> {
        #[cfg_attr(loom, allow(unused_mut))]
        let mut v = vec![Rig::host()];
        #[cfg(all(not(target_arch = "wasm32"), not(loom)))]
        v.extend(Rig::gpus());
        #[cfg(all(not(target_arch = "wasm32"), not(loom)))]
        v.extend(Rig::cudas());
        #[cfg(target_arch = "wasm32")]
        v.extend(lock(&REGISTERED).iter().filter(|r| !r.is_lost()).cloned());
        v
    }

    /// The device of [`Rig::all`] named `name`; `"gpu"` names the first GPU device,
    /// `"gpu1"` the second, and so on. A device lost or destroyed is never handed out
    /// again: natively its adapter is opened anew (see `Rig::gpus`).
    ///
    /// # Errors
    /// [`Error::NoDevice`] for a name of a CUDA device (`cuda0`, ...) where there is
    /// none, saying why; [`Error::Invalid`] if none has that name.
    pub fn by_name(name: &str) -> Result<Rig, Error> {
        if name == "host" {
            return Ok(Rig::host());
        }
        let all = Rig::all();
        let gpus: Vec<&Rig> = all.iter().filter(|d| d.kind().is_gpu()).collect();
        let nth = match name.strip_prefix("gpu") {
            Some("") => Some(0),
            Some(k) => k.parse::<usize>().ok(),
            None => None,
        };
        if let Some(r) = nth.and_then(|k| gpus.get(k)) {
            return Ok((*r).clone());
        }
        if let Some(r) = all.iter().find(|d| d.name() == name) {
            return Ok(r.clone());
        }
        // `cuda0`, `cuda1`, ... where CUDA or that device is not there: why.
        let ordinal = name
            .strip_prefix("cuda")
            .filter(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|k| k.parse::<usize>().ok());
        let why = ordinal.and_then(|k| Rig::cuda_unavailable().or_else(|| Rig::cuda_not_opened(k)));
        if let Some(why) = why {
            return Err(Error::NoDevice {
                op: "Rig::by_name",
                reason: format!("no device named {name:?}: {why}"),
            });
        }
        // Each device by a name that opens it: `host`, `gpu0: <adapter>`, ..., others
        // by their own names.
        let mut k = 0;
        let names: Vec<String> = all
            .iter()
            .map(|d| {
                if d.kind().is_gpu() {
                    k += 1;
                    format!("gpu{}: {}", k - 1, d.name())
                } else {
                    d.name().to_owned()
                }
            })
            .collect();
        Err(Error::Invalid {
            op: "Rig::by_name",
            reason: format!("no device named {name:?} (devices: {})", names.join(", ")),
            operands: String::new(),
        })
    }

    /// Marks the device lost: every later operation on its memory, and every wait for
    /// its unfinished work, returns [`Error::Lost`] at once. The GPU backend calls this
    /// when the driver reports the device lost; tests call it to simulate that.
    pub fn lose(&self) {
        self.0.timeline.lose();
    }

    /// A way to mark the device lost later that does not keep it alive (the wasm
    /// panic hook marks every GPU device lost).
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub(crate) fn loser(&self) -> impl Fn() + 'static {
        let t = std::sync::Arc::downgrade(&self.0.timeline);
        move || {
            if let Some(t) = t.upgrade() {
                t.lose();
            }
        }
    }

    /// Destroys a GPU device (wgpu's `Device::destroy`), as a driver reset would: work
    /// and reads pending on it settle with [`Error::Lost`], and every operation started
    /// before, during or after it settles with its values or [`Error::Lost`]. The
    /// device is marked lost before its resources go, so an operation that meets a
    /// destroyed wgpu object reports the loss, not wgpu's complaint. On the host it is
    /// [`Rig::lose`].
    pub fn destroy(&self) {
        self.lose();
        self.0.backend.device().destroy();
    }

    /// Drops the freed memory the device keeps for reuse, so that the system (or the
    /// driver) gets it back: on the host, freed allocations of 1 MiB and more (at most
    /// 256 MiB in all, shared by every host device); on a GPU, its pool of buffers.
    pub fn empty_cache(&self) {
        self.0.backend.device().empty_cache()
    }

    /// Bytes of freed memory the device keeps for reuse now (see [`Rig::empty_cache`]).
    pub fn cached_bytes(&self) -> u64 {
        self.0.backend.device().cached_bytes()
    }

    /// True once the device is lost.
    pub fn is_lost(&self) -> bool {
        self.0.timeline.is_lost()
    }

    /// `Err(Lost)` naming `op` if the device is lost.
    pub(crate) fn check(&self, op: &'static str) -> Result<(), Error> {
        if self.is_lost() {
            Err(self.lost(op))
        } else {
            Ok(())
        }
    }

    pub(crate) fn lost(&self, op: &'static str) -> Error {
        Error::Lost {
            op,
            device: match self.0.timeline.why() {
                Some(why) => format!("{} ({why})", self.0.name),
                None => self.0.name.clone(),
            },
        }
    }

    pub(crate) fn timeline(&self) -> &Timeline {
        &self.0.timeline
    }
}

/// The GPU devices the browser opened, for [`Rig::all`].
#[cfg(target_arch = "wasm32")]
static REGISTERED: crate::sync::Mutex<Vec<Rig>> = crate::sync::Mutex::new(Vec::new());

#[cfg(target_arch = "wasm32")]
use crate::sync::lock;

/// Lists `rig` in [`Rig::all`] (in the browser, where lost devices leave the list;
/// natively `all` finds the adapters).
pub(crate) fn register(rig: &Rig) {
    #[cfg(target_arch = "wasm32")]
    {
        let mut r = lock(&REGISTERED);
        r.retain(|d| !d.is_lost());
        r.push(rig.clone());
    }
    let _ = rig;
}

impl PartialEq for Rig {
    fn eq(&self, other: &Rig) -> bool {
        self.0.id == other.0.id
    }
}

impl Eq for Rig {}

impl std::hash::Hash for Rig {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.0.id.hash(h)
    }
}

impl fmt::Debug for Rig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Rig({} #{})", self.0.name, self.0.id)
    }
}
