#!/usr/bin/env bats
# Whom a fleet trusts (issue 31) on a real PostgreSQL store: workers run only experiments
# signed by a key their operator trusts; a worker that trusts nobody does not start; the
# store's worker role cannot register or change experiments or write another machine's rows.

load fleet
load fleet_trust_helpers

@test "the issue's scenario: a worker trusting owner.pub runs the owner's signed experiment and skips the rest, each named; the mark never appears" {
    [ "$(stat -c %a "$DATA/owner")" = 600 ]
    grep -q "PUBLIC KEY" "$DATA/owner.pub"
    experiment owned /bin/true
    run "$VERDICT" run "$DATA/owned.yaml" --store "$STORE" --machine owner --sign "$DATA/owner"
    [ "$status" -eq 0 ]
    [[ "$output" == *"signed owned with $DATA/owner (Ed25519 key "* ]]
    experiment edited /bin/true
    run "$VERDICT" run "$DATA/edited.yaml" --store "$STORE" --machine owner --sign "$DATA/owner"
    [ "$status" -eq 0 ]
    # another party with the same store: unsigned, and signed by a key of its own
    experiment unsigned /usr/bin/touch "$MARK"
    run "$VERDICT" run "$DATA/unsigned.yaml" --store "$STORE" --machine intruder
    [ "$status" -eq 0 ]
    experiment other-key /usr/bin/touch "$MARK"
    run "$VERDICT" run "$DATA/other-key.yaml" --store "$STORE" --machine intruder --sign "$DATA/other"
    [ "$status" -eq 0 ]
    # and the owner's own experiment, its text (and its text hash) rewritten in the database
    sql "UPDATE experiment SET text = replace(text, '/bin/true', '/usr/bin/touch\", \"$MARK')
         WHERE name = 'edited'"
    rm -f "$MARK" # the intruder's own runs made it on the intruder's machine
    run "$VERDICT" worker --store "$STORE" --machine w1 --trust "$DATA/owner.pub"
    echo "$output"
    [ "$status" -eq 0 ]
    [ ! -e "$MARK" ]
    [[ "$output" == *"verdict worker: owned (machines: survey): 4 samples taken here"* ]]
    [[ "$output" == *"skipped unsigned: not signed"* ]]
    [[ "$output" == *"skipped other-key: signed only by keys this worker does not trust"* ]]
    [[ "$output" == *"skipped edited: its text in the store is not the text the key $DATA/owner.pub signed"* ]]
    [ "$(samples_of owned w1)" -eq 4 ]
    [ "$(sql "SELECT count(*) FROM sample WHERE machine = 'w1'")" -eq 4 ]
    # the owner signs again: the edit is replaced by the owner's text, and runs
    run "$VERDICT" run "$DATA/edited.yaml" --store "$STORE" --machine owner --sign "$DATA/owner"
    [ "$status" -eq 0 ]
    mkdir "$DATA/keys" && cp "$DATA/owner.pub" "$DATA/keys/"
    run "$VERDICT" worker --store "$STORE" --machine w1 --trust "$DATA/keys" --experiment edited
    [ "$status" -eq 0 ]
    [ "$(samples_of edited w1)" -eq 4 ]
    [ ! -e "$MARK" ]
}

@test "a worker with neither --trust nor --trust-any-experiment exits 2 before touching the store, saying what the flag means" {
    experiment owned /bin/true
    run "$VERDICT" run "$DATA/owned.yaml" --store "$STORE" --machine owner
    [ "$status" -eq 0 ]
    runs=$(sql "SELECT count(*) FROM run")
    for extra in "" "--experiment owned"; do
        # shellcheck disable=SC2086
        run "$VERDICT" worker --store "$STORE" --machine w1 $extra
        [ "$status" -eq 2 ]
        [[ "$output" == *"worker needs --trust KEY.pub"*"--trust-any-experiment (anyone who can write to this store can run commands on this machine"* ]]
    done
    [ "$(sql "SELECT count(*) FROM run")" -eq "$runs" ]
    [ "$(samples_of owned w1)" -eq 0 ]
    # not even connected: an unreachable server gives the same refusal at once
    run timeout 10 "$VERDICT" worker --store "postgresql://root@127.0.0.1:1/none" --machine w1
    [ "$status" -eq 2 ]
    [[ "$output" == *"worker needs --trust KEY.pub"* ]]
    run "$VERDICT" worker --store "$STORE" --machine w1 --trust-any-experiment
    [ "$status" -eq 0 ]
    [ "$(samples_of owned w1)" -eq 4 ]
}

