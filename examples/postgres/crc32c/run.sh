#!/bin/sh
# The CRC-32C lab (seed 002) in one command: the WAL written once (make-wal.sh), pg_waldump
# -z timed in four builds of PostgreSQL 15 (crc32c.yaml; built once into verdict's build
# cache), then the CRC alone in-process with `verdict kernel` (examples/crc32c/run.sh),
# to set the macro difference beside the CRC's own. From the repository's top directory:
#   sh examples/postgres/get-source.sh && sh examples/postgres/crc32c/run.sh [BUILD_DIR]
# BUILD_DIR (default build) holds verdict; results go to BUILD_DIR/crc32c-lab/.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-build}" && pwd)
out=$build/crc32c-lab
[ -x "$build/verdict" ] || { echo "run.sh: no $build/verdict (meson compile -C $build)" >&2; exit 2; }
case $(uname -m) in
    x86_64) ;;
    *) echo "run.sh: the four builds are x86-64's CRC-32C paths (SSE 4.2); this is $(uname -m)" >&2
       exit 2 ;;
esac
mkdir -p "$out"
sh "$here/make-wal.sh"
"$build/verdict" run "$here/crc32c.yaml" --store "$out/waldump.db" --json "$out/waldump.json" \
    --html "$out/waldump.html"
OUT=$out/kernel sh "$here/../../crc32c/run.sh" "$build" quick
