-- A session's run while its role's jobs on the same budget are queued or
-- running is refused before the charge (jobs are charged when their scans
-- end, so the rows would order the charges); a job on another budget, or
-- cancelled, does not hold it back.
CREATE SCHEMA regress_sj;
GRANT USAGE ON SCHEMA regress_sj TO PUBLIC;
CREATE ROLE regress_sj_analyst;
CREATE TABLE regress_sj.t AS
SELECT i, (i % 7) / 4.0 - 0.75 AS a, (i % 5) / 4.0 - 0.5 AS b, (i % 3) > 0 AS y
  FROM generate_series(1, 60) i;
CREATE TABLE regress_sj.u AS SELECT * FROM regress_sj.t;
SELECT dpobj.protect('regress_sj.t'), dpobj.protect('regress_sj.u');
SELECT (dpobj.grant_budget('regress_sj.t', 'regress_sj_analyst', 2, 1e-6)).id IS NOT NULL AS t_granted,
       (dpobj.grant_budget('regress_sj.u', 'regress_sj_analyst', 2, 1e-6)).id IS NOT NULL AS u_granted;
SET ROLE regress_sj_analyst;
-- in one transaction, so the jobs stay queued (the launcher wakes at commit)
BEGIN;
-- charged next on its budget: train()'s NOTICE of the composition change (not for job2)
SELECT dpobj.submit('regress_sj.t', 'passglm', ARRAY['a', 'b'], 'y', 0.1, 1e-7, '{"R": 1}') AS job \gset
-- refused at once, nothing charged; submitting more is not refused
SELECT * FROM regress.err($$SELECT dpobj.train('regress_sj.t', 'passglm', ARRAY['a', 'b'], 'y', 0.1, 1e-7, '{"R": 1}')$$);
SELECT count(*) AS charged FROM dpobj.ledger WHERE rolname = current_user;
SELECT dpobj.submit('regress_sj.t', 'passglm', ARRAY['a', 'b'], 'y', 0.1, 1e-7, '{"R": 1}') AS job2 \gset
-- another budget: admitted
SELECT sqlstate FROM regress.err($$SELECT dpobj.train('regress_sj.u', 'passglm', ARRAY['a', 'b'], 'y', 0.1, 1e-7, '{"R": 1}')$$);
-- both jobs cancelled: admitted
SELECT dpobj.cancel(:job) AS cancelled, dpobj.cancel(:job2) AS cancelled2;
SELECT sqlstate FROM regress.err($$SELECT dpobj.train('regress_sj.t', 'passglm', ARRAY['a', 'b'], 'y', 0.1, 1e-7, '{"R": 1}')$$);
SELECT relation, count(*) AS charged FROM dpobj.ledger WHERE rolname = current_user GROUP BY 1 ORDER BY 1;
ROLLBACK;
RESET ROLE;
DROP TABLE regress_sj.t, regress_sj.u;
DROP SCHEMA regress_sj;
DROP OWNED BY regress_sj_analyst;
DROP ROLE regress_sj_analyst;
