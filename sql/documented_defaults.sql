-- The defaults that docs/REFERENCE.md (compiled into dpobj.help()) states are the code's:
-- every setting's default and who may set it, every literal option default of every
-- mechanism.  A default changed on one side only makes this test fail.

-- settings: the table of help('settings'), one row per documented parameter
CREATE TEMP TABLE doc_settings AS
SELECT m[1] AS name, l AS line,
       coalesce(substring(l FROM '[(;] ?default ([^;),:]+)'),
                substring(l FROM '\| ([^ |]+) \(default\)')) AS doc_default,
       CASE WHEN l LIKE '%| superuser only |%' THEN 'superuser'
            WHEN l LIKE '%| postgresql.conf, restart |%' THEN 'postmaster'
            WHEN l LIKE '%| postgresql.conf |%' THEN 'sighup'
            WHEN l LIKE '%| any user |%' THEN 'user' END AS doc_context
  FROM dpobj.help('settings') l,
       regexp_matches(l, '`(dpobj\.[a-z_]+)`', 'g') m;

-- as many settings documented as exist (the listing below names any missing one), and
-- the table was read at all
SELECT (SELECT count(*) FROM doc_settings) =
       (SELECT count(*) FROM pg_settings WHERE name LIKE 'dpobj.%') AS as_many,
       (SELECT count(*) FROM doc_settings) >= 12 AS table_read;

-- a documented default in the setting's unit ('10s' for a parameter kept in ms is 10000,
-- '256MB' for one kept in kB is 262144)
CREATE TEMP TABLE doc_vs_code AS
SELECT s.name, d.doc_default, s.boot_val, s.unit, d.doc_context, s.context,
       CASE
         WHEN d.doc_default ~ '^-?[0-9.]+(ms|s|min)?$' AND s.unit IN ('ms', 's') THEN
           (regexp_replace(d.doc_default, '[a-z]+$', '')::numeric
             * CASE coalesce(substring(d.doc_default FROM '[a-z]+$'), s.unit)
                 WHEN 'ms' THEN 1 WHEN 's' THEN 1000 WHEN 'min' THEN 60000 END
             / CASE s.unit WHEN 'ms' THEN 1 ELSE 1000 END)::text
         WHEN d.doc_default ~ '^[0-9]+(kB|MB|GB)$' AND s.unit = 'kB' THEN
           (regexp_replace(d.doc_default, '[a-zA-Z]+$', '')::numeric
             * CASE substring(d.doc_default FROM '[a-zA-Z]+$')
                 WHEN 'kB' THEN 1 WHEN 'MB' THEN 1024 WHEN 'GB' THEN 1048576 END)::text
         ELSE d.doc_default
       END AS doc_in_unit
  FROM pg_settings s LEFT JOIN doc_settings d USING (name)
 WHERE s.name LIKE 'dpobj.%';

-- every dpobj setting is documented, with the code's default (or none where the code's is
-- empty) and the code's context; this lists the ones that are not (none)
SELECT name, doc_default, boot_val, unit, doc_context, context
  FROM doc_vs_code
 WHERE doc_context IS DISTINCT FROM context
    OR (boot_val = '' AND doc_default IS NOT NULL)
    OR (boot_val <> '' AND NOT coalesce(
          CASE WHEN doc_in_unit ~ '^-?[0-9.]+$' AND boot_val ~ '^-?[0-9.]+$'
               THEN doc_in_unit::numeric = boot_val::numeric
               ELSE doc_in_unit = boot_val END, false))
 ORDER BY name;

-- options: every literal default of a mechanism's options table (number, "string", true,
-- false; the grid's rules min(d, 4) and floor(sqrt(min(d, D2)))) against the params of a
-- model trained with no such option (d = 4; params hold every option the mechanism used).
-- The grid mechanisms train on d = 9, where the rule (D2 = 4, B = 2) and the paper's
-- grid (D2 = d = 9, B = 3) differ.
CREATE TEMP TABLE pts AS
  SELECT ARRAY[(i % 7) / 7.0, (i % 5) / 5.0, (i % 3) / 3.0, (i % 2) / 2.0]::float8[] AS x,
         i % 3 = 0 AS y
    FROM generate_series(1, 50) i;
