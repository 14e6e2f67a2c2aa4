-- bench/ebm/grid.sql — the runs behind results.md (after setup.sql and accuracy.sql):
-- the tuning grid on adult12 and bank (seeds 1-3), then the defaults against noisy GD and
-- 'auto' on all three tables (seeds 101-110) at epsilon 1 and 0.5, and at 10^6 (seed 201);
-- prints the tables' rows.
\set ON_ERROR_STOP 1
\o /dev/null
SELECT be.run(tbl, 'ebm', jsonb_build_object('residual_clip', c, 'cyclic', cy, 'rounds', r, 'learning_rate', lr, 'bins', 16), s)
  FROM unnest('{adult12,bank}'::text[]) tbl, unnest('{0.25,1}'::float8[]) c, unnest('{true,false}'::bool[]) cy,
       unnest('{3,10}'::int[]) r, unnest('{1,4}'::float8[]) lr, generate_series(1, 3) s;
SELECT be.run(tbl, 'ebm', jsonb_build_object('residual_clip', c, 'cyclic', false, 'rounds', r, 'learning_rate', lr, 'bins', b), s)
  FROM unnest('{adult12,bank}'::text[]) tbl, unnest('{0.1,0.25}'::float8[]) c, unnest('{5,10}'::int[]) r,
       unnest('{1,2}'::float8[]) lr, unnest('{16,32}'::int[]) b, generate_series(1, 3) s;
SELECT be.run(tbl, arm, CASE WHEN arm = 'auto' THEN '{"metric": "balanced_accuracy"}'::jsonb ELSE '{}' END, s)
  FROM unnest('{adult12,bank,german}'::text[]) tbl, unnest('{ebm,noisysgd,auto}'::text[]) arm,
       generate_series(101, 110) s;
SELECT be.run(tbl, arm, CASE WHEN arm = 'auto' THEN '{"metric": "balanced_accuracy"}'::jsonb ELSE '{}' END, s, 0.5)
  FROM unnest('{adult12,bank,german}'::text[]) tbl, unnest('{ebm,noisysgd,auto}'::text[]) arm,
       generate_series(101, 110) s;
SELECT be.run(tbl, arm, '{}', 201, 1e6)
  FROM unnest('{adult12,bank,german}'::text[]) tbl, unnest('{ebm,noisysgd}'::text[]) arm;
\o
\pset format unaligned
\pset tuples_only on
\pset fieldsep ' | '
SELECT tbl, options->>'residual_clip', options->>'cyclic', options->>'rounds', options->>'learning_rate',
       options->>'bins', to_char(avg(bal_acc), 'FM0.000')
  FROM be.results WHERE arm = 'ebm' AND seed <= 3 GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, avg(bal_acc) DESC;
SELECT eps, tbl, arm, to_char(percentile_cont(0.5) WITHIN GROUP (ORDER BY bal_acc), 'FM0.000'),
       to_char(min(bal_acc), 'FM0.000') || '–' || to_char(max(bal_acc), 'FM0.000'), to_char(avg(seconds), 'FM0.00')
  FROM be.results WHERE seed > 100 AND seed < 200 GROUP BY 1, 2, 3 ORDER BY 1 DESC, 2, 3;
SELECT tbl, arm, to_char(avg(bal_acc), 'FM0.000') FROM be.results WHERE eps = 1e6 GROUP BY 1, 2 ORDER BY 1, 2;
