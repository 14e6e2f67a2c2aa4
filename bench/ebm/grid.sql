-- bench/ebm/grid.sql — the runs behind results.md (after setup.sql and accuracy.sql):
-- the tuning grid on adult12 and bank (seeds 1-3); prints its rows, best first per table.
\set ON_ERROR_STOP 1
\o /dev/null
SELECT be.run(tbl, 'ebm', jsonb_build_object('residual_clip', c, 'cyclic', cy, 'rounds', r, 'learning_rate', lr, 'bins', 16), s)
  FROM unnest('{adult12,bank}'::text[]) tbl, unnest('{0.25,1}'::float8[]) c, unnest('{true,false}'::bool[]) cy,
       unnest('{3,10}'::int[]) r, unnest('{1,4}'::float8[]) lr, generate_series(1, 3) s;
SELECT be.run(tbl, 'ebm', jsonb_build_object('residual_clip', c, 'cyclic', false, 'rounds', r, 'learning_rate', lr, 'bins', b), s)
  FROM unnest('{adult12,bank}'::text[]) tbl, unnest('{0.1,0.25}'::float8[]) c, unnest('{5,10}'::int[]) r,
       unnest('{1,2}'::float8[]) lr, unnest('{16,32}'::int[]) b, generate_series(1, 3) s;
\o
\pset format unaligned
\pset tuples_only on
\pset fieldsep ' | '
SELECT tbl, options->>'residual_clip', options->>'cyclic', options->>'rounds', options->>'learning_rate',
       options->>'bins', to_char(avg(bal_acc), 'FM0.000')
  FROM be.results WHERE arm = 'ebm' AND seed <= 3 GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, avg(bal_acc) DESC;
