-- dp_aggregate_cols (the aggregate dpobj.aggregate() and describe() run): the encoding's
-- columns as separate arguments, encoded in the transition function.  Seeded, it releases
-- exactly what dp_aggregate over encode_features_missing() releases, NULL levels, unknown
-- levels, out-of-range values, and NULL or NaN numbers (each statistic of theirs skips them)
-- included.
CREATE TEMP TABLE cols_rows AS
SELECT CASE WHEN i % 11 = 0 THEN NULL WHEN i % 13 = 0 THEN 'Z' ELSE (ARRAY['F', 'M'])[1 + i % 2] END AS sex,
       (ARRAY['a', 'b', 'c'])[1 + i % 3] AS race,
       CASE WHEN i % 17 = 0 THEN NULL WHEN i % 19 = 0 THEN 'NaN' ELSE (i % 60) * 2.0 - 10 END::float8 AS hours,
       (i * 7 % 100)::float8 AS age
  FROM generate_series(1, 400) i;
CREATE TEMP TABLE cols_lay AS
SELECT '[{"column": "sex", "levels": ["F", "M"]}, {"column": "hours", "lo": 0, "hi": 100},
         {"column": "race", "levels": ["a", "b", "c"]}, {"column": "age", "lo": -5, "hi": 95}]'::jsonb AS enc,
       '{"group_by": ["sex"], "what": [{"stat": "count"}, {"stat": "sum", "column": "hours"},
         {"stat": "mean", "column": "age"}, {"stat": "variance", "column": "hours"},
         {"stat": "histogram", "column": "race"}, {"stat": "histogram", "column": "age", "bins": 5},
         {"stat": "quantile", "column": "hours", "q": [0.5], "bins": 20}]}'::jsonb AS rest;
CREATE TEMP TABLE cols_out (form text, r jsonb);
SET dpobj.seed = 11;
INSERT INTO cols_out
SELECT 'array', dpobj.dp_aggregate(dpobj.encode_features_missing(enc, ARRAY[sex, race], ARRAY[hours, age]), true, 5, 1e-6,
                                   jsonb_build_object('sealed', true, 'layout', rest || jsonb_build_object('encoding', enc)))
  FROM cols_rows, cols_lay;
SET dpobj.seed = 11;
INSERT INTO cols_out
SELECT 'cols', dpobj.dp_aggregate_cols(true, 5, 1e-6,
                                       jsonb_build_object('sealed', true, 'layout', rest || jsonb_build_object('encoding', enc)),
                                       sex, hours, race, age)
  FROM cols_rows, cols_lay;
RESET dpobj.seed;
-- 3 cells x 36 slots: both releases the same, values and noise
SELECT count(*) AS releases, count(DISTINCT r) AS distinct_releases,
       min(jsonb_array_length(r->'values')) AS n FROM cols_out;
-- errors on the direct path: argument types and number, a VARIADIC array (a NULL number is
-- none: its statistics skip it)
CREATE TEMP TABLE cols_opt AS
SELECT jsonb_build_object('layout', rest || jsonb_build_object('encoding', enc)) AS o FROM cols_lay;
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.dp_aggregate_cols(true, 1, 1e-6, (SELECT o FROM cols_opt), sex, hours, race) FROM cols_rows$$);
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.dp_aggregate_cols(true, 1, 1e-6, NULL, sex, hours, race) FROM cols_rows$$);
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.dp_aggregate_cols(true, 1, 1e-6, (SELECT o FROM cols_opt), sex, hours, race, age::int) FROM cols_rows$$);
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.dp_aggregate_cols(true, 1, 1e-6, (SELECT o FROM cols_opt), VARIADIC ARRAY['F', '1', 'a', '2']) FROM cols_rows$$);
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.dp_aggregate_cols(true, 1, 1e-6, (SELECT o FROM cols_opt), sex, hours, race, age) FROM cols_rows$$);
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.dp_aggregate_cols(true, 1, 1e-6, NULL, sex, hours, race, age) FROM cols_rows$$);
-- dp_aggregate on encoded rows: a numeric coordinate's NaN is its NULL (skipped), a level
-- coordinate's NaN an error (encode_features_missing never gives one)
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.dp_aggregate(ARRAY[1, 0, 0, 'NaN', 1, 0, 0, 0, 0.5]::float8[], true, 1, 1e-6, (SELECT o FROM cols_opt))$$);
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.dp_aggregate(ARRAY['NaN', 0, 0, 0.5, 1, 0, 0, 0, 0.5]::float8[], true, 1, 1e-6, (SELECT o FROM cols_opt))$$);
-- options that change between rows: the second row's layout reads 2 coordinates, rows have 1
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.dp_aggregate(ARRAY[0.5]::float8[], true, 1, 1e-6,
    jsonb_build_object('layout', CASE WHEN i = 1
        THEN '{"encoding": [{"column": "v", "lo": 0, "hi": 1}], "group_by": [], "what": [{"stat": "count"}, {"stat": "sum", "column": "v"}]}'::jsonb
        ELSE '{"encoding": [{"column": "v", "lo": 0, "hi": 1}, {"column": "w", "lo": 0, "hi": 1}], "group_by": [], "what": [{"stat": "count"}, {"stat": "sum", "column": "w"}]}'::jsonb END))
  FROM generate_series(1, 2) i$$);
