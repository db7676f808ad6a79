//! A dtype's names: its name as it prints, the names and aliases it parses from, every
//! name as a message lists them, and the dtype a refused name was likely meant for.

use core::fmt;
use core::str::FromStr;

use crate::error::Error;

use super::table::DType;

/// Every dtype's name, as the message of an unknown one lists them.
static NAMES: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    DType::ALL
        .iter()
        .map(|d| d.row().name)
        .collect::<Vec<_>>()
        .join(", ")
});

impl DType {
    /// Every dtype's name, comma-separated, in code order (`"float16, bfloat16, ..."`).
    pub fn names() -> &'static str {
        NAMES.as_str()
    }

    /// The dtype a refused name was likely meant for: the dtype a name or alias names
    /// in any case (`"F32"`, `"half"`: where only exact names are taken), else the one
    /// whose name or alias has the same digits and is fewest edits away (an insertion,
    /// a deletion, a change or two neighbours swapped each), two at most and fewer
    /// than half the name's letters: `"flaot16"` and `"bfloat_16"` are typos of
    /// float16 and bfloat16; `"int7"` and `"bf17"` are widths nxrig has not, and no
    /// typo. The first such in the table's order where two are as near.
    ///
    /// ```
    /// use nxrig::DType;
    /// assert_eq!(DType::nearest("flaot16"), Some(DType::Float16));
    /// assert_eq!(DType::nearest("float8_e4m3fm"), Some(DType::Float8E4m3fn));
    /// assert_eq!(DType::nearest("F32"), Some(DType::Float32));
    /// assert_eq!(DType::nearest("int7"), None);
    /// assert_eq!(DType::nearest("bf17"), None);
    /// assert_eq!(DType::nearest("banana"), None);
    /// ```
    pub fn nearest(s: &str) -> Option<DType> {
        let lower = s.to_ascii_lowercase();
        let digits = |t: &str| t.chars().filter(char::is_ascii_digit).collect::<String>();
        let mut best: Option<(usize, DType)> = None;
        for r in DType::ALL.iter().map(|d| d.row()) {
            for n in std::iter::once(&r.name).chain(r.aliases.iter()) {
                if digits(n) != digits(&lower) {
                    continue;
                }
                let d = edits(&lower, n);
                if best.is_none_or(|(b, _)| d < b) {
                    best = Some((d, r.dtype));
                }
            }
        }
        best.filter(|&(d, _)| d <= 2 && 2 * d < lower.chars().count())
            .map(|(_, dtype)| dtype)
    }
}

/// What an unknown dtype's message ends with: `: did you mean "float16"?` where
/// [`DType::nearest`] finds one, else nothing.
pub(crate) fn meant(name: &str) -> String {
    DType::nearest(name)
        .map(|d| format!(": did you mean {:?}?", d.name()))
        .unwrap_or_default()
}

/// The edits between `a` and `b`: insertions, deletions, changes and swaps of two
/// neighbours (the optimal string alignment distance), by characters.
fn edits(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // rows[i][j]: the edits between a's first i characters and b's first j.
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, x) in rows[0].iter_mut().enumerate() {
        *x = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let change = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + change);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = d;
        }
    }
    rows[a.len()][b.len()]
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for DType {
    type Err = Error;

    /// Parses a dtype's name (`"bfloat16"`), or a common alias: NumPy/ml_dtypes names
    /// (`"float8_e4m3fn"`, `"bool_"`), short names (`"f16"`, `"bf16"`, `"f32"`, `"i8"`,
    /// `"u8"`, `"c64"`) and safetensors codes (`"F16"`, `"BF16"`, `"F8_E4M3"`), but
    /// `"F4"`, which NumPy reads as float32 and safetensors as float4_e2m1fn: it is
    /// refused, naming both.
    ///
    /// ```
    /// use nxrig::DType;
    /// assert_eq!("F8_E8M0".parse::<DType>()?, DType::Float8E8m0fnu);
    /// assert!("f4".parse::<DType>().unwrap_err().to_string().contains("float4_e2m1fn"));
    /// # Ok::<(), nxrig::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::UnknownDtype`] for any other string.
    fn from_str(s: &str) -> Result<Self, Error> {
        let lower = s.to_ascii_lowercase();
        if lower == "f4" {
            return Err(Error::UnknownDtype {
                name: s.to_owned(),
                expected: "float32 (NumPy's \"f4\") or float4_e2m1fn (safetensors' \"F4\"): it names both, so name one",
            });
        }
        DType::ALL
            .into_iter()
            .find(|d| d.row().name == lower || d.row().aliases.contains(&lower.as_str()))
            .ok_or_else(|| Error::UnknownDtype {
                name: s.to_owned(),
                expected: DType::names(),
            })
    }
}
