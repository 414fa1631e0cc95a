#!/bin/sh
# Starts Debian's PostgreSQL 15 cluster "main" for the fleet tests (a results store on a
# real server) and prints the URI they take in VERDICT_TEST_PG. Run as root; idempotent.
set -eu
# The server user runs psql and createdb below, and they first change into the current
# directory: from a clone the postgres user cannot enter (under /root, mode 700) each said
# "could not change directory to ...: Permission denied". Nothing here is relative.
cd /
conf=/etc/postgresql/15/main
[ -d "$conf" ] || { echo "start-test-postgres: no cluster 15/main (apt-get install postgresql-15)" >&2; exit 1; }

# Workers in network namespaces reach the server over veth pairs on 10.231.x.0/24: listen
# on every address (also those added after the start) and trust that subnet only.
changed=false
if ! grep -q '^listen_addresses' "$conf/postgresql.conf"; then
    echo "listen_addresses = '*'" >> "$conf/postgresql.conf"
    echo "max_connections = 200" >> "$conf/postgresql.conf"
    changed=true
fi
if ! grep -q '10.231.0.0/16' "$conf/pg_hba.conf"; then
    echo "host all all 10.231.0.0/16 trust" >> "$conf/pg_hba.conf"
    changed=true
fi

# A running server is left alone (tests may be using it) unless its settings changed.
if pg_lsclusters -h 15 main | grep -q online; then
    if $changed; then pg_ctlcluster 15 main restart >&2; fi
else
    pg_ctlcluster 15 main start >&2
fi
runuser -u postgres -- psql -qAtc "SELECT 1 FROM pg_roles WHERE rolname = 'root'" | grep -q 1 ||
    runuser -u postgres -- psql -qc "CREATE ROLE root SUPERUSER LOGIN" >&2
runuser -u postgres -- psql -qAtc "SELECT 1 FROM pg_database WHERE datname = 'verdict_test'" | grep -q 1 ||
    runuser -u postgres -- createdb -O root verdict_test >&2
# the URI the tests use when VERDICT_TEST_PG is not set (tests/cli/fleet.bash)
echo "postgresql:///verdict_test?host=/var/run/postgresql"
