-- bench/report.sql — the result tables of bench/run.sh as Markdown (psql -At).
\set ON_ERROR_STOP on
\pset format unaligned
\pset tuples_only on
\pset footer off

\echo '### (a) Transition throughput'
\echo
SELECT format('adult.train replicated %s times: %s rows per table; %s repetitions per query '
              '(after one untimed warm-up run of each query), interleaved; wall time inside the backend '
              '(PL/pgSQL EXECUTE); rows/s = rows / median.',
              (SELECT value FROM bench.meta WHERE key = 'replicate'),
              (SELECT max(nrows) FROM bench.throughput),
              (SELECT max(rep) FROM bench.throughput));
\echo
\echo '| feature set | query | rows | median s | min s | max s | rows/s (median) | x sum(cardinality) time | outcome |'
\echo '|---|---|---:|---:|---:|---:|---:|---:|---|'
WITH s AS (
    SELECT feature_set, query, nrows,
           percentile_disc(0.5) WITHIN GROUP (ORDER BY seconds) AS med,
           min(seconds) AS lo, max(seconds) AS hi,
           count(err) AS nerr, min(err) AS err
    FROM bench.throughput GROUP BY 1, 2, 3
)
SELECT format('| %s | %s | %s | %s | %s | %s | %s | %s | %s |',
              s.feature_set,
              CASE s.query WHEN 'count' THEN '`count(*)`'
                           WHEN 'sum_cardinality' THEN '`sum(cardinality(features))`'
                           ELSE '`dp_halfspace` (solver limit 1 ms)' END,
              s.nrows, round(s.med::numeric, 3), round(s.lo::numeric, 3), round(s.hi::numeric, 3),
              round((s.nrows / s.med)::numeric),
              round((s.med / b.med)::numeric, 2),
              CASE WHEN s.nerr = 0 THEN 'ok'
                   ELSE format('%s/%s runs: %s', s.nerr,
                               (SELECT max(rep) FROM bench.throughput),
                               replace(left(s.err, 140), '|', '\|')) END)
FROM s
JOIN s b ON b.feature_set = s.feature_set AND b.query = 'sum_cardinality'
ORDER BY s.feature_set <> 'd4', s.query = 'dp_halfspace', s.query = 'sum_cardinality';

\echo
\echo '### (b) State size (distinct feature vectors)'
\echo
\echo 'The aggregate state keeps one entry per distinct quantised feature vector: d int64'
\echo 'features, two int64 label counts, a uint32 hash, and two int32 hash slots (load factor'
\echo '<= 1/2), i.e. about 8d + 28 bytes per entry (arrays grow by doubling, so up to 2x'
\echo 'that is allocated).  It does not grow with the number of rows: replicating adult.train'
\echo '30 times leaves these counts unchanged.'
\echo
\echo '| feature set | d | adult.train rows | distinct raw | distinct quantised (Q = 64) | est. state (quantised x (8d+28) B) | balanced rows | distinct quantised, balanced |'
\echo '|---|---:|---:|---:|---:|---:|---:|---:|'
SELECT format('| %s | %s | %s | %s | %s | %s | %s | %s |',
              feature_set, d, train_rows, distinct_raw, distinct_q,
              pg_size_pretty(distinct_q * (8 * d + 28)), balanced_rows, balanced_q)
FROM bench.state_size ORDER BY d;

\echo
\echo '### (c) Solve time on the paper instance'
\echo
SELECT format('Balanced subset n = 15682, epsilon = 1, delta = 1/n^2, dpobj.solver_time_limit = %s s, '
              'dpobj.seed in {%s}, dpobj.oracle in {%s}.  Time = the whole aggregate '
              '(15682 transitions take milliseconds; the rest is the oracle).',
              (SELECT value FROM bench.meta WHERE key = 'time_limit'),
              (SELECT value FROM bench.meta WHERE key = 'seeds'),
              (SELECT value FROM bench.meta WHERE key = 'oracles'));
\echo
\echo '| feature set | oracle | seed | seconds | certified | detail |'
\echo '|---|---|---:|---:|---|---|'
SELECT format('| %s | %s | %s | %s | %s | %s |',
              feature_set, oracle, seed, round(seconds::numeric, 3),
              CASE WHEN ok THEN 'yes' ELSE '**no**' END,
              replace(coalesce('error: ' || err, 'params: `' || params || '`'), '|', '\|'))
FROM bench.solve ORDER BY length(feature_set), feature_set, oracle, seed;

\echo
\echo '### Ledger after the run'
\echo
\echo 'Every call above was charged; `SELECT mechanism, outcome, count(*), sum(epsilon) FROM dpobj.ledger GROUP BY 1, 2`:'
\echo
\echo '| mechanism | outcome | runs | total epsilon |'
\echo '|---|---|---:|---:|'
SELECT format('| %s | %s | %s | %s |', mechanism, coalesce(outcome, '(null)'), count(*), sum(epsilon))
FROM dpobj.ledger GROUP BY mechanism, outcome ORDER BY mechanism, outcome;
