-- Changing a table's privacy level under spend (docs/PRIVACY.md "Changing a
-- table's privacy unit"): protect() refuses a row-level protection turned
-- into a unit, or another unit column, while a budget the table's runs are
-- charged to has spend; a new k for the same column passes; unprotect
-- retires the budgets; a domain is not rejoined at another column.  And
-- 'linear' (AdaSSP, SSP) on a unit table, calibrated for k rows.
CREATE SCHEMA regress_uc;
GRANT USAGE ON SCHEMA regress_uc TO PUBLIC;
CREATE ROLE regress_uc_owner;
CREATE ROLE regress_uc_analyst;
GRANT CREATE ON SCHEMA regress_uc TO regress_uc_owner;

SET ROLE regress_uc_owner;
-- 40 persons with 5 visits each
CREATE TABLE regress_uc.visits AS
SELECT 1 + i % 40 AS person, i AS visit, (i % 7) / 4.0 - 0.75 AS a,
       ((i % 5) / 4.0 - 0.5)::float8 AS b, (i % 7) > 3 AS y, (i % 11)::float8 AS z,
       i % 3 AS c
  FROM generate_series(1, 200) i;
REVOKE ALL ON regress_uc.visits FROM PUBLIC;

-- ---- the issue's case: row level, then a unit of k = 5 ---------------------
SELECT dpobj.protect('regress_uc.visits');
SELECT 1 FROM dpobj.grant_budget('regress_uc.visits', 'regress_uc_analyst', 1, 1e-3);
-- no spend yet: any level may be set (and set back)
SELECT dpobj.protect('regress_uc.visits', 'person', 5);
SELECT dpobj.unprotect('regress_uc.visits');
SELECT dpobj.protect('regress_uc.visits');
SELECT 1 FROM dpobj.grant_budget('regress_uc.visits', 'regress_uc_analyst', 1, 1e-3);
SET ROLE regress_uc_analyst;
SELECT (m).mechanism FROM dpobj.train('regress_uc.visits', 'opdisc', ARRAY['a', 'b'], 'y', 0.5, 1e-6) m;
SET ROLE regress_uc_owner;
-- half the budget spent at row level: a person of 5 rows lost up to 5 x 0.5;
-- a unit level would then show 1 spent where 3 were (3x): refused
SELECT * FROM regress.err($$SELECT dpobj.protect('regress_uc.visits', 'person', 5)$$);
SELECT * FROM regress.err($$SELECT dpobj.protect('regress_uc.visits', 'person', 1)$$);
-- nothing changed: still row level, the spend as it was
SELECT privacy_unit, max_rows_per_unit FROM dpobj.protected_tables
 WHERE relid = 'regress_uc.visits'::regclass;
SELECT spent_epsilon FROM dpobj.budgets WHERE relid = 'regress_uc.visits'::regclass;

-- ---- retiring the budgets: unprotect, protect at the new level, grant anew -
SELECT dpobj.unprotect('regress_uc.visits');
SELECT count(*) AS budgets_left FROM dpobj.budgets WHERE relid = 'regress_uc.visits'::regclass;
RESET ROLE;
SELECT count(*) AS ledger_kept, min(privacy_unit) IS NULL AS row_level
  FROM dpobj.ledger WHERE relation = 'regress_uc.visits';
SET ROLE regress_uc_owner;
SELECT dpobj.protect('regress_uc.visits', 'person', 1);
SELECT 1 FROM dpobj.grant_budget('regress_uc.visits', 'regress_uc_analyst', 10, 1e-3);
SET ROLE regress_uc_analyst;
SELECT (m).mechanism FROM dpobj.train('regress_uc.visits', 'opdisc', ARRAY['a', 'b'], 'y', 0.5, 1e-6) m;

-- ---- the same column, another k: allowed under spend -----------------------
SET ROLE regress_uc_owner;
SELECT dpobj.protect('regress_uc.visits', 'person', 5);
SELECT dpobj.protect('regress_uc.visits', 'person', 2);
SELECT privacy_unit, max_rows_per_unit FROM dpobj.protected_tables
 WHERE relid = 'regress_uc.visits'::regclass;
