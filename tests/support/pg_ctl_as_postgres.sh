#!/bin/sh
# pg_ctl and initdb refuse to run as root, and pytest-postgresql has no option to run them as
# another user. When the tests run as root (CI containers), tests/team_support.py points the
# fixture's `executable` at this wrapper: it runs the real pg_ctl (CONKEEPER_REAL_PG_CTL) as the
# 'postgres' system user Debian's package creates. The fixture's own temp folder (the data
# directory's parent) is handed to that user, and the pytest temp folders above it, inside the
# system temp folder only (CONKEEPER_PG_TMP), are made traversable (o+x, not readable).
set -eu
real="${CONKEEPER_REAL_PG_CTL:?the real pg_ctl path}"
tmp_root="${CONKEEPER_PG_TMP:-/tmp}"
pgdata=""
prev=""
for arg in "$@"; do
    case "$prev" in -D | --pgdata) pgdata="$arg" ;; esac
    prev="$arg"
done
if [ -n "$pgdata" ]; then
    parent=$(dirname "$pgdata")
    chown postgres "$parent"
    dir="$parent"
    while :; do
        dir=$(dirname "$dir")
        case "$dir" in "$tmp_root"/*) chmod o+x "$dir" ;; *) break ;; esac
    done
fi
cd /
exec runuser -u postgres -- "$real" "$@"
