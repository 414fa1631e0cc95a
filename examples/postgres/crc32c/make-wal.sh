#!/bin/sh
# Writes the CRC lab's WAL once: a throwaway PostgreSQL 15 cluster (the installed server)
# emits non-transactional logical messages of 65 bytes each (pg_logical_emit_message with
# a 13-byte payload) until its WAL passes 0/31000000, and segments 2 to 0x30 are copied
# into wal/ beside this script: about 10.5 million records between the LSNs 0/2000000 and
# 0/30000000 that crc32c.yaml's pg_waldump reads. Idempotent; needs about 800 MB.
#   sh make-wal.sh [BINDIR]     (default: /usr/lib/postgresql/15/bin)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bindir=${1:-/usr/lib/postgresql/15/bin}
out=$here/wal
last=000000010000000000000030
if [ -f "$out/$last" ]; then
    echo "make-wal: $out is already there (remove it to write it again)"
    exit 0
fi
[ -x "$bindir/initdb" ] || {
    echo "make-wal: no PostgreSQL at $bindir (apt-get install postgresql-15, or give its bin directory)" >&2
    exit 2
}
as=""
[ "$(id -u)" -eq 0 ] && as="runuser -u postgres --"
work=$(mktemp -d /tmp/verdict-wal-XXXXXX)
chmod 755 "$work"
[ -n "$as" ] && chown postgres "$work"
# The server user's programs start in the current directory, which it may not be able to
# enter (a clone under /root); every path below is absolute.
cd "$work"
stop() {
    $as "$bindir/pg_ctl" -D "$work/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap stop EXIT
$as "$bindir/initdb" -D "$work/data" -A trust --no-sync >/dev/null
cat >> "$work/data/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$work'
fsync = off
max_wal_size = 4GB
min_wal_size = 4GB
checkpoint_timeout = 1h
CONF
$as "$bindir/pg_ctl" -D "$work/data" -l "$work/server.log" -w start >/dev/null
psql() { $as "$bindir/psql" -X -q -t -A -h "$work" -d postgres "$@"; }
echo "make-wal: writing 65-byte records until the WAL passes 0/31000000 ..."
while [ "$(psql -c "SELECT pg_current_wal_lsn() >= '0/31000000'")" != t ]; do
    psql -c "SELECT count(pg_logical_emit_message(false, 'p', '0123456789abc'))
             FROM generate_series(1, 1000000)" >/dev/null
done
psql -c "SELECT pg_switch_wal()" >/dev/null
mkdir -p "$out.tmp"
for segment in $(ls "$work/data/pg_wal" | grep -E '^0000000100000000000000[0-9A-F]{2}$'); do
    n=$(printf '%d' "0x$(echo "$segment" | cut -c23-24)")
    [ "$n" -ge 2 ] && [ "$n" -le 48 ] && cp "$work/data/pg_wal/$segment" "$out.tmp/"
done
[ -f "$out.tmp/$last" ] || { echo "make-wal: segment $last was not written" >&2; exit 1; }
rm -rf "$out"
mv "$out.tmp" "$out"
echo "make-wal: $(ls "$out" | wc -l) segments in $out"
