/*
 * nx_ggml.cu: GGUF's block-quantized tensors dequantized on a CUDA device, the kernel
 * src/quant/ggml_wgsl.rs writes in WGSL for wgpu devices: each element the float32
 * that ggml's reference dequantization gives (src/quant/ggml.rs on the host), by the
 * same float32 operations in the same order. Every product of a block's scales and
 * codes is exact in float32, so the one rounding of a sum or a difference is the only
 * one, fused multiply-add or not; float16s are decoded in integers, MXFP4's powers of
 * two built as bits (no subnormal is computed, so flushing them changes nothing).
 * After nx_launch.h, it compiles as CUDA C++ (NVRTC) and as C99 for the host, where
 * tests/dequant_c.rs runs it against nxrig's host dequantization.
 *
 * Operands: w the blocks' bytes as 32-bit little-endian words (zeros past their end),
 * g the type's tables (16 words of its values as float32 bits, then an IQ type's grid
 * of packed value indices), z the output (each element's float32 bits), m one word for
 * each 2048 elements, zero before: their greatest magnitude as float32 bits with the
 * sign cleared (a NaN's is above an infinity's). ty is ggml's type code; block and
 * block_bytes its block's elements and bytes; eights the elements over 8 (a block
 * holds a multiple of 8).
 */
#ifndef NX_GGML_CU
#define NX_GGML_CU

#include "nx_launch.h"

#if defined(__CUDACC__)
#define NX_GG_MAX(p, v) atomicMax((p), (v))
#else
#define NX_GG_MAX(p, v) (*(p) = *(p) > (v) ? *(p) : (v))
#endif

/** The float32 of bits u, and the bits of f. */
NX_FN float nx_gg_f(uint32_t u)
{
    union {
        uint32_t u;
        float f;
    } x;
    x.u = u;
    return x.f;
}

NX_FN uint32_t nx_gg_u(float f)
{
    union {
        uint32_t u;
        float f;
    } x;
    x.f = f;
    return x.u;
}

/** Byte b of the blocks, and the little-endian 16 and 32 bits from it. */
NX_FN uint32_t nx_gg_b8(const uint32_t *w, uint32_t b)
{
    return (w[b >> 2] >> ((b & 3u) * 8u)) & 255u;
}

NX_FN uint32_t nx_gg_u16(const uint32_t *w, uint32_t b)
{
    return nx_gg_b8(w, b) | (nx_gg_b8(w, b + 1u) << 8);
}

NX_FN uint32_t nx_gg_u32(const uint32_t *w, uint32_t b)
{
    return nx_gg_u16(w, b) | (nx_gg_u16(w, b + 2u) << 16);
}

/** A byte as int8. */
NX_FN int32_t nx_gg_sx8(uint32_t v)
{
    return v >= 128u ? (int32_t)v - 256 : (int32_t)v;
}

/** A float16's bits as float32, decoded in integers (subnormals exactly). */
NX_FN float nx_gg_half(uint32_t h)
{
    uint32_t sign = (h & 0x8000u) << 16, e = (h >> 10) & 31u, m = h & 1023u;
    if (e == 0u) return nx_gg_f(sign | nx_gg_u((float)m * nx_gg_f(0x33800000u)));
    if (e == 31u) return nx_gg_f(sign | 0x7F800000u | (m << 13));
    return nx_gg_f(sign | ((e + 112u) << 23) | (m << 13));
}

NX_FN float nx_gg_f16(const uint32_t *w, uint32_t b)
{
    return nx_gg_half(nx_gg_u16(w, b));
}

/** The low nibble of b, or the high where high. */
NX_FN uint32_t nx_gg_nib(uint32_t b, int high)
{
    return high ? b >> 4 : b & 15u;
}

/** IQ2's and IQ3_XXS' 8 signs of a 7-bit index: the eighth the parity of the seven. */
NX_FN uint32_t nx_gg_ksigns(uint32_t i)
{
    uint32_t x = i & 127u, p = x;
    p ^= p >> 4;
    p ^= p >> 2;
    p ^= p >> 1;
    return x | ((p & 1u) << 7);
}

/** x negated where bit j of s is set. */
NX_FN float nx_gg_signed(float x, uint32_t s, uint32_t j)
{
    return ((s >> j) & 1u) ? -x : x;
}

