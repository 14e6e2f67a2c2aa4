-- A running exact solve stops promptly on query cancel and on
-- statement_timeout; the run stays charged (outcome 'cancelled') and no
-- model is released.  The solve runs in a second session (dblink) so this
-- session can cancel it and observe the result.
BEGIN;
SELECT plan(11);
CREATE EXTENSION IF NOT EXISTS dblink;

-- a GLPK MIP that needs minutes (hundreds of distinct continuous rows);
-- time_limit 0 = no limit, so only the cancel can stop it
-- (one statement; pseudo-random but fixed features from hashint4)
-- The outcome of an interrupted run is posted to the ledger writer and the error reaches
-- the client without waiting for it (a cancel must stay prompt), so read it once it is
-- written: the latest outcome of the run with this epsilon, waiting at most 30 s.
CREATE FUNCTION pg_temp.outcome(eps float8) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  o text;
BEGIN
  FOR i IN 1..600 LOOP
    SELECT outcome || '/' || mechanism INTO o FROM dpobj.ledger
     WHERE epsilon = eps ORDER BY id DESC LIMIT 1;
    EXIT WHEN o IS NOT NULL AND o NOT LIKE 'charged/%';
    PERFORM pg_sleep(0.05);
  END LOOP;
  RETURN o;
END $$;
CREATE FUNCTION pg_temp.hard_query(eps float8) RETURNS text LANGUAGE sql AS $$
  SELECT format($q$SELECT (dpobj.dp_halfspace(
        ARRAY[(abs(hashint4(g)) %% 129 - 64) / 64.0,
              (abs(hashint4(g + 100000)) %% 129 - 64) / 64.0, 1]::float8[],
        hashint4(g + 200000) %% 2 = 0, %s, 1e-5,
        '{"oracle": "mip", "time_limit": 0}')).weights::text
      FROM generate_series(1, 600) g$q$, eps)
$$;

SELECT dblink_connect('solver',
         format('dbname=%s user=%s host=%s port=%s', current_database(), current_user,
                trim(split_part(current_setting('unix_socket_directories'), ',', 1)),
                current_setting('port')));
SELECT pid AS solver_pid FROM dblink('solver', 'SELECT pg_backend_pid()') AS t(pid int) \gset

-- 1. pg_cancel_backend during the solve
SELECT dblink_send_query('solver', pg_temp.hard_query(3.5));
SELECT pg_sleep(2);
SELECT ok(EXISTS (SELECT 1 FROM pg_stat_activity
                   WHERE pid = :solver_pid AND state = 'active' AND query LIKE '%dp_halfspace%'),
          'the solve is still running after 2 s');
SELECT clock_timestamp() AS t0 \gset
SELECT ok(pg_cancel_backend(:solver_pid), 'cancel sent');
-- wait for the remote statement to end (errors are returned, not raised)
SELECT count(*) FROM dblink_get_result('solver', false) AS t(w text);
SELECT cmp_ok(extract(epoch FROM clock_timestamp() - :'t0'::timestamptz)::float8, '<', 5.0::float8,
              'the solve stopped within a few seconds of the cancel');
SELECT matches(dblink_error_message('solver'), 'canceling statement due to user request',
               'the caller got the query-cancel error');
SELECT is(pg_temp.outcome(3.5), 'cancelled/opdisc', 'the cancelled run is charged in the ledger with outcome cancelled');
SELECT dblink_get_result('solver', false);

-- 2. statement_timeout during the solve
SELECT dblink_exec('solver', 'SET statement_timeout = ''1500ms''');
SELECT clock_timestamp() AS t1 \gset
SELECT dblink_send_query('solver', pg_temp.hard_query(4.5));
SELECT count(*) FROM dblink_get_result('solver', false) AS t(w text);
SELECT cmp_ok(extract(epoch FROM clock_timestamp() - :'t1'::timestamptz)::float8, '<', 6.0::float8,
              'statement_timeout of 1.5 s stopped the solve within a few seconds');
SELECT matches(dblink_error_message('solver'), 'statement timeout',
               'the caller got the statement-timeout error');
SELECT is(pg_temp.outcome(4.5), 'cancelled/opdisc', 'the timed-out run is charged with outcome cancelled');
SELECT dblink_get_result('solver', false);

-- 3. statement_timeout during OPSamp's LPs (it once ran its first LP to the end, 13.7 s
-- for a 1 s timeout; GLPK runs in 250 ms slices with the timeout checked in between).
-- 200 000 distinct rows, d = 8, epsilon = 0.55 and the public n: several hundred LPs over
-- the K rows the cap holds, about 10 s in all on the 2-core CI machine class.  The table
-- is made without the timeout above (a loaded machine takes more than 1.5 s for it).
SELECT dblink_exec('solver', 'RESET statement_timeout');
SELECT dblink_exec('solver', $q$CREATE TEMP TABLE big AS
  SELECT ARRAY[(abs(hashint4(g)) % 1000) / 1000.0, (abs(hashint4(g + 1)) % 1000) / 1000.0,
               (abs(hashint4(g + 2)) % 1000) / 1000.0, (abs(hashint4(g + 3)) % 1000) / 1000.0,
               (abs(hashint4(g + 4)) % 1000) / 1000.0, (abs(hashint4(g + 5)) % 1000) / 1000.0,
               (abs(hashint4(g + 6)) % 1000) / 1000.0, (abs(hashint4(g + 7)) % 1000) / 1000.0]::float8[] AS x,
         hashint4(g + 9) % 2 = 0 AS y
    FROM generate_series(1, 200000) g$q$);
SELECT dblink_exec('solver', 'SET statement_timeout = ''1s''');
SELECT clock_timestamp() AS t2 \gset
SELECT dblink_send_query('solver',
  $q$SELECT (dpobj.dp_opsamp(x, y, 0.55, 1e-3, '{"n": 200000, "R": 8}')).weights::text FROM big$q$);
SELECT count(*) FROM dblink_get_result('solver', false) AS t(w text);
SELECT cmp_ok(extract(epoch FROM clock_timestamp() - :'t2'::timestamptz)::float8, '<', 4.0::float8,
              'statement_timeout of 1 s stopped OPSamp''s LPs within a few seconds');
SELECT matches(dblink_error_message('solver'), 'statement timeout',
               'the caller got the statement-timeout error');
SELECT is(pg_temp.outcome(0.55), 'cancelled/opsamp', 'the timed-out OPSamp run is charged with outcome cancelled');
SELECT dblink_get_result('solver', false);

SELECT dblink_disconnect('solver');
SELECT * FROM finish();
ROLLBACK;
