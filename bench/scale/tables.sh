# shellcheck shell=bash
# bench/scale/tables.sh — sourced by bench/scale/run.sh and bench/gbdt/scale.sh: make_table
# SHAPE N creates the protected table t_SHAPE_N (shapes d10 and d50, bench/scale/run.sh's
# header) through q (psql on the bench's database) and grants the caller a budget.
make_table() {
    local shape="$1" n="$2" t="t_$1_$2" cols
    if [[ "$shape" == d10 ]]; then
        cols="$(for j in $(seq 1 10); do printf 'x[%d] AS x%d, ' "$j" "$j"; done)"
        q <<SQL
SELECT setseed(0.42);
CREATE TABLE $t AS
SELECT ${cols} l > 0 AS y, l AS ylin
  FROM (SELECT x, (SELECT sum((j - 5.5) * x[j]) FROM generate_series(1, 10) j) / 10
                  + 0.2 * (random() - 0.5) AS l
          FROM (SELECT ARRAY(SELECT (2 * random() - 1) / sqrt(10)
                               FROM generate_series(1, 10) k WHERE i > 0) AS x
                  FROM generate_series(1, $n) i) a) b;
SQL
    else
        cols="$(for c in 1 2 3 4 5; do for l in 0 1 2 3 4 5 6 7 8 9; do
                    printf '(c%d = %d)::int AS x%d, ' "$c" "$l" $(( (c - 1) * 10 + l + 1 ))
                done; done)"
        q <<SQL
SELECT setseed(0.42);
CREATE TABLE $t AS
SELECT ${cols} l > 0 AS y, l AS ylin
  FROM (SELECT c1, c2, c3, c4, c5,
               ((c1 - 4.5) + (c2 - 4.5) / 2 - (c3 - 4.5) / 3) / 10 + 0.2 * (random() - 0.5) AS l
          FROM (SELECT (random() * 10)::int % 10 AS c1, (random() * 10)::int % 10 AS c2,
                       (random() * 10)::int % 10 AS c3, (random() * 10)::int % 10 AS c4,
                       (random() * 10)::int % 10 AS c5
                  FROM generate_series(1, $n) i) a) b;
SQL
    fi
    q -c "VACUUM ANALYZE $t" -c "SELECT dpobj.protect('$t')" \
      -c "SELECT dpobj.grant_budget('$t', current_user::regrole, 1e12, 0.5)" >/dev/null
}
