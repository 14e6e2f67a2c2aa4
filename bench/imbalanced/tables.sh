# shellcheck shell=bash
# bench/imbalanced/tables.sh — the imbalanced benchmarks' database, for bench/imbalanced,
# bench/auto_imbalanced and bench/noisysgd (sourced; needs REPO and a running server through
# PGHOST/PGPORT/PGUSER, a superuser):
#   bench_imbalanced_db DB   drops and creates DB with dpobj, UCI Adult, German Credit and
#                            Bank Marketing (data/*/load.sql) and the synthetic table
#                            (synth.sql), the tables adult23, bank and german (split,
#                            features, label) and score(tbl, model): the model's accuracy
#                            and balanced accuracy on the table's test split, computed exactly.
bench_imbalanced_db() {
    local db="$1" d
    psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
    psql -X -q -d "$db" -c "CREATE EXTENSION dpobj"
    for d in adult german_credit bank_marketing; do
        psql -X -q -d "$db" -v datadir="$REPO/data/$d" -f "$REPO/data/$d/load.sql" >/dev/null
    done
    psql -X -q -d "$db" -f "$REPO/bench/imbalanced/synth.sql" >/dev/null
    psql -X -q -d "$db" <<'SQL'
CREATE TABLE adult23 AS SELECT split, features, label FROM adult.features_d23;
CREATE TABLE bank AS SELECT split, features, label FROM bank.features;
CREATE TABLE german AS SELECT split, features, label FROM german.features;
CREATE FUNCTION score(tbl regclass, m dpobj.model, OUT acc float8, OUT bacc float8)
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('SELECT avg((p = label)::int)::float8,
                         (0.5 * (avg((p = label)::int) FILTER (WHERE label)
                                 + avg((p = label)::int) FILTER (WHERE NOT label)))::float8
                    FROM (SELECT label, dpobj.predict($1, features) p FROM %s
                           WHERE split = ''test'') s', tbl)
    INTO acc, bacc USING m;
END $$;
SQL
}
