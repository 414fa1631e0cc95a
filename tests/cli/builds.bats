#!/usr/bin/env bats
# Builds by content (issue 13) through `verdict run`, `verdict build` and `verdict cache`,
# on a git repository the test makes: tags v1 and v2 (v2 does 25% more work), a working
# tree edited without a commit, patches, and every way a build can fail.

setup() {
    VERDICT=${VERDICT:?set VERDICT to the verdict binary}
    DATA=$(mktemp -d)
    CACHE="$DATA/cache"
    make_repository "$DATA/repo"
}

teardown() {
    rm -rf "$DATA"
}

git_in() { # DIR ARGS...
    local dir=$1
    shift
    git -C "$dir" -c user.name=verdict -c user.email=verdict@example.org "$@"
}

# work ROUNDS: that many dependent multiply-adds, about 4 ms per million on these VMs. The
# process's start-up and exit make measured ratios some 10-15% smaller than the work's.
make_repository() {
    mkdir -p "$1"
    cat > "$1/work.c" <<'C'
#include <stdio.h>
#ifndef ROUNDS
#define ROUNDS 4000000
#endif
int main(void)
{
    volatile unsigned long x = 1;
    for (unsigned long i = 0; i < ROUNDS; i++)
        x = x * 6364136223846793005UL + 1442695040888963407UL;
    printf("%lu\n", (unsigned long)x);
    return 0;
}
C
    printf 'work: work.c\n\tcc -O1 -o work work.c\n' > "$1/Makefile"
    printf 'work\n*.o\n' > "$1/.gitignore"
    git -C "$1" init -q
    git_in "$1" add .
    git_in "$1" commit -qm v1
    git_in "$1" tag v1
    sed -i 's/#define ROUNDS 4000000/#define ROUNDS 5000000/' "$1/work.c"
    git_in "$1" commit -qam v2
    git_in "$1" tag v2
    git_in "$1" checkout -q v1 -- work.c # the working tree: v1's code, not committed
}

experiment() { # NAME, then the variants' lines
    local name=$1
    shift
    {
        echo "name: $name"
        echo "seed: 3"
        echo "repetitions: ${REPS:-12}"
        echo "variants:"
        for line in "$@"; do echo "  $line"; done
        echo "metrics: [wall]"
    } > "$DATA/$name.yaml"
}

samples() {
    sqlite3 "$1" "select count(*) || ' ' || count(distinct point || '/' || variant || '/' || block) from sample"
}

@test "tag v2 against tag v1: about 25% worse; both builds are cached, and recorded" {
    experiment tags 'v1: {source: {git: repo, ref: v1}, build: make, command: ["{tree}/work"]}' \
                    'v2: {source: {git: repo, ref: v2}, build: make, command: ["{tree}/work"]}'
    run "$VERDICT" run "$DATA/tags.yaml" --cache "$CACHE" --json "$DATA/tags.json"
    echo "$output"
    [ "$status" -eq 0 ]
    jq -e '.comparisons[0].verdict == "worse"' "$DATA/tags.json"
    jq -e '.comparisons[0].estimate > 1.10 and .comparisons[0].estimate < 1.45' "$DATA/tags.json"
    jq -e '[.builds[].key | length] == [64, 64] and .builds[0].key != .builds[1].key' "$DATA/tags.json"
    jq -e '[.builds[].sha256 | length] == [64, 64]' "$DATA/tags.json"
    # the user's repository was only read
    [ -z "$(git -C "$DATA/repo" status --porcelain --untracked-files=no | grep -v work.c)" ]
    [ ! -e "$DATA/repo/work" ]
    run "$VERDICT" build "$DATA/tags.yaml" --cache "$CACHE"
    [ "$status" -eq 0 ]
    [ "$(grep -cE '^v[12] +[0-9a-f]{16}  cached$' <<< "$output")" -eq 2 ]
}

