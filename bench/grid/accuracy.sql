-- bench/grid/accuracy.sql — OPDisc's default grid against the paper's grid, through SQL
-- (run by run.sh as a superuser after data/adult/load.sql).  Adult balanced training
-- subset (n = 15682, as the paper's Figure 1, docs/BENCHMARKS.md), feature sets d15 and d23, delta = 1/n^2,
-- eps in :eps_list, :draws seeded draws per cell (the same seeds for both grids);
-- accuracy on adult.test (16281 rows, 76 % negatives) and on the training subset.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS bg CASCADE;
CREATE SCHEMA bg;
CREATE TABLE bg.results (set text, grid text, epsilon float8, draw int, ok boolean,
                         seconds float8, train_acc float8, test_acc float8, params jsonb);

CREATE FUNCTION bg.run(p_set text, p_grid text, p_eps float8, p_draw int) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    d int := substr(p_set, 2)::int;
    opts jsonb := CASE p_grid WHEN 'paper'
                       THEN jsonb_build_object('B', floor(sqrt(d))::int, 'D2', d)
                       ELSE '{}'::jsonb END;
    m dpobj.model;
    t0 timestamptz;
    secs float8;
BEGIN
    PERFORM set_config('dpobj.seed', (p_draw + 1000 * (p_eps * 100)::int)::text, true);
    t0 := clock_timestamp();
    BEGIN
        EXECUTE format($q$SELECT (dpobj.dp_halfspace(f.features, f.label, $1, 1.0 / (15682.0 ^ 2), $2)).*
                            FROM adult.features_%s f JOIN adult.balanced_ids b USING (id)
                           WHERE f.split = 'train'$q$, p_set)
           INTO m USING p_eps, opts;
    EXCEPTION WHEN OTHERS THEN
        INSERT INTO bg.results VALUES (p_set, p_grid, p_eps, p_draw, false,
            extract(epoch FROM clock_timestamp() - t0), NULL, NULL, NULL);
        RETURN;
    END;
    secs := extract(epoch FROM clock_timestamp() - t0);
    EXECUTE format($q$INSERT INTO bg.results
        SELECT %L, %L, $1, $2, true, $3,
               (SELECT avg((dpobj.predict($4, f.features) = f.label)::int)
                  FROM adult.features_%s f JOIN adult.balanced_ids b USING (id)
                 WHERE f.split = 'train'),
               (SELECT avg((dpobj.predict($4, f.features) = f.label)::int)
                  FROM adult.features_%s f WHERE f.split = 'test'),
               ($4).params$q$, p_set, p_grid, p_set, p_set)
        USING p_eps, p_draw, secs, m;
END
$$;

SELECT count(*) AS runs
  FROM (SELECT bg.run(s, g, e, r)
          FROM unnest(string_to_array(:'sets', ' ')) s,
               unnest(string_to_array(:'eps_list', ' ')::float8[]) e,
               generate_series(1, :draws) r,
               unnest(ARRAY['default', 'paper']) g
         ORDER BY s, e, r, g) runs;

\pset format csv
SELECT set, epsilon AS "ε", grid || ' (' || min(params->>'B') || ' / ' || min(params->>'D2') || ')'
         AS "grid (B / D2)",
       to_char(percentile_cont(0.5) WITHIN GROUP (ORDER BY test_acc), 'FM0.0000') || ' ('
         || to_char(min(test_acc), 'FM0.0000') || '–' || to_char(max(test_acc), 'FM0.0000') || ')'
         AS "test accuracy",
       to_char(percentile_cont(0.5) WITHIN GROUP (ORDER BY train_acc), 'FM0.0000') AS "training accuracy",
       to_char(percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds), 'FM0.00') || ' ('
         || to_char(max(seconds), 'FM0.00') || ')' AS "median s (max)"
  FROM bg.results GROUP BY set, epsilon, grid ORDER BY set, epsilon, grid;
