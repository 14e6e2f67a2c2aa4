-- Private descriptive statistics: dpobj.dp_aggregate (direct) and dpobj.aggregate
-- (protected path): noisy counts, sums, means and histograms grouped by columns with
-- declared levels, exact discrete Laplace noise, one pure-epsilon charge per call.
-- Errors are shown by regress.err() (setup.sql): SQLSTATE, message and hint.
CREATE SCHEMA regress_agg;
CREATE ROLE regress_agg_alice;
CREATE TABLE regress_agg.people AS
SELECT i, i AS j, CASE i % 3 WHEN 0 THEN 'F' WHEN 1 THEN 'M' ELSE 'X' END AS sex,
       CASE WHEN i % 10 = 0 THEN NULL ELSE (ARRAY['a', 'b', 'c'])[1 + i % 3 + (i / 7) % 2] END AS race,
       CASE WHEN i % 25 = 0 THEN NULL ELSE (i % 50) * 2.5 END AS hours, i % 2 = 0 AS flag
  FROM generate_series(1, 300) i;
SELECT dpobj.declare_domain('regress_agg.people', 'sex', ARRAY['F', 'M']);
SELECT dpobj.declare_domain('regress_agg.people', 'race', ARRAY['a', 'b', 'c']);
SELECT dpobj.declare_domain('regress_agg.people', 'hours', 0, 100);
SELECT dpobj.declare_domain('regress_agg.people', 'i', (SELECT array_agg(g::text) FROM generate_series(1, 200) g));
SELECT dpobj.declare_domain('regress_agg.people', 'j', (SELECT array_agg(g::text) FROM generate_series(1, 200) g));
-- a layout as dpobj.aggregate() builds it: the declared domains, group_by, what
CREATE TEMP TABLE lay AS
SELECT '[{"column": "sex", "levels": ["F", "M"]}, {"column": "race", "levels": ["a", "b", "c"]},
         {"column": "hours", "lo": 0, "hi": 100}]'::jsonb AS enc,
       '{"group_by": ["sex"], "what": [{"stat": "count"}, {"stat": "sum", "column": "hours"},
         {"stat": "mean", "column": "hours"}, {"stat": "histogram", "column": "race"},
         {"stat": "histogram", "column": "hours", "bins": 4}]}'::jsonb AS rest;

-- the direct aggregate, seeded: 3 cells x 11 slots (count, sum, mean's sum and count,
-- 4 race bins, 4 hours bins), each slot's noise [num, den] (scale num / den lattice units)
SET dpobj.seed = 7;
SELECT jsonb_array_length(r->'values') AS n, r->'noise' AS noise, r->'values' AS vals
  FROM (SELECT dpobj.dp_aggregate(dpobj.encode_features(enc, ARRAY[sex, race], ARRAY[hours::float8]),
                                  true, 1, 1e-6, jsonb_build_object('layout', rest || jsonb_build_object('encoding', enc))) r
          FROM regress_agg.people, lay WHERE hours IS NOT NULL) s;
-- the true cells, for comparison: count, lattice sum (hours clamped to [0, 100], over the
-- step 100 / 16384), its value, race, bins
SELECT sex, count(*), sum(round(least(hours, 100) * 163.84)) AS lattice_sum, sum(least(hours, 100)) AS sum,
       count(*) FILTER (WHERE race = 'a') AS a, count(*) FILTER (WHERE race = 'b') AS b,
       count(*) FILTER (WHERE race = 'c') AS c, count(*) FILTER (WHERE race IS NULL) AS other,
       array_agg(DISTINCT least(floor(hours / 25), 3)) AS bins
  FROM regress_agg.people WHERE hours IS NOT NULL GROUP BY 1 ORDER BY 1;

-- coverage of the 95 % interval of a count (the discrete Laplace quantile): 200 seeded
-- runs at epsilon 0.2 (scale 10), the true count 300
CREATE TEMP TABLE cover (run int, v float8, num float8, den float8);
DO $$
BEGIN
  FOR i IN 1..200 LOOP
    PERFORM set_config('dpobj.seed', i::text, false);
    INSERT INTO cover
    SELECT i, (r->'values'->>0)::float8, (r->'noise'->0->>0)::float8, (r->'noise'->0->>1)::float8
      FROM (SELECT dpobj.dp_aggregate(dpobj.encode_features('[{"column": "sex", "levels": ["F", "M"]}]',
                                                            ARRAY[sex], '{}'::float8[]), true, 0.2, 1e-6,
               '{"layout": {"encoding": [{"column": "sex", "levels": ["F", "M"]}], "group_by": [],
                            "what": [{"stat": "count"}]}}') r
              FROM regress_agg.people) s;
  END LOOP;
