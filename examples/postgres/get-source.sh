#!/bin/sh
# Fetches Debian 12's postgresql-15 source package into a git repository beside this script
# (examples/postgres/postgresql-15, tag "debian"), for strict-aliasing.yaml. Run as root
# (it adds a deb-src twin of the bookworm entry); then: verdict run strict-aliasing.yaml
set -eu
here=$(cd "$(dirname "$0")" && pwd)
target=${1:-$here/postgresql-15}
if [ -d "$target/.git" ]; then
    echo "get-source: $target is already there (remove it to fetch again)"
    exit 0
fi
list=/etc/apt/sources.list.d/verdict-src.list
if ! grep -rqsE '^(deb-src .*bookworm|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d; then
    echo "deb-src http://deb.debian.org/debian bookworm main" > "$list"
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# what unpacking and building PostgreSQL need
apt-get install -y -qq --no-install-recommends dpkg-dev git make gcc bison flex perl \
    libssl-dev >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get source -qq postgresql-15 >/dev/null)
unpacked=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'postgresql-15-*' | head -n 1)
[ -n "$unpacked" ] || { echo "get-source: apt-get source postgresql-15 unpacked nothing" >&2; exit 1; }
version=$(basename "$unpacked" | sed 's/^postgresql-15-//')
mv "$unpacked" "$target"
cd "$target"
git init -q
git add -A
git -c user.name=verdict -c user.email=verdict@localhost commit -qm "Debian postgresql-15 $version"
git tag debian
echo "get-source: PostgreSQL $version in $target (git tag 'debian')"
