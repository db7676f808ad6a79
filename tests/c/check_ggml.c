/*
 * check_ggml: runs nxrig's CUDA kernel of GGUF's block types (src/quant/nx_ggml.cu),
 * compiled for the host as C99 through nx_launch.h, over blocks written by
 * tests/dequant_c.rs, and compares each element's float32 bits and each 2048
 * elements' peak with the host dequantization's.
 *
 * Usage: check_ggml FILE
 *   FILE: records, each of 32-bit little-endian words: the type's code, block and
 *   block bytes, then the counts of w, g and elements n, then w, g, the n expected
 *   elements and the n / 2048 (rounded up) expected peaks.
 * Prints up to 20 mismatch lines and "<N> records, <M> mismatches"; exits 0 iff none.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/quant/nx_ggml.cu"
#include "records.h"

/* Whether two float32s' bits are equal, or both NaNs. */
static int same(uint32_t a, uint32_t b)
{
    return a == b || ((a & 0x7FFFFFFFu) > 0x7F800000u && (b & 0x7FFFFFFFu) > 0x7F800000u);
}

int main(int argc, char **argv)
{
    FILE *f;
    uint32_t head[6];
    unsigned long records = 0, mismatches = 0;
    if (argc != 2 || !(f = fopen(argv[1], "rb"))) {
        fprintf(stderr, "usage: check_ggml FILE\n");
        return 2;
    }
    while (fread(head, 4, 6, f) == 6) {
        uint32_t n = head[5], groups = (n + 2047u) / 2048u, k;
        uint32_t *w = words(f, head[3]), *g = words(f, head[4]);
        uint32_t *want = words(f, n), *peaks = words(f, groups);
        uint32_t *z = (uint32_t *)calloc(n ? n : 1, 4), *m = (uint32_t *)calloc(groups ? groups : 1, 4);
        nx_ggml(w, g, z, m, head[0], head[1], head[2], (int64_t)(n / 8u));
        for (k = 0; k < n; ++k) {
            if (!same(z[k], want[k]) && mismatches++ < 20)
                printf("record %lu (type %u) element %u: got %08x want %08x\n", records, head[0], k,
                       z[k], want[k]);
        }
        for (k = 0; k < groups; ++k) {
            if (m[k] != peaks[k] && mismatches++ < 20)
                printf("record %lu (type %u) peak %u: got %08x want %08x\n", records, head[0], k,
                       m[k], peaks[k]);
        }
        records++;
        free(w), free(g), free(want), free(peaks), free(z), free(m);
    }
    fclose(f);
    printf("%lu records, %lu mismatches\n", records, mismatches);
    return mismatches ? 1 : 0;
}
