//! A checkpoint's scheme, read from its own files: `config.json`'s
//! `quantization_config`, `hf_quant_config.json`, or the scheme a caller names;
//! never guessed from a dtype.

use super::scheme::{Nibbles, Scheme};
use crate::error::Error;
use serde_json::Value;

/// What a caller says of a checkpoint's scheme (the command line's `--scheme` and
/// `--nibbles`, JavaScript's `scheme` and `nibbles`).
#[derive(Clone, Debug, Default)]
pub struct Choice {
    /// The scheme by name ([`Scheme::named`]), over what the files say.
    pub scheme: Option<String>,
    /// Which nibble holds a float4 pair's even element.
    pub nibbles: Nibbles,
}

/// A checkpoint's scheme with its parameters.
///
/// ```
/// use nxrig::quant::{Choice, Quantization};
///
/// let config: serde_json::Value = serde_json::from_str(r#"{"quantization_config":
///     {"quant_method": "fp8", "weight_block_size": [128, 128], "modules_to_not_convert": ["lm_head"]}}"#)?;
/// let q = Quantization::detect(Some(&config), None, &Choice::default())?.expect("a scheme");
/// assert_eq!((q.scheme.name, q.block, q.not_converted.as_slice()), ("fp8-block", [128, 128], &["lm_head".to_owned()][..]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Quantization {
    /// The scheme's row.
    pub scheme: &'static Scheme,
    /// A float8 scheme's block `[rows, columns]` (0: from the scale's shape, one
    /// entry along an axis meaning the whole axis).
    pub block: [usize; 2],
    /// An integer scheme's group along the input axis (0: from the scale's shape).
    pub group: usize,
    /// An integer scheme's bits a value (2, 4 or 8).
    pub bits: u32,
    /// GPTQ's zero points stored minus one (the original format; `gptq_v2` stores
    /// them as they are).
    pub zeros_minus_one: bool,
    /// Which nibble of a float4 pair holds the even element.
    pub nibbles: Nibbles,
    /// GPTQ's `sym`: every zero point is `2^(bits-1)`, which the dequantization checks
    /// (a v1 checkpoint read as v2, or the reverse, is then refused).
    pub symmetric: bool,
    /// DeepSeek-V4's routed experts: float4 pairs in `I8` weights with a UE8M0 scale
    /// each 32 inputs, in a checkpoint of float8 blocks (`expert_dtype: "fp4"`).
    pub fp4_experts: bool,
    /// The modules the configuration leaves unquantized (`modules_to_not_convert`,
    /// `ignore`, `exclude_modules`): names, globs, or `re:` regular expressions.
    pub not_converted: Vec<String>,
    /// Where the scheme was read, in words (`config.json: quant_method "fp8"`).
    pub from: String,
}

