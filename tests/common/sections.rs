//! Sections of files written from a table (the dtypes', the operations'): each test
//! that owns one checks that the file holds it as the table writes it, or, with
//! `NX_BLESS` set, writes it.

use std::path::Path;

/// Checks that `file` (relative to the crate) holds `want` from its line `begin` to its
/// line `end` (both inclusive, both in `want`); with `NX_BLESS` set, writes `want`
/// there instead. `test` is what `cargo test` runs it by (`--test operations_table`), named
/// in the failure.
pub fn written(file: &str, begin: &str, end: &str, want: &str, test: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let a = text.find(begin).expect("the section's BEGIN line");
    let b = text.find(end).expect("the section's END line") + end.len();
    if std::env::var_os("NX_BLESS").is_some() {
        std::fs::write(&path, format!("{}{want}{}", &text[..a], &text[b..])).unwrap();
        return;
    }
    assert!(
        text[a..b] == *want,
        "{file}'s section {begin:?} differs from its table: NX_BLESS=1 cargo test {test} writes it"
    );
}
