#!/usr/bin/env bash
# Installs (if needed) and starts a local PostgreSQL cluster, creates the termplane test role and
# database (idempotently), and prints the URL to export as TERMPLANE_TEST_POSTGRES_URL.
#
#   export TERMPLANE_TEST_POSTGRES_URL="$(bash tools/ci/postgres.sh)"
set -euo pipefail

log() { echo "postgres.sh: $*" >&2; }

if ! command -v pg_ctlcluster >/dev/null 2>&1 || ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
    log "installing postgresql"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq postgresql >&2
fi

version="$(ls /usr/lib/postgresql | sort -V | tail -n 1)"
if ! pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main"' | grep -q .; then
    log "creating cluster $version/main"
    pg_createcluster "$version" main >&2
fi
if ! pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main" && $4 == "online"' | grep -q .; then
    log "starting cluster $version/main"
    pg_ctlcluster "$version" main start >&2
fi

port="$(pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main" {print $3}')"
for _ in $(seq 1 30); do
    if su postgres -c "psql -p $port -Atqc 'select 1'" >/dev/null 2>&1; then break; fi
    sleep 1
done

# This cluster holds only test databases, made and dropped by the hundred (every test plane on
# PostgreSQL gets one, with its migrations): it is told not to wait for the disk. With a flush
# at every commit, a suite's run on two cores kept a plane waiting past its 10 s for a
# connection now and then. What another session sees is unchanged (only a crash of the
# database server itself would lose anything), and no test crashes it.
su postgres -c "psql -p $port -v ON_ERROR_STOP=1 -Atq" >&2 <<SQL
ALTER SYSTEM SET fsync = off;
ALTER SYSTEM SET synchronous_commit = off;
ALTER SYSTEM SET full_page_writes = off;
SELECT pg_reload_conf();
SQL
# Room for the suite's planes: each test plane holds up to ten connections (its pool, its
# listener, its lease) and a plane that has stopped keeps trying its dropped database until its
# test process ends. With the default 100 the PostgreSQL pass refused connections by the
# thousand ("too many clients already") and a plane's start now and then waited out its pool.
# The setting takes a restart.
if [ "$(su postgres -c "psql -p $port -Atqc 'show max_connections'")" -lt 500 ]; then
    log "raising max_connections to 500 (restarting the cluster)"
    su postgres -c "psql -p $port -Atqc 'ALTER SYSTEM SET max_connections = 500'" >&2
    pg_ctlcluster "$version" main restart >&2
    for _ in $(seq 1 30); do
        if su postgres -c "psql -p $port -Atqc 'select 1'" >/dev/null 2>&1; then break; fi
        sleep 1
    done
fi

user=termplane
pass=termplane
db=termplane_test
su postgres -c "psql -p $port -v ON_ERROR_STOP=1 -Atq" >&2 <<SQL
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '$user') THEN
    CREATE ROLE $user LOGIN PASSWORD '$pass';
  END IF;
END \$\$;
-- The plane's tests on PostgreSQL give each test plane a database of its own.
ALTER ROLE $user CREATEDB;
SQL
if ! su postgres -c "psql -p $port -Atqc \"select 1 from pg_database where datname = '$db'\"" | grep -q 1; then
    su postgres -c "createdb -p $port -O $user $db" >&2
fi

echo "postgres://$user:$pass@127.0.0.1:$port/$db"
