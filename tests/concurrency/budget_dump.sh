#!/usr/bin/env bash
# tests/concurrency/budget_dump.sh — pg_dump of a database with protected
# tables, budgets, a budget domain and ledger rows, restored with pg_restore into a fresh
# database, keeps protections, budgets (granted and spent, exactly), the domain and its
# members (one linked to its unit through foreign keys), the ledger and the sequences; training in the restored database charges the
# restored budgets.
#
#   PGHOST=... PGPORT=... PGUSER=<superuser> bash tests/concurrency/budget_dump.sh
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SRC=dpobj_dump_src
DST=dpobj_dump_dst
WORK="$(mktemp -d "${TMPDIR:-/tmp}/dpobj-dump.XXXXXX")"
trap 'rm -rf -- "$WORK"' EXIT

t_role dpobj_dump_analyst || exit 1
t_role dpobj_dump_other || exit 1
t_fresh_db "$SRC" || exit 1
t_psql -d "$SRC" -c "$T_TABLE_SQL" \
    -c "CREATE SCHEMA \"Odd Schema\"; CREATE TABLE \"Odd Schema\".\"T 2\" AS SELECT * FROM pts" \
    -c "SELECT dpobj.protect('pts'), dpobj.protect('\"Odd Schema\".\"T 2\"')" \
    -c "SELECT dpobj.grant_budget('pts', 'dpobj_dump_analyst', 0.3, 0.00003)" \
    -c "SELECT dpobj.grant_budget('\"Odd Schema\".\"T 2\"', 'dpobj_dump_other', 1, 0.0001)" \
    -c "SET ROLE dpobj_dump_analyst;
        SELECT weights FROM dpobj.train('pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.00001);
        SELECT weights FROM dpobj.train('pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.00001);" \
    >/dev/null || exit 1
# a budget domain with a member and a spent domain budget (restored after the domain
# catalog, which both protections and budgets reference)
t_psql -d "$SRC" -c "CREATE TABLE peeps AS SELECT * FROM pts; REVOKE ALL ON peeps FROM PUBLIC" \
    -c "SELECT dpobj.create_budget_domain('dumped')" \
    -c "SELECT dpobj.protect('peeps', 'i', 1, 'dumped')" \
    -c "SELECT dpobj.grant_domain_budget('dumped', 'dpobj_dump_other', 1, 0.0001)" \
    -c "SET ROLE dpobj_dump_other;
        SELECT weights FROM dpobj.train('peeps', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.00001);" \
    >/dev/null || exit 1
# a table linked to peeps' unit through foreign keys (dpobj.unit_links; restored after
# the protections it references)
t_psql -d "$SRC" -c "ALTER TABLE peeps ADD PRIMARY KEY (i);
        CREATE TABLE baskets (id int PRIMARY KEY, person int REFERENCES peeps);
        INSERT INTO baskets SELECT g, 1 + g % 60 FROM generate_series(1, 90) g;
        CREATE TABLE items AS SELECT 1 + g % 90 AS basket, a, b, y FROM generate_series(1, 180) g, pts WHERE i = 1 + g % 60;
        ALTER TABLE items ADD FOREIGN KEY (basket) REFERENCES baskets;
        REVOKE ALL ON baskets, items FROM PUBLIC" \
    -c "SELECT dpobj.link_unit('items', ARRAY['baskets', 'peeps']::regclass[], 2)" >/dev/null || exit 1

STATE_SQL="SELECT string_agg(format('%s|%s|%s|%s|%s|%s|%s|%s', id, relid, budget_domain, rolid, granted_epsilon,
                                    granted_delta, spent_epsilon, spent_delta), ';' ORDER BY id)
             FROM dpobj.budgets"
LEDGER_SQL="SELECT string_agg(format('%s|%s|%s|%s|%s|%s|%s|%s', id, rolname, epsilon, delta, relation,
                                     outcome, budget_id, budget_domain), ';' ORDER BY id) FROM dpobj.ledger"
PROT_SQL="SELECT string_agg(relid::text || ':' || coalesce(budget_domain, '-'), ';' ORDER BY relid::text)
            FROM dpobj.protected_tables"
