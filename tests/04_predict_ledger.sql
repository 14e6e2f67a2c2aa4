-- predict() agrees with sgn(<w, x>) (sgn(0) = -1) for trained models, and
-- every run writes exactly one ledger row with its parameters and outcome.
BEGIN;
SELECT plan(10);

CREATE TEMP TABLE pts AS
SELECT ARRAY[(abs(hashint4(g)) % 65 - 32) / 32.0,
             (abs(hashint4(g + 7)) % 65 - 32) / 32.0,
             (abs(hashint4(g + 13)) % 3) - 1.0,
             1.0]::float8[] AS f,
       hashint4(g + 21) % 3 <> 0 AS y
  FROM generate_series(1, 500) g;

SET dpobj.seed = 5;
SELECT coalesce(max(id), 0) AS before_id FROM dpobj.ledger \gset
CREATE TEMP TABLE models AS
SELECT e, (SELECT dpobj.dp_halfspace(f, y, e, 1e-7) FROM pts WHERE e > 0) AS m
  FROM unnest(ARRAY[0.2, 1.0, 5.0, 1e6]::float8[]) e;

-- the features are multiples of 1/32, so the lattice rounding is exact and
-- <w, x> can be checked in plain SQL
SELECT is((SELECT count(*) FROM models, pts
            WHERE dpobj.predict(m, f) <> ((SELECT sum((m).weights[j] * f[j])
                                             FROM generate_subscripts(f, 1) j) > 0)),
          0::bigint, 'predict(m, x) = (<w, x> > 0) for every row and model');
SELECT is((SELECT count(*) FROM models, pts
            WHERE dpobj.score(m, f) <> (SELECT sum((m).weights[j] * f[j])
                                         FROM generate_subscripts(f, 1) j)),
          0::bigint, 'score(m, x) = <w, x>');
SELECT ok((SELECT bool_and(NOT dpobj.predict(m, '{0,0,0,0}')) FROM models),
          'a zero margin predicts false (sgn(0) = -1)');

-- the models carry public parameters only
SELECT is((SELECT array_agg(DISTINCT k ORDER BY k) FROM models, jsonb_object_keys((m).params) k),
          ARRAY['B', 'D2', 'Q', 'calibration', 'd', 'loss', 'oracle', 'sigma', 'tau'],
          'params hold only public parameters (no n, loss or objective)');
SELECT ok((SELECT bool_and(abs(((m).params->>'sigma')::float8 - dpobj.opdisc_sigma(e, 1e-7, 4, 4, 'sound')) < 1e-9 * dpobj.opdisc_sigma(e, 1e-7, 4, 4, 'sound'))
             FROM models),
          'sigma in the model is the sound Algorithm 1 calibration for D2 = d = 4');
SELECT ok((SELECT bool_and((m).params->>'calibration' = 'sound') FROM models),
          'the models say they used the sound calibration');

-- ledger: one row per run, exact numeric parameters, released
SELECT is((SELECT count(*) FROM dpobj.ledger WHERE id > :before_id), 4::bigint,
          'four runs, four ledger rows');
SELECT is((SELECT array_agg(epsilon ORDER BY epsilon) FROM dpobj.ledger WHERE id > :before_id),
          ARRAY[0.2, 1, 5, 1000000]::numeric[], 'epsilon recorded exactly');
SELECT is((SELECT array_agg(DISTINCT delta) FROM dpobj.ledger WHERE id > :before_id),
          ARRAY[0.0000001]::numeric[], 'delta recorded exactly');
SELECT is((SELECT array_agg(DISTINCT outcome || '/' || rolname || '/' || regexp_replace(relation, '^pg_temp_[0-9]+', 'pg_temp'))
             FROM dpobj.ledger WHERE id > :before_id),
          ARRAY['released/' || current_user || '/pg_temp.pts'],
          'released, by the current role, source table recorded');

RESET dpobj.seed;
SELECT * FROM finish();
ROLLBACK;
