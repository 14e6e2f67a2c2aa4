# shellcheck shell=bash
# bench/synth/adultbig.sh — sourced by bench scripts that run on Adult through SQL
# (bench/synth/sqlpath.sh, write.sh, bench/gbdt/scale.sh): in database $DB, adult_load loads
# data/adult; adult_declare TABLE declares bench/synth/prep.py's domains on TABLE (the 9
# text columns by their UCI levels, train and test; the 6 numerics by [lo, hi]), protects
# it and grants the superuser running the script a budget; adult_big TABLE N creates TABLE
# as adult.train's rows N times (CREATE TABLE AS ... generate_series(1, N): 615 gives
# 20 025 015 rows) with the same domains.  ADULT_COLS: the 15 columns, label last.
ADULT_TEXTCOLS="workclass education marital_status occupation relationship race sex native_country income_gt_50k"
ADULT_COLS="age, workclass, fnlwgt, education, education_num, marital_status, occupation, relationship, race, sex, capital_gain, capital_loss, hours_per_week, native_country, income_gt_50k"
adult_load() {
    psql -X -q -d "$DB" -v datadir="$REPO/data/adult" -f "$REPO/data/adult/load.sql" >/dev/null
}
adult_declare() {
    local t=$1 c
    {
        for c in $ADULT_TEXTCOLS; do
            echo "SELECT dpobj.declare_domain('$t', '$c', ARRAY(SELECT DISTINCT $c::text FROM (SELECT $c FROM adult.train UNION SELECT $c FROM adult.test) u WHERE $c IS NOT NULL ORDER BY 1));"
        done
        cat <<SQL
SELECT dpobj.declare_domain('$t', 'age', 17, 90);
SELECT dpobj.declare_domain('$t', 'fnlwgt', 0, 1500000);
SELECT dpobj.declare_domain('$t', 'education_num', 1, 16);
SELECT dpobj.declare_domain('$t', 'capital_gain', 0, 99999);
SELECT dpobj.declare_domain('$t', 'capital_loss', 0, 4356);
SELECT dpobj.declare_domain('$t', 'hours_per_week', 1, 99);
SELECT dpobj.protect('$t');
SELECT dpobj.grant_budget('$t', current_user::regrole, 1e9, 0.5);
VACUUM ANALYZE $t;
SQL
    } | psql -X -q -d "$DB" -v ON_ERROR_STOP=1 >/dev/null
}
adult_big() {
    psql -X -q -d "$DB" -v ON_ERROR_STOP=1 >/dev/null \
        -c "CREATE TABLE $1 AS SELECT $ADULT_COLS FROM adult.train, generate_series(1, $2)"
    adult_declare "$1"
}