/** Value k (of `bits` bits an index) of grid entry idx. */
NX_FN float nx_gg_grid(const uint32_t *g, uint32_t idx, uint32_t k, uint32_t bits)
{
    return nx_gg_f(g[(g[16u + idx] >> (bits * k)) & ((1u << bits) - 1u)]);
}

NX_FN float nx_gg_delta(int negative)
{
    return negative ? -0.125f : 0.125f;
}

/** E2M1's magnitude of a 3-bit code, doubled: 0, 1, 2, 3, 4, 6, 8, 12. */
NX_FN uint32_t nx_gg_e2m1(uint32_t m)
{
    return m >= 4u ? (2u + (m & 1u)) << ((m >> 1) - 1u) : m;
}

/** The float32 bits of m * 2^s (m < 16; 0 for m 0; past the largest an infinity). */
NX_FN uint32_t nx_gg_pow2_times(uint32_t m, int32_t s, int negative)
{
    uint32_t sign = negative ? 0x80000000u : 0u, p = 0u, frac;
    int32_t e;
    if (m == 0u) return 0u;
    while ((m >> (p + 1u)) != 0u) p++;
    e = s + (int32_t)p;
    if (e > 127) return sign | 0x7F800000u;
    frac = (m << (23u - p)) & 0x7FFFFFu;
    if (e >= -126) return sign | ((uint32_t)(e + 127) << 23) | frac;
    return sign | ((0x800000u | frac) >> (uint32_t)(-126 - e));
}

/** NVFP4's unsigned E4M3 scale (bias 7), halved; 0 and 0x7F zero, the top bit ignored. */
NX_FN float nx_gg_ue4m3_half(uint32_t x)
{
    uint32_t e = (x >> 3) & 15u;
    float m = (float)(x & 7u), v;
    if (x == 0u || x == 0x7Fu) return 0.0f;
    if (e == 0u)
        v = m * (1.0f / 512.0f);
    else
        v = (1.0f + m * 0.125f) * nx_gg_f(((e + 120u) & 255u) << 23);
    return v * 0.5f;
}

/** Q4_K's and Q5_K's 6-bit scale (*sc) and min (*mn) of sub-block k. */
NX_FN void nx_gg_scale_min(const uint32_t *w, uint32_t o, uint32_t k, float *sc, float *mn)
{
    if (k < 4u) {
        *sc = (float)(nx_gg_b8(w, o + 4u + k) & 63u);
        *mn = (float)(nx_gg_b8(w, o + 8u + k) & 63u);
    } else {
        uint32_t a = nx_gg_b8(w, o + 8u + k);
        *sc = (float)((a & 15u) | ((nx_gg_b8(w, o + k) >> 2) & 48u));
        *mn = (float)((a >> 4) | ((nx_gg_b8(w, o + 4u + k) >> 2) & 48u));
    }
}

/* ggml's type codes. */
#define NX_GG_Q4_0 2u
#define NX_GG_Q4_1 3u
#define NX_GG_Q5_0 6u
#define NX_GG_Q5_1 7u
#define NX_GG_Q8_0 8u
#define NX_GG_Q2_K 10u
#define NX_GG_Q3_K 11u
#define NX_GG_Q4_K 12u
#define NX_GG_Q5_K 13u
#define NX_GG_Q6_K 14u
#define NX_GG_IQ2_XXS 16u
#define NX_GG_IQ2_XS 17u
#define NX_GG_IQ3_XXS 18u
#define NX_GG_IQ1_S 19u
#define NX_GG_IQ4_NL 20u
#define NX_GG_IQ3_S 21u
#define NX_GG_IQ2_S 22u
#define NX_GG_IQ4_XS 23u
#define NX_GG_IQ1_M 29u
#define NX_GG_TQ1_0 34u
#define NX_GG_TQ2_0 35u
#define NX_GG_MXFP4 39u
#define NX_GG_NVFP4 40u
#define NX_GG_Q1_0 41u

/** The float32 bits of element j of the block of type ty at byte o; 0 for a type this
 * kernel does not know (the host refuses those first). */
