-- dpobj.aggregate() grouped by a column without declared levels: private key selection
-- (a key is released iff its noisy count reaches a threshold), one (epsilon, delta) charge.
CREATE SCHEMA regress_keys;
CREATE ROLE regress_keys_bob;
-- keys: 'big1' 200 rows, 'big2' 150 rows, 'lone' 1 row, k0..k4 2 rows each; hours in [0, 100]
CREATE TABLE regress_keys.t AS
SELECT i, CASE WHEN i <= 200 THEN 'big1' WHEN i <= 350 THEN 'big2' WHEN i = 351 THEN 'lone'
               ELSE 'k' || (i % 5) END AS city,
       CASE WHEN i <= 200 THEN 10 ELSE 30 END AS hours, i % 3 AS code, i % 2 = 0 AS flag
  FROM generate_series(1, 361) i;
SELECT dpobj.declare_domain('regress_keys.t', 'hours', 0, 100);
SELECT dpobj.declare_domain('regress_keys.t', 'flag', ARRAY['true']);
-- the direct aggregate, seeded: the released keys, T (threshold) and each slot's noise
-- [num, den]; the count (first in "what") selects
SET dpobj.seed = 5;
SELECT r->'keys' AS keys, r->'threshold' AS t, r->'noise' AS noise, jsonb_array_length(r->'values') AS n
  FROM (SELECT dpobj.dp_aggregate_keys(dpobj.encode_features(enc, '{}'::text[], ARRAY[hours::float8]), city, 0.5, 1e-6,
                 jsonb_build_object('layout', jsonb_build_object('encoding', enc, 'group_by', '[]'::jsonb,
                   'what', '[{"stat": "count"}, {"stat": "mean", "column": "hours"}]'::jsonb))) r
          FROM regress_keys.t, (SELECT '[{"column": "hours", "lo": 0, "hi": 100}]'::jsonb AS enc) e) s;
RESET dpobj.seed;
-- direct-path errors: no count; a NULL key; delta 0 (the keys' selection needs delta > 0)
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.dp_aggregate_keys(ARRAY[0.5]::float8[], 'a', 1, 1e-6, '{"layout": {"encoding": [{"column": "hours", "lo": 0, "hi": 100}], "group_by": [], "what": [{"stat": "sum", "column": "hours"}]}}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.dp_aggregate_keys(ARRAY[0.5]::float8[], NULL, 1, 1e-6, '{"layout": {"encoding": [{"column": "hours", "lo": 0, "hi": 100}], "group_by": [], "what": [{"stat": "count"}]}}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.dp_aggregate_keys(ARRAY[0.5]::float8[], 'a', 1, 0, '{"layout": {"encoding": [{"column": "hours", "lo": 0, "hi": 100}], "group_by": [], "what": [{"stat": "count"}]}}')$$);
SELECT dpobj.protect('regress_keys.t');
SELECT granted_epsilon FROM dpobj.grant_budget('regress_keys.t', 'regress_keys_bob', 100000, 0.5);
GRANT USAGE ON SCHEMA regress_keys TO regress_keys_bob;
SET ROLE regress_keys_bob;

-- epsilon 0.5 (counts' noise Y of scale 4, delta 1e-6): T = 58 (the least T with
-- P(Y >= T - 1) <= 1e-6 / (1 + e^0.25)), so 'lone' (1 row) and each 2-row key is released
-- with probability < 5e-7 (all 11 calls: < 4e-5); 'big1', 'big2' with 1 - 1e-10
SELECT group_values, statistic, column_name, abs(estimate - CASE group_values->>'city'
         WHEN 'big1' THEN 200 ELSE 150 END) < 60 AS near, ci_low < estimate AND estimate < ci_high AS in_ci
  FROM dpobj.aggregate('regress_keys.t', '[{"stat": "count"}]', 0.5, 1e-6, ARRAY['city']);
-- 10 calls: never a small key
SELECT count(*) AS rows, count(DISTINCT group_values) AS keys, bool_and(group_values->>'city' LIKE 'big%') AS big_only
  FROM generate_series(1, 10) g,
       LATERAL dpobj.aggregate('regress_keys.t', '[{"stat": "count"}]', 0.5 + 0 * g, 1e-6, ARRAY['city']);
-- a count is added for the selection (T = 4 here: the 2-row keys stay out); means as for
-- declared groups, in key order
SELECT group_values, statistic, column_name, round(estimate::numeric) AS estimate
  FROM dpobj.aggregate('regress_keys.t', '[{"stat": "mean", "column": "hours"}]', 2000, 1e-6, ARRAY['city']);
-- quantiles per key, drawn as a declared cell's: big1's hours are 10, big2's 30 (bins of 1
-- over [0, 100]: the estimate is a bin's midpoint, its interval the drawn ends' bins)
SELECT group_values, statistic, abs(estimate - v) <= 1 AS near, ci_low <= v AND v <= ci_high AS covers
  FROM dpobj.aggregate('regress_keys.t', '[{"stat": "quantile", "column": "hours", "q": [0.5, 0.9], "bins": 100}]',
                       2000, 1e-6, ARRAY['city']),
       LATERAL (SELECT CASE group_values->>'city' WHEN 'big1' THEN 10 ELSE 30 END AS v) t
 WHERE statistic LIKE 'quantile%';
