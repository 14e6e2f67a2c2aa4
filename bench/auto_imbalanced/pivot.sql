-- bench/auto_imbalanced/pivot.sql — run.sh's results at epsilon = 1 (arms auto, auto_bal,
-- objective, noisysgd) as docs/BENCHMARKS.md's table, which run.sh records: mean balanced
-- accuracy (sd) per arm, auto minus the better of objective and noisy GD in points, auto's
-- picks.
WITH f AS (SELECT tbl, arm, avg(balanced) AS m,
                  to_char(avg(balanced), 'FM0.000') || ' (' ||
                  to_char(coalesce(stddev(balanced), 0), 'FM0.000') || ')' AS cell
             FROM results WHERE epsilon = 1 GROUP BY 1, 2),
p AS (SELECT tbl, string_agg(selected || ' ' || c, ', ' ORDER BY c DESC, selected) AS picks
        FROM (SELECT tbl, selected, count(*) c FROM results WHERE arm = 'auto' AND epsilon = 1 GROUP BY 1, 2) x
       GROUP BY 1)
SELECT '| table | **auto** (public weights) | auto_bal (no weights) | objective | noisysgd | auto − best single | picks (auto) |'
UNION ALL SELECT '|---|---|---|---|---|---|---|'
UNION ALL SELECT * FROM (
SELECT format('| %s | %s | %s | %s | %s | %s | %s |',
              CASE WHEN t = 'german' THEN '*german (held out)*' ELSE t END,
              (SELECT cell FROM f WHERE tbl = t AND arm = 'auto'),
              (SELECT cell FROM f WHERE tbl = t AND arm = 'auto_bal'),
              (SELECT cell FROM f WHERE tbl = t AND arm = 'objective'),
              (SELECT cell FROM f WHERE tbl = t AND arm = 'noisysgd'),
              replace(to_char(100 * ((SELECT round(m::numeric, 3) FROM f WHERE tbl = t AND arm = 'auto')
                                     - (SELECT max(round(m::numeric, 3)) FROM f
                                         WHERE tbl = t AND arm IN ('objective', 'noisysgd'))),
                              'SFM0.0'), '-', '−'),
              (SELECT picks FROM p WHERE tbl = t))
  FROM unnest('{synth,adult23,bank,german}'::text[]) WITH ORDINALITY u(t, o)
 WHERE EXISTS (SELECT 1 FROM f WHERE tbl = t) ORDER BY o) q;
