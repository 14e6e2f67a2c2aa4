-- data/bank_marketing/load.sql — load UCI Bank Marketing's bank.csv sample into schema "bank".
--
-- Data: Moro, Rita & Cortez (2012), UCI Machine Learning Repository,
-- https://doi.org/10.24432/C5K306, CC BY 4.0 — see SOURCE.md in this directory.
--
--   psql -v ON_ERROR_STOP=1 -v datadir=/path/to/repo/data/bank_marketing -f data/bank_marketing/load.sql
--
-- Objects (re-running drops and recreates schema "bank"):
--   bank.marketing   the 4521 records (id = record number), 521 with y = "yes"
--   bank.features    (split, id, features float8[], label boolean), d = 50: the 9
--                    categorical attributes one-hot over the levels bank-names.txt lists
--                    (44 slots), then age/100, least(greatest(balance, 0), 10000)/10000,
--                    day/31, least(campaign, 63)/63, pdays (-1: 0) as least(pdays, 999)/999,
--                    least(previous, 50)/50: public constants, all in [0, 1];
--                    ||x||^2 <= 9 + 6 = 15.  "duration" is left out: it is known only after
--                    the call (bank-names.txt advises discarding it for a realistic model).
--                    split: 'test' for the 1356 ids last in md5(id::text) order, else 'train'.
\set ON_ERROR_STOP on
\setenv DPOBJ_BANK_DIR :datadir
SET client_min_messages = warning;
BEGIN;
DROP SCHEMA IF EXISTS bank CASCADE;
CREATE SCHEMA bank;
CREATE TABLE bank.marketing (
    id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    age int, job text, marital text, education text, "default" text, balance int,
    housing text, loan text, contact text, day int, month text, duration int, campaign int,
    pdays int, previous int, poutcome text, y text NOT NULL CHECK (y IN ('yes', 'no')));
\copy bank.marketing (age, job, marital, education, "default", balance, housing, loan, contact, day, month, duration, campaign, pdays, previous, poutcome, y) FROM PROGRAM 'cat "$DPOBJ_BANK_DIR/bank.csv"' WITH (FORMAT csv, HEADER true, DELIMITER ';')

CREATE FUNCTION bank.onehot(v text, levels text[]) RETURNS float8[]
LANGUAGE sql IMMUTABLE AS
$$ SELECT array_agg((v = l)::int::float8 ORDER BY o) FROM unnest(levels) WITH ORDINALITY u(l, o) $$;

CREATE VIEW bank.features AS
SELECT CASE WHEN r > 3165 THEN 'test' ELSE 'train' END AS split, id,
       bank.onehot(job, '{admin.,unknown,unemployed,management,housemaid,entrepreneur,student,blue-collar,self-employed,retired,technician,services}')
       || bank.onehot(marital, '{married,divorced,single}')
       || bank.onehot(education, '{unknown,secondary,primary,tertiary}')
       || bank.onehot("default", '{yes,no}') || bank.onehot(housing, '{yes,no}')
       || bank.onehot(loan, '{yes,no}') || bank.onehot(contact, '{unknown,telephone,cellular}')
       || bank.onehot(month, '{jan,feb,mar,apr,may,jun,jul,aug,sep,oct,nov,dec}')
       || bank.onehot(poutcome, '{unknown,other,failure,success}')
       || ARRAY[age / 100.0, least(greatest(balance, 0), 10000) / 10000.0, day / 31.0,
                least(campaign, 63) / 63.0, greatest(least(pdays, 999), 0) / 999.0,
                least(previous, 50) / 50.0]::float8[] AS features,
       y = 'yes' AS label
  FROM (SELECT m.*, row_number() OVER (ORDER BY md5(id::text), id) AS r FROM bank.marketing m) m;

-- the known counts; every value in one one-hot slot per group, numerics in [0, 1]
DO $check$
DECLARE
    n record;
BEGIN
    SELECT count(*) AS rows, count(*) FILTER (WHERE label) AS yes,
           count(*) FILTER (WHERE split = 'train') AS train,
           bool_and(array_length(features, 1) = 50) AS d50,
           bool_and((SELECT sum(f) = 9 FROM unnest(features[1:44]) f)) AS onehot,
           bool_and((SELECT bool_and(f BETWEEN 0 AND 1) FROM unnest(features[45:50]) f)) AS scaled
      INTO n FROM bank.features;
    IF (n.rows, n.yes, n.train, n.d50, n.onehot, n.scaled) IS DISTINCT FROM
       (4521::bigint, 521::bigint, 3165::bigint, true, true, true) THEN
        RAISE EXCEPTION 'bank_marketing/load.sql: unexpected data %', n;
    END IF;
END
$check$;
COMMIT;
