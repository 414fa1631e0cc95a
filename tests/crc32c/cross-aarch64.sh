#!/bin/sh
# cross-aarch64.sh: cross-compiles the CRC-32C library and its test for AArch64 and runs the
# test under qemu-aarch64 with the CRC32/PMULL features present, without PMULL, and without CRC32.
# Usage: cross-aarch64.sh SOURCE_ROOT WORK_DIR
set -eu

src=${1:?source root}
work=${2:?work directory}
lib="$src/lib/crc32c"
cross=${CROSS_CC:-aarch64-linux-gnu-gcc}
sysroot=${QEMU_LD_PREFIX:-/usr/aarch64-linux-gnu}
flags="-std=c17 -O2 -Wall -Wextra -Werror -D_GNU_SOURCE"

mkdir -p "$work"
# The table generator runs on the build machine, so it is built with the native compiler.
${CC:-cc} $flags -o "$work/crc32c_gen" "$lib/crc32c_gen.c"
"$work/crc32c_gen" "$work/crc32c_consts.h" "$work/crc32c_tables.c"

$cross $flags -I "$lib" -I "$work" -pthread -o "$work/test_crc32c" \
    "$lib/crc32c_sb8.c" "$lib/crc32c_x86.c" "$lib/crc32c_x86_avx2.c" "$lib/crc32c_x86_avx512.c" \
    "$lib/crc32c_arm.c" "$lib/crc32c_cpu.c" "$lib/crc32c_select.c" "$lib/crc32c_dispatch.c" \
    "$work/crc32c_tables.c" "$src/tests/crc32c/test_crc32c.c"
$cross $flags -shared -fPIC -o "$work/hwcap_mask.so" "$src/tests/crc32c/hwcap_mask.c" -ldl

# HWCAP bits from the kernel's arch/arm64 uapi: PMULL is bit 4, CRC32 bit 7.
hwcap_pmull=0x10
hwcap_crc32=0x80

run() {
    expect=$1
    clear=$2
    echo "== qemu-aarch64 -cpu max, HWCAP_CLEAR=$clear, expecting $expect"
    CRC32C_EXPECT_IMPL=$expect qemu-aarch64 -L "$sysroot" -cpu max \
        -E LD_PRELOAD="$work/hwcap_mask.so" -E HWCAP_CLEAR="$clear" "$work/test_crc32c"
}

status=0
run armv8_pmull 0 || status=1
run armv8 $hwcap_pmull || status=1
run sb8 $hwcap_crc32 || status=1
exit $status
