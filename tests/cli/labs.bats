#!/usr/bin/env bats
# The PostgreSQL labs (examples/postgres, docs/labs.md) against Debian's postgresql-15
# source, which scripts/setup.sh --tests fetches with examples/postgres/get-source.sh:
# every lab file checks, every patch applies, and the ways a newcomer can get a lab wrong
# (no source fetched, a patch that does not apply) stop with a message, nothing measured.

setup() {
    VERDICT=${VERDICT:?set VERDICT to the verdict binary}
    EXAMPLES=${EXAMPLES:?set EXAMPLES to the examples directory}
    LABS=$EXAMPLES/postgres
    SOURCE=$LABS/postgresql-15
    # CI fetches the source (scripts/setup.sh --tests): there its absence is a failure.
    if ! git -C "$SOURCE" rev-parse -q --verify debian >/dev/null 2>&1; then
        [ -n "${VERDICT_CI:-}" ] && { echo "no PostgreSQL source at $SOURCE in CI" >&2; return 1; }
        skip "no PostgreSQL source at $SOURCE (sh examples/postgres/get-source.sh)"
    fi
    DATA=$(mktemp -d)
}

# After a skip in setup there is no DATA, and a teardown that fails fails the skipped test.
teardown() {
    if [ -n "${DATA:-}" ]; then rm -rf "$DATA"; fi
}

@test "every lab file checks (verdict run --dry-run): keys, paths, source, patches, builds" {
    n=0
    for f in "$LABS"/*.yaml "$LABS"/*/*.yaml; do
        run "$VERDICT" run --dry-run --cache "$DATA/cache" "$f"
        echo "$f: $output"
        [ "$status" -eq 0 ]
        [[ "$output" == *": ok: "* ]]
        n=$((n + 1))
    done
    [ "$n" -ge 9 ]
    # a lab's builds are named by their keys; in an empty cache each is still to be made
    run "$VERDICT" run --dry-run --cache "$DATA/cache" "$LABS/cold-path.yaml"
    [ "$(grep -c 'build [0-9a-f]\{16\} to be made' <<< "$output")" -eq 3 ]
    [[ "$output" == *"3 variants, 3 points, 8 to 16 blocks of 9 runs; metrics: tps"* ]]
    [ ! -e "$DATA/cache/builds/$(grep -o '[0-9a-f]\{16\}' <<< "$output" | head -n 1)" ]
}

@test "every patch of the labs applies to Debian's postgresql-15" {
    n=0
    for p in "$LABS"/*.patch "$LABS"/*/*.patch; do
        echo "$p"
        git -C "$SOURCE" apply --check "$p"
        n=$((n + 1))
    done
    [ "$n" -ge 5 ]
}

@test "a lab run before the source is fetched names the missing repository" {
    cp "$LABS/cold-path.yaml" "$DATA/"
    mkdir "$DATA/cold-path" && cp "$LABS"/cold-path/*.patch "$DATA/cold-path/"
    run "$VERDICT" run "$DATA/cold-path.yaml" --store "$DATA/s.db"
    echo "$output"
    [ "$status" -eq 2 ]
    [[ "$output" == *"cold-path.yaml:"*"the git repository '$DATA/postgresql-15'"* ]]
    [ ! -e "$DATA/s.db" ]
}

@test "a patch that does not apply stops the build (exit 2) naming the patch; nothing is measured" {
    cat > "$DATA/stale.patch" <<'PATCH'
--- a/src/include/c.h
+++ b/src/include/c.h
@@ -1,3 +1,3 @@
-this line is not in c.h
+nor is this one
 /*-------------------------------------------------------------------------
PATCH
    cat > "$DATA/stale.yaml" <<YAML
name: stale
repetitions: 2
variants:
  base:  { source: { git: $SOURCE, ref: debian }, build: "true", command: ["true"] }
  stale: { source: { git: $SOURCE, ref: debian }, patches: [stale.patch], build: "true",
           command: ["true"] }
YAML
    run "$VERDICT" run "$DATA/stale.yaml" --store "$DATA/stale.db" --cache "$DATA/cache"
    echo "$output"
    [ "$status" -eq 2 ]
    [[ "$output" == *"patch $DATA/stale.patch does not apply"* ]]
    [[ "$output" == *"-this line is not in c.h"* ]]
    [ "$(sqlite3 "$DATA/stale.db" 'SELECT count(*) FROM sample' 2>/dev/null || echo 0)" -eq 0 ]
    # the variant built before the failure is in the cache; the failed one is not
    run "$VERDICT" run --dry-run --cache "$DATA/cache" "$DATA/stale.yaml"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"variant base: build "*" cached"* ]]
    [[ "$output" == *"variant stale: build "*" to be made"* ]]
}
