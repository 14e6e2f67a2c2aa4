-- dpobj.sample_into(model, target, n): a synthesizer model's rows written into an
-- existing table as values of its column types (in batches, as COPY FROM); and
-- dpobj.sample_rows(model, n): the same rows for a column definition list.  Both are
-- post-processing of the model: no charge.
CREATE SCHEMA regress_si;
CREATE ROLE regress_si_bob;
GRANT USAGE ON SCHEMA regress_si TO regress_si_bob;
CREATE TABLE regress_si.people AS
SELECT CASE i % 3 WHEN 0 THEN 'F' WHEN 1 THEN 'M' ELSE 'X' END AS sex,
       CASE WHEN i % 4 = 0 THEN NULL ELSE (ARRAY['a', 'b', 'c'])[1 + i % 3] END AS race,
       CASE WHEN i % 4 = 2 THEN NULL ELSE (i % 50) * 2.5 END AS hours, 18 + i % 60 AS age
  FROM generate_series(1, 600) i;
-- the model: the synthesizer's aggregate called directly (a superuser, no protection); age
-- never NULL; a seed makes the model and the draws reproducible (race and hours draw
-- NULLs: their NULL counts, far above 3 sd, keep the NULL level open)
SET dpobj.seed = 11;
CREATE TABLE regress_si.models AS
SELECT dpobj.dp_synthesize_cols(true, 1, 1e-6,
         '{"domains": [{"column": "sex", "levels": ["F", "M"]}, {"column": "race", "levels": ["a", "b", "c"]},
                       {"column": "hours", "lo": 0, "hi": 100}, {"column": "age", "lo": 18, "hi": 80}],
           "integer": ["age"], "not_null": ["age"]}',
         sex, race, hours::float8, age::float8) AS m
  FROM regress_si.people;
SELECT count(*) AS ledger_before FROM dpobj.ledger \gset

-- the target: the source's types; n rows written, each within its domain, typed
CREATE TABLE regress_si.twin (sex text, race varchar(1), hours numeric(6,2), age int);
SELECT dpobj.sample_into(m, 'regress_si.twin', 5000) FROM regress_si.models;
SELECT count(*), bool_and(sex IS NULL OR sex IN ('F', 'M')) AND bool_and(race IS NULL OR race IN ('a', 'b', 'c'))
       AND bool_and(hours IS NULL OR hours BETWEEN 0 AND 100) AND bool_and(age BETWEEN 18 AND 80) AS within,
       bool_and(hours IS NULL OR hours = round(hours, 2)) AS typmod, count(*) FILTER (WHERE hours IS NULL) > 0 AS nulls
  FROM regress_si.twin;
-- the columns in another order, more than one batch of the writer (1000 rows), n = 0
CREATE TABLE regress_si.reordered (age bigint, hours float8, race text, sex text);
SELECT dpobj.sample_into(m, 'regress_si.reordered', 2500) FROM regress_si.models;
SELECT dpobj.sample_into(m, 'regress_si.reordered', 0) FROM regress_si.models;
SELECT count(*), bool_and(age BETWEEN 18 AND 80) AS ages, bool_and(sex IS NULL OR sex IN ('F', 'M')) AS sexes
  FROM regress_si.reordered;

-- sample_rows: typed records of a column definition list (any subset of the model's
-- columns, any order); a column the model lacks, or none given, refused
SELECT count(*), bool_and(age BETWEEN 18 AND 80) AS ages, pg_typeof(min(age))::text AS age_type
  FROM regress_si.models, dpobj.sample_rows(m, 300) AS t(age int, sex text);
SELECT * FROM regress.err($$SELECT * FROM regress_si.models, dpobj.sample_rows(m, 3) AS t(age int, income int)$$);
SELECT * FROM regress.err($$SELECT dpobj.sample_rows(m, 3) FROM regress_si.models$$);

