#!/usr/bin/env bash
# bench/ebm/shapes.sh — the shapes of an additive model an analyst reads: train(..., 'ebm')
# on UCI Adult's training split (data/adult; 12 raw columns with declared domains: the 7
# categoricals' levels as published with the data, the 5 numerics' documented ranges;
# public class weight 0.32 for a negative row, epsilon 1, delta 1e-6), then every row of
# dpobj.explain() into bench/csv/ebm_shapes.csv (bench/record.py; with each level's or bin's
# released noisy count, rows); bench/render.py draws
# docs/img/ebm_shapes.png from it (numeric terms: contribution per bin on the declared
# scale; categoricals: a bar per level).  Protected runs draw fresh noise: each run draws
# new shapes.  Needs a running server through PGHOST/PGPORT/PGUSER (a superuser), e.g.
#   (. scripts/common.sh && dpobj_build_install && dpobj_start_cluster && bash bench/ebm/shapes.sh) from the repository's root
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DB=dpobj_ebm_shapes
cd "$REPO"
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
psql -X -q -d "$DB" -c "CREATE EXTENSION dpobj"
psql -X -q -d "$DB" -v datadir="$REPO/data/adult" -f "$REPO/data/adult/load.sql" >/dev/null
psql -X -q -d "$DB" <<'SQL' >/dev/null
SET client_min_messages = warning;
CREATE TABLE people AS SELECT * FROM adult.train;
SELECT dpobj.declare_domain('people', c, (SELECT array_agg(DISTINCT v ORDER BY v)
         FROM adult.train t, LATERAL (SELECT to_jsonb(t) ->> c) j(v) WHERE v IS NOT NULL))
  FROM unnest('{workclass,education,marital_status,occupation,relationship,race,sex}'::text[]) c;
SELECT dpobj.declare_domain('people', c, lo, hi)
  FROM (VALUES ('age', 17, 90), ('education_num', 1, 16), ('capital_gain', 0, 99999),
               ('capital_loss', 0, 4356), ('hours_per_week', 1, 99)) v(c, lo, hi);
SELECT dpobj.protect('people');
SELECT dpobj.grant_budget('people', current_user::regrole, 10, 1e-5);
SELECT dpobj.train('people', 'ebm',
         '{workclass,education,marital_status,occupation,relationship,race,sex,age,education_num,capital_gain,capital_loss,hours_per_week}',
         'income_gt_50k', 1, 1e-6, '{"class_weight": {"false": 0.32}}', model_name => 'adult_ebm');
SQL
psql -X -q -d "$DB" --csv -c "SELECT feature, level, round(contribution::numeric, 4) AS contribution,
                                     round(importance::numeric, 4) AS importance, rows
                                FROM dpobj.explain('adult_ebm')" |
    python3 "$REPO/bench/record.py" ebm_shapes "bash bench/ebm/shapes.sh"