END $$;
SELECT count(*) FILTER (WHERE abs(v - 300) <= h) AS covered, min(h) AS h, count(DISTINCT v) > 20 AS noisy
  FROM (SELECT v, ceil(ln(0.05 * (1 + exp(-den / num)) / 2) / (-den / num)) - 1 AS h FROM cover) s;
RESET dpobj.seed;
-- epsilon-DP: delta 0 is accepted and charged as 0 (kind pure)
SELECT r->'delta' AS delta
  FROM (SELECT dpobj.dp_aggregate(dpobj.encode_features('[{"column": "sex", "levels": ["F", "M"]}]',
                                                        ARRAY[sex], '{}'::float8[]), true, 1, 0,
           '{"layout": {"encoding": [{"column": "sex", "levels": ["F", "M"]}], "group_by": [],
                        "what": [{"stat": "count"}]}}') r
          FROM regress_agg.people) s;
SELECT mechanism, epsilon, delta, kind, outcome FROM dpobj.ledger ORDER BY id DESC LIMIT 1;
-- direct-path errors
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.dp_aggregate(ARRAY[1, 0, 0]::float8[], true, 1, 1e-6, '{}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.dp_aggregate(ARRAY[1, 0, 0]::float8[], true, 1, 1e-6, NULL)$$);
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.dp_aggregate(ARRAY[1, 0, 0]::float8[], true, 1, 1e-6, '{"layout": {"encoding": [{"column": "sex", "levels": ["F", "M"]}], "group_by": [], "what": [{"stat": "count"}]}}')$$);
-- the state functions refuse a state they did not make (named as the counts state, not
-- as one aggregate's)
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.dp_aggregate_finalfn(ARRAY[1, 2, 3]::float8[])$$);
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.dp_aggregate_combinefn(ARRAY[1, 2, 3]::float8[], ARRAY[1]::float8[])$$);
-- an option other than "layout", "rows_per_unit" and "sealed" is refused
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.dp_aggregate(ARRAY[1, 0]::float8[], true, 1, 1e-6, '{"layout": {"encoding": [{"column": "sex", "levels": ["F", "M"]}], "group_by": [], "what": [{"stat": "count"}]}, "bogus": 1}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.dp_aggregate(ARRAY[1, 0, 0]::float8[], true, 1e-7, 1e-6, '{"layout": {"encoding": [{"column": "sex", "levels": ["F", "M"]}], "group_by": [], "what": [{"stat": "count"}]}}')$$);

-- the protected path
SELECT dpobj.protect('regress_agg.people');
SELECT granted_epsilon FROM dpobj.grant_budget('regress_agg.people', 'regress_agg_alice', 10000, 0.001);
GRANT USAGE ON SCHEMA regress_agg TO regress_agg_alice;
SET ROLE regress_agg_alice;
-- at epsilon 2000 (400 per statistic) the counts' noise (scale 1/200) is almost surely 0:
-- every cell of the declared levels and "other" (null), empty ones too; the count holds
-- every row, the histogram of hours its non-NULL values
SELECT group_values, statistic, column_name, estimate, ci_low, ci_high
  FROM dpobj.aggregate('regress_agg.people',
    '[{"stat": "count"}, {"stat": "histogram", "column": "race"}, {"stat": "histogram", "column": "hours", "bins": 4}]',
    2000, 1e-6, ARRAY['sex']);
-- at a tiny epsilon a noisy sum can put a mean's whole ratio range outside [lo, hi]: its
-- interval stays ordered and within the declared bounds (40 calls, 4 cells each)
SELECT count(*) AS cells, bool_and(ci_low <= ci_high AND ci_low >= 0 AND ci_high <= 100) AS ordered
  FROM generate_series(1, 40) g,
       LATERAL dpobj.aggregate('regress_agg.people', '[{"stat": "mean", "column": "hours"}]',
                               0.05 + 0 * g, 1e-6, ARRAY['race']);
-- a numeric histogram's bin edges read as the declared bounds do: 0.3, not 0.30000000000000004
SELECT group_values FROM dpobj.aggregate('regress_agg.people',
    '[{"stat": "histogram", "column": "hours", "bins": 1000}]', 1, 1e-6)
 ORDER BY (group_values->'hours'->>0)::numeric NULLS FIRST LIMIT 2 OFFSET 3;
-- empty cells (no F with race c, ...): at epsilon 2000 their counts' noise is 0, so their
-- means have no estimate, but an interval: with C = 0 every mean passes the test alike
SELECT group_values, estimate, ci_low, ci_high
  FROM dpobj.aggregate('regress_agg.people', '[{"stat": "mean", "column": "hours"}]', 2000, 1e-6,
                       ARRAY['sex', 'race'])
 WHERE estimate IS NULL ORDER BY 1::text;
-- sums and means (lattice step 100 / 16384, noise scale 2^15 / 400 steps): near the truth,
-- inside their intervals
SELECT group_values, statistic, column_name,
       abs(estimate - CASE statistic WHEN 'sum' THEN 5775 ELSE 5775 / 96.0 END) < 3 AS near,
       ci_low <= estimate AND estimate <= ci_high AS in_ci, round((ci_high - ci_low)::numeric, 2) AS width
  FROM dpobj.aggregate('regress_agg.people',
    '[{"stat": "sum", "column": "hours"}, {"stat": "mean", "column": "hours"}]', 2000, 1e-6, ARRAY['sex']);
-- a count alone (no column named: a column with declared levels is read); at epsilon 1
-- the interval is the count +- 6 (scale 2: P(|Y| >= 7) = 2 q^7 / (1 + q) < 0.05)
SELECT group_values, statistic, ci_high - estimate AS h, estimate - ci_low AS h2,
       abs(estimate - 300) <= 40 AS near
  FROM dpobj.aggregate('regress_agg.people', '[{"stat": "count"}]', 1, 1e-6);
-- a filter as in train(); two group columns: 3 x 4 cells
SELECT count(*) AS cells, sum(estimate) AS total
  FROM dpobj.aggregate('regress_agg.people', '[{"stat": "count"}]', 2000, 1e-6, ARRAY['sex', 'race'],
                       '{"filter": [{"column": "flag", "op": "=", "value": true}]}');
-- one charge per call, pure epsilon
SELECT mechanism, epsilon, outcome, detail, kind FROM dpobj.ledger
 WHERE relation = 'regress_agg.people' ORDER BY id;

-- refusals before the charge, on public grounds: nothing reaches the ledger
SELECT count(*) AS ledger_before FROM dpobj.ledger WHERE relation = 'regress_agg.people' \gset
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_agg.people', '[{"stat": "sum", "column": "nope"}]', 1, 1e-6)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_agg.people', '[{"stat": "count"}]', 1, 1e-6, ARRAY['nope'])$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_agg.people', '[{"stat": "count"}]', 1, 1e-6, ARRAY['sex', 'flag'])$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_agg.people', '[{"stat": "count"}]', 1, 1e-6, ARRAY['hours', 'sex'])$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_agg.people', '{"stat": "count"}', 1, 1e-6)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_agg.people', '[{"stat": "median", "column": "hours"}]', 1, 1e-6)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_agg.people', '[{"stat": "count", "bins": 3}]', 1, 1e-6)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_agg.people', '[{"stat": "mean", "column": "hours", "sample": true}]', 1, 1e-6)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_agg.people', '[{"stat": "variance", "column": "hours", "sample": "yes"}]', 1, 1e-6)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_agg.people', '[{"stat": "mean", "column": "race"}]', 1, 1e-6)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_agg.people', '[{"stat": "histogram", "column": "sex"}]', 1, 1e-6, ARRAY['sex'])$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_agg.people', '[{"stat": "histogram", "column": "race", "bins": 3}]', 1, 1e-6)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_agg.people', '[{"stat": "histogram", "column": "hours", "bins": 0}]', 1, 1e-6)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_agg.people', '[{"stat": "sum", "column": "hours", "weight": 2}]', 1, 1e-6)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_agg.people', '[{"stat": "count"}]', 1, 1e-6, ARRAY['i', 'j'])$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_agg.people', '[{"stat": "count"}]', 1, 1e-6, ARRAY['sex', 'sex'])$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_agg.people', '[{"stat": "count"}]', 1, 1e-6, '{}', '{"layout": {}}')$$);
-- an unknown column before an unknown option
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_agg.people', '[{"stat": "sum", "column": "nope"}]', 1, 1e-6, '{}', '{"bogus": 1}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_agg.people', '[{"stat": "count"}]', 1e-7, 1e-6)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_agg.people', '[{"stat": "count"}]', 9999, 1e-6)$$);
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.train('regress_agg.people', 'aggregate', ARRAY['sex'], 'sex', 1, 1e-6)$$);
RESET ROLE;
SET dpobj.seed = 3;
SET ROLE regress_agg_alice;
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_agg.people', '[{"stat": "count"}]', 1, 1e-6)$$);
RESET ROLE;
RESET dpobj.seed;
SET ROLE regress_agg_alice;
SELECT count(*) = :ledger_before AS nothing_charged FROM dpobj.ledger WHERE relation = 'regress_agg.people';
RESET ROLE;

