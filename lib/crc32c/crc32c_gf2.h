/* crc32c_gf2.h: arithmetic on residues modulo the CRC-32C polynomial, shared by the
 * build-time generator and the library (reflected representation: bit 31 is x^0). */
#ifndef CRC32C_GF2_H
#define CRC32C_GF2_H

#include <stdint.h>

/* The Castagnoli polynomial 0x1EDC6F41, bit-reflected, without its x^32 term. */
#define CRC32C_POLY_REFLECTED 0x82F63B78u
/* The residue 1 (x^0) in the reflected representation. */
#define CRC32C_X_POW_0 0x80000000u

/* Multiplies a residue by x, reducing modulo P. */
static inline uint32_t crc32c_gf2_times_x(uint32_t r)
{
    return (r & 1u) ? (r >> 1) ^ CRC32C_POLY_REFLECTED : r >> 1;
}

/* Product of two residues modulo P: shift-and-add over the bits of a, highest degree last. */
static inline uint32_t crc32c_gf2_multiply(uint32_t a, uint32_t b)
{
    uint32_t product = 0;
    for (uint32_t bit = CRC32C_X_POW_0; bit != 0; bit >>= 1) {
        if (a & bit)
            product ^= b;
        b = crc32c_gf2_times_x(b);
    }
    return product;
}

#endif
