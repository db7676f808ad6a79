/*
 * check_vectors: checks include/nx_dtype.h against nxrig's conversion vector files.
 *
 * Build:  gcc -std=c99 -Wall -Wextra -Wpedantic -O2 -I include tests/c/check_vectors.c \
 *             -o check_vectors
 *
 * Usage:
 *   check_vectors facts
 *       One line per dtype: "code name bits align dlpack_code dlpack_bits".
 *   check_vectors SRC_CODE FILE
 *       FILE is a raw (uncompressed) vector file of headerless records; each record is the
 *       source element's storage bytes followed, for each of the 19 targets in code order,
 *       by the expected target storage bytes (see nx_dtype_elem_bytes). Every record and
 *       target is converted with nx_convert and compared byte for byte. Prints up to 20
 *       mismatch lines "src=<hex> -> <target>: got <hex> want <hex>" and a final line
 *       "<N> records, <M> mismatches". Exits 0 iff there is no mismatch (2 on bad usage or
 *       a malformed file).
 *
 * Hex values are printed as the little-endian storage read as an unsigned number (so a
 * float16 1.0 prints 3c00); a complex prints as "<real>:<imag>".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../include/nx_dtype.h"

#define MAX_ELEM 16
#define MAX_MISMATCH_LINES 20

/* Print one element's storage bytes as described above. */
static void print_elem(FILE *out, int code, const uint8_t *p)
{
    int n = nx_dtype_elem_bytes(code);
    if (nx_dtype_kind(code) == NX_KIND_COMPLEX) {
        int h = n / 2, k;
        for (k = h - 1; k >= 0; --k) fprintf(out, "%02x", p[k]);
        fputc(':', out);
        for (k = n - 1; k >= h; --k) fprintf(out, "%02x", p[k]);
    } else {
        int k;
        for (k = n - 1; k >= 0; --k) fprintf(out, "%02x", p[k]);
    }
}

static int cmd_facts(void)
{
    int c;
    for (c = 0; c < NX_DTYPE_COUNT; ++c) {
        printf("%d %s %d %d %d %d\n", c, nx_dtype_name(c), nx_dtype_bits(c), nx_dtype_align(c),
               nx_dtype_dlpack_code(c), nx_dtype_dlpack_bits(c));
    }
    return 0;
}

static int cmd_check(int src_code, const char *path)
{
    FILE *f;
    size_t rec_size, src_bytes;
    uint8_t rec[MAX_ELEM + 128];
    unsigned long long records = 0, mismatches = 0;
    int t;

    src_bytes = (size_t)nx_dtype_elem_bytes(src_code);
    rec_size = src_bytes;
    for (t = 0; t < NX_DTYPE_COUNT; ++t) rec_size += (size_t)nx_dtype_elem_bytes(t);
    if (rec_size > sizeof rec) {
        fprintf(stderr, "internal error: record size %lu\n", (unsigned long)rec_size);
        return 2;
    }

    f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 2;
    }
    for (;;) {
        size_t got = fread(rec, 1, rec_size, f);
        size_t off;
        if (got == 0) break;
        if (got != rec_size) {
            fprintf(stderr, "%s: truncated record %llu (%lu of %lu bytes)\n", path, records,
                    (unsigned long)got, (unsigned long)rec_size);
            fclose(f);
            return 2;
        }
        off = src_bytes;
        for (t = 0; t < NX_DTYPE_COUNT; ++t) {
            size_t n = (size_t)nx_dtype_elem_bytes(t);
            uint8_t out[MAX_ELEM];
            memset(out, 0xA5, sizeof out); /* poison: unwritten bytes show up as mismatches */
            nx_convert(t, out, src_code, rec);
            if (memcmp(out, rec + off, n) != 0) {
                if (mismatches < MAX_MISMATCH_LINES) {
                    printf("src=");
                    print_elem(stdout, src_code, rec);
                    printf(" -> %s: got ", nx_dtype_name(t));
                    print_elem(stdout, t, out);
                    printf(" want ");
                    print_elem(stdout, t, rec + off);
                    printf("\n");
                }
                ++mismatches;
            }
            off += n;
        }
        ++records;
    }
    if (ferror(f)) {
        perror(path);
        fclose(f);
        return 2;
    }
    fclose(f);
    printf("%llu records, %llu mismatches\n", records, mismatches);
    return mismatches == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "facts") == 0) return cmd_facts();
    if (argc == 3) {
        char *end;
        long code = strtol(argv[1], &end, 10);
        if (*argv[1] == '\0' || *end != '\0' || code < 0 || code >= NX_DTYPE_COUNT) {
            fprintf(stderr, "bad source dtype code: %s\n", argv[1]);
            return 2;
        }
        return cmd_check((int)code, argv[2]);
    }
    fprintf(stderr, "usage: %s facts\n       %s SRC_CODE FILE\n", argv[0], argv[0]);
    return 2;
}
