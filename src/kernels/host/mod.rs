//! The host's kernels: typed loops over runs of the walk (`crate::dtype::lanes`,
//! `crate::layout::Runs`), long ones on rayon's pool (`split`). Called by the kernels'
//! front doors for arrays on a host device, under the door's claims.

mod add;
mod cast;
mod fill;
pub(crate) mod ops;
pub(crate) mod split;

pub(crate) use add::add;
pub(crate) use cast::cast;
pub(crate) use fill::fill;