fn refuse(path: &str, reason: String) -> Error {
    Error::Format {
        path: path.to_owned(),
        tensor: None,
        reason,
    }
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn uint(v: Option<&Value>) -> Option<usize> {
    v.and_then(Value::as_u64).map(|x| x as usize)
}

impl Quantization {
    fn of(scheme: &'static Scheme, from: String) -> Quantization {
        Quantization {
            scheme,
            block: [0, 0],
            group: 0,
            bits: 4,
            zeros_minus_one: false,
            nibbles: Nibbles::LowFirst,
            symmetric: false,
            fp4_experts: false,
            not_converted: Vec::new(),
            from,
        }
    }

    /// The scheme of a checkpoint whose `config.json` is `config` and whose
    /// `hf_quant_config.json` is `hf_quant` (either may be absent), as `choice` settles
    /// it: `None` for a checkpoint that says it is not quantized and where no scheme is
    /// named.
    ///
    /// # Errors
    /// [`Error::Format`] naming the file: a `quant_method` or `quant_algo` nxrig does
    /// not know (with `--scheme`, the option that settles it), parameters it cannot
    /// dequantize (3-bit GPTQ, AWQ's GEMV layout, a block that is not two positive
    /// sizes), a compressed-tensors configuration of several formats; a `--scheme`
    /// that names no scheme.
    pub fn detect(
        config: Option<&Value>,
        hf_quant: Option<&Value>,
        choice: &Choice,
    ) -> Result<Option<Quantization>, Error> {
        let mut q = Quantization::from_files(config, hf_quant)?;
        if let Some(name) = &choice.scheme {
            // GPTQ's two formats by name: `gptq` reads zero points stored minus one
            // (v1), `gptq-v2` as they are, whatever the files say.
            let (row, minus_one) = match name.as_str() {
                "gptq" => ("gptq", Some(true)),
                "gptq-v2" => ("gptq", Some(false)),
                other => (other, None),
            };
            let scheme = Scheme::named(row).ok_or_else(|| {
                refuse(
                    "--scheme",
                    format!(
                        "no scheme is named {name:?} (expected one of {}, gptq-v2)",
                        Scheme::names()
                    ),
                )
            })?;
            q = Some(match q {
                // The files' parameters kept where they name the same layout.
                Some(mut q) if q.scheme.packing == scheme.packing => {
                    q.scheme = scheme;
                    q.from = format!("--scheme {name} (the files say {})", q.from);
                    q
                }
                _ => {
                    let mut q = Quantization::of(scheme, format!("--scheme {name}"));
                    if name == "fp8-block" {
                        q.block = [128, 128];
                    }
                    q
                }
            });
            if let (Some(q), Some(m)) = (&mut q, minus_one) {
                q.zeros_minus_one = m;
            }
        }
        if let Some(q) = &mut q {
            q.nibbles = choice.nibbles;
        }
        Ok(q)
    }

    fn from_files(
        config: Option<&Value>,
        hf_quant: Option<&Value>,
    ) -> Result<Option<Quantization>, Error> {
        let qc = config.and_then(|c| {
            c.get("quantization_config")
                .or_else(|| c.get("compression_config"))
        });
        if let Some(qc) = qc {
            let mut q = Quantization::of_config(qc)?;
            let fp4 = |v: Option<&Value>| {
                v.and_then(|v| v.get("expert_dtype"))
                    .and_then(Value::as_str)
                    == Some("fp4")
            };
            q.fp4_experts = q.scheme.packing == super::scheme::Packing::Float8
                && (fp4(config) || fp4(Some(qc)));
            return Ok(Some(q));
        }
        if let Some(h) = hf_quant {
            let q = h.get("quantization").unwrap_or(h);
            return Quantization::of_modelopt(q, "hf_quant_config.json").map(Some);
        }
        Ok(None)
    }

    fn of_modelopt(q: &Value, path: &str) -> Result<Quantization, Error> {
        let algo = q.get("quant_algo").and_then(Value::as_str).unwrap_or("");
        let from = format!("{path}: quant_algo {algo:?}");
        let mut out = match algo {
            "NVFP4" => {
                let mut out = Quantization::of(Scheme::named("nvfp4").expect("a row"), from);
                if let Some(g) = uint(q.get("group_size")) {
                    if g != 16 {
                        return Err(refuse(
                            path,
                            format!("NVFP4 with group_size {g}: its layout has blocks of 16"),
                        ));
                    }
                }
                out.block = [1, 16];
                out
            }
            "FP8" => Quantization::of(Scheme::named("fp8").expect("a row"), from),
            other => {
                return Err(refuse(
                    path,
                    format!(
                        "quant_algo {other:?} is not a scheme nxrig knows (it dequantizes NVFP4 and FP8 of ModelOpt); --scheme names one of {}",
                        Scheme::names()
                    ),
                ))
            }
        };
        out.not_converted = strings(q.get("exclude_modules"));
        out.not_converted.extend(strings(q.get("ignore")));
        Ok(out)
    }

    fn of_config(qc: &Value) -> Result<Quantization, Error> {
        const P: &str = "config.json";
        let method = qc.get("quant_method").and_then(Value::as_str).unwrap_or("");
        let from = format!("{P}: quant_method {method:?}");
        let row = |n: &str| Scheme::named(n).expect("a row of the table");
        let mut q = match method {
            "fp8" => {
                let mut q = Quantization::of(row("fp8-block"), from);
                if let Some(b) = qc.get("weight_block_size") {
                    q.block = block_of(b).ok_or_else(|| {
                        refuse(
                            P,
                            format!("weight_block_size {b} is not two positive sizes"),
                        )
                    })?;
                }
                q
            }
            "mxfp4" => Quantization::of(row("mxfp4"), from),
            "modelopt" => Quantization::of_modelopt(qc, P)?,
            "gptq" => {
                let mut q = Quantization::of(row("gptq"), from);
                q.bits = int_bits(qc, P, &[2, 4, 8])?;
                q.group = group_of(qc);
                let format = qc
                    .get("checkpoint_format")
                    .or_else(|| qc.get("format"))
                    .and_then(Value::as_str)
                    .unwrap_or("gptq");
                q.zeros_minus_one = match format {
                    "gptq" => true,
                    "gptq_v2" => false,
                    other => {
                        return Err(refuse(
                            P,
                            format!("GPTQ checkpoint_format {other:?}: nxrig reads \"gptq\" and \"gptq_v2\""),
                        ))
                    }
                };
                q.symmetric = qc.get("sym").and_then(Value::as_bool) == Some(true);
                q.from = format!("{P}: quant_method \"gptq\", checkpoint_format {format:?}");
                q
            }
            "awq" => {
                let mut q = Quantization::of(row("awq"), from);
                q.bits = int_bits(qc, P, &[4])?;
                q.group = group_of(qc);
                let version = qc
                    .get("version")
                    .and_then(Value::as_str)
                    .unwrap_or("gemm")
                    .to_ascii_lowercase();
                if version != "gemm" {
                    return Err(refuse(
                        P,
                        format!("AWQ version {version:?}: nxrig reads the GEMM layout"),
                    ));
                }
                if qc.get("zero_point").and_then(Value::as_bool) == Some(false) {
                    return Err(refuse(
                        P,
                        "AWQ without zero points: nxrig reads the GEMM layout with them".into(),
                    ));
                }
                q
            }
            "compressed-tensors" => Quantization::of_compressed(qc)?,
            other => {
                return Err(refuse(
                    P,
                    format!(
                        "quantization_config.quant_method {other:?} is not a scheme nxrig knows; --scheme names one of {}",
                        Scheme::names()
                    ),
                ))
            }
        };
        q.not_converted
            .extend(strings(qc.get("modules_to_not_convert")));
        Ok(q)
    }

    fn of_compressed(qc: &Value) -> Result<Quantization, Error> {
        const P: &str = "config.json";
        let top = qc.get("format").and_then(Value::as_str);
        let groups: Vec<&Value> = qc
            .get("config_groups")
            .and_then(Value::as_object)
            .map(|m| m.values().collect())
            .unwrap_or_default();
        let mut formats: Vec<&str> = groups
            .iter()
            .filter_map(|g| g.get("format").and_then(Value::as_str))
            .collect();
        if formats.is_empty() {
            formats.extend(top);
        }
        formats.sort_unstable();
        formats.dedup();
        let [format] = formats.as_slice() else {
            return Err(refuse(
                P,
                format!(
                    "compressed-tensors with the formats {formats:?}: nxrig dequantizes a checkpoint of one format"
                ),
            ));
        };
        let weights = groups.first().and_then(|g| g.get("weights"));
        let from = format!("{P}: compressed-tensors, format {format:?}");
        let row = |n: &str| Scheme::named(n).expect("a row of the table");
        let mut q = match *format {
            "float-quantized" => {
                let mut q = Quantization::of(row("fp8"), from);
                if let Some(b) = weights.and_then(|w| w.get("block_structure")) {
                    if !b.is_null() {
                        q.block = block_of(b).ok_or_else(|| {
                            refuse(P, format!("block_structure {b} is not two positive sizes"))
                        })?;
                    }
                }
                q
            }
            "nvfp4-pack-quantized" => Quantization::of(row("nvfp4-pack-quantized"), from),
            "mxfp4-pack-quantized" => Quantization::of(row("mxfp4-pack-quantized"), from),
            "pack-quantized" => {
                let mut q = Quantization::of(row("pack-quantized"), from);
                let w = weights.cloned().unwrap_or(Value::Null);
                q.bits = int_bits(&w, P, &[2, 4, 8])?;
                q.group = uint(w.get("group_size")).unwrap_or(0);
                q
            }
            other => {
                return Err(refuse(
                    P,
                    format!(
                        "compressed-tensors' format {other:?} is not one nxrig dequantizes (float-quantized, pack-quantized, nvfp4-pack-quantized, mxfp4-pack-quantized); --scheme names one of {}",
                        Scheme::names()
                    ),
                ))
            }
        };
        q.not_converted = strings(qc.get("ignore"));
        Ok(q)
    }

    /// Whether the module of the tensor `name` (its name without the scheme's weight
    /// suffix) is one the configuration leaves unquantized: a listed name contained
    /// in it (as transformers matches `modules_to_not_convert`), a glob matching it,
    /// or a `re:` regular expression matching it.
    pub fn leaves(&self, module: &str) -> bool {
        self.not_converted.iter().any(|m| {
            if let Some(re) = m.strip_prefix("re:") {
                regex_lite::Regex::new(re).is_ok_and(|r| r.is_match(module))
            } else if m.contains(['*', '?', '[']) {
                glob::Pattern::new(m).is_ok_and(|p| p.matches(module))
            } else {
                module.contains(m.as_str())
            }
        })
    }
}

fn block_of(v: &Value) -> Option<[usize; 2]> {
    let a = v.as_array()?;
    match a.as_slice() {
        [r, c] => {
            let (r, c) = (r.as_u64()? as usize, c.as_u64()? as usize);
            (r > 0 && c > 0).then_some([r, c])
        }
        _ => None,
    }
}

fn group_of(qc: &Value) -> usize {
    // -1 (one group along the whole input) is 0: from the scale's shape.
    qc.get("group_size")
        .and_then(Value::as_i64)
        .filter(|&g| g > 0)
        .unwrap_or(0) as usize
}

fn int_bits(qc: &Value, path: &str, allowed: &[u32]) -> Result<u32, Error> {
    let bits = qc
        .get("bits")
        .or_else(|| qc.get("num_bits"))
        .or_else(|| qc.get("w_bit"))
        .and_then(Value::as_u64)
        .unwrap_or(4) as u32;
    if !allowed.contains(&bits) {
        return Err(refuse(
            path,
            format!("{bits}-bit integers: nxrig dequantizes {allowed:?} bits here"),
        ));
    }
    Ok(bits)
}