@test "an uncommitted edit in the working tree is a new build: the edited program is measured" {
    experiment tree 'v1: {source: {git: repo, ref: v1}, build: make, command: ["{tree}/work"]}' \
                    'wt: {source: repo, build: make, command: ["{tree}/work"]}'
    run "$VERDICT" run "$DATA/tree.yaml" --cache "$CACHE" --store "$DATA/t1.db" --json "$DATA/t1.json"
    [ "$status" -eq 0 ]
    jq -e '.comparisons[0].estimate > 0.85 and .comparisons[0].estimate < 1.18' "$DATA/t1.json"
    sed -i 's/#define ROUNDS 4000000/#define ROUNDS 8000000/' "$DATA/repo/work.c" # no commit
    # the same store now holds another build: refused as a changed plan, samples kept
    run "$VERDICT" run "$DATA/tree.yaml" --cache "$CACHE" --store "$DATA/t1.db"
    [ "$status" -eq 2 ]
    [[ "$output" == *"plan"* ]]
    [ "$(samples "$DATA/t1.db")" = "24 24" ]
    run "$VERDICT" run "$DATA/tree.yaml" --cache "$CACHE" --store "$DATA/t2.db" --json "$DATA/t2.json"
    [ "$status" -eq 0 ]
    jq -e '.comparisons[0].estimate > 1.5 and .comparisons[0].estimate < 2.5' "$DATA/t2.json"
    [ "$(jq -r '.builds[1].key' "$DATA/t1.json")" != "$(jq -r '.builds[1].key' "$DATA/t2.json")" ]
    [ "$(jq -r '.builds[0].key' "$DATA/t1.json")" = "$(jq -r '.builds[0].key' "$DATA/t2.json")" ]
}

@test "an edited patch file is a new build" {
    printf -- '--- a/work.c\n+++ b/work.c\n@@ -2,3 +2,3 @@\n #ifndef ROUNDS\n-#define ROUNDS 4000000\n+#define ROUNDS 6000000\n #endif\n' > "$DATA/more.patch"
    experiment patched 'base: {source: {git: repo, ref: v1}, build: make, command: ["{tree}/work"]}' \
                       'patched: {source: {git: repo, ref: v1}, patches: [more.patch], build: make, command: ["{tree}/work"]}'
    run "$VERDICT" run "$DATA/patched.yaml" --cache "$CACHE" --store "$DATA/p1.db" --json "$DATA/p1.json"
    [ "$status" -eq 0 ]
    jq -e '.comparisons[0].estimate > 1.25 and .comparisons[0].estimate < 1.8' "$DATA/p1.json"
    sed -i 's/6000000/8000000/' "$DATA/more.patch"
    run "$VERDICT" run "$DATA/patched.yaml" --cache "$CACHE" --store "$DATA/p2.db" --json "$DATA/p2.json"
    [ "$status" -eq 0 ]
    jq -e '.comparisons[0].estimate > 1.5 and .comparisons[0].estimate < 2.5' "$DATA/p2.json"
}

@test "a patch that does not apply stops before anything is measured, naming it, exit 3" {
    printf -- '--- a/work.c\n+++ b/work.c\n@@ -2,3 +2,3 @@\n #ifndef ROUNDS\n-#define ROUNDS 1234\n+#define ROUNDS 99\n #endif\n' > "$DATA/stale.patch"
    experiment stale 'A: {source: {git: repo, ref: v1}, patches: [stale.patch], build: make, command: ["{tree}/work"]}' \
                     'B: {source: {git: repo, ref: v2}, build: make, command: ["{tree}/work"]}'
    run "$VERDICT" run "$DATA/stale.yaml" --cache "$CACHE" --store "$DATA/s.db"
    echo "$output"
    [ "$status" -ge 2 ] && [ "$status" -le 3 ]
    [[ "$output" == *"stale.patch"* ]]
    [[ "$output" == *"variant A"* ]]
    [ "$(sqlite3 "$DATA/s.db" 'select count(*) from sample')" -eq 0 ]
}

@test "a failing build stops with its log's end, exit 3; fixed, it is built anew" {
    experiment broken 'A: {source: {git: repo, ref: v1}, build: "make && false", command: ["{tree}/work"]}' \
                      'B: {source: {git: repo, ref: v2}, build: make, command: ["{tree}/work"]}'
    run "$VERDICT" run "$DATA/broken.yaml" --cache "$CACHE" --store "$DATA/b.db"
    echo "$output"
    [ "$status" -eq 3 ]
    [[ "$output" == *"variant A"* && "$output" == *"build.log"* ]]
    [ "$(sqlite3 "$DATA/b.db" 'select count(*) from sample')" -eq 0 ]
    # nothing half-built is reused: the failed build is incomplete in the cache
    run "$VERDICT" cache list --cache "$CACHE"
    [[ "$output" == *"incomplete"* ]]
    experiment broken 'A: {source: {git: repo, ref: v1}, build: "make", command: ["{tree}/work"]}' \
                      'B: {source: {git: repo, ref: v2}, build: make, command: ["{tree}/work"]}'
    run "$VERDICT" run "$DATA/broken.yaml" --cache "$CACHE" --store "$DATA/b2.db"
    [ "$status" -eq 0 ]
    [ "$(samples "$DATA/b2.db")" = "24 24" ]
}

