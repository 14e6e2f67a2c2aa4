-- dpobj.numeric_feature(x) (src/protected/numfeature.c), the float8 of a numeric
-- feature in train()'s sealed query, against the expression it stands for,
--   CASE WHEN abs(x) >= 1e300 THEN NULL WHEN abs(x) < 1e-300 THEN 0 ELSE x::float8 END,
-- bit for bit (float8send), on about 230 000 numerics: decimals of every scale, random
-- digit strings of 1 to 45 digits with exponents around the fast path (|e| <= 22) and
-- around the range's edges (1e-300, 1e300), both header forms (short and long) and
-- both varlena forms (from the table: packed; computed: a 4-byte header), long and
-- compressed values, ties, NaN and the infinities.
CREATE TEMP TABLE nf (x numeric);
CREATE FUNCTION pg_temp.expected(x numeric) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN pg_catalog.abs(x) OPERATOR(pg_catalog.>=) 1e300::pg_catalog.numeric THEN NULL
              WHEN pg_catalog.abs(x) OPERATOR(pg_catalog.<) 1e-300::pg_catalog.numeric THEN 0::pg_catalog.float8
              ELSE x::pg_catalog.float8 END
$$;
SELECT setseed(0.25);
-- decimals of every scale: round(u * 10^k, s), u uniform in (-0.5, 0.5)
INSERT INTO nf SELECT round(((random() - 0.5) * 10 ^ k)::numeric, s)
  FROM generate_series(-6, 24) k, generate_series(0, 24) s, generate_series(1, 80) r;
-- random digit strings: d digits times 10^e, e near the fast path's range (and trailing zeros)
INSERT INTO nf SELECT (sgn || substr(ds, 1, d) || zeros || 'e' || e)::numeric
  FROM (SELECT CASE WHEN random() < 0.5 THEN '-' ELSE '' END AS sgn,
               lpad(floor(random() * 1e9)::bigint::text, 9, '0') ||
               lpad(floor(random() * 1e9)::bigint::text, 9, '0') ||
               lpad(floor(random() * 1e9)::bigint::text, 9, '0') AS ds,
               1 + floor(random() * 22)::int AS d,
               repeat('0', floor(random() * 3)::int * floor(random() * 4)::int) AS zeros,
               floor(random() * 70)::int - 35 AS e
          FROM generate_series(1, 100000)) s;
-- and e anywhere from -360 to 360, up to 45 digits (long headers beyond weight +-63)
INSERT INTO nf SELECT (sgn || substr(ds, 1, d) || 'e' || e)::numeric
  FROM (SELECT CASE WHEN random() < 0.5 THEN '-' ELSE '' END AS sgn,
               lpad(floor(random() * 1e9)::bigint::text, 9, '0') ||
               lpad(floor(random() * 1e9)::bigint::text, 9, '0') ||
               lpad(floor(random() * 1e9)::bigint::text, 9, '0') ||
               lpad(floor(random() * 1e9)::bigint::text, 9, '0') ||
               lpad(floor(random() * 1e9)::bigint::text, 9, '0') AS ds,
               1 + floor(random() * 45)::int AS d,
               floor(random() * 720)::int - 360 AS e
          FROM generate_series(1, 60000)) s;
-- just below and at the edges: 0.99..9e300, 1e300, 1.00..01e300; 9.99..9e-301, 1e-300
INSERT INTO nf SELECT (sgn || m || 'e' || (e - length(m) + 1))::numeric
  FROM (VALUES (''), ('-')) v(sgn),
       (VALUES (300), (-300), (-301), (299)) w(e),
       LATERAL (SELECT repeat('9', k) FROM generate_series(1, 40) k
                UNION ALL SELECT '1' || repeat('0', k) || '1' FROM generate_series(0, 40) k
                UNION ALL SELECT '1' || repeat('0', k) FROM generate_series(0, 40) k) z(m);
-- display scales beyond the short header's 63
INSERT INTO nf SELECT round(x, 64 + floor(random() * 40)::int) FROM nf
 WHERE abs(x) BETWEEN 1e-20 AND 1e20 LIMIT 5000;
-- long and compressible values (TOAST-compressed in the table)
INSERT INTO nf SELECT (repeat('1234567', k) || 'e' || (-7 * k + p))::numeric
  FROM generate_series(1, 600, 37) k, generate_series(-20, 20, 5) p;
-- ties and named values
CREATE TEMP TABLE named (t text);
INSERT INTO named VALUES ('0.1'), ('0.2'), ('0.3'), ('-0.5'), ('1.5'), ('1e22'), ('1e23'),
  ('-1e23'), ('9007199254740991'), ('9007199254740992'), ('9007199254740993'),
  ('-9007199254740993'), ('9007199254740995'), ('18014398509481990'), ('1e-21'),
  ('123456789012345678901234567890'), ('1e-300'), ('-1e-300'),
  ('9.99999999999999999999e-301'), ('1e-301'), ('1e300'), ('-1e300'),
  ('9.99999999999999999999e299'), ('1.7976931348623157e308'), ('2.2250738585072014e-308'),
  ('5e-324'), ('0'), ('-0.000'), ('NaN'), ('Infinity'), ('-Infinity');
INSERT INTO nf SELECT t::numeric FROM named;

SELECT count(*) > 220000 AS many,
       count(*) FILTER (WHERE float8send(dpobj.numeric_feature(x)) IS DISTINCT FROM
                              float8send(pg_temp.expected(x))) AS mismatches,
       count(*) FILTER (WHERE dpobj.numeric_feature(x) IS NULL) > 1000 AS some_dropped,
       count(*) FILTER (WHERE dpobj.numeric_feature(x) = 0 AND x <> 0) > 1000 AS some_tiny
  FROM nf;
-- the same values computed (a 4-byte varlena header, not the table's packed one)
SELECT count(*) FILTER (WHERE float8send(dpobj.numeric_feature(x + 0)) IS DISTINCT FROM
                              float8send(pg_temp.expected(x + 0))) AS mismatches_computed
  FROM nf;
-- the named values, one by one
SELECT t AS x, dpobj.numeric_feature(t::numeric) AS feature,
       float8send(dpobj.numeric_feature(t::numeric)) IS NOT DISTINCT FROM
       float8send(pg_temp.expected(t::numeric)) AS same
  FROM named;
-- a NULL stays NULL (STRICT)
SELECT dpobj.numeric_feature(NULL) IS NULL AS null_in_null_out;
