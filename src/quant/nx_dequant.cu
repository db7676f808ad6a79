/*
 * nx_dequant.cu: a band of a block-scaled weight dequantized on a CUDA device, the
 * kernel src/quant/gpu.rs writes in WGSL for wgpu devices: each output element is its
 * table's entry at its code (src/quant/lut.rs builds the tables on the host: every
 * code's value a scale, rounded once into the output dtype), so every device writes
 * the same bytes. After nx_launch.h, it compiles as CUDA C++ (NVRTC) and as C99 for the
 * host, where tests/dequant_c.rs runs it against nxrig's host dequantization.
 *
 * Operands, each an array of 32-bit words: w the band's weight bytes (little-endian,
 * zeros past their end), t the tables one after another (an entry's bits in the low
 * bits of its word), a the packing's index (a float8 band's first table of each row; an
 * integer band's group of each input column), p the parameters (p[0] the band's
 * elements, then the packing's, as gpu.rs lists them), z the output: two 16-bit
 * elements a word where pairs is 1 (the odd one in the high half; past the band's end,
 * zero), else one 32-bit element a word.
 */
#ifndef NX_DEQUANT_CU
#define NX_DEQUANT_CU

#include "nx_launch.h"

/* The packings, numbered as Packing::number (src/quant/scheme.rs) numbers them. */
#define NX_PACK_FLOAT8 0u
#define NX_PACK_FP4 1u
#define NX_PACK_FP4_EXPERTS 2u
#define NX_PACK_INT_ROWS 3u
#define NX_PACK_INT_GPTQ 4u
#define NX_PACK_INT_AWQ 5u

/** Byte b of the weight. */
NX_FN uint32_t nx_dq_byte(const uint32_t *w, uint32_t b)
{
    return (w[b >> 2] >> ((b & 3u) * 8u)) & 255u;
}

/** Field `at` of `bits` bits of a word, least significant first. */
NX_FN uint32_t nx_dq_field(uint32_t word, uint32_t at, uint32_t bits)
{
    return (word >> (bits * at)) & ((1u << bits) - 1u);
}

/** The low nibble of byte b, or its high where odd is 1. */
NX_FN uint32_t nx_dq_nibble(uint32_t b, uint32_t odd)
{
    return odd == 1u ? b >> 4 : b & 15u;
}

/** The output bits of the band's element e (C order), by its packing's layout. */
NX_FN uint32_t nx_dq_elem(uint32_t packing, const uint32_t *w, const uint32_t *t,
                          const uint32_t *a, const uint32_t *p, uint32_t e)
{
    uint32_t c = p[1], i = e / p[1], col = e - i * p[1];
    switch (packing) {
    case NX_PACK_FLOAT8: /* p: n, c, columns a block; 256 entries a table */
        return t[(a[i] + col / p[2]) * 256u + nx_dq_byte(w, e)];
    case NX_PACK_FP4: { /* p: n, c, scales a row, block, high-first; 16 a table */
        uint32_t b = nx_dq_byte(w, i * (c / 2u) + col / 2u);
        uint32_t q = nx_dq_nibble(b, (col & 1u) ^ p[4]);
        return t[(i * p[2] + col / p[3]) * 16u + q];
    }
    case NX_PACK_FP4_EXPERTS: { /* gpt-oss: the band [rows of K, N] from the strip
                                   [N, width], 16 bytes (32 rows) a scale. p: n, N,
                                   width, scales a column, high-first */
        uint32_t r = i, j = col, blk = r / 32u;
        uint32_t b = nx_dq_byte(w, j * p[2] + blk * 16u + (r % 32u) / 2u);
        uint32_t q = nx_dq_nibble(b, (r & 1u) ^ p[4]);
        return t[(j * p[3] + blk) * 16u + q];
    }
    case NX_PACK_INT_ROWS: { /* weight [band, K / per]. p: n, K, words a row, per,
                                bits, groups; tables [band, groups] */
        uint32_t per = p[3], bits = p[4];
        uint32_t q = nx_dq_field(w[i * p[2] + col / per], col % per, bits);
        return t[((i * p[5] + a[col]) << bits) + q];
    }
    case NX_PACK_INT_GPTQ: { /* the strip [K / per, band]. p: n, K, band rows, per,
                                bits; tables [groups, band] */
        uint32_t nr = p[2], per = p[3], bits = p[4];
        uint32_t q = nx_dq_field(w[(col / per) * nr + i], col % per, bits);
        return t[((a[col] * nr + i) << bits) + q];
    }
    default: { /* AWQ: the strip [K, band / 8], nibbles in the order 0, 2, 4, 6, 1, 3,
                  5, 7. p: n, K, band rows, words a column, bits; tables [groups, band] */
        uint32_t m = i % 8u;
        uint32_t q = nx_dq_field(w[col * p[3] + i / 8u], (m >> 1) + (m & 1u) * 4u, 4u);
        return t[((a[col] * p[2] + i) << 4) + q];
    }
    }
}

/** z's `words` words from the band's tables (see the file's comment). */
NX_KERNEL void nx_dequant(const uint32_t *w, const uint32_t *t, const uint32_t *a,
                          const uint32_t *p, uint32_t *z, uint32_t packing, uint32_t pairs,
                          int64_t words)
{
    NX_FOR_EACH(k, words)
    {
        if (pairs) {
            uint32_t e = 2u * (uint32_t)k;
            uint32_t v = nx_dq_elem(packing, w, t, a, p, e);
            if (e + 1u < p[0]) v |= nx_dq_elem(packing, w, t, a, p, e + 1u) << 16;
            z[k] = v;
        } else {
            z[k] = nx_dq_elem(packing, w, t, a, p, (uint32_t)k);
        }
    }
}

#endif /* NX_DEQUANT_CU */
