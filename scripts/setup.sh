#!/bin/sh
# Installs what verdict needs from Debian's archive (only what is missing) and builds it
# into build/ (the test suite is configured too, so bats and cmocka come with the build).
# With --tests it also installs what running the whole test suite needs, fetches Debian's
# postgresql-15 source for the PostgreSQL labs' tests, and starts the server the fleet's
# tests keep their store on (scripts/start-test-postgres.sh).
set -eu
cd "$(dirname "$0")/.."

build_packages="meson ninja-build pkg-config gcc libc6-dev libgsl-dev libjansson-dev libcmocka-dev libsqlite3-dev libfyaml-dev libpq-dev libssl-dev bats"
test_packages="bats jq linux-perf man-db groff-base python3-jsonschema zsh sqlite3 valgrind postgresql postgresql-contrib libxml2-dev libxml2-utils chromium bsdutils util-linux hyperfine bc clang libclang-rt-14-dev gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user libisal-dev git make patch ccache lld iproute2"

packages=$build_packages
[ "${1:-}" = "--tests" ] && packages="$packages $test_packages"

missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "setup: installing$missing" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >&2
fi

# Packages installed just now (say, the test tools after a plain setup) change what the
# build finds, so an existing build directory is configured again.
if [ ! -f build/build.ninja ]; then
    meson setup build >&2
elif [ -n "$missing" ]; then
    meson setup --reconfigure build >&2
fi
meson compile -C build >&2

# The PostgreSQL labs' tests check their patches against Debian's postgresql-15 source,
# fetched once into examples/postgres/postgresql-15 (idempotent).
[ "${1:-}" = "--tests" ] && sh examples/postgres/get-source.sh >&2
if [ "${1:-}" = "--tests" ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo sh scripts/start-test-postgres.sh >/dev/null
fi
true
