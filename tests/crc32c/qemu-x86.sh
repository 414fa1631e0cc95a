#!/bin/sh
# qemu-x86.sh: runs the CRC-32C test under qemu-x86_64 as CPUs of other generations and
# vendors, each expecting the path the selection table gives it. Usage: qemu-x86.sh TEST_BINARY
set -eu

test_binary=${1:?test binary}
qemu=${QEMU_X86:-qemu-x86_64}

# QEMU 7.2's TCG emulates AVX2 and PCLMULQDQ but neither VPCLMULQDQ nor AVX-512, and drops
# them from CPUID with a warning (filtered out below); these CPUs therefore stop at the
# 128-bit paths. EPYC-Milan is this project's Zen 3 (family 0x19 model 1), whose table row
# names avx2_hybrid: without VPCLMULQDQ it must fall back, not fault.
run() {
    cpu=$1
    expect=$2
    echo "== qemu-x86_64 -cpu $cpu, expecting $expect"
    CRC32C_TEST_QUICK=1 CRC32C_EXPECT_IMPL=$expect "$qemu" -cpu "$cpu" "$test_binary" 2>&1 |
        grep -v "TCG doesn't support requested feature"
}

status=0
run EPYC-Milan sse42_hybrid || status=1
run EPYC-Milan,-avx2 sse42 || status=1
run EPYC-Rome sse42_hybrid || status=1
run Opteron_G5 sse42 || status=1
run Haswell sse42_hybrid || status=1
run Skylake-Client pclmul_hybrid || status=1
run Westmere sse42 || status=1
run Nehalem sb8 || status=1
run max,-pclmulqdq sb8 || status=1
exit $status
