/*
 * check_dequant: runs nxrig's CUDA dequantization kernel (src/quant/nx_dequant.cu),
 * compiled for the host as C99 through nx_launch.h, over bands written by
 * tests/dequant_c.rs, and compares its words with the host dequantization's.
 *
 * Usage: check_dequant FILE
 *   FILE: records, each of 32-bit little-endian words: packing, pairs, then the counts
 *   of w, t, a, p and z, then those arrays in that order, then z's expected words.
 * Prints up to 20 mismatch lines and "<N> records, <M> mismatches"; exits 0 iff none.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/quant/nx_dequant.cu"
#include "records.h"

int main(int argc, char **argv)
{
    FILE *f;
    uint32_t head[7];
    unsigned long records = 0, mismatches = 0;
    if (argc != 2 || !(f = fopen(argv[1], "rb"))) {
        fprintf(stderr, "usage: check_dequant FILE\n");
        return 2;
    }
    while (fread(head, 4, 7, f) == 7) {
        uint32_t *w = words(f, head[2]), *t = words(f, head[3]), *a = words(f, head[4]);
        uint32_t *p = words(f, head[5]), *want = words(f, head[6]);
        uint32_t *z = (uint32_t *)calloc(head[6] ? head[6] : 1, 4);
        uint32_t k;
        nx_dequant(w, t, a, p, z, head[0], head[1], (int64_t)head[6]);
        for (k = 0; k < head[6]; ++k) {
            if (z[k] != want[k] && mismatches++ < 20)
                printf("record %lu (packing %u) word %u: got %08x want %08x\n", records,
                       head[0], k, z[k], want[k]);
        }
        records++;
        free(w), free(t), free(a), free(p), free(want), free(z);
    }
    fclose(f);
    printf("%lu records, %lu mismatches\n", records, mismatches);
    return mismatches ? 1 : 0;
}