LINK_SQL="SELECT string_agg(format('%s|%s|%s', relid, path, via), ';') FROM dpobj.unit_links"
before_b=$(t_psql -d "$SRC" -c "$STATE_SQL")
before_l=$(t_psql -d "$SRC" -c "$LEDGER_SQL")
before_p=$(t_psql -d "$SRC" -c "$PROT_SQL")
before_u=$(t_psql -d "$SRC" -c "$LINK_SQL")

pg_dump -Fc -f "$WORK/src.dump" "$SRC" || { echo "not ok - pg_dump failed"; exit 1; }
t_psql -d postgres -c "DROP DATABASE IF EXISTS $DST" -c "CREATE DATABASE $DST" >/dev/null
pg_restore --exit-on-error -d "$DST" "$WORK/src.dump" 2>"$WORK/restore.err"
t_is "pg_restore into a fresh database succeeds" "$?:$(cat "$WORK/restore.err")" "0:"

t_is "protected tables restored" "$(t_psql -d "$DST" -c "$PROT_SQL")" "$before_p"
t_is "budgets restored exactly (granted, spent, table, role)" "$(t_psql -d "$DST" -c "$STATE_SQL")" "$before_b"
t_is "ledger restored exactly" "$(t_psql -d "$DST" -c "$LEDGER_SQL")" "$before_l"
t_is "restored budgets point at the restored tables" \
    "$(t_psql -d "$DST" -c "SELECT bool_and(c.oid IS NOT NULL) FROM dpobj.budgets b LEFT JOIN pg_class c ON c.oid = b.relid
                             WHERE b.relid IS NOT NULL")" "t"
t_is "the budget domain is restored with its member" \
    "$(t_psql -d "$DST" -c "SELECT name || ':' || (owner = current_user::regrole) FROM dpobj.budget_domains")" "dumped:true"

# the restored budget is live: 0.1 left of 0.3, then refused; sequences continue
t_psql -d "$DST" -c "SET ROLE dpobj_dump_analyst;
    SELECT weights FROM dpobj.train('pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.00001)" >/dev/null
t_is "training in the restored database charges the restored budget" \
    "$(t_psql -d "$DST" -c "SELECT spent_epsilon FROM dpobj.budgets WHERE rolid = 'dpobj_dump_analyst'::regrole")" "0.3"
psql -X -q -At -d "$DST" -c "SET ROLE dpobj_dump_analyst" -c '\set VERBOSITY sqlstate' \
    -c "SELECT weights FROM dpobj.train('pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.00001)" \
    >/dev/null 2>"$WORK/refused.err"
t_is "the exhausted restored budget refuses (DP004)" "$(grep -o 'DP004' "$WORK/refused.err")" "DP004"
t_is "ledger ids continue after the restored ones" \
    "$(t_psql -d "$DST" -c "SELECT count(DISTINCT id) = count(*) AND max(id) = 4 FROM dpobj.ledger")" "t"
t_psql -d "$DST" -c "SET ROLE dpobj_dump_other;
    SELECT weights FROM dpobj.train('peeps', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.00001)" >/dev/null
t_is "training on the restored member charges the restored domain budget" \
    "$(t_psql -d "$DST" -c "SELECT spent_epsilon FROM dpobj.budgets WHERE budget_domain = 'dumped'")" "0.2"
t_is "the unit link is restored" "$(t_psql -d "$DST" -c "$LINK_SQL")" "$before_u"
t_psql -d "$DST" -c "SET ROLE dpobj_dump_other;
    SELECT weights FROM dpobj.train('items', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.00001)" >/dev/null
t_is "training on the restored linked table charges the restored domain budget" \
    "$(t_psql -d "$DST" -c "SELECT spent_epsilon FROM dpobj.budgets WHERE budget_domain = 'dumped'")" "0.3"
t_is "ledger totals = spend in the restored database" \
    "$(t_psql -d "$DST" -c "SELECT bool_and(coalesce(s.e, 0) = b.spent_epsilon AND coalesce(s.d, 0) = b.spent_delta)
                             FROM dpobj.budgets b LEFT JOIN (SELECT budget_id, sum(epsilon) e, sum(delta) d
                                                              FROM dpobj.ledger GROUP BY 1) s ON s.budget_id = b.id")" "t"

t_psql -d postgres -c "DROP DATABASE $SRC" -c "DROP DATABASE $DST" >/dev/null
t_summary
