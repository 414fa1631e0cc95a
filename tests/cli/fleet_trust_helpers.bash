# Helpers of fleet_trust.bats (and bench/fleet's): the fleet's schema of each test and two
# keys, tiny survey experiments, a worker's user and database role of its own.

setup() {
    fleet_setup
    MARK="$DATA/PWNED"
    ROLE_PREFIX="vt${BATS_TEST_NUMBER}_$$"
    "$VERDICT" key new "$DATA/owner" >/dev/null
    "$VERDICT" key new "$DATA/other" >/dev/null
}

teardown() {
    fleet_teardown
    if [ -n "${WORKER_USER:-}" ]; then
        pkill -KILL -u "$WORKER_USER" 2>/dev/null || true
        userdel "$WORKER_USER" 2>/dev/null || true
        rm -rf "$WORKER_HOME"
    fi
    # roles are the server's, not the schema's: drop the ones this test made
    for role in "${ROLE_PREFIX}_owner" "${ROLE_PREFIX}_worker" "${ROLE_PREFIX}_m1" \
                "${ROLE_PREFIX}_pgw"; do
        psql -qAtX "$VERDICT_TEST_PG" -c "DROP OWNED BY $role" >/dev/null 2>&1 || true
        psql -qAtX "$VERDICT_TEST_PG" -c "DROP ROLE IF EXISTS $role" >/dev/null 2>&1 || true
    done
}

# experiment NAME COMMAND...: a tiny survey experiment whose variants run the command.
experiment() {
    local name=$1 words
    shift
    words=$(printf '"%s", ' "$@")
    cat > "$DATA/$name.yaml" <<EOF
name: $name
machines: survey
repetitions: 2
warmup: 0
variants:
  A: {command: [${words%, }]}
  B: {command: [${words%, }]}
EOF
}

# Samples a machine took of an experiment.
samples_of() {
    sql "SELECT count(*) FROM sample s JOIN experiment e ON e.id = s.experiment_id
         WHERE e.name = '$1' AND s.machine = '$2'"
}

# A worker's user: its machine's name, its database role (peer authentication) in the
# workers' role, a home of its own. Sets WORKER_USER and WORKER_HOME (teardown removes them).
worker_user() {
    WORKER_USER="${ROLE_PREFIX}_pgw"
    WORKER_HOME=$(mktemp -d /var/tmp/verdict-worker-XXXXXX)
    useradd --home-dir "$WORKER_HOME" --no-create-home --shell /usr/sbin/nologin "$WORKER_USER"
    cp "$DATA/owner.pub" "$WORKER_HOME/owner.pub"
    chmod 644 "$WORKER_HOME/owner.pub"
    chown "$WORKER_USER:" "$WORKER_HOME"
    chmod 755 "$WORKER_HOME"
    "$VERDICT" store roles "$STORE" --apply --owner "${ROLE_PREFIX}_owner" \
        --worker "${ROLE_PREFIX}_worker"
    psql -qAtX "$VERDICT_TEST_PG" -c "CREATE ROLE $WORKER_USER LOGIN IN ROLE ${ROLE_PREFIX}_worker"
}

# Runs the worker as WORKER_USER, in its home, trusting the owner's key.
run_user_worker() {
    cd "$WORKER_HOME"
    run runuser -u "$WORKER_USER" -- env HOME="$WORKER_HOME" XDG_CACHE_HOME= "$VERDICT" worker \
        --store "$STORE" --machine "$WORKER_USER" --trust owner.pub --dir "$WORKER_HOME"
    cd /
    echo "$output"
}
