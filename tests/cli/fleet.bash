# Helpers of fleet.bats: a schema of its own on the test server for each test, SQL on it,
# and network namespaces joined to the host by veth pairs, so that workers reach the store
# over a real network (Unix sockets when the machine does not allow namespaces).

fleet_setup() {
    VERDICT=${VERDICT:?set VERDICT to the verdict binary}
    SPIN=${SPIN:?set SPIN to the spin example}
    DATA=$(mktemp -d)
    NAMESPACES=()
    # the server scripts/setup.sh --tests starts, unless told another
    VERDICT_TEST_PG=${VERDICT_TEST_PG:-postgresql:///verdict_test?host=/var/run/postgresql}
    if ! psql -qAtX "$VERDICT_TEST_PG" -c "SELECT 1" >/dev/null 2>&1; then
        if [ "${VERDICT_CI:-}" = 1 ]; then
            echo "no PostgreSQL server at $VERDICT_TEST_PG: scripts/setup.sh --tests starts one" >&2
            return 1
        fi
        skip "no PostgreSQL server at $VERDICT_TEST_PG (scripts/start-test-postgres.sh starts one)"
    fi
    SCHEMA="fleet_${BATS_TEST_NUMBER}_$$"
    case "$VERDICT_TEST_PG" in
    *\?*) STORE="$VERDICT_TEST_PG&verdict_schema=$SCHEMA" ;;
    *) STORE="$VERDICT_TEST_PG?verdict_schema=$SCHEMA" ;;
    esac
}

fleet_teardown() {
    for pid in $(jobs -p); do kill -9 "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    # what the background workers said (bats shows it when the test failed)
    for log in "$DATA"/*.log; do
        [ -f "$log" ] && { echo "== $log"; tail -20 "$log"; }
    done
    for ns in "${NAMESPACES[@]}"; do
        ip netns del "$ns" 2>/dev/null || true
    done
    [ -n "${SCHEMA:-}" ] && psql -qAtX "$VERDICT_TEST_PG" -c "DROP SCHEMA IF EXISTS $SCHEMA CASCADE" >/dev/null 2>&1
    rm -rf "$DATA"
}

# One value (or rows, '|'-separated) from the test's schema.
sql() {
    psql -qAtX "$VERDICT_TEST_PG" -c "SET search_path = $SCHEMA; $1"
}

# Waits until the query returns something other than "0" or nothing, up to $2 seconds.
wait_for() {
    local deadline=$((SECONDS + ${2:-60})) value
    while [ $SECONDS -lt $deadline ]; do
        value=$(sql "$1" 2>/dev/null || true)
        [ -n "$value" ] && [ "$value" != 0 ] && return 0
        sleep 0.1
    done
    echo "timed out waiting for: $1" >&2
    return 1
}

# Namespace fleet-$1 with address 10.231.$1.2, the host at 10.231.$1.1 on its veth pair.
# Returns non-zero (creating nothing) where namespaces are not allowed.
netns_up() {
    local ns="vfleet$1" host="vfh$1" inner="vfn$1"
    ip netns add "$ns" 2>/dev/null || return 1
    NAMESPACES+=("$ns")
    ip link add "$host" type veth peer name "$inner" &&
        ip link set "$inner" netns "$ns" &&
        ip addr add "10.231.$1.1/24" dev "$host" && ip link set "$host" up &&
        ip netns exec "$ns" ip addr add "10.231.$1.2/24" dev "$inner" &&
        ip netns exec "$ns" ip link set "$inner" up &&
        ip netns exec "$ns" ip link set lo up
}

# Sets WORKER_PREFIX[i] and WORKER_STORE[i] for worker i: inside namespace i over TCP when
# namespaces work, else on the host over the Unix socket. NETWORK says which.
fleet_network() {
    local n=$1 database user
    database=$(psql -qAtX "$VERDICT_TEST_PG" -c "SELECT current_database()")
    user=$(psql -qAtX "$VERDICT_TEST_PG" -c "SELECT current_user")
    NETWORK=veth
    for i in $(seq 1 "$n"); do
        netns_up "$((BATS_TEST_NUMBER * 10 + i))" || { NETWORK=unix; break; }
    done
    for i in $(seq 1 "$n"); do
        if [ "$NETWORK" = veth ]; then
            local net=$((BATS_TEST_NUMBER * 10 + i))
            WORKER_PREFIX[i]="ip netns exec vfleet$net"
            WORKER_STORE[i]="postgresql://$user@10.231.$net.1/$database?verdict_schema=$SCHEMA&connect_timeout=5"
        else
            WORKER_PREFIX[i]=""
            WORKER_STORE[i]=$STORE
        fi
    done
    echo "# workers reach the store over: $NETWORK" >&3
}
