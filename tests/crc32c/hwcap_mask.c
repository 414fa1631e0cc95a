/* hwcap_mask.c: LD_PRELOAD shim for the AArch64 cross test that hides HWCAP bits named in
 * HWCAP_CLEAR from getauxval, since QEMU 7.2 offers no CPU model without CRC32. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* for RTLD_NEXT */
#endif
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/auxv.h>

typedef unsigned long (*getauxval_fn)(unsigned long);

unsigned long getauxval(unsigned long type)
{
    getauxval_fn real = (getauxval_fn)dlsym(RTLD_NEXT, "getauxval");
    unsigned long value = real(type);
    const char *clear = getenv("HWCAP_CLEAR");
    if (type == AT_HWCAP && clear != NULL)
        value &= ~strtoul(clear, NULL, 0);
    return value;
}