-- at epsilon 4000 (T = 3: its delta is 1e-6 / (1 + e^2000)) keys of 3 or more rows are
-- released, integer keys as text; "max_keys" keeps the first keys in key order
SELECT group_values, estimate
  FROM dpobj.aggregate('regress_keys.t', '[{"stat": "count"}]', 4000, 1e-6, ARRAY['code']);
SELECT group_values, estimate
  FROM dpobj.aggregate('regress_keys.t', '[{"stat": "count"}]', 4000, 1e-6, ARRAY['city'],
                       '{"max_keys": 1}');
-- a filter as in train(): only big1's rows
SELECT group_values, estimate
  FROM dpobj.aggregate('regress_keys.t', '[{"stat": "count"}]', 4000, 1e-6, ARRAY['city'],
                       '{"filter": [{"column": "i", "op": "<=", "value": 200}]}');
-- one charge per call, approx (epsilon, delta)
SELECT mechanism, epsilon, delta, outcome, detail, kind FROM dpobj.ledger
 WHERE relation = 'regress_keys.t' ORDER BY id DESC LIMIT 2;

-- accuracy before any run: a key's statistics are a cell's (a count: +- 6 at epsilon 1;
-- with the count added to a sum, as the run does, each gets half of epsilon), free
SELECT * FROM dpobj.aggregate_accuracy('regress_keys.t', '[{"stat": "count"}]', 1, ARRAY['city']);
SELECT * FROM dpobj.aggregate_accuracy('regress_keys.t', '[{"stat": "sum", "column": "hours"}]', 1, ARRAY['city']);
SELECT * FROM dpobj.aggregate_accuracy('regress_keys.t', '[{"stat": "sum", "column": "hours"}, {"stat": "count"}]', 1);
-- a quantile's rank error as in several cells (gamma halved): the same as grouped by flag
SELECT a.statistic, a.half_width = b.half_width AS as_grouped
  FROM dpobj.aggregate_accuracy('regress_keys.t', '[{"stat": "quantile", "column": "hours", "q": 0.5, "bins": 100}]', 1, ARRAY['city']) a
  JOIN dpobj.aggregate_accuracy('regress_keys.t', '[{"stat": "quantile", "column": "hours", "q": 0.5, "bins": 100}, {"stat": "count"}]', 1, ARRAY['flag']) b
    USING (statistic);

-- refusals before the charge, on public grounds: nothing reaches the ledger
SELECT count(*) AS ledger_before FROM dpobj.ledger WHERE relation = 'regress_keys.t' \gset
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_keys.t', '[{"stat": "count"}]', 1, 0, ARRAY['city'])$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_keys.t', '[{"stat": "count"}]', 1, 1e-6, ARRAY['city', 'flag'])$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_keys.t', '[{"stat": "count"}]', 1, 1e-6, ARRAY['nope'])$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_keys.t', '[{"stat": "count"}]', 1, 1e-6, ARRAY['flag', 'nope'])$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_keys.t', '[{"stat": "count"}]', 1, 1e-6, ARRAY['city'], '{"max_keys": 0}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_keys.t', '[{"stat": "count"}]', 1, 1e-6, ARRAY['flag'], '{"max_keys": 5}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_keys.t', '[{"stat": "histogram", "column": "hours", "bins": 1000}]', 1, 1e-6, ARRAY['city'], '{"max_keys": 1000}')$$);
SELECT count(*) = :ledger_before AS nothing_charged FROM dpobj.ledger WHERE relation = 'regress_keys.t';
RESET ROLE;

