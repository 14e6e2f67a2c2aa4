# bench/synth/tables.sh — sourced by values.sh, aim.sh and boost.sh: loads Adult (train + test as
# adult.full, 48 842 rows), bank_marketing (bank.marketing, 4 521) and german_credit
# (german.credit, 1 000) into database $DB and declares their domains: text columns by their
# levels, numerics by "col lo hi" triples (prep.py's bounds; german_credit's written here);
# protects each with a budget for the caller.  Defines q (psql on $DB) and NUMS[table] (the
# numeric columns).  Needs REPO and DB set, a server through PGHOST/PGPORT/PGUSER (a superuser).
q() { psql -X -q -d "$DB" -v ON_ERROR_STOP=1 "$@"; }
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
q -c "CREATE EXTENSION dpobj" -c "CREATE SCHEMA syn"
q -v datadir="$REPO/data/adult" -f "$REPO/data/adult/load.sql" >/dev/null
q -v datadir="$REPO/data/bank_marketing" -f "$REPO/data/bank_marketing/load.sql" >/dev/null
q -v datadir="$REPO/data/german_credit" -f "$REPO/data/german_credit/load.sql" >/dev/null
q >/dev/null <<'SQL'
CREATE TABLE adult.full (LIKE adult.train);
INSERT INTO adult.full SELECT * FROM adult.train UNION ALL SELECT * FROM adult.test;
SQL
# declare t's domains: text columns by their levels, numerics by "col lo hi" triples
declare -A NUMS
declare_domains() {
    local t=$1 a=("${@:2}") i; shift
    for ((i = 0; i < ${#a[@]}; i += 3)); do NUMS[$t]+="${a[i]} "; done
    {
        q -At -c "SELECT attname FROM pg_attribute WHERE attrelid = '$t'::regclass AND attnum > 0 AND NOT attisdropped AND atttypid = 'text'::regtype" |
            while read -r c; do
                echo "SELECT dpobj.declare_domain('$t', '$c', ARRAY(SELECT DISTINCT \"$c\" FROM $t WHERE \"$c\" IS NOT NULL ORDER BY 1));"
            done
        while (($#)); do echo "SELECT dpobj.declare_domain('$t', '$1', $2, $3);"; shift 3; done
        echo "SELECT dpobj.protect('$t'); SELECT dpobj.grant_budget('$t', current_user::regrole, 1e9, 0.5); ANALYZE $t;"
    } | q >/dev/null
}
declare_domains adult.full age 17 90 fnlwgt 0 1500000 education_num 1 16 capital_gain 0 99999 \
    capital_loss 0 4356 hours_per_week 1 99
declare_domains bank.marketing age 18 95 balance -2000 10000 day 1 31 duration 0 3000 campaign 1 63 \
    pdays -1 999 previous 0 50
declare_domains german.credit duration 0 100 amount 0 20000 rate 1 4 residence 1 4 age 18 100 \
    credits 1 4 liable 1 2 class 1 2