@test "lost or wrong keys: clear messages, nothing stored or run" {
    experiment owned /usr/bin/touch "$MARK"
    run "$VERDICT" run "$DATA/owned.yaml" --store "$STORE" --sign "$DATA/lost"
    [ "$status" -eq 2 ]
    [[ "$output" == *"--sign $DATA/lost: No such file or directory (make a key with: verdict key new FILE)"* ]]
    run "$VERDICT" run "$DATA/owned.yaml" --store "$STORE" --sign "$DATA/owner.pub"
    [ "$status" -eq 2 ]
    [[ "$output" == *"a public key; signing needs the private key (the file without .pub)"* ]]
    head -c 40 "$DATA/owner" > "$DATA/cut"
    run "$VERDICT" run "$DATA/owned.yaml" --store "$STORE" --sign "$DATA/cut"
    [ "$status" -eq 2 ]
    [[ "$output" == *"not an Ed25519 private key made by verdict key new"* ]]
    [ ! -e "$MARK" ]
    [ "$(psql -qAtX "$VERDICT_TEST_PG" -c "SELECT count(*) FROM pg_namespace WHERE nspname = '$SCHEMA'")" -eq 0 ]
    run "$VERDICT" key new "$DATA/owner"
    [ "$status" -eq 2 ]
    [[ "$output" == *"File exists (verdict key new never replaces a key)"* ]]
    run "$VERDICT" worker --store "$STORE" --trust "$DATA/owner"
    [ "$status" -eq 2 ]
    [[ "$output" == *"--trust $DATA/owner: not an Ed25519 public key"* ]]
    mkdir "$DATA/empty"
    run "$VERDICT" worker --store "$STORE" --trust "$DATA/empty"
    [ "$status" -eq 2 ]
    [[ "$output" == *"a directory without a public key (*.pub) in it"* ]]
}

@test "a truncated or forged signature, a changed plan, one over another build, an unsigned extension: each skipped, named, nothing run" {
    experiment owned /bin/true
    run "$VERDICT" run "$DATA/owned.yaml" --store "$STORE" --machine owner --sign "$DATA/owner"
    [ "$status" -eq 0 ]
    signature=$(sql "SELECT signature FROM experiment_signature")
    build=$(sql "SELECT tool_build FROM experiment")
    try() { # the worker's words about the experiment; it took nothing
        run "$VERDICT" worker --store "$STORE" --machine w1 --trust "$DATA/owner.pub" --experiment owned
        echo "$output"
        [ "$status" -eq 2 ]
        [ "$(samples_of owned w1)" -eq 0 ]
        [[ "$output" == *"skipped owned: $1"* ]]
    }
    sql "UPDATE experiment_signature SET signature = left(signature, 100)"
    try "the signature by the key $DATA/owner.pub is truncated or damaged (100 characters; an Ed25519 signature is 128 hex digits)"
    flipped=$(printf '%s' "$signature" | tr '0-9a-f' '1-9a-f0')
    sql "UPDATE experiment_signature SET signature = '$flipped'"
    try "the signature by the key $DATA/owner.pub does not verify (forged, or damaged in the store)"
    plan=$(sql "SELECT plan_hash FROM experiment")
    sql "UPDATE experiment_signature SET signature = '$signature';
         UPDATE experiment SET plan_hash = '00000000deadbeef'"
    try "the key $DATA/owner.pub signed plan $plan; the store says plan 00000000deadbeef"
    sql "UPDATE experiment SET plan_hash = '$plan'"
    # the store made to name another build (this worker's own, say): the signature says whose
    sql "UPDATE experiment_signature SET signature = '$signature';
         UPDATE experiment SET tool_build = 'feedfacefeedface'"
    try "the key $DATA/owner.pub signed it for verdict build $build; the store says it needs build feedfacefeedface"
    sql "UPDATE experiment SET tool_build = '$build';
         INSERT INTO extension (experiment_id, blocks) SELECT id, 5 FROM experiment"
    try "extended (--more) to [5] blocks per point since the key $DATA/owner.pub signed it at []"
    sql "DELETE FROM extension"
    # the owner's --more, signed the same way, runs
    run "$VERDICT" run "$DATA/owned.yaml" --store "$STORE" --machine owner --more 1 --sign "$DATA/owner"
    [ "$status" -eq 0 ]
    [ "$(sql "SELECT extensions FROM experiment_signature")" = 3 ]
    run "$VERDICT" worker --store "$STORE" --machine w1 --trust "$DATA/owner.pub"
    [ "$status" -eq 0 ]
    [ "$(samples_of owned w1)" -eq 6 ]
}

