/* The `inline` kernel of the CRC-32C module, in its own file because it is compiled with
 * the CRC instructions enabled (-msse4.2), which turns on crc32c_inline()'s inline path. */
#include <stdio.h>

#include "records.h"

/* crc32c_inline() inlines up to CRC32C_INLINE_MAX bytes; longer buffers would call the
 * library. Chaining 16-byte pieces keeps a whole record inline: one serial crc32 stream
 * in the caller's loop, as a build with forced inlining would have it. */
static inline uint32_t crc_all_inline(uint32_t crc, const void *buf, size_t len)
{
    const unsigned char *p = buf;
    for (; len > CRC32C_INLINE_MAX; len -= CRC32C_INLINE_MAX, p += CRC32C_INLINE_MAX)
        crc = crc32c_inline(crc, p, CRC32C_INLINE_MAX);
    return crc32c_inline(crc, p, len);
}

static uint32_t crc_all_inline_fn(uint32_t crc, const void *buf, size_t len)
{
    return crc_all_inline(crc, buf, len);
}

int inline_setup(verdict_kernel_setup *s)
{
#if defined(__x86_64__)
    if (crc32c_find("sse42") == NULL) {
        snprintf(s->error, s->error_size, "this CPU lacks SSE 4.2: no inline crc32 path");
        return -1;
    }
#elif defined(__aarch64__)
    if (crc32c_find("armv8") == NULL) {
        snprintf(s->error, s->error_size, "this CPU lacks the CRC32 extension: no inline path");
        return -1;
    }
#endif
    return records_setup(s, crc_all_inline_fn);
}

void inline_run(void *state, uint64_t iterations)
{
    records_run(state, iterations, crc_all_inline);
}