@test "a missing ref, a source that is no directory, {tree} without a source: exit 2" {
    experiment noref 'A: {source: {git: repo, ref: v9}, build: make, command: ["{tree}/work"]}' \
                     'B: {source: {git: repo, ref: v2}, build: make, command: ["{tree}/work"]}'
    run "$VERDICT" run "$DATA/noref.yaml" --cache "$CACHE"
    echo "$output"
    [ "$status" -eq 2 ]
    [[ "$output" == *"v9"* ]]
    experiment nodir 'A: {source: Makefile-not-here, build: make, command: ["{tree}/work"]}' \
                     'B: {source: repo, build: make, command: ["{tree}/work"]}'
    touch "$DATA/Makefile-not-here"
    run "$VERDICT" run "$DATA/nodir.yaml" --cache "$CACHE"
    [ "$status" -eq 2 ]
    [[ "$output" == *"not a directory"* ]]
    experiment notree 'A: {command: ["{tree}/work"]}' 'B: {source: repo, command: ["{tree}/work"]}'
    run "$VERDICT" run "$DATA/notree.yaml" --cache "$CACHE"
    [ "$status" -eq 2 ]
    [[ "$output" == *"{tree}"* && "$output" == *"no 'source'"* ]]
}

@test "killed during a build and during the runs: redone, then exactly the planned samples" {
    experiment slow 'A: {source: {git: repo, ref: v1}, build: "sleep 2 && make", command: ["{tree}/work"]}' \
                    'B: {source: {git: repo, ref: v2}, build: make, command: ["{tree}/work"]}'
    "$VERDICT" run "$DATA/slow.yaml" --cache "$CACHE" --store "$DATA/k.db" > "$DATA/k1.out" 2>&1 &
    pid=$!
    sleep 1
    kill -KILL "$pid"
    wait "$pid" || true
    REPS=40 experiment slow 'A: {source: {git: repo, ref: v1}, build: "sleep 2 && make", command: ["{tree}/work"]}' \
                            'B: {source: {git: repo, ref: v2}, build: make, command: ["{tree}/work"]}'
    rm -f "$DATA"/k.db*
    "$VERDICT" run "$DATA/slow.yaml" --cache "$CACHE" --store "$DATA/k.db" > "$DATA/k2.out" 2>&1 &
    pid=$!
    for _ in $(seq 1 300); do
        [ "$(sqlite3 "$DATA/k.db" 'select count(*) from sample' 2>/dev/null || echo 0)" -ge 10 ] && break
        sleep 0.1
    done
    kill -KILL "$pid"
    wait "$pid" || true
    run "$VERDICT" run "$DATA/slow.yaml" --cache "$CACHE" --store "$DATA/k.db"
    [ "$status" -eq 0 ]
    [ "$(samples "$DATA/k.db")" = "80 80" ]
}

@test "verdict cache list names the builds; prune removes old and incomplete ones only" {
    experiment two 'A: {source: {git: repo, ref: v1}, build: make, command: ["{tree}/work"]}' \
                   'B: {source: {git: repo, ref: v2}, build: make, command: ["{tree}/work"]}'
    run "$VERDICT" build "$DATA/two.yaml" --cache "$CACHE"
    [ "$status" -eq 0 ]
    [ "$(grep -cE '^[AB] +[0-9a-f]{16}  built$' <<< "$output")" -eq 2 ]
    run "$VERDICT" cache list --cache "$CACHE"
    [ "$status" -eq 0 ]
    [[ "$output" == *"2 builds"* && "$output" == *"complete"* && "$output" == *"v1"* ]]
    run "$VERDICT" cache prune --older-than 30d --cache "$CACHE"
    [[ "$output" == *"0 builds removed"* ]]
    sleep 2.1 # last use is kept to the second
    run "$VERDICT" cache prune --older-than 1s --cache "$CACHE"
    [[ "$output" == *"2 builds removed"* ]]
    run "$VERDICT" cache list --cache "$CACHE"
    [[ "$output" == *"0 builds"* ]]
    run "$VERDICT" cache prune --older-than soon --cache "$CACHE"
    [ "$status" -eq 2 ]
}