-- refusals: a target without a column of the model, a column its values do not cast to,
-- a level its type does not take; NULL arguments; n negative; nothing written
CREATE TABLE regress_si.short (sex text, race text, hours numeric);
SELECT * FROM regress.err($$SELECT dpobj.sample_into(m, 'regress_si.short', 5) FROM regress_si.models$$);
CREATE TABLE regress_si.badtype (sex text, race text, hours point, age int);
SELECT * FROM regress.err($$SELECT dpobj.sample_into(m, 'regress_si.badtype', 5) FROM regress_si.models$$);
CREATE TABLE regress_si.badlevel (sex int, race text, hours numeric, age int);
SELECT * FROM regress.err($$SELECT dpobj.sample_into(m, 'regress_si.badlevel', 5) FROM regress_si.models$$);
SELECT * FROM regress.err($$SELECT dpobj.sample_into(NULL::dpobj.model, 'regress_si.twin', 5)$$);
-- by a stored model's name: an unknown name refused
INSERT INTO dpobj.models (name, ownerid, mechanism, epsilon, delta, params, model)
SELECT 'regress_si_twin', current_user::regrole, (m).mechanism, 1, 1e-6, (m).params, m FROM regress_si.models;
SELECT dpobj.sample_into('regress_si_twin', 'regress_si.reordered', 7);
SELECT * FROM regress.err($$SELECT dpobj.sample_into('regress_si_none', 'regress_si.twin', 5)$$);
SELECT * FROM regress.err($$SELECT dpobj.sample_into(m, NULL, 5) FROM regress_si.models$$);
SELECT * FROM regress.err($$SELECT dpobj.sample_into(m, 'regress_si.twin', NULL) FROM regress_si.models$$);
SELECT * FROM regress.err($$SELECT dpobj.sample_into(m, 'regress_si.twin', -1) FROM regress_si.models$$);
-- no relation of the OID, an index
CREATE INDEX twin_age_idx ON regress_si.twin (age);
SELECT * FROM regress.err($$SELECT dpobj.sample_into(m, 0::regclass, 5) FROM regress_si.models$$);
SELECT * FROM regress.err($$SELECT dpobj.sample_into(m, 'regress_si.twin_age_idx'::regclass, 5) FROM regress_si.models$$);
SELECT * FROM regress.err($$SELECT * FROM regress_si.models, dpobj.sample_rows(m, -1) AS t(age int)$$);
-- a forged model (its structure broken, another mechanism's) errs 22023
SELECT * FROM regress.err($$SELECT dpobj.sample_into(ROW(m.mechanism, m.weights, m.bias, m.epsilon, m.delta,
         jsonb_set(m.params, '{cliques}', '[[7]]'))::dpobj.model, 'regress_si.twin', 5)
    FROM (SELECT (m).* FROM regress_si.models) m$$);
SELECT * FROM regress.err($$SELECT dpobj.sample_into(ROW(m.mechanism, m.weights[1:3], m.bias, m.epsilon, m.delta,
         m.params)::dpobj.model, 'regress_si.twin', 5) FROM (SELECT (m).* FROM regress_si.models) m$$);
SELECT * FROM regress.err($$SELECT dpobj.sample_into(ROW('logistic', ARRAY[1.0]::float8[], 0, 1, 0, '{}')::dpobj.model,
         'regress_si.twin', 5)$$);
SELECT count(*) AS twin_rows FROM regress_si.twin;

-- the caller's privileges: no INSERT refused, INSERT on every column enough
GRANT SELECT ON regress_si.models TO regress_si_bob;
SET ROLE regress_si_bob;
SELECT * FROM regress.err($$SELECT dpobj.sample_into(m, 'regress_si.twin', 5) FROM regress_si.models$$);
RESET ROLE;
GRANT INSERT (sex, race, hours, age) ON regress_si.twin TO regress_si_bob;
SET ROLE regress_si_bob;
SELECT dpobj.sample_into(m, 'regress_si.twin', 5) FROM regress_si.models;
RESET ROLE;
-- a read-only transaction refused
BEGIN READ ONLY;
SELECT * FROM regress.err($$SELECT dpobj.sample_into(m, 'regress_si.twin', 5) FROM regress_si.models$$);
ROLLBACK;

-- the table's own rules: a CHECK constraint and NOT NULL enforced, indexes filled
CREATE TABLE regress_si.checked (sex text, race text, hours numeric, age int CHECK (age < 30));
SELECT * FROM regress.err($$SELECT dpobj.sample_into(m, 'regress_si.checked', 2000) FROM regress_si.models$$);
CREATE TABLE regress_si.notnull (sex text, race text NOT NULL, hours numeric, age int);
SELECT * FROM regress.err($$SELECT dpobj.sample_into(m, 'regress_si.notnull', 2000) FROM regress_si.models$$);
CREATE TABLE regress_si.indexed (sex text, race text, hours numeric, age int);
CREATE INDEX ON regress_si.indexed (age);
CREATE INDEX ON regress_si.indexed ((hours * 2)) WHERE hours > 50;
SELECT dpobj.sample_into(m, 'regress_si.indexed', 3000) FROM regress_si.models;
SET enable_seqscan = off;
SELECT (SELECT count(*) FROM regress_si.indexed WHERE age >= 18) AS by_index,
       (SELECT count(*) FROM regress_si.indexed WHERE hours * 2 > 100 AND hours > 50) =
       (SELECT count(*) FROM regress_si.indexed t WHERE (SELECT t.hours > 50)) AS partial;
RESET enable_seqscan;
-- not a plain table of the model's columns: the INSERT path (defaults, triggers, partitions)
CREATE TABLE regress_si.withid (id serial PRIMARY KEY, sex text, race text, hours numeric, age int,
                                made timestamptz DEFAULT now());
SELECT dpobj.sample_into(m, 'regress_si.withid', 1500) FROM regress_si.models;
SELECT count(*), count(DISTINCT id), bool_and(made IS NOT NULL) AS defaults FROM regress_si.withid;
CREATE TABLE regress_si.counted (sex text, race text, hours numeric, age int);
CREATE TABLE regress_si.counter (n int);
INSERT INTO regress_si.counter VALUES (0);
CREATE FUNCTION regress_si.count_row() RETURNS trigger LANGUAGE plpgsql AS
$$BEGIN UPDATE regress_si.counter SET n = n + 1; RETURN NEW; END$$;
CREATE TRIGGER c BEFORE INSERT ON regress_si.counted FOR EACH ROW EXECUTE FUNCTION regress_si.count_row();
SELECT dpobj.sample_into(m, 'regress_si.counted', 40) FROM regress_si.models;
SELECT n AS trigger_rows, (SELECT count(*) FROM regress_si.counted) AS table_rows FROM regress_si.counter;
CREATE TABLE regress_si.parted (sex text, race text, hours numeric, age int) PARTITION BY RANGE (age);
CREATE TABLE regress_si.young PARTITION OF regress_si.parted FOR VALUES FROM (0) TO (50);
CREATE TABLE regress_si.old PARTITION OF regress_si.parted FOR VALUES FROM (50) TO (200);
SELECT dpobj.sample_into(m, 'regress_si.parted', 1000) FROM regress_si.models;
SELECT (SELECT count(*) FROM regress_si.young) + (SELECT count(*) FROM regress_si.old) AS routed,
       (SELECT bool_and(age < 50) FROM regress_si.young) AS young;
-- a partition named directly: its constraint kept
SELECT * FROM regress.err($$SELECT dpobj.sample_into(m, 'regress_si.young', 1000) FROM regress_si.models$$);

-- no charge
SELECT count(*) - :ledger_before AS charges FROM dpobj.ledger;
RESET dpobj.seed;
DELETE FROM dpobj.models WHERE name = 'regress_si_twin';
DROP SCHEMA regress_si CASCADE;
DROP ROLE regress_si_bob;
