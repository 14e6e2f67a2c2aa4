-- dpobj.ledger: every run is charged before its noise is drawn, in its own
-- committed transaction, so the charge survives ROLLBACK and later errors;
-- failures are charged too; the ledger is append-only; each role sees its
-- own rows.
SET dpobj.seed = 11;
CREATE TABLE pts AS
SELECT ARRAY[(i % 7) / 4.0 - 0.75, (i % 5) / 4.0 - 0.5, 1]::float8[] AS f,
       (i % 7) > 3 AS y
  FROM generate_series(1, 60) i;

CREATE FUNCTION pg_temp.ledger_summary()
RETURNS TABLE (n bigint, mechanism text, epsilon numeric, delta numeric,
               relation text, outcome text, detail text, rolname name)
LANGUAGE sql AS $$
  SELECT count(*), mechanism, epsilon, delta, relation, outcome, detail, rolname
    FROM dpobj.ledger GROUP BY 2, 3, 4, 5, 6, 7, 8 ORDER BY 3, 4, 6, 8, 5, 7
$$;

-- a released run
SELECT (dpobj.dp_halfspace(f, y, 0.5, 1e-5)).weights FROM pts;
SELECT * FROM pg_temp.ledger_summary();
SELECT count(*) AS finished FROM dpobj.ledger
 WHERE finished_at IS NOT NULL AND finished_at >= charged_at;

-- epsilon and delta are recorded exactly as numeric: 3 x 0.1 = 0.3
SELECT (dpobj.dp_halfspace(f, y, 0.1, 1e-5)).weights FROM pts;
SELECT (dpobj.dp_halfspace(f, y, 0.1, 1e-5)).weights FROM pts;
SELECT (dpobj.dp_halfspace(f, y, 0.1, 1e-5)).weights FROM pts;
SELECT sum(epsilon) AS total_epsilon, sum(epsilon) = 0.3 AS exact
  FROM dpobj.ledger WHERE epsilon = 0.1;

-- ROLLBACK does not give the budget back
BEGIN;
SELECT (dpobj.dp_halfspace(f, y, 0.25, 1e-5)).weights FROM pts;
ROLLBACK;
-- nor does an error later in the same statement (after the model exists)
SELECT (m).weights, 1 / (0 * cardinality((m).weights)) AS boom
  FROM (SELECT dpobj.dp_halfspace(f, y, 0.25, 1e-5) AS m FROM pts) s;
SELECT count(*) AS charged_at_eps_025 FROM dpobj.ledger WHERE epsilon = 0.25;
-- the outcomes are true: the rolled-back SELECT completed and returned its
-- model ('released'); the statement that failed after the model existed
-- returned none ('aborted')
SELECT outcome FROM dpobj.ledger WHERE epsilon = 0.25 ORDER BY id;

-- a solve that cannot be certified in time: error DP001, no model, charged.
-- (0.1 ms: GLPK's MIP on a few hundred distinct continuous rows takes
-- longer, and the exact search gets what is left, nothing.)
SELECT setseed(0.5);
CREATE TABLE hard AS
SELECT ARRAY[(floor(random() * 129) - 64) / 64.0, (floor(random() * 129) - 64) / 64.0, 1]::float8[] AS f,
       random() < 0.5 AS y
  FROM generate_series(1, 500);
SELECT dpobj.dp_halfspace(f, y, 2, 1e-5, '{"oracle": "mip", "time_limit": 0.0001}') FROM hard;
SELECT outcome, detail, relation FROM dpobj.ledger WHERE epsilon = 2;

-- an ordinary role: may train on tables it can read; sees only its rows
CREATE ROLE regress_dpobj_analyst;
GRANT SELECT ON pts TO regress_dpobj_analyst;
SET ROLE regress_dpobj_analyst;
SELECT (dpobj.dp_halfspace(f, y, 0.75, 1e-5)).weights FROM pts;
SELECT rolname, epsilon, outcome FROM dpobj.ledger ORDER BY id;
-- the seed stays the superuser's setting
SET dpobj.seed = 12;
-- no writes for anyone but dpobj itself
INSERT INTO dpobj.ledger (rolname, mechanism, epsilon, delta) VALUES ('x', 'opdisc', 1, 0);
UPDATE dpobj.ledger SET epsilon = 0.001;
DELETE FROM dpobj.ledger;
TRUNCATE dpobj.ledger;
RESET ROLE;

-- the ledger is append-only even for a superuser
DELETE FROM dpobj.ledger;
UPDATE dpobj.ledger SET epsilon = 0.001 WHERE epsilon = 0.5;
UPDATE dpobj.ledger SET outcome = 'released' WHERE epsilon = 2;
TRUNCATE dpobj.ledger;

SELECT * FROM pg_temp.ledger_summary();

REVOKE SELECT ON pts FROM regress_dpobj_analyst;
DROP ROLE regress_dpobj_analyst;
RESET dpobj.seed;