-- another column: refused, naming the old one; nothing changed
SELECT * FROM regress.err($$SELECT dpobj.protect('regress_uc.visits', 'visit', 1)$$);
SELECT privacy_unit, max_rows_per_unit FROM dpobj.protected_tables
 WHERE relid = 'regress_uc.visits'::regclass;
-- a renamed column is the same column
ALTER TABLE regress_uc.visits RENAME COLUMN person TO pid;
SELECT dpobj.protect('regress_uc.visits', 'pid', 2);
ALTER TABLE regress_uc.visits RENAME COLUMN pid TO person;
SELECT dpobj.protect('regress_uc.visits', 'person', 2);
-- a revoked budget keeps its spend: still refused
SELECT 1 FROM dpobj.revoke_budget('regress_uc.visits', 'regress_uc_analyst');
SELECT * FROM regress.err($$SELECT dpobj.protect('regress_uc.visits', 'visit', 1)$$);
RESET ROLE;
-- a dpobj_admin member is refused alike
CREATE ROLE regress_uc_admin;
GRANT dpobj_admin TO regress_uc_admin;
SET ROLE regress_uc_admin;
SELECT * FROM regress.err($$SELECT dpobj.protect('regress_uc.visits', 'visit', 1)$$);
RESET ROLE;

-- ---- budget domains ---------------------------------------------------------
SET ROLE regress_uc_owner;
CREATE TABLE regress_uc.orders AS SELECT * FROM regress_uc.visits;
REVOKE ALL ON regress_uc.orders FROM PUBLIC;
SELECT dpobj.create_budget_domain('regress_uc_people');
SELECT dpobj.protect('regress_uc.orders', 'person', 2, 'regress_uc_people');
SELECT 1 FROM dpobj.grant_domain_budget('regress_uc_people', 'regress_uc_analyst', 10, 1e-3);
SET ROLE regress_uc_analyst;
SELECT (m).mechanism FROM dpobj.train('regress_uc.orders', 'opdisc', ARRAY['a', 'b'], 'y', 0.5, 1e-6) m;
SET ROLE regress_uc_owner;
-- the domain's budget has spend: refused, k still free
SELECT * FROM regress.err($$SELECT dpobj.protect('regress_uc.orders', 'visit', 1)$$);
SELECT dpobj.protect('regress_uc.orders', 'person', 3);
-- out of the domain, then another column: no budget of its own has spend
SELECT dpobj.set_budget_domain('regress_uc.orders', NULL);
SELECT dpobj.protect('regress_uc.orders', 'visit', 1);
-- but the domain holds this table's spend at column "person": no rejoin
SELECT * FROM regress.err($$SELECT dpobj.set_budget_domain('regress_uc.orders', 'regress_uc_people')$$);
SELECT * FROM regress.err($$SELECT dpobj.protect('regress_uc.orders', 'visit', 1, 'regress_uc_people')$$);
-- the same way round through unprotect
SELECT dpobj.unprotect('regress_uc.orders');
SELECT dpobj.protect('regress_uc.orders', 'visit', 1);
SELECT * FROM regress.err($$SELECT dpobj.set_budget_domain('regress_uc.orders', 'regress_uc_people')$$);
-- back at "person" (any k) it rejoins
SELECT dpobj.protect('regress_uc.orders', 'person', 4);
SELECT dpobj.set_budget_domain('regress_uc.orders', 'regress_uc_people');

-- ---- linear on a unit table: calibrated for k rows ---------------------------
SELECT 1 FROM dpobj.grant_budget('regress_uc.visits', 'regress_uc_analyst', 100, 1e-3);
SELECT dpobj.protect('regress_uc.visits', 'person', 1);
SET ROLE regress_uc_analyst;
CREATE TEMP TABLE lin1 AS
SELECT dpobj.train('regress_uc.visits', 'linear', ARRAY['a', 'b'], 'z', 1, 1e-6,
                   '{"R": 1, "y_min": 0, "y_max": 10}') AS m;
