//! The dtype section of `js/index.d.ts`, written from the dtype table: the `DType`
//! union, the TypedArray each dtype reads as (`DataTypeMap`) and what one element is in
//! `toArray()` (`ValueMap`).

use nxrig::dtype::{Class, Scalar};
use nxrig::DType;

/// The line that opens the section.
pub const BEGIN: &str =
    "// BEGIN the dtype table: written by tests/dtype_table.rs from src/dtype/table.rs.";
/// The line that closes it.
pub const END: &str = "// END the dtype table";

/// The doc comment of a dtype's entry in `DataTypeMap`, if it has one.
fn note(d: DType) -> Option<String> {
    let r = d.row();
    let range = || match (d.min_value(), d.max_value()) {
        (Scalar::Int(lo), Scalar::Int(hi)) => format!("{lo} to {hi}"),
        _ => unreachable!("an integer dtype"),
    };
    match r.class {
        Class::Float if r.typed_array == "Float16Array" => None,
        Class::Float if !r.typed_array.starts_with("Float") => {
            Some("Raw bits: `toTypedArray({ as: 'float32' })` gives the exact values.".into())
        }
        Class::Signed if r.bits < 8 => Some(format!("One element a byte, {}.", range())),
        Class::Unsigned if r.bits < 8 => Some(format!(
            "One element a byte, {} (as `toTypedArray` gives it). `fromTypedArray` takes\na `Uint8Array` as raw bytes, {} elements a byte: make {} from one-a-byte\nvalues with `fromTypedArray(values, 'uint8').cast('{}')`.",
            range(),
            ["", "", "two", "", "four", "", "", "", "eight"][(8 / r.bits) as usize],
            r.name,
            r.name
        )),
        Class::Complex => Some("Real and imaginary parts interleaved.".into()),
        Class::Bool => Some("One element a byte, 0 or 1.".into()),
        _ => None,
    }
}

/// The section, from its `BEGIN` line to its `END` line inclusive.
pub fn section() -> String {
    let mut s = format!(
        "{BEGIN}\n\n/** The {} dtypes, by name. */\nexport type DType =",
        DType::ALL.len()
    );
    let mut line = String::new();
    for d in DType::ALL {
        let item = format!(" | '{}'", d.name());
        if line.len() + item.len() > 88 {
            s.push_str(&format!("\n {line}"));
            line.clear();
        }
        line.push_str(&item);
    }
    s.push_str(&format!("\n {line};\n\n"));
    s.push_str("/** The TypedArray each dtype reads as (`toTypedArray`) and is made from (`fromTypedArray`). */\nexport interface DataTypeMap {\n");
    for d in DType::ALL {
        match note(d) {
            Some(n) if n.contains('\n') => {
                s.push_str("  /**\n");
                for l in n.lines() {
                    s.push_str(&format!("   * {l}\n"));
                }
                s.push_str("   */\n");
            }
            Some(n) => s.push_str(&format!("  /** {n} */\n")),
            None => {}
        }
        let t = match d.row().typed_array {
            "Float16Array" => "Float16Data",
            t => t,
        };
        s.push_str(&format!("  {}: {t};\n", d.name()));
    }
    s.push_str("}\n\n/** What one element of each dtype is in `toArray()`. */\nexport interface ValueMap {\n");
    for d in DType::ALL {
        let v = match d.class() {
            Class::Float => "number",
            Class::Signed | Class::Unsigned if d.bits() > 32 => "bigint",
            Class::Signed | Class::Unsigned => "number",
            Class::Complex => "[re: number, im: number]",
            Class::Bool => "boolean",
        };
        s.push_str(&format!("  {}: {v};\n", d.name()));
    }
    s.push_str("}\n\n");
    s.push_str(END);
    s
}
