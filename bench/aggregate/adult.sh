# bench/aggregate/adult.sh — sourced by coverage.sh and quantiles.sh: a fresh database DB
# with dpobj and data/adult (data/adult/SOURCE.md) loaded, and TABLE (sex, age) of
# adult.train protected, sex's levels and age's bounds [17, 90] declared, the caller
# granted (1e9, 0.5).  Needs REPO and a superuser connection (PGHOST/PGPORT/PGUSER).
adult_bench_db() { # DB TABLE
    local db=$1 tbl=$2
    psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
    psql -X -q -d "$db" -c "CREATE EXTENSION dpobj"
    psql -X -q -d "$db" -v datadir="$REPO/data/adult" -f "$REPO/data/adult/load.sql" >/dev/null
    psql -X -q -d "$db" <<SQL >/dev/null
CREATE TABLE $tbl AS SELECT sex, age FROM adult.train;
SELECT dpobj.declare_domain('$tbl', 'sex', ARRAY['Female', 'Male']);
SELECT dpobj.declare_domain('$tbl', 'age', 17, 90);
SELECT dpobj.protect('$tbl');
SELECT dpobj.grant_budget('$tbl', current_user::regrole, 1e9, 0.5);
SQL
}