@test "store roles: the worker role cannot insert or change an experiment, or write under another machine's name; a worker runs under it" {
    experiment owned /bin/true
    run "$VERDICT" run "$DATA/owned.yaml" --store "$STORE" --machine owner --sign "$DATA/owner"
    [ "$status" -eq 0 ]
    owner="${ROLE_PREFIX}_owner" worker="${ROLE_PREFIX}_worker" m1="${ROLE_PREFIX}_m1"
    run "$VERDICT" store roles "$STORE" --owner "$owner" --worker "$worker"
    [ "$status" -eq 0 ]
    [[ "$output" == *"CREATE POLICY verdict_worker ON \"$SCHEMA\".sample FOR INSERT TO $worker"* ]]
    run "$VERDICT" store roles "$STORE" --owner "x; DROP TABLE sample" --worker "$worker"
    [ "$status" -eq 2 ]
    [[ "$output" == *"--owner 'x; DROP TABLE sample': a role name of lowercase letters"* ]]
    run "$VERDICT" store roles "$DATA/local.db" --apply
    [ "$status" -eq 2 ]
    [[ "$output" == *"database roles are a PostgreSQL store's"* ]]
    [ ! -e "$DATA/local.db" ]
    run "$VERDICT" store roles "$STORE" --apply --owner "$owner" --worker "$worker"
    [ "$status" -eq 0 ]
    psql -qAtX "$VERDICT_TEST_PG" -c "CREATE ROLE $m1 LOGIN IN ROLE $worker"
    # as the machine's role (the test's superuser becomes it; a machine would log in as it)
    as_m1() {
        psql -qAtX "$VERDICT_TEST_PG" -v ON_ERROR_STOP=1 -c "SET ROLE $m1; SET search_path = $SCHEMA; $1" 2>&1
    }
    run as_m1 "INSERT INTO experiment (name, text, text_hash, plan_hash, seed, tool_version, created)
               VALUES ('mine', 'x', '0000000000000000', '0000000000000000', '1', 'v', 'now')"
    [ "$status" -ne 0 ]
    [[ "$output" == *"permission denied for table experiment"* ]]
    run as_m1 "UPDATE experiment SET text = 'x'"
    [[ "$output" == *"permission denied for table experiment"* ]]
    run as_m1 "UPDATE experiment_signature SET signature = 'x'"
    [[ "$output" == *"permission denied for table experiment_signature"* ]]
    run as_m1 "INSERT INTO extension (experiment_id, blocks) SELECT id, 9 FROM experiment"
    [[ "$output" == *"permission denied for table extension"* ]]
    insert_sample="INSERT INTO sample (experiment_id, run_id, point, variant, block, seq,
        voluntary_switches, involuntary_switches, exit_code, timed_out, tainted, machine)
        SELECT experiment_id, id, 'default', 'A', 99, 99, 0, 0, 0, 0, 0"
    run as_m1 "$insert_sample, 'owner' FROM run LIMIT 1"
    [[ "$output" == *"new row violates row-level security policy for table \"sample\""* ]]
    run as_m1 "UPDATE sample SET wall = 0 WHERE machine = 'owner'"
    [[ "$output" == *"permission denied for table sample"* ]]
    run as_m1 "INSERT INTO machine (name, recorded) VALUES ('owner-too', 'now')"
    [[ "$output" == *"row-level security policy for table \"machine\""* ]]
    run as_m1 "$insert_sample, current_user FROM run LIMIT 1 RETURNING machine"
    [ "$status" -eq 0 ]
    [[ "$output" == "$m1"* ]]
    sql "DELETE FROM sample WHERE block = 99"
    # a whole worker under the role: reads, registers nothing, writes its own machine's rows
    run "$VERDICT" worker --store "$STORE&options=-c%20role%3D$m1" --machine "$m1" --trust "$DATA/owner.pub"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(samples_of owned "$m1")" -eq 4 ]
    # a shared plan too: the owner's own run fails at once and gives its block back, so the
    # role claims, renews and finishes every block
    cat > "$DATA/shared.yaml" <<EOF
name: shared
machines: share
repetitions: 3
warmup: 0
variants:
  A: {command: [sh, -c, 'test -z "\$OWNER_HERE"']}
  B: {command: [sh, -c, 'test -z "\$OWNER_HERE"']}
EOF
    run env OWNER_HERE=1 "$VERDICT" run "$DATA/shared.yaml" --store "$STORE" --machine owner --sign "$DATA/owner"
    [ "$status" -eq 3 ]
    run "$VERDICT" worker --store "$STORE&options=-c%20role%3D$m1" --machine "$m1" --trust "$DATA/owner.pub"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(sql "SELECT string_agg(DISTINCT state || ' ' || machine, ',') FROM block")" = "done $m1" ]
    [ "$(samples_of shared "$m1")" -eq 6 ]
    run as_m1 "UPDATE block SET machine = 'owner'"
    [[ "$output" == *"new row violates row-level security policy for table \"block\""* ]]
    # and under another machine's name it is refused by the database
    run "$VERDICT" worker --store "$STORE&options=-c%20role%3D$m1" --machine not-mine --trust "$DATA/owner.pub"
    [ "$status" -ne 0 ]
    [[ "$output" == *"row-level security policy"* ]]
    [ "$(samples_of owned not-mine)" -eq 0 ]
}

@test "a worker needs no root: a dedicated user, logged in to the store as its machine, runs the owner's commands as itself" {
    [ "$(id -u)" -eq 0 ] || skip "making the worker's user needs root"
    worker_user
    experiment whoami /usr/bin/touch "$WORKER_HOME/ran"
    run "$VERDICT" run "$DATA/whoami.yaml" --store "$STORE" --machine owner --sign "$DATA/owner"
    [ "$status" -eq 0 ]
    rm -f "$WORKER_HOME/ran"
    run_user_worker
    [ "$status" -eq 0 ]
    [ "$(samples_of whoami "$WORKER_USER")" -eq 4 ]
    [ "$(stat -c %U "$WORKER_HOME/ran")" = "$WORKER_USER" ]
}
