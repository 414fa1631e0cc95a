/* Shared by the CRC-32C benchmark module's files: records laid end to end in a ring, as
 * pg_waldump reads WAL, and the loop every kernel runs over them. */
#ifndef CRC32C_EXAMPLE_RECORDS_H
#define CRC32C_EXAMPLE_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "crc32c.h"
#include "verdict/kernel.h"

typedef struct {
    unsigned char *ring;   /* pseudo-random bytes */
    size_t ring_size;      /* records start anywhere below ring_size - len */
    size_t len;            /* bytes per record: 65 as in the seed, or the sweep's size */
    size_t offset;         /* where the next call's record starts */
    uint32_t acc;          /* xor of every CRC: keeps the work alive */
    crc32c_fn check;       /* the kernel's CRC, checked against slicing-by-8 at setup */
} records;

/* One independent CRC per call, records back to back (odd lengths make them unaligned).
 * Always inlined with a constant fn, so the call in the loop is direct: the only
 * difference between the kernels is the function they call. */
static inline __attribute__((always_inline)) void records_run(records *r, uint64_t iterations,
                                                              crc32c_fn fn)
{
    const unsigned char *ring = r->ring;
    size_t len = r->len, offset = r->offset, last = r->ring_size - r->len;
    uint32_t acc = r->acc;
    for (uint64_t i = 0; i < iterations; i++) {
        acc ^= fn(0, ring + offset, len);
        offset += len;
        if (offset > last)
            offset = 0;
    }
    r->offset = offset;
    r->acc = acc;
    verdict_kernel_keep(acc);
}

/* Allocates the ring for s->arg (a size: 65, 4k, 1M; default 65) and checks fn against
 * slicing-by-8 on fresh and chained calls. Fills s->state, s->bytes_per_call, s->error. */
int records_setup(verdict_kernel_setup *s, crc32c_fn fn);
void records_teardown(void *state);

/* The kernel that chains the header-inline path over 16-byte pieces (crc32c_inline.c,
 * compiled with the CRC instructions enabled). */
int inline_setup(verdict_kernel_setup *s);
void inline_run(void *state, uint64_t iterations);

#endif
