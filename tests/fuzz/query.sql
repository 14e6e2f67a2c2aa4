-- tests/fuzz/query.sql — the tables of the private-query fuzz (tests/fuzz/query.py), run as a
-- superuser after setup.sql: fz.qbase, rows with every nasty value a column of its type can
-- hold (NULL, NaN, +-Infinity, huge and tiny numerics, extreme dates and timestamps, empty,
-- very long and non-ASCII text, text under a nondeterministic collation, values outside the
-- declared bounds and levels), and four
-- pairs of neighbouring protected tables fz.qa<k> / fz.qb<k>: the base rows, and the base
-- rows with one nasty row more (a different one in each pair); a fifth pair whose privacy
-- unit is s (its nasty texts, NULL, 3 rows a unit), for count(DISTINCT s), each in a budget
-- domain with fz.qj<t>5 (unit ju: a row per row of fz.<t>5, one unit apart too).  The analyst fz_qanalyst
-- holds a budget on each and may read none but fz.qlk (a lookup table); fz_qown is a schema of the analyst's with a
-- function and an operator of their own (never to be compiled).
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'fz_qanalyst') THEN
    CREATE ROLE fz_qanalyst NOLOGIN;
  END IF;
END $$;
-- a nondeterministic collation (ICU's, case-insensitive; "C" without ICU)
DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM pg_collation WHERE collprovider = 'i') THEN
    CREATE COLLATION fz.qci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
  ELSE
    CREATE COLLATION fz.qci FROM "C";
  END IF;
END $$;
CREATE TABLE fz.qbase (id int NOT NULL, g text, k int, x float8, n numeric, m bigint, f4 real,
                       d date, ts timestamp, tz timestamptz, s text, sc text COLLATE "C", b boolean,
                       ci text COLLATE fz.qci, h smallint, vc varchar(8), bp char(4));
INSERT INTO fz.qbase
SELECT i, (ARRAY['a', 'b', 'c'])[1 + i % 3], i % 3, ((i % 21) - 10) / 3.0, (i % 101)::numeric / 7,
       i % 1000, (i % 13)::real, date '2024-01-01' + i, timestamp '2024-01-01' + i * interval '37 min',
       timestamptz '2024-01-01 00:00+00' + i * interval '1 h', 'v' || (i % 17), 's' || (i % 5), i % 2 = 0,
       (ARRAY['a', 'A', 'b', 'B', 'ß'])[1 + i % 5], i % 100, 'w' || (i % 7), 'c' || (i % 3)
  FROM generate_series(1, 300) i;