RESET ROLE;
SET ROLE regress_uc_owner;
SELECT dpobj.protect('regress_uc.visits', 'person', 5);
SET ROLE regress_uc_analyst;
CREATE TEMP TABLE lin5 AS
SELECT dpobj.train('regress_uc.visits', 'linear', ARRAY['a', 'b'], 'z', 1, 1e-6,
                   '{"R": 1, "y_min": 0, "y_max": 10}') AS m;
CREATE TEMP TABLE ssp5 AS
SELECT dpobj.train('regress_uc.visits', 'linear', ARRAY['a', 'b'], 'z', 1, 1e-6,
                   '{"R": 1, "y_min": 0, "y_max": 10, "method": "ssp"}') AS m;
-- released; k = 5 in the params; every noise scale 5 times k = 1's
SELECT (m).mechanism, (m).params->'rows_per_unit' AS k FROM lin1
UNION ALL SELECT (m).mechanism, (m).params->'rows_per_unit' FROM lin5
UNION ALL SELECT (m).mechanism, (m).params->'rows_per_unit' FROM ssp5;
SELECT round((((b.m).params->>'sigma_xx')::float8 / ((a.m).params->>'sigma_xx')::float8)::numeric, 2) AS xx,
       round((((b.m).params->>'sigma_xy')::float8 / ((a.m).params->>'sigma_xy')::float8)::numeric, 2) AS xy,
       round((((b.m).params->>'sigma_lambda_min')::float8 / ((a.m).params->>'sigma_lambda_min')::float8)::numeric, 2) AS lmin
  FROM lin1 a, lin5 b;
-- charged at the unit's level
SELECT mechanism, privacy_unit, rows_per_unit, outcome FROM dpobj.ledger
 WHERE relation = 'regress_uc.visits' ORDER BY id DESC LIMIT 3;
-- multi-class one-vs-rest on the unit table: each class calibrated for k
SELECT (m).mechanism, (m).params->'rows_per_unit' AS k
  FROM dpobj.train('regress_uc.visits', 'logistic_multiclass', ARRAY['a', 'b'], 'c', 1, 1e-6,
                   '{"R": 1, "classes": [0, 1, 2], "method": "output"}') m;
SELECT (m).mechanism, (m).params->'rows_per_unit' AS k
  FROM dpobj.train('regress_uc.visits', 'noisysgd_multiclass', ARRAY['a', 'b'], 'c', 1, 1e-6,
                   '{"R": 1, "classes": [0, 1, 2], "T": 20}') m;
-- the analyst still cannot pass k
SELECT * FROM regress.err($$SELECT dpobj.train('regress_uc.visits', 'linear', ARRAY['a', 'b'], 'z', 1, 1e-6, '{"R": 1, "y_min": 0, "y_max": 10, "rows_per_unit": 1}')$$);
RESET ROLE;
-- the direct aggregate takes "rows_per_unit" as the caller's own bound
SELECT (m).params->'rows_per_unit' AS k
  FROM (SELECT dpobj.dp_linear_regression(ARRAY[a, b], z, 1, 1e-6,
               '{"R": 1, "y_min": 0, "y_max": 10, "rows_per_unit": 3}') AS m
          FROM (VALUES (0.1::float8, 0.2::float8, 1::float8)) v(a, b, z)) s;
SELECT * FROM regress.err($$SELECT dpobj.dp_linear_regression(ARRAY[0.1, 0.2]::float8[], 1, 1, 1e-6, '{"R": 1, "y_min": 0, "y_max": 10, "rows_per_unit": 0}')$$);

-- ---- clean up ----------------------------------------------------------------
SET ROLE regress_uc_owner;
SELECT dpobj.unprotect('regress_uc.orders');
SELECT dpobj.unprotect('regress_uc.visits');
DROP TABLE regress_uc.visits, regress_uc.orders;
RESET ROLE;
SELECT dpobj.drop_budget_domain('regress_uc_people');
DROP SCHEMA regress_uc;
DROP ROLE regress_uc_admin;
DROP OWNED BY regress_uc_owner, regress_uc_analyst;
DROP ROLE regress_uc_owner, regress_uc_analyst;
