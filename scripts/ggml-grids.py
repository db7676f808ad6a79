#!/usr/bin/env python3
"""Writes src/quant/ggml_grids.rs: the lattice grids of ggml's IQ1, IQ2 and IQ3 types,
the codebooks that define those formats (ggml-common.h's iq1s_grid, iq2xxs_grid,
iq2xs_grid, iq2s_grid, iq3xxs_grid, iq3s_grid), read from llama.cpp's own Python
package (`gguf`, which holds them) and written as each entry's value indices packed
in a word (2 bits a value for the IQ1 and IQ2 grids, 3 for the IQ3 grids), beside the
values the indices name:

    python3 scripts/ggml-grids.py > src/quant/ggml_grids.rs && cargo fmt

The tests (tests/gguf/gguf_check.py) hold every dequantized value to
`gguf.quants.dequantize`'s.
"""
import gguf
import gguf.quants as q
import numpy as np

GRIDS = [
    ("IQ1S", q.IQ1_S, 2),
    ("IQ2XXS", q.IQ2_XXS, 2),
    ("IQ2XS", q.IQ2_XS, 2),
    ("IQ2S", q.IQ2_S, 2),
    ("IQ3XXS", q.IQ3_XXS, 3),
    ("IQ3S", q.IQ3_S, 3),
]

print("//! The lattice grids of ggml's IQ1, IQ2 and IQ3 types (ggml-common.h's `iq1s_grid`,")
print("//! `iq2xxs_grid`, `iq2xs_grid`, `iq2s_grid`, `iq3xxs_grid`, `iq3s_grid`): each entry's")
print("//! value indices packed in a word, the first value in the lowest bits, and the values")
print("//! they name. Written by `scripts/ggml-grids.py` from llama.cpp's `gguf` package; do")
print("//! not edit.")
print()
for name, cls, bits in GRIDS:
    cls.init_grid()
    rows, width = cls.grid_shape
    values = np.array(cls.grid_map)
    grid = cls.grid.reshape(rows, width)
    words = []
    for row in grid:
        w = 0
        for k, v in enumerate(row):
            (idx,) = np.nonzero(values == v)[0]
            w |= int(idx) << (bits * k)
        words.append(w)
    kind = "i8" if values.min() < 0 else "u8"
    print(f"/// `{cls.qtype.name}`'s grid values, by index.")
    print(f"pub(super) const {name}_VALUES: [{kind}; {len(values)}] = [{', '.join(str(int(v)) for v in values)}];")
    print(f"/// `{cls.qtype.name}`'s grid: {rows} entries of {width} values, {bits} bits an index.")
    print(f"pub(super) const {name}_GRID: [u32; {rows}] = [")
    for i in range(0, rows, 8):
        print("    " + ", ".join(f"0x{w:06x}" for w in words[i:i + 8]) + ",")
    print("];")
    print()