-- a privacy unit of up to 2 rows per person: T for k = 2 rows over at most 2 keys; counts
-- only by key need no declared column
CREATE TABLE regress_keys.v AS
SELECT i, i % 60 AS person, CASE WHEN i <= 200 THEN 'x' ELSE 'y' || i END AS site
  FROM generate_series(1, 240) i;
SELECT dpobj.protect('regress_keys.v', 'person', 2);
SELECT granted_epsilon FROM dpobj.grant_budget('regress_keys.v', 'regress_keys_bob', 100000, 0.5);
SET ROLE regress_keys_bob;
-- 'x': 120 rows after bounding (60 persons x 2) at most; the 40 one-row keys 'y...' never
SELECT group_values, abs(estimate - 100) < 40 AS near
  FROM dpobj.aggregate('regress_keys.v', '[{"stat": "count"}]', 1, 1e-6, ARRAY['site']);
SELECT * FROM dpobj.aggregate_accuracy('regress_keys.v', '[{"stat": "count"}]', 1, ARRAY['site']);
SELECT mechanism, rows_per_unit, kind, outcome FROM dpobj.ledger WHERE relation = 'regress_keys.v';
RESET ROLE;
-- long keys (1 500 two-byte characters, stored compressed): a key is its first 256 bytes
-- in whole characters, so two keys that differ only further on are one, of 200 rows
CREATE TABLE regress_keys.w AS
SELECT i, repeat('é', 1500) || (i % 2) AS note FROM generate_series(1, 200) i;
SELECT dpobj.protect('regress_keys.w');
SELECT granted_epsilon FROM dpobj.grant_budget('regress_keys.w', 'regress_keys_bob', 100000, 0.5);
SET ROLE regress_keys_bob;
SELECT octet_length(group_values->>'note') AS bytes,
       abs(estimate - 200) < 40 AS near
  FROM dpobj.aggregate('regress_keys.w', '[{"stat": "count"}]', 1, 1e-6, ARRAY['note']);
RESET ROLE;

-- a key whose text a catalog lookup per value makes (regclass, also in an array) or that
-- starts a library (xml in an array; xml itself has a built-in cast): refused before the
-- charge, the hint says why; an enum's labels are loaded before the scan, so it is a key
CREATE TYPE regress_keys.mood AS ENUM ('calm', 'busy');
CREATE TABLE regress_keys.r AS
SELECT i, 'pg_class'::regclass AS rel, ARRAY['pg_class'::regclass] AS rels,
       ARRAY['<a/>'::xml] AS docs, (ARRAY['calm', 'busy'])[i % 2 + 1]::regress_keys.mood AS mood
  FROM generate_series(1, 200) i;
SELECT dpobj.protect('regress_keys.r');
SELECT dpobj.declare_domain('regress_keys.r', 'i', 0, 200);
SELECT granted_epsilon FROM dpobj.grant_budget('regress_keys.r', 'regress_keys_bob', 100000, 0.5);
SET ROLE regress_keys_bob;
SELECT sqlstate, message, hint FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_keys.r', '[{"stat": "count"}, {"stat": "sum", "column": "i"}]', 1, 1e-6, ARRAY['rel'])$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_keys.r', '[{"stat": "count"}, {"stat": "sum", "column": "i"}]', 1, 1e-6, ARRAY['rels'])$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_keys.r', '[{"stat": "count"}, {"stat": "sum", "column": "i"}]', 1, 1e-6, ARRAY['docs'])$$);
SELECT group_values, abs(estimate - 100) < 40 AS near
  FROM dpobj.aggregate('regress_keys.r', '[{"stat": "count"}, {"stat": "sum", "column": "i"}]', 1, 1e-6, ARRAY['mood'])
 WHERE statistic = 'count' ORDER BY 1;
SELECT count(*) AS charged FROM dpobj.ledger WHERE relation = 'regress_keys.r';
RESET ROLE;

DROP TABLE regress_keys.t, regress_keys.v, regress_keys.w, regress_keys.r;
DROP TYPE regress_keys.mood;
DROP SCHEMA regress_keys;
DROP ROLE regress_keys_bob;
