#!/bin/sh
# Starts Debian's PostgreSQL 15 cluster "main" for the fleet tests (a results store on a
# real server) and prints the URI they take in VERDICT_TEST_PG. Run as root; idempotent.
set -eu
conf=/etc/postgresql/15/main
[ -d "$conf" ] || { echo "start-test-postgres: no cluster 15/main (apt-get install postgresql-15)" >&2; exit 1; }

# Workers in network namespaces reach the server over veth pairs on 10.231.x.0/24: listen
# on every address (also those added after the start) and trust that subnet only.
if ! grep -q '^listen_addresses' "$conf/postgresql.conf"; then
    echo "listen_addresses = '*'" >> "$conf/postgresql.conf"
    echo "max_connections = 200" >> "$conf/postgresql.conf"
fi
grep -q '10.231.0.0/16' "$conf/pg_hba.conf" ||
    echo "host all all 10.231.0.0/16 trust" >> "$conf/pg_hba.conf"

pg_ctlcluster 15 main restart >&2 || pg_ctlcluster 15 main start >&2
runuser -u postgres -- psql -qAtc "SELECT 1 FROM pg_roles WHERE rolname = 'root'" | grep -q 1 ||
    runuser -u postgres -- psql -qc "CREATE ROLE root SUPERUSER LOGIN" >&2
runuser -u postgres -- psql -qAtc "SELECT 1 FROM pg_database WHERE datname = 'verdict_test'" | grep -q 1 ||
    runuser -u postgres -- createdb -O root verdict_test >&2
# the URI the tests use when VERDICT_TEST_PG is not set (tests/cli/fleet.bash)
echo "postgresql:///verdict_test?host=/var/run/postgresql"