@test "build and cache --help" {
    run "$VERDICT" build --help
    [ "$status" -eq 0 ] && [[ "$output" == *"--cache"* ]]
    run "$VERDICT" cache --help
    [ "$status" -eq 0 ] && [[ "$output" == *"prune"* ]]
    run "$VERDICT" cache nonsense
    [ "$status" -eq 2 ]
}

# A stand-in for a PostgreSQL tree: its configure records how it was called and writes a
# Makefile that installs a postgres and a pgbench into the prefix. The recipe verdict runs
# is the one real trees get (src/targets/postgres_build.c).
fake_postgres_tree() {
    mkdir -p "$1"
    cat > "$1/configure" <<'SH'
#!/bin/sh
prefix=
for a in "$@"; do case $a in --prefix=*) prefix=${a#--prefix=} ;; esac; done
printf '%s\n' "$@" > configure.args
printf 'CFLAGS=%s\n' "${CFLAGS:-}" >> configure.args
printf 'all:\n\ttrue\ninstall:\n\tmkdir -p %s/bin\n\tcp configure.args %s/\n\tprintf "#!/bin/sh\\n" > %s/bin/postgres\n\tcp %s/bin/postgres %s/bin/pgbench\n\tchmod +x %s/bin/postgres %s/bin/pgbench\n' \
    "$prefix" "$prefix" "$prefix" "$prefix" "$prefix" "$prefix" "$prefix" > Makefile
SH
    chmod +x "$1/configure"
    git -C "$1" init -q
    git_in "$1" add .
    git_in "$1" commit -qm fake
}

@test "target postgres: a source is configured, built and installed by the target's recipe" {
    fake_postgres_tree "$DATA/pg"
    cat > "$DATA/pg.yaml" <<YAML
name: pg-recipe
target: postgres
repetitions: 3
variants:
  A: { source: pg, configure: "--without-icu --with-x='a b'", cflags: "-O2 -fno-strict-aliasing" }
  B: { source: { git: pg, ref: HEAD }, cflags: "-O3" }
workload: { pgbench: ["-S", "-T", "1"] }
metrics: [tps]
YAML
    run "$VERDICT" build "$DATA/pg.yaml" --cache "$CACHE"
    echo "$output"
    [ "$status" -eq 0 ]
    a=$(grep -l fno-strict "$CACHE"/builds/*/install/configure.args)
    [ "$(wc -l <<< "$a")" -eq 1 ]
    grep -qx -- "--without-icu" "$a"
    grep -qx -- "--with-x=a b" "$a"
    grep -qx -- "--prefix=$(dirname "$a")" "$a"
    grep -qx -- "CFLAGS=-O2 -fno-strict-aliasing" "$a"
    [ -x "$(dirname "$a")/bin/postgres" ]
    [ "$(ls -d "$CACHE"/builds/*/install/bin/postgres | wc -l)" -eq 2 ]
    # another flag is another build; the same flags again are cached
    run "$VERDICT" build "$DATA/pg.yaml" --cache "$CACHE"
    [ "$(grep -cE '^[AB] +[0-9a-f]{16}  cached$' <<< "$output")" -eq 2 ]
}

@test "target postgres: a tree with meson.build only is set up with meson" {
    mkdir -p "$DATA/pgm"
    cat > "$DATA/pgm/meson.build" <<'MESON'
project('fake-postgres', 'c')
install_data('postgres', 'pgbench', install_dir : get_option('bindir'), install_mode : 'rwxr-xr-x')
MESON
    printf '#!/bin/sh\n' > "$DATA/pgm/postgres"
    printf '#!/bin/sh\n' > "$DATA/pgm/pgbench"
    cat > "$DATA/pgm.yaml" <<YAML
name: pg-meson
target: postgres
repetitions: 3
variants:
  A: { source: pgm, meson: "-Dbuildtype=release" }
  B: { bindir: /usr/lib/postgresql/15/bin }
workload: { pgbench: ["-S", "-T", "1"] }
metrics: [tps]
YAML
    run "$VERDICT" build "$DATA/pgm.yaml" --cache "$CACHE"
    echo "$output"
    [ "$status" -eq 0 ]
    [ -x "$(ls -d "$CACHE"/builds/*/install/bin/postgres)" ]
}
