-- encode_features and dp_aggregate parse their jsonb argument once per call site when it
-- is a constant or a query parameter; a per-row argument is still read on every row.
-- a per-row encoding: each row encoded with its own
SELECT i, dpobj.encode_features(enc::jsonb, ARRAY[c], ARRAY[x]) AS encoded
  FROM (VALUES (1, '[{"column": "c", "levels": ["a", "b"]}, {"column": "x", "lo": 0, "hi": 10}]', 'b', 5.0::float8),
               (2, '[{"column": "c", "levels": ["b"]}, {"column": "x", "lo": 0, "hi": 20}]', 'b', 5.0),
               (3, '[{"column": "c", "levels": ["a", "b", "z"]}, {"column": "x", "lo": -10, "hi": 10}]', 'z', 5.0)) v(i, enc, c, x)
 ORDER BY i;
-- a constant encoding: NULL numeric elements (the row has no features), NaN, a NULL level
SELECT i, dpobj.encode_features('[{"column": "c", "levels": ["a"]}, {"column": "x", "lo": 0, "hi": 10}, {"column": "y", "lo": 0, "hi": 1}]',
                                ARRAY[c], ARRAY[x, y]) AS encoded
  FROM (VALUES (1, 'a', 2.5::float8, 1.0::float8), (2, NULL, 12, 0), (3, 'a', NULL, 0.5),
               (4, 'q', 'NaN', 0), (5, 'a', 0, -1)) v(i, c, x, y)
 ORDER BY i;
-- a prepared statement: the encoding a parameter, the same on every row
PREPARE enc(jsonb) AS
  SELECT i, dpobj.encode_features($1, ARRAY[c], '{}'::float8[]) AS encoded
    FROM (VALUES (1, 'a'), (2, 'b'), (3, NULL)) v(i, c) ORDER BY i;
EXECUTE enc('[{"column": "c", "levels": ["a", "b"]}]');
EXECUTE enc('[{"column": "c", "levels": ["b"]}]');
DEALLOCATE enc;
-- dp_aggregate with per-row options: each row counted in its own layout's bins (x's for the
-- first row, y's for the others; epsilon this large leaves the counts exact)
SET dpobj.seed = 3;
SELECT r->'values' AS vals
  FROM (SELECT dpobj.dp_aggregate(dpobj.encode_features(enc, '{}'::text[], ARRAY[x, y]), true, 1e6, 1e-6,
                                  jsonb_build_object('layout', jsonb_build_object('encoding', enc, 'group_by', '[]'::jsonb,
                                    'what', jsonb_build_array(jsonb_build_object('stat', 'histogram', 'column', col, 'bins', 2))))) r
          FROM (SELECT i, col, 1.0::float8 AS x, 9.0::float8 AS y,
                       '[{"column": "x", "lo": 0, "hi": 10}, {"column": "y", "lo": 0, "hi": 10}]'::jsonb AS enc
                  FROM (VALUES (1, 'x'), (2, 'y'), (3, 'y')) v(i, col) ORDER BY i) s) t;
RESET dpobj.seed;