NX_FN uint32_t nx_gg_value(uint32_t ty, const uint32_t *w, const uint32_t *g, uint32_t o,
                           uint32_t j)
{
    switch (ty) {
    case NX_GG_Q4_0: {
        uint32_t q = nx_gg_nib(nx_gg_b8(w, o + 2u + (j & 15u)), j >= 16u);
        return nx_gg_u(nx_gg_f16(w, o) * (float)((int32_t)q - 8));
    }
    case NX_GG_Q4_1: {
        uint32_t q = nx_gg_nib(nx_gg_b8(w, o + 4u + (j & 15u)), j >= 16u);
        return nx_gg_u(nx_gg_f16(w, o) * (float)q + nx_gg_f16(w, o + 2u));
    }
    case NX_GG_Q5_0: {
        uint32_t qh = nx_gg_u32(w, o + 2u);
        uint32_t q = nx_gg_nib(nx_gg_b8(w, o + 6u + (j & 15u)), j >= 16u) | (((qh >> j) & 1u) << 4);
        return nx_gg_u(nx_gg_f16(w, o) * (float)((int32_t)q - 16));
    }
    case NX_GG_Q5_1: {
        uint32_t qh = nx_gg_u32(w, o + 4u);
        uint32_t q = nx_gg_nib(nx_gg_b8(w, o + 8u + (j & 15u)), j >= 16u) | (((qh >> j) & 1u) << 4);
        return nx_gg_u(nx_gg_f16(w, o) * (float)q + nx_gg_f16(w, o + 2u));
    }
    case NX_GG_Q8_0:
        return nx_gg_u((float)nx_gg_sx8(nx_gg_b8(w, o + 2u + j)) * nx_gg_f16(w, o));
    case NX_GG_Q1_0: {
        float d = nx_gg_f16(w, o);
        return nx_gg_u(((nx_gg_b8(w, o + 2u + j / 8u) >> (j & 7u)) & 1u) ? d : -d);
    }
    case NX_GG_Q2_K: {
        uint32_t q = (nx_gg_b8(w, o + 16u + (j / 128u) * 32u + (j & 31u)) >> (2u * ((j / 32u) & 3u))) & 3u;
        uint32_t sc = nx_gg_b8(w, o + j / 16u);
        float dl = nx_gg_f16(w, o + 80u) * (float)(sc & 15u);
        float ml = nx_gg_f16(w, o + 82u) * (float)(sc >> 4);
        return nx_gg_u(dl * (float)q - ml);
    }
    case NX_GG_Q3_K: {
        uint32_t k = j / 16u, sb = nx_gg_b8(w, o + 96u + (k & 7u));
        uint32_t l = k < 8u ? sb & 15u : sb >> 4;
        uint32_t hi = (nx_gg_b8(w, o + 104u + (k & 3u)) >> (2u * (k / 4u))) & 3u;
        float dl = nx_gg_f16(w, o + 108u) * (float)((int32_t)(l | (hi << 4)) - 32);
        uint32_t ql = (nx_gg_b8(w, o + 32u + (j / 128u) * 32u + (j & 31u)) >> (2u * ((j / 32u) & 3u))) & 3u;
        uint32_t qh = ((nx_gg_b8(w, o + (j & 31u)) >> (j / 32u)) & 1u) ^ 1u;
        return nx_gg_u(dl * (float)((int32_t)ql - (int32_t)(qh << 2)));
    }
    case NX_GG_Q4_K:
    case NX_GG_Q5_K: {
        uint32_t k = j / 32u, i = j & 31u, q;
        float sc, mn;
        nx_gg_scale_min(w, o, k, &sc, &mn);
        if (ty == NX_GG_Q4_K) {
            q = (nx_gg_b8(w, o + 16u + (k / 2u) * 32u + i) >> (4u * (k & 1u))) & 15u;
        } else {
            q = (nx_gg_b8(w, o + 48u + (k / 2u) * 32u + i) >> (4u * (k & 1u))) & 15u;
            q |= ((nx_gg_b8(w, o + 16u + i) >> k) & 1u) << 4;
        }
        return nx_gg_u((nx_gg_f16(w, o) * sc) * (float)q - nx_gg_f16(w, o + 2u) * mn);
    }
    case NX_GG_Q6_K: {
        uint32_t h = j / 128u, r = j & 127u;
        uint32_t lo = (nx_gg_b8(w, o + h * 64u + (r & 63u)) >> (4u * (r / 64u))) & 15u;
        uint32_t hi = (nx_gg_b8(w, o + 128u + h * 32u + (r & 31u)) >> (2u * (r / 32u))) & 3u;
        int32_t q = (int32_t)(lo | (hi << 4)) - 32;
        return nx_gg_u(nx_gg_f16(w, o + 208u) * (float)nx_gg_sx8(nx_gg_b8(w, o + 192u + j / 16u)) * (float)q);
    }
    case NX_GG_TQ1_0: {
        uint32_t x, p, pw = 1u, t;
        if (j < 160u) {
            p = j / 32u;
            x = nx_gg_b8(w, o + (j & 31u));
        } else if (j < 240u) {
            p = (j - 160u) / 16u;
            x = nx_gg_b8(w, o + 32u + ((j - 160u) & 15u));
        } else {
            p = (j - 240u) / 4u;
            x = nx_gg_b8(w, o + 48u + ((j - 240u) & 3u));
        }
        for (t = 0u; t < p; t++) pw *= 3u;
        return nx_gg_u(nx_gg_f16(w, o + 52u) * (float)((int32_t)((((x * pw) & 255u) * 3u) >> 8) - 1));
    }
    case NX_GG_TQ2_0: {
        int32_t q = (int32_t)((nx_gg_b8(w, o + (j / 128u) * 32u + (j & 31u)) >> (2u * ((j / 32u) & 3u))) & 3u) - 1;
        return nx_gg_u(nx_gg_f16(w, o + 64u) * (float)q);
    }
    case NX_GG_MXFP4: {
        uint32_t q = nx_gg_nib(nx_gg_b8(w, o + 1u + (j & 15u)), j >= 16u);
        return nx_gg_pow2_times(nx_gg_e2m1(q & 7u), (int32_t)nx_gg_b8(w, o) - 128, q >= 8u);
    }
    case NX_GG_NVFP4: {
        uint32_t s = j / 16u, jj = j & 15u;
        uint32_t q = nx_gg_nib(nx_gg_b8(w, o + 4u + s * 8u + (jj & 7u)), jj >= 8u);
        int32_t v = (int32_t)nx_gg_e2m1(q & 7u) * (q >= 8u ? -1 : 1);
        return nx_gg_u(nx_gg_ue4m3_half(nx_gg_b8(w, o + s)) * (float)v);
    }
    case NX_GG_IQ4_NL: {
        uint32_t q = nx_gg_nib(nx_gg_b8(w, o + 2u + (j & 15u)), j >= 16u);
        return nx_gg_u(nx_gg_f16(w, o) * nx_gg_f(g[q]));
    }
    case NX_GG_IQ4_XS: {
        uint32_t k = j / 32u, jj = j & 31u;
        uint32_t l = (nx_gg_b8(w, o + 4u + k / 2u) >> (4u * (k & 1u))) & 15u;
        uint32_t hi = (nx_gg_u16(w, o + 2u) >> (2u * k)) & 3u;
        float dl = nx_gg_f16(w, o) * (float)((int32_t)(l | (hi << 4)) - 32);
        uint32_t q = nx_gg_nib(nx_gg_b8(w, o + 8u + k * 16u + (jj & 15u)), jj >= 16u);
        return nx_gg_u(dl * nx_gg_f(g[q]));
    }
    case NX_GG_IQ2_XXS:
    case NX_GG_IQ3_XXS: {
        uint32_t ib = j / 32u, l = (j & 31u) / 8u, jj = j & 7u;
        int three = ty == NX_GG_IQ3_XXS;
        uint32_t aux = three ? nx_gg_u32(w, o + 66u + 4u * ib) : nx_gg_u32(w, o + 6u + 8u * ib);
        float db = nx_gg_f16(w, o) * (0.5f + (float)(aux >> 28)) * (three ? 0.5f : 0.25f);
        float v = three ? nx_gg_grid(g, nx_gg_b8(w, o + 2u + ib * 8u + l * 2u + jj / 4u), jj & 3u, 3u)
                        : nx_gg_grid(g, nx_gg_b8(w, o + 2u + 8u * ib + l), jj, 2u);
        return nx_gg_u(nx_gg_signed(db * v, nx_gg_ksigns(aux >> (7u * l)), jj));
    }
    case NX_GG_IQ2_XS: {
        uint32_t g8 = j / 8u, jj = j & 7u, q = nx_gg_u16(w, o + 2u + 2u * g8), k = g8 / 2u;
        uint32_t s = (nx_gg_b8(w, o + 66u + k / 2u) >> (4u * (k & 1u))) & 15u;
        float db = nx_gg_f16(w, o) * (0.5f + (float)s) * 0.25f;
        return nx_gg_u(nx_gg_signed(db * nx_gg_grid(g, q & 511u, jj, 2u), nx_gg_ksigns(q >> 9), jj));
    }
    case NX_GG_IQ2_S: {
        uint32_t g8 = j / 8u, jj = j & 7u, k = g8 / 2u;
        uint32_t s = (nx_gg_b8(w, o + 74u + k / 2u) >> (4u * (k & 1u))) & 15u;
        float db = nx_gg_f16(w, o) * (0.5f + (float)s) * 0.25f;
        uint32_t idx = nx_gg_b8(w, o + 2u + g8) | (((nx_gg_b8(w, o + 66u + g8 / 4u) >> (2u * (g8 & 3u))) & 3u) << 8);
        return nx_gg_u(nx_gg_signed(db * nx_gg_grid(g, idx, jj, 2u), nx_gg_b8(w, o + 34u + g8), jj));
    }
    case NX_GG_IQ3_S: {
        uint32_t k = j / 32u, i = j / 4u;
        uint32_t s = (nx_gg_b8(w, o + 106u + k / 2u) >> (4u * (k & 1u))) & 15u;
        float db = nx_gg_f16(w, o) * (float)(1u + 2u * s);
        uint32_t idx = nx_gg_b8(w, o + 2u + i) | (((nx_gg_b8(w, o + 66u + i / 8u) >> (i & 7u)) & 1u) << 8);
        return nx_gg_u(nx_gg_signed(db * nx_gg_grid(g, idx, j & 3u, 3u), nx_gg_b8(w, o + 74u + j / 8u), j & 7u));
    }
    case NX_GG_IQ1_S: {
        uint32_t ib = j / 32u, l = (j & 31u) / 8u, h16 = nx_gg_u16(w, o + 34u + 2u * ib);
        float dl = nx_gg_f16(w, o) * (float)(2u * ((h16 >> 12) & 7u) + 1u);
        uint32_t idx = nx_gg_b8(w, o + 2u + ib * 4u + l) | (((h16 >> (3u * l)) & 7u) << 8);
        return nx_gg_u(dl * (nx_gg_grid(g, idx, j & 7u, 2u) + nx_gg_delta((h16 & 0x8000u) != 0u)));
    }
    case NX_GG_IQ1_M: {
        uint32_t bits = ((nx_gg_u16(w, o + 48u) & 0xF000u) >> 12) | ((nx_gg_u16(w, o + 50u) & 0xF000u) >> 8) |
                        ((nx_gg_u16(w, o + 52u) & 0xF000u) >> 4) | (nx_gg_u16(w, o + 54u) & 0xF000u);
        uint32_t g8 = j / 8u, k = g8 / 2u, sk = nx_gg_u16(w, o + 48u + 2u * (k / 4u));
        float dl = nx_gg_half(bits) * (float)(2u * ((sk >> (3u * (k & 3u))) & 7u) + 1u);
        uint32_t v8 = nx_gg_b8(w, o + 32u + g8 / 2u) >> (4u * (g8 & 1u));
        uint32_t idx = nx_gg_b8(w, o + g8) | ((v8 & 7u) << 8);
        return nx_gg_u(dl * (nx_gg_grid(g, idx, j & 7u, 2u) + nx_gg_delta((v8 & 8u) != 0u)));
    }
    default:
        return 0u;
    }
}

/** z's elements and m's peaks from the blocks (see the file's comment): each index
 * k writes the 8 elements from 8k, of one block. */
NX_KERNEL void nx_ggml(const uint32_t *w, const uint32_t *g, uint32_t *z, uint32_t *m,
                       uint32_t ty, uint32_t block, uint32_t block_bytes, int64_t eights)
{
    NX_FOR_EACH(k, eights)
    {
        uint32_t first = (uint32_t)k * 8u, blk = first / block, t, peak = 0u;
        uint32_t o = blk * block_bytes, j = first - blk * block, v[8];
        for (t = 0u; t < 8u; t++) v[t] = nx_gg_value(ty, w, g, o, j + t);
        for (t = 0u; t < 8u; t++) {
            uint32_t a = v[t] & 0x7FFFFFFFu;
            z[first + t] = v[t];
            if (a > peak) peak = a;
        }
        NX_GG_MAX(&m[first / 2048u], peak);
    }
}

#endif /* NX_GGML_CU */
