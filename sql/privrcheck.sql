-- "R": "private" of dp_logistic: every candidate R-hat's calibration is checked before the
-- charge (docs/PRIVACY.md, "Private norm bound"; Objective-Gauss's without its numeric
-- search, whose start and range decide whether it can fail), so inputs for which a
-- candidate cannot be calibrated are refused before anything is charged:
--   * Objective-Gauss at epsilon 1e-8, Output-Gauss at 1e-5: refused with the error a
--     declared R would get, and no ledger row;
--   * the same table at an ordinary epsilon releases, with one ledger row each (that
--     the calibration is the declared R-hat's: privbounds).
CREATE SCHEMA regress_prc;
CREATE TABLE regress_prc.t AS
  SELECT ARRAY[i / 10.0, 1 - i / 40.0]::float8[] AS x, (i % 3 = 0) AS y
    FROM generate_series(1, 40) i;
SELECT e.sqlstate, e.message
  FROM regress.err($$SELECT dpobj.dp_logistic(x, y, 1e-8, 1e-6, '{"R": 1}') FROM regress_prc.t$$) e;
SELECT e.sqlstate, e.message
  FROM regress.err($$SELECT dpobj.dp_logistic(x, y, 1e-8, 1e-6, '{"R": "private"}') FROM regress_prc.t$$) e;
SELECT e.sqlstate, e.message
  FROM regress.err($$SELECT dpobj.dp_logistic(x, y, 1e-5, 1e-6, '{"R": "private", "method": "output"}') FROM regress_prc.t$$) e;
SELECT count(*) AS charged FROM dpobj.ledger WHERE relation = 'regress_prc.t';
SELECT (m).params->>'method' AS method, (m).params->>'R_source' AS source,
       ((m).params->>'sigma')::float8 > 0 AS has_sigma
  FROM (VALUES ('{"R": "private", "intercept": false}'::jsonb),
               ('{"R": "private", "rows_per_unit": 2}')) v(o),
  LATERAL (SELECT dpobj.dp_logistic(x, y, 2, 1e-6, o) AS m FROM regress_prc.t) r;
SELECT count(*) AS charged FROM dpobj.ledger WHERE relation = 'regress_prc.t';
DROP SCHEMA regress_prc CASCADE;
