//! What is written from the operations' table (`src/dtype/operations/rows.rs`) outside
//! Rust: `js/index.js`'s imports and exports of the operations and `js/index.d.ts`'s
//! declarations, which fail here while they differ from the table
//! (`NX_BLESS=1 cargo test --test operations_table` writes them). And the table's facts as
//! the public API gives them.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use nxrig::kernels::Operation;
use nxrig::DType;

const FROM: &str = "written by tests/operations_table.rs from src/dtype/operations/rows.rs.";

/// `// BEGIN` line `what`, the lines, `// END` line, each line indented by `indent`.
fn section(what: &str, indent: &str, lines: &[String]) -> (String, String, String) {
    let begin = format!("{indent}// BEGIN the operations' {what}: {FROM}");
    let end = format!("{indent}// END the operations' {what}");
    let mut s = format!("{begin}\n");
    for l in lines {
        s += &format!("{indent}{l}\n");
    }
    s += &end;
    (begin, end, s)
}

fn camel(name: &str) -> String {
    let mut c = name.chars();
    c.next()
        .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
        .unwrap_or_default()
}

#[test]
fn index_js_imports_and_exports_are_written_from_the_table() {
    let imports: Vec<String> = Operation::ALL
        .iter()
        .map(|o| format!("{} as wbg{},", o.name(), camel(o.name())))
        .collect();
    let (b, e, s) = section("imports", "  ", &imports);
    common::sections::written("js/index.js", &b, &e, &s, "--test operations_table");
    let exports: Vec<String> = Operation::ALL
        .iter()
        .map(|o| {
            format!(
                "export const {n} = operation(wbg{c}, '{n}', {a});",
                n = o.name(),
                c = camel(o.name()),
                a = o.arity()
            )
        })
        .collect();
    let (b, e, s) = section("exports", "", &exports);
    common::sections::written("js/index.js", &b, &e, &s, "--test operations_table");
}

#[test]
fn index_d_ts_declarations_are_written_from_the_table() {
    let mut lines = Vec::new();
    for o in Operation::ALL {
        let y = if o.arity() == 2 {
            ", y: NoInfer<NxArray<D>>"
        } else {
            ""
        };
        let (out, r) = if o.compares() {
            ("'bool'", "'bool'")
        } else {
            ("NoInfer<D>", "D")
        };
        lines.push(format!("/** {} */", o.summary()));
        lines.push(format!(
            "export function {}<D extends DType>(x: NxArray<D>{y}, options?: OutOption<{out}>): NxArray<{r}>;",
            o.name()
        ));
    }
    let (b, e, s) = section("types", "", &lines);
    common::sections::written("js/index.d.ts", &b, &e, &s, "--test operations_table");
}

#[test]
fn the_tables_facts_are_the_functions() {
    let f16 = DType::Float16;
    assert!(Operation::ALL.len() >= 13);
    assert_eq!(Operation::of_name("sub"), Some(Operation::Sub));
    assert_eq!(Operation::of_name("add"), None); // add is its own kernel
    assert_eq!(Operation::Neg.arity(), 1);
    assert_eq!(Operation::Lt.result(f16), DType::Bool);
    assert_eq!(Operation::Mul.result(f16), f16);
    assert!(!Operation::Sub.takes(DType::Bool));
    assert!(!Operation::Div.takes(DType::Complex64));
    assert!(Operation::Eq.takes(DType::Complex128));
    assert_eq!(Operation::Sub.name_into(), "sub_into");
}
