#!/bin/sh
# Fetches Debian 12's postgresql-15 source package once into a git repository beside this
# script (examples/postgres/postgresql-15, tag "debian"), for the PostgreSQL labs.
# Idempotent: a second run finds the repository and does nothing. Needs root, or sudo, to
# add a deb-src twin of the system's Debian entries and to install the build tools.
#   sh get-source.sh [DIRECTORY]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
target=${1:-$here/postgresql-15}
if [ -d "$target/.git" ] && git -C "$target" rev-parse -q --verify debian >/dev/null; then
    echo "get-source: $target is already there (tag 'debian'; remove it to fetch again)"
    exit 0
fi
if [ -e "$target" ]; then
    echo "get-source: $target exists but is not a fetched source (no git tag 'debian');" \
         "remove it first" >&2
    exit 1
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

fail() {
    echo "get-source: $*" >&2
    exit 1
}

# deb-src entries for the Debian entries the system already has, in the same form: apt
# refuses a one-line "deb-src" entry beside a deb822 stanza of the same URI with
# Signed-By ("Conflicting values set for option Signed-By"), so a .sources system gets a
# .sources twin and a .list system a .list twin.
add_deb_src() {
    dir=/etc/apt/sources.list.d
    if grep -rqsE '^[[:space:]]*(deb-src[[:space:]]|Types:.*deb-src)' /etc/apt/sources.list $dir
    then
        return 0
    fi
    stanzas=$(cat $dir/*.sources 2>/dev/null | awk '
        /^[[:space:]]*#/ { next }
        /^[[:space:]]*$/ { if (keep) print ""; keep = 0; next }
        /^Types:/ { if ($0 ~ /(^|[[:space:]])deb([[:space:]]|$)/) { keep = 1; print "Types: deb-src" } next }
        { if (keep) print }' || true)
    if [ -n "$stanzas" ]; then
        printf '%s\n' "$stanzas" | $sudo tee $dir/verdict-src.sources >/dev/null
        echo "get-source: added $dir/verdict-src.sources (deb-src twins of the .sources entries)"
        return 0
    fi
    lines=$(cat /etc/apt/sources.list $dir/*.list 2>/dev/null |
            sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' || true)
    [ -n "$lines" ] || fail "no Debian entry in /etc/apt/sources.list or $dir to add deb-src to"
    printf '%s\n' "$lines" | $sudo tee $dir/verdict-src.list >/dev/null
    echo "get-source: added $dir/verdict-src.list (deb-src twins of the deb lines)"
}

add_deb_src
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq ||
    fail "apt-get update failed: Debian's archive cannot be reached (network, proxy or apt sources)"
# what unpacking and building PostgreSQL need
$sudo apt-get install -y -qq --no-install-recommends dpkg-dev git make gcc bison flex perl \
    libssl-dev >/dev/null || fail "cannot install the build tools (dpkg-dev, gcc, bison, ...)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The newest version first; when a mirror lacks it (a security update the mirror does not
# carry answers 404), the next one the archive lists.
versions=$(apt-cache showsrc postgresql-15 2>/dev/null | sed -n 's/^Version: //p' |
           sort -u -r -V)
[ -n "$versions" ] || fail "apt knows no source package postgresql-15 (is deb-src enabled?)"
fetched=""
for v in $versions; do
    if (cd "$work" && apt-get source -qq "postgresql-15=$v" >/dev/null 2>"$work/apt.log"); then
        fetched=$v
        break
    fi
    echo "get-source: postgresql-15 $v could not be downloaded; trying an older version" >&2
    rm -rf "$work"/postgresql-15*
done
[ -n "$fetched" ] ||
    fail "apt-get source postgresql-15 failed for every version ($versions): $(tail -n 2 "$work/apt.log")"
unpacked=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'postgresql-15-*' | head -n 1)
[ -n "$unpacked" ] || fail "apt-get source postgresql-15 unpacked nothing"
version=$(basename "$unpacked" | sed 's/^postgresql-15-//')
mv "$unpacked" "$target"
cd "$target"
git init -q
git add -A
# A fixed author and date: the same source package makes the same commit id on every
# machine, and so the same build keys (docs/builds.md).
GIT_AUTHOR_DATE=2000-01-01T00:00:00Z GIT_COMMITTER_DATE=2000-01-01T00:00:00Z \
    git -c user.name=verdict -c user.email=verdict@localhost commit -qm "Debian postgresql-15 $version"
git tag debian
echo "get-source: PostgreSQL $version in $target (git tag 'debian')"