-- the nasty rows (ids 1001...), each column at an extreme in turn
INSERT INTO fz.qbase VALUES
  (1001, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (1002, '', 7, 'NaN', 'NaN', 9223372036854775807, 'NaN', 'infinity', 'infinity', 'infinity', '', '', true, '', 32767, '', ''),
  (1003, 'zz', -1, 'Infinity', 'Infinity', -9223372036854775808, 'Infinity', '-infinity', '-infinity', '-infinity', repeat('é', 5000), repeat('x', 100000), false, repeat('A', 3000), -32768, 'zzzzzzzz', 'zzzz'),
  (1004, 'é', 2147483647, '-Infinity', '-Infinity', 0, '-Infinity', '4713-01-01 BC', '4713-01-01 00:00 BC', '4713-01-01 00:00+00 BC', E'\u00e9\u4e2d\U0001F600', E'\u00e9', NULL, E'\u00e9', 0, E'\u00e9', E'\u00e9'),
  (1005, repeat('a', 3000), -2147483648, 1e308, ('1' || repeat('0', 1000))::numeric, 1, 3.4e38, '5874897-12-31', '294276-12-31 23:59:59', '294276-12-31 23:59:59+00', repeat('long', 30000), 'ZZ', true, 'SS', 1, 'a b', 'a  '),
  (1006, 'A', 0, -1e308, ('0.' || repeat('0', 400) || '1')::numeric, -1, -3.4e38, '2000-02-29', '2000-02-29 12:00', '2000-02-29 12:00+00', E'a\tb\nc', 'a%_', false, 'ss', -1, E'\t', ' '),
  (1007, 'b', 1, 5e-324, -('1' || repeat('0', 1000))::numeric, 123456789012, 1e-45, '1970-01-01', '1970-01-01 00:00', '1970-01-01 00:00+00', '%', '_', true, E'\U0001F600', 100, '%', '%'),
  (1008, 'c', 2, -0.0, ('9' || repeat('9', 130000))::numeric, -999999999999, -0.0, '0001-01-01', '0001-01-01 00:00', '0001-01-01 00:00+00', 'İı', 'Straße', NULL, 'İ', 101, '_', '_');

-- the pairs: fz.qb<k> the base rows, fz.qa<k> those and the k-th extra row
CREATE TABLE fz.qextra (k int, r fz.qbase);
INSERT INTO fz.qextra VALUES
  (1, ROW(2001, 'a', 1, 'NaN', 'NaN', 9223372036854775807, 'NaN', 'infinity', 'infinity', 'infinity', repeat('q', 200000), '', NULL, 'A', 32767, '', 'a')::fz.qbase),
  (2, ROW(2002, 'zz', 9, 'Infinity', ('1' || repeat('0', 1000))::numeric, -9223372036854775808, 'Infinity', '5874897-12-31', '294276-12-31 23:59:59', '294276-12-31 23:59:59+00', '', E'\U0001F600', true, repeat('ß', 4000), -32768, E'\U0001F600', '')::fz.qbase),
  (3, ROW(2003, NULL, NULL, -1e308, ('0.' || repeat('0', 400) || '1')::numeric, 0, -3.4e38, '4713-01-01 BC', '4713-01-01 00:00 BC', '-infinity', NULL, NULL, false, NULL, NULL, NULL, NULL)::fz.qbase),
  (4, ROW(2004, 'b', 2, 1e300, -('1' || repeat('0', 900))::numeric, 1000000000000, 1e-45, '-infinity', '-infinity', '4713-01-01 00:00+00 BC', repeat('é', 40000), 'ZZ', NULL, 'SS', 0, 'zz', 'zz')::fz.qbase),
  (5, ROW(2005, 'c', 0, 2, 3, 4, 1, '2024-01-01', '2024-01-01', '2024-01-01', 'v3', 'a', true, 'a', 5, 'w', 'c')::fz.qbase);
DO $$
DECLARE
  k int;
  t text;
BEGIN
  FOR k IN 1..5 LOOP
    FOREACH t IN ARRAY ARRAY['qa', 'qb'] LOOP
      EXECUTE format('CREATE TABLE fz.%s%s (LIKE fz.qbase INCLUDING ALL)', t, k);
      EXECUTE format('INSERT INTO fz.%s%s SELECT * FROM fz.qbase', t, k);
      IF t = 'qa' THEN
        EXECUTE format('INSERT INTO fz.qa%s SELECT (r).* FROM fz.qextra WHERE k = %s', k, k);
      END IF;
      EXECUTE format('CREATE INDEX ON fz.%s%s (id)', t, k);
      PERFORM dpobj.declare_domain(format('fz.%s%s', t, k), 'g', ARRAY['a', 'b', 'c']);
      PERFORM dpobj.declare_domain(format('fz.%s%s', t, k), 'k', ARRAY['0', '1', '2']);
      PERFORM dpobj.declare_domain(format('fz.%s%s', t, k), 'b', ARRAY['true', 'false']);
      PERFORM dpobj.declare_domain(format('fz.%s%s', t, k), 'x', -10, 10);
      PERFORM dpobj.declare_domain(format('fz.%s%s', t, k), 'n', 0, 100);
      PERFORM dpobj.declare_domain(format('fz.%s%s', t, k), 'm', 0, 1000);
      PERFORM dpobj.declare_domain(format('fz.%s%s', t, k), 'f4', -5, 5);
      PERFORM dpobj.declare_domain(format('fz.%s%s', t, k), 'h', 0, 100);
      PERFORM dpobj.declare_domain(format('fz.%s%s', t, k), 'ci', ARRAY['a', 'b']);
      IF k = 5 THEN
        -- in a budget domain with fz.qj<t>5, its rows' units (joined on the unit)
        PERFORM dpobj.create_budget_domain(format('fz_qd_%s', t));
        PERFORM dpobj.protect(format('fz.%s%s', t, k), privacy_unit => 's', max_rows_per_unit => 3,
                              budget_domain => format('fz_qd_%s', t));
        EXECUTE format('CREATE TABLE fz.qj%s5 AS SELECT s AS ju, (id %% 7)::float8 AS jw FROM fz.%s5', t, t);
        PERFORM dpobj.protect(format('fz.qj%s5', t), privacy_unit => 'ju', max_rows_per_unit => 2,
                              budget_domain => format('fz_qd_%s', t));
        PERFORM dpobj.declare_domain(format('fz.qj%s5', t), 'jw', 0, 6);
        PERFORM dpobj.grant_domain_budget(format('fz_qd_%s', t), 'fz_qanalyst', 1e12, 0.5);
      ELSE
        PERFORM dpobj.protect(format('fz.%s%s', t, k));
        PERFORM dpobj.grant_budget(format('fz.%s%s', t, k), 'fz_qanalyst', 1e12, 0.5);
      END IF;
      EXECUTE format('ANALYZE fz.%s%s', t, k);
    END LOOP;
  END LOOP;
END $$;
GRANT USAGE ON SCHEMA fz TO fz_qanalyst;
-- a public lookup table the analyst may read, keyed like k (src/protected/lookups.c)
CREATE TABLE fz.qlk (lk int PRIMARY KEY, lname text, lw float8);
INSERT INTO fz.qlk VALUES (0, 'zero', 0.5), (1, NULL, -2), (2, repeat('é', 100), NULL), (7, '', 1e300);
GRANT SELECT ON fz.qlk TO fz_qanalyst;
-- a second lookup joined on fz.qlk's lname (a chain: FROM t JOIN fz.qlk ... JOIN fz.qlk2 ON ln = lname)
CREATE TABLE fz.qlk2 (ln text PRIMARY KEY, lz int);
INSERT INTO fz.qlk2 VALUES ('zero', 1), ('', NULL), (repeat('é', 100), -5);
GRANT SELECT ON fz.qlk2 TO fz_qanalyst;
CREATE SCHEMA fz_qown AUTHORIZATION fz_qanalyst;
SET ROLE fz_qanalyst;
CREATE FUNCTION fz_qown.twice(float8) RETURNS float8 IMMUTABLE LANGUAGE sql AS 'SELECT $1 * 2';
CREATE FUNCTION fz_qown.plus(float8, float8) RETURNS float8 IMMUTABLE LANGUAGE sql AS 'SELECT $1 + $2';
CREATE OPERATOR fz_qown.+# (LEFTARG = float8, RIGHTARG = float8, FUNCTION = fz_qown.plus);
RESET ROLE;
