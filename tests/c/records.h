/*
 * records.h: the record files the C check programs read (tests/dequant_c.rs writes
 * them): 32-bit little-endian words.
 */
#ifndef NX_RECORDS_H
#define NX_RECORDS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* n words read from f into a fresh allocation (one word at least); exits 2 on a short
 * record. */
static uint32_t *words(FILE *f, uint32_t n)
{
    uint32_t *v = (uint32_t *)calloc(n ? n : 1, 4);
    if (!v || fread(v, 4, n, f) != n) {
        fprintf(stderr, "short record\n");
        exit(2);
    }
    return v;
}

#endif /* NX_RECORDS_H */
