-- bench/oracle_sql/cell.sql — one (feature set, mechanism, epsilon) cell: the seeds
-- 1..:nseeds, one aggregate call each.  psql variables: set, mech, eps, nseeds, base
-- (run_id of the first seed), limit (dpobj.solver_time_limit, seconds).
\set ON_ERROR_STOP on
SET client_min_messages = notice;
SET dpobj.solver_time_limit = :limit;
SELECT count(oracle_sql.run(:base + s - 1, :'set', :'mech', :eps, s))
FROM generate_series(1, :nseeds) s \gset run_
SELECT format('%s %s eps=%s: %s/%s certified, max %s s', :'set', :'mech', :'eps',
              count(*) FILTER (WHERE certified), count(*), round(max(seconds)::numeric, 3))
FROM oracle_sql.runs WHERE run_id BETWEEN :base AND :base + :nseeds - 1 \gset cell_
\echo :cell_format
