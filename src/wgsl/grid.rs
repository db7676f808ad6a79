//! The start of every form of an elementwise module's `main`: a grid-stride loop's
//! first index and step over a dispatch of up to 65535 x Y workgroups of 256.

/// The start of every form of `main`.
pub(super) const MAIN_HEAD: &str = "@compute @workgroup_size(256)\nfn main(@builtin(global_invocation_id) nx_gid: vec3<u32>, @builtin(num_workgroups) nx_groups: vec3<u32>) {\n    let nx_step = nx_groups.x * nx_groups.y * 256u;\n    let nx_first = nx_gid.x + nx_gid.y * nx_groups.x * 256u;\n";

/// `lines`, each indented by `depth` levels of four spaces.
pub(super) fn indented(lines: &[String], depth: usize) -> String {
    let pad = "    ".repeat(depth);
    lines.iter().map(|l| format!("{pad}{l}\n")).collect()
}
