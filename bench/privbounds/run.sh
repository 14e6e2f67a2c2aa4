#!/usr/bin/env bash
# bench/privbounds/run.sh — dp_logistic on UCI Adult (d = 23, adult.features_d23) with a
# declared R against "R": "private" (docs/BENCHMARKS.md, "Private norm bound"): epsilon 1,
# delta 1e-6, seeds 1..20, test accuracy: mean (min–max) per method and R.  Needs a running
# server through PGHOST/PGPORT/PGUSER (a superuser: dpobj.seed); e.g. from the repository's root:
#   (. scripts/common.sh && dpobj_build_install && dpobj_start_cluster && bash bench/privbounds/run.sh)
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DB=dpobj_privbounds
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
psql -X -q -d "$DB" -c "CREATE EXTENSION dpobj"
psql -X -q -d "$DB" -v datadir="$REPO/data/adult" -f "$REPO/data/adult/load.sql" >/dev/null
# the last query's CSV into bench/csv/privbounds.csv (bench/record.py), rendered into
# docs/BENCHMARKS.md
psql -X -q -d "$DB" <<'SQL' | sed -n '/^method,/,$p' | tee /dev/stderr | python3 "$REPO/bench/record.py" privbounds "bash bench/privbounds/run.sh"
CREATE TABLE a23 AS SELECT split, features, label FROM adult.features_d23;
-- the true norms (the declared 2.65 is the encoding's bound, sqrt(7))
SELECT percentile_cont(ARRAY[0.5, 0.9, 1.0]) WITHIN GROUP
         (ORDER BY sqrt((SELECT sum(v * v) FROM unnest(features) v))) AS norm_quantiles
  FROM a23 WHERE split = 'train';
CREATE TEMP TABLE res (method text, opt text, seed int, r float8, acc float8);
DO $$
DECLARE s int; o text; m text; mod dpobj.model; acc float8;
BEGIN
  FOR s IN 1..20 LOOP
    FOREACH m IN ARRAY ARRAY['objective', 'cms', 'output'] LOOP
      FOREACH o IN ARRAY ARRAY['{"R": 2.65}', '{"R": 1}', '{"R": 10}', '{"R": "private"}'] LOOP
        EXECUTE format('SET dpobj.seed = %s', s);
        mod := (SELECT dpobj.dp_logistic(features, label, 1, 1e-6,
                                         o::jsonb || jsonb_build_object('method', m, 'metric', 'accuracy'))
                  FROM a23 WHERE split = 'train');
        SELECT avg((dpobj.predict(mod, features) = label)::int) INTO acc
          FROM a23 WHERE split = 'test';
        INSERT INTO res VALUES (m, o, s, ((mod).params->>'R')::float8, acc);
      END LOOP;
    END LOOP;
  END LOOP;
END $$;
-- one row per method: mean (min–max) test accuracy per R; the column for "private"
-- names the mean R̂ drawn
SELECT round(avg(r)::numeric, 3) AS rhat FROM res WHERE opt LIKE '%private%' \gset
\set pcol '`"private"` (R̂ = ' :rhat ')'
\pset format csv
SELECT method,
       max(cell) FILTER (WHERE opt = '{"R": 2.65}') AS "R = 2.65 (√7, the encoding's bound)",
       max(cell) FILTER (WHERE opt = '{"R": "private"}') AS :"pcol",
       max(m) FILTER (WHERE opt = '{"R": 1}') AS "R = 1",
       max(m) FILTER (WHERE opt = '{"R": 10}') AS "R = 10"
  FROM (SELECT method, opt, to_char(avg(acc), 'FM0.0000') AS m,
               to_char(avg(acc), 'FM0.0000') || ' (' || to_char(min(acc), 'FM0.000') || '–'
                 || to_char(max(acc), 'FM0.000') || ')' AS cell
          FROM res GROUP BY 1, 2) s
 GROUP BY method ORDER BY array_position(ARRAY['objective', 'cms', 'output'], method);
SQL
psql -X -q -d postgres -c "DROP DATABASE $DB"
