-- bench/ebm/grid.sql — the runs behind results.md's defaults (after setup.sql and
-- accuracy.sql): shrinkage x learning rate x rounds on adult12 (seeds 1-10) and bank
-- (seeds 1-30), then single changes around the chosen defaults; prints the mean balanced
-- accuracy per configuration and table, best first by their sum.  german is held out.
\set ON_ERROR_STOP 1
\o /dev/null
SELECT be.run(tbl, 'ebm', jsonb_build_object('shrinkage', l, 'learning_rate', lr, 'rounds', r), s)
  FROM unnest('{adult12,bank}'::text[]) tbl, unnest('{0,0.5,1,2,4,8,16}'::float8[]) l,
       unnest('{1,2,4,8}'::float8[]) lr, unnest('{10,15,20}'::int[]) r, generate_series(1, 30) s
 WHERE tbl = 'bank' OR s <= 10;
SELECT be.run(tbl, 'ebm', '{"shrinkage": 8, "learning_rate": 4, "rounds": 20}'::jsonb || o, s)
  FROM unnest('{adult12,bank}'::text[]) tbl, generate_series(1, 30) s,
       unnest('{"{\"bins\": 8}","{\"bins\": 32}","{\"count_share\": 0.05}","{\"count_share\": 0.2}","{\"residual_clip\": 0.5}","{\"rounds\": 30}"}'::jsonb[]) o
 WHERE tbl = 'bank' OR s <= 10;
\o
\pset format unaligned
\pset tuples_only on
\pset fieldsep ' | '
SELECT options::text, to_char(avg(bal_acc) FILTER (WHERE tbl = 'adult12'), 'FM0.000'),
       to_char(avg(bal_acc) FILTER (WHERE tbl = 'bank'), 'FM0.000')
  FROM be.results WHERE arm = 'ebm' AND seed <= 30 AND options ? 'shrinkage'
 GROUP BY 1 ORDER BY avg(bal_acc) FILTER (WHERE tbl = 'adult12') + avg(bal_acc) FILTER (WHERE tbl = 'bank') DESC;