CREATE TEMP TABLE pts9 AS
  SELECT ARRAY[(i % 7) / 7.0, (i % 5) / 5.0, (i % 3) / 3.0, (i % 2) / 2.0, (i % 11) / 11.0,
               (i % 13) / 13.0, 0, 0, 0.5]::float8[] AS x,
         i % 3 = 0 AS y
    FROM generate_series(1, 50) i;
CREATE TEMP TABLE trained AS
SELECT 'opdisc' AS mech, (SELECT (dpobj.dp_halfspace(x, y, 1, 1e-6)).params FROM pts9) AS params
UNION ALL SELECT 'rspm', (SELECT (dpobj.dp_halfspace_rspm(x, y, 1, 1e-6)).params FROM pts)
UNION ALL SELECT 'expmech', (SELECT (dpobj.dp_expmech(x, y, 1, 1e-6)).params FROM pts9)
UNION ALL SELECT 'logistic', (SELECT (dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 2}')).params FROM pts)
UNION ALL SELECT 'noisysgd', (SELECT (dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 2}')).params FROM pts)
UNION ALL SELECT 'opsamp', (SELECT (dpobj.dp_opsamp(x, y, 1, 1e-6, '{"R": 2}')).params FROM pts)
UNION ALL SELECT 'passglm', (SELECT (dpobj.dp_passglm(x, y, 1, 1e-6, '{"R": 2}')).params FROM pts);

-- every options-table row of a mechanism's help: "| `opt` | ... | default |", and the rows
-- that refer to another mechanism's ("| `a`, `b` | as for opdisc | as for opdisc |" or
-- "... | as for dp_logistic | as there |"), whose defaults are that mechanism's rows'
CREATE TEMP TABLE doc_direct AS
SELECT t.mech, m[1] AS opt, trim(m[2]) AS doc_default
  FROM trained t, dpobj.help(t.mech) l,
       regexp_matches(l, '^\| `([A-Za-z0-9_]+)` \|.*\| ([^|]+) \|$') m;
CREATE TEMP TABLE doc_referred AS
SELECT t.mech, btrim(o, '`') AS opt, d.doc_default
  FROM trained t, dpobj.help(t.mech) l,
       regexp_matches(l, '^\| ((`[A-Za-z0-9_]+`, )*`[A-Za-z0-9_]+`) \| as for (dp_)?([a-z_]+)[^|]*\| (as for [a-z_]+|as there) \|$') r,
       unnest(string_to_array(r[1], ', ')) o, doc_direct d
 WHERE d.mech = r[4] AND d.opt = btrim(o, '`');
CREATE TEMP TABLE doc_options AS
SELECT t.mech, o.opt, o.doc_default,
       CASE o.doc_default
         WHEN 'floor(sqrt(min(d, D2)))' THEN '2'
         WHEN 'min(d, 4)' THEN '4'
         ELSE trim(both '"' FROM o.doc_default)
       END AS expected,
       t.params ->> o.opt AS in_params
  FROM trained t
  JOIN (SELECT * FROM doc_direct UNION ALL SELECT * FROM doc_referred) o USING (mech)
 WHERE o.doc_default ~ '^(-?[0-9.]+|"[a-z_]+"|true|false|floor\(sqrt\(min\(d, D2\)\)\)|min\(d, 4\))$';

-- options compared per mechanism (an option the model's params do not show -- Huber's h
-- under the logistic loss -- is not compared)
SELECT mech, count(*) FILTER (WHERE in_params IS NOT NULL) AS compared,
       string_agg(opt, ', ' ORDER BY opt) FILTER (WHERE in_params IS NOT NULL) AS options
  FROM doc_options GROUP BY mech ORDER BY mech;

-- documented option defaults the code does not use (none)
SELECT mech, opt, doc_default, in_params
  FROM doc_options
 WHERE in_params IS NOT NULL
   AND in_params IS DISTINCT FROM expected
   AND NOT (in_params ~ '^-?[0-9.e+-]+$' AND expected ~ '^-?[0-9.]+$'
            AND in_params::numeric = expected::numeric)
 ORDER BY mech, opt;

-- the prefix is reserved once the library is loaded (it is: help() ran above): a misspelt
-- setting is refused, not kept as a silent placeholder
SET dpobj.sed = 1;
