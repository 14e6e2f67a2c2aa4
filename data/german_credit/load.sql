-- data/german_credit/load.sql — load UCI Statlog (German Credit Data) into schema "german".
--
-- Data: Hofmann (1994), UCI Machine Learning Repository, https://doi.org/10.24432/C5NC77,
-- CC BY 4.0 — see SOURCE.md in this directory.
--
--   psql -v ON_ERROR_STOP=1 -v datadir=/path/to/repo/data/german_credit -f data/german_credit/load.sql
--
-- Objects (re-running drops and recreates schema "german"):
--   german.credit    the 1000 records (id = line number), label bad = (class = 2): 300 bad
--   german.features  (split, id, features float8[], label boolean), d = 63: the 13
--                    qualitative attributes one-hot over the codes german.doc lists (A40..A410
--                    incl. A47, which never occurs), then the 7 numerical ones scaled by public
--                    constants into [0, 1]: duration/72, least(amount, 20000)/20000, rate/4,
--                    residence/4, age/100, credits/4, liable/2.  ||x||^2 <= 13 + 7 = 20.
--                    split: 'test' for the 300 ids last in md5(id::text) order, else 'train'.
\set ON_ERROR_STOP on
\setenv DPOBJ_GERMAN_DIR :datadir
SET client_min_messages = warning;
BEGIN;
DROP SCHEMA IF EXISTS german CASCADE;
CREATE SCHEMA german;
CREATE TABLE german.credit (
    id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    status text, duration int, history text, purpose text, amount int, savings text,
    employment text, rate int, personal text, debtors text, residence int, property text,
    age int, plans text, housing text, credits int, job text, liable int, telephone text,
    foreign_worker text, class int NOT NULL CHECK (class IN (1, 2)));
\copy german.credit (status, duration, history, purpose, amount, savings, employment, rate, personal, debtors, residence, property, age, plans, housing, credits, job, liable, telephone, foreign_worker, class) FROM PROGRAM 'cat "$DPOBJ_GERMAN_DIR/german.data"' WITH (FORMAT text, DELIMITER ' ')

CREATE FUNCTION german.onehot(v text, levels text[]) RETURNS float8[]
LANGUAGE sql IMMUTABLE AS
$$ SELECT array_agg((v = l)::int::float8 ORDER BY o) FROM unnest(levels) WITH ORDINALITY u(l, o) $$;

CREATE VIEW german.features AS
SELECT CASE WHEN r > 700 THEN 'test' ELSE 'train' END AS split, id,
       german.onehot(status, '{A11,A12,A13,A14}') || german.onehot(history, '{A30,A31,A32,A33,A34}')
       || german.onehot(purpose, '{A40,A41,A42,A43,A44,A45,A46,A47,A48,A49,A410}')
       || german.onehot(savings, '{A61,A62,A63,A64,A65}') || german.onehot(employment, '{A71,A72,A73,A74,A75}')
       || german.onehot(personal, '{A91,A92,A93,A94,A95}') || german.onehot(debtors, '{A101,A102,A103}')
       || german.onehot(property, '{A121,A122,A123,A124}') || german.onehot(plans, '{A141,A142,A143}')
       || german.onehot(housing, '{A151,A152,A153}') || german.onehot(job, '{A171,A172,A173,A174}')
       || german.onehot(telephone, '{A191,A192}') || german.onehot(foreign_worker, '{A201,A202}')
       || ARRAY[duration / 72.0, least(amount, 20000) / 20000.0, rate / 4.0, residence / 4.0,
                age / 100.0, credits / 4.0, liable / 2.0]::float8[] AS features,
       class = 2 AS label
  FROM (SELECT c.*, row_number() OVER (ORDER BY md5(id::text), id) AS r FROM german.credit c) c;

-- the known counts; every value in one one-hot slot per group, numerics in [0, 1]
DO $check$
DECLARE
    n record;
BEGIN
    SELECT count(*) AS rows, count(*) FILTER (WHERE label) AS bad,
           count(*) FILTER (WHERE split = 'train') AS train,
           bool_and(array_length(features, 1) = 63) AS d63,
           bool_and((SELECT sum(f) = 13 AND bool_and(f BETWEEN 0 AND 1)
                       FROM unnest(features[1:56]) f)) AS onehot,
           bool_and((SELECT bool_and(f BETWEEN 0 AND 1) FROM unnest(features[57:63]) f)) AS scaled
      INTO n FROM german.features;
    IF (n.rows, n.bad, n.train, n.d63, n.onehot, n.scaled) IS DISTINCT FROM
       (1000::bigint, 300::bigint, 700::bigint, true, true, true) THEN
        RAISE EXCEPTION 'german_credit/load.sql: unexpected data %', n;
    END IF;
END
$check$;
COMMIT;
