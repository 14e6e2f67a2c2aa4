-- a categorical value's level is its declared level's index by byte equality (length and
-- every byte; no collation), a repeated level's first index, else "other" (the last slot,
-- as NULL): levels that are prefixes of each other, 0 to 36 bytes, equal but in the middle
-- of a long level, non-ASCII (a precomposed é is not e and a combining accent).  The same
-- through encode_features (train's rows) and dp_synthesize_cols (the synthesizer's scan).
CREATE TEMP TABLE lv (i int, v text);
INSERT INTO lv VALUES (1, ''), (2, 'a'), (3, 'ab'), (4, 'abc'), (5, 'abcd'), (6, 'abcdefg'),
  (7, 'abcdefgh'), (8, 'abcdefghi'), (9, 'abcdefghijklmnop'), (10, 'abcdefghijklmnopq'),
  (11, 'abcdefgh-middle-1-ijklmnop0123'), (12, 'abcdefgh-middle-2-ijklmnop0123'),
  (13, 'é'), (14, 'Ünïcödé'), (15, 'a'), (16, 'A'), (17, 'a '), (18, ' a'),
  (19, 'abcdefghijklmno'), (20, 'abcdefghijklmnopqr'), (21, 'abcdefgh-middle-3-ijklmnop0123'),
  (22, 'e' || U&'\0301'), (23, NULL), (24, 'ba'), (25, 'abce'), (26, 'abcdefgI'),
  (27, 'abcdefghijklmnoP'), (28, 'bbcdefghijklmnopq'), (29, 'abcdefghijklmnopQ');
\set enc '[{"column": "v", "levels": ["", "a", "ab", "abc", "abcd", "abcdefg", "abcdefgh", "abcdefghi", "abcdefghijklmnop", "abcdefghijklmnopq", "abcdefgh-middle-1-ijklmnop0123", "abcdefgh-middle-2-ijklmnop0123", "é", "Ünïcödé", "a"]}]'
-- the 1 of the 16 slots (15 levels, then "other"), by value
SELECT i, v, array_position(dpobj.encode_features(:'enc', ARRAY[v], '{}'::float8[]), 1) AS slot
  FROM lv ORDER BY i;
-- the synthesizer's scan counts the same levels (a repeated level is refused as a domain:
-- the first 14 here): at this epsilon its model holds each level's count, so 29 000
-- synthetic rows give each about 1 000 a row (the "other" level comes back NULL)
SET dpobj.seed = 1;
CREATE TEMP TABLE lvm AS
SELECT dpobj.dp_synthesize_cols(true, 1e6, 1e-6,
         jsonb_build_object('domains', (:'enc'::jsonb #- '{0,levels,14}')), v) m
  FROM lv;
SELECT (s.r->>'v') COLLATE "C" AS v, round(count(*) / 1000.0) AS rows
  FROM lvm, dpobj.sample(lvm.m, 29000) s(r) GROUP BY 1 ORDER BY 1 NULLS LAST;
RESET dpobj.seed;