-- a privacy unit of up to 2 rows: each person's rows bounded to 2 (50 persons, 4 rows
-- each: 100 rows counted) and the noise for epsilon / 2 (scale 4: h = 12 at epsilon 1)
CREATE TABLE regress_agg.visits AS
SELECT i, i % 50 AS person, CASE i % 2 WHEN 0 THEN 'F' ELSE 'M' END AS sex
  FROM generate_series(1, 200) i;
SELECT dpobj.declare_domain('regress_agg.visits', 'sex', ARRAY['F', 'M']);
SELECT dpobj.protect('regress_agg.visits', 'person', 2);
SELECT 1 FROM dpobj.grant_budget('regress_agg.visits', 'regress_agg_alice', 10, 0.001);
SET ROLE regress_agg_alice;
SELECT statistic, ci_high - estimate AS h, abs(estimate - 100) <= 60 AS near
  FROM dpobj.aggregate('regress_agg.visits', '[{"stat": "count"}]', 1, 1e-6);
SELECT mechanism, epsilon, privacy_unit, rows_per_unit, outcome FROM dpobj.ledger
 WHERE relation = 'regress_agg.visits';
RESET ROLE;

-- NULLs as in SQL (a copy of people, a budget of its own): count counts all 300 rows, a count
-- of hours its 288 non-NULL values, of race its 226 (NULL, or past the levels array: its
-- histogram's "other" holds them); every other statistic of hours its own 288 rows.  At
-- epsilon 2000 counts are exact.
CREATE TABLE regress_agg.gaps AS SELECT * FROM regress_agg.people;
SELECT dpobj.declare_domain('regress_agg.gaps', 'race', ARRAY['a', 'b', 'c']);
SELECT dpobj.declare_domain('regress_agg.gaps', 'hours', 0, 100);
SELECT dpobj.protect('regress_agg.gaps');
SELECT 1 FROM dpobj.grant_budget('regress_agg.gaps', 'regress_agg_alice', 100000, 0.001);
SELECT count(*), count(hours), count(race) FROM regress_agg.gaps;
-- the truth of the clamped hours' population and sample variance
SELECT var_pop(least(hours, 100)) AS t_pop, var_samp(least(hours, 100)) AS t_samp
  FROM regress_agg.gaps WHERE hours IS NOT NULL \gset
SET ROLE regress_agg_alice;
SELECT statistic, column_name, group_values, estimate
  FROM dpobj.aggregate('regress_agg.gaps', '[{"stat": "count"}, {"stat": "count", "column": "hours"},
    {"stat": "count", "column": "race"}, {"stat": "histogram", "column": "race"}]', 2000, 1e-6);
-- the population and the sample variance of hours near the truth (3.7 apart; at epsilon
-- 20000 the noise is within +- 0.3 but w.p. < 1e-9), in their intervals
SELECT column_name, abs(estimate - CASE WHEN row_number() OVER () = 1 THEN :t_pop ELSE :t_samp END) < 1 AS near,
       ci_low <= estimate AND estimate <= ci_high AS in_ci
  FROM dpobj.aggregate('regress_agg.gaps', '[{"stat": "variance", "column": "hours"},
    {"stat": "variance", "column": "hours", "sample": true}]', 20000, 1e-6);
-- a sample variance's accuracy: the population one's times n / (n - 1)
SELECT round(((array_agg(half_width))[2] / (array_agg(half_width))[1])::numeric, 6) AS ratio
  FROM dpobj.aggregate_accuracy('regress_agg.gaps', '[{"stat": "variance", "column": "hours"},
    {"stat": "variance", "column": "hours", "sample": true}]', 1, '{}', '{"count": 100}');
RESET ROLE;
DROP SCHEMA regress_agg CASCADE;
DROP ROLE regress_agg_alice;
