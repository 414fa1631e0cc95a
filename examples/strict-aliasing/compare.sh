#!/bin/sh
# Seed 000's pgbench numbers (three runs per build and client count) through verdict
# compare: the honest reading of "+0.8%, +2.0%, +3.2%, -0.9%, -0.5%, -0.9%".
set -eu
here=$(dirname "$0")
verdict=${VERDICT:-$here/../../build/verdict}
status=0
for clients in 1 2 4 8 16 32; do
    echo "=== $clients client(s): -O2 -fno-strict-aliasing (baseline) vs -O3 -fstrict-aliasing"
    "$verdict" compare -C 4 --higher-is-better \
        "$here/no-strict-aliasing.$clients.txt" "$here/strict-aliasing.$clients.txt" || status=$?
    echo
done
exit $status
