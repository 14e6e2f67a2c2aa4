-- bench/units/report.sql — the accuracy tables of bench/units (markdown)
\pset format unaligned
\pset tuples_only on
\pset footer off
SELECT '| mechanism | ' || string_agg(arm_label, ' | ' ORDER BY ord) || ' |' FROM (
    SELECT DISTINCT arm, CASE arm WHEN 'row' THEN 'row level' WHEN 'avg' THEN 'averaging (1/m_u)'
                              ELSE 'k = ' || substr(arm, 2) END AS arm_label,
           CASE arm WHEN 'row' THEN 0 WHEN 'avg' THEN 99 ELSE substr(arm, 2)::int END AS ord
      FROM bu.results) a;
SELECT '|---|' || string_agg('---:|', '' ORDER BY 1) FROM (SELECT DISTINCT arm FROM bu.results) a;
WITH s AS (
    SELECT mechanism, arm,
           CASE arm WHEN 'row' THEN 0 WHEN 'avg' THEN 99 ELSE substr(arm, 2)::int END AS ord,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY test_acc) AS med,
           min(test_acc) AS lo, max(test_acc) AS hi, count(*) AS runs,
           count(*) FILTER (WHERE error IS NOT NULL) AS failed
      FROM bu.results GROUP BY mechanism, arm),
a AS (SELECT DISTINCT arm, CASE arm WHEN 'row' THEN 0 WHEN 'avg' THEN 99 ELSE substr(arm, 2)::int END AS ord FROM bu.results),
mm AS (SELECT DISTINCT mechanism FROM bu.results)
SELECT '| ' || CASE mm.mechanism WHEN 'opdisc' THEN 'OPDisc' WHEN 'noisysgd' THEN 'noisy GD'
                   WHEN 'objective' THEN 'logistic, objective' WHEN 'output' THEN 'logistic, output'
                   ELSE mm.mechanism END || ' | ' ||
       string_agg(coalesce(to_char(s.med, 'FM0.000') || ' (' || to_char(s.lo, 'FM0.000') || '–' || to_char(s.hi, 'FM0.000') || ')'
                       || CASE WHEN s.failed > 0 THEN ', ' || s.failed || ' failed' ELSE '' END, '—'), ' | ' ORDER BY a.ord) || ' |'
  FROM mm CROSS JOIN a LEFT JOIN s ON s.mechanism = mm.mechanism AND s.arm = a.arm
 GROUP BY mm.mechanism
 ORDER BY array_position(ARRAY['opdisc', 'objective', 'output', 'noisysgd'], mm.mechanism), mm.mechanism;
SELECT '';
SELECT 'rows used (row level; k = 1, 2, 5, 10): ' || string_agg(n::text, ', ' ORDER BY k) || '; units: ' || (SELECT count(*) FROM bu.sizes) FROM bu.used;
SELECT 'failed runs: ' || coalesce(string_agg(DISTINCT error, '; '), 'none') FROM bu.results;
SELECT 'runs per cell: ' || min(c) || '–' || max(c) || '; median seconds per train()+score: ' || round(percentile_cont(0.5) WITHIN GROUP (ORDER BY s)::numeric, 2)
  FROM (SELECT count(*) c, percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds) s FROM bu.results GROUP BY mechanism, arm) x;
