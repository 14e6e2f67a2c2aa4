-- The release deadline of protected runs: the "deadline" option of train(), submit()
-- and evaluate() and the owner's floor, dpobj.set_release_deadline().  Every bad value
-- is refused before anything is charged (no ledger row, nothing spent).
CREATE SCHEMA regress_dl;
CREATE ROLE regress_dl_alice;
GRANT USAGE ON SCHEMA regress_dl TO regress_dl_alice;
CREATE TABLE regress_dl.pts AS
  SELECT (i % 7) / 4.0 - 0.75 AS a, (i % 7) > 3 AS y FROM generate_series(1, 20) i;
SELECT dpobj.protect('regress_dl.pts');
SELECT 1 FROM dpobj.grant_budget('regress_dl.pts', 'regress_dl_alice', 10, 0.001);
-- the floor: a column of the catalog, 0 (none) by default
SELECT release_deadline FROM dpobj.protected_tables WHERE relid = 'regress_dl.pts'::regclass;
SET ROLE regress_dl_alice;
\set VERBOSITY default
-- the option: negative, not a number, too large, NaN as text
SELECT dpobj.train('regress_dl.pts', 'opdisc', ARRAY['a'], 'y', 0.5, 0.0001, '{"deadline": -1}');
SELECT dpobj.train('regress_dl.pts', 'opdisc', ARRAY['a'], 'y', 0.5, 0.0001, '{"deadline": "2"}');
SELECT dpobj.train('regress_dl.pts', 'opdisc', ARRAY['a'], 'y', 0.5, 0.0001, '{"deadline": 86401}');
SELECT dpobj.train('regress_dl.pts', 'opdisc', ARRAY['a'], 'y', 0.5, 0.0001, '{"deadline": 1e400}');
SELECT dpobj.train('regress_dl.pts', 'opdisc', ARRAY['a'], 'y', 0.5, 0.0001, '{"deadline": null}');
SELECT dpobj.submit('regress_dl.pts', 'opdisc', ARRAY['a'], 'y', 0.5, 0.0001, '{"deadline": -0.5}');
SELECT dpobj.evaluate('regress_dl.pts', ('opdisc', '{1}', 0, 1, 1e-6, '{"Q": 1048576}')::dpobj.model,
                      ARRAY['a'], 'y', 0.5, 0.0001, '{"deadline": "soon"}');
-- an analyst cannot set the floor
SELECT dpobj.set_release_deadline('regress_dl.pts', 0);
-- nothing was charged
SELECT count(*) FROM dpobj.ledger;
SELECT spent_epsilon FROM dpobj.my_budgets;
RESET ROLE;
-- the setter: range, NULL, unprotected table
SELECT dpobj.set_release_deadline('regress_dl.pts', -1);
SELECT dpobj.set_release_deadline('regress_dl.pts', 'NaN');
SELECT dpobj.set_release_deadline('regress_dl.pts', 'Infinity');
SELECT dpobj.set_release_deadline('regress_dl.pts', 86401);
SELECT dpobj.set_release_deadline('regress_dl.pts', NULL);
CREATE TABLE regress_dl.open (a float8);
SELECT dpobj.set_release_deadline('regress_dl.open', 1);
SELECT dpobj.set_release_deadline('regress_dl.pts', 0.5);
SELECT release_deadline FROM dpobj.protected_tables WHERE relid = 'regress_dl.pts'::regclass;
-- a run with the floor and an option of 0 releases (after the floor)
SET ROLE regress_dl_alice;
SELECT array_length((dpobj.train('regress_dl.pts', 'opdisc', ARRAY['a'], 'y', 0.5, 0.0001, '{"deadline": 0}')).weights, 1);
RESET ROLE;
SELECT dpobj.unprotect('regress_dl.pts');
DROP SCHEMA regress_dl CASCADE;
DROP ROLE regress_dl_alice;
