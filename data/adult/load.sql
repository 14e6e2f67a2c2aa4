-- data/adult/load.sql — load the UCI Adult data set into schema "adult".
--
-- Data: Kohavi & Becker (1996), UCI Machine Learning Repository,
-- https://doi.org/10.24432/C5XW20, CC BY 4.0 — see SOURCE.md in this directory.
--
-- Usage (psql runs the loading program client-side, so the files only have to be
-- readable by the user running psql, not by the server):
--
--   psql -v ON_ERROR_STOP=1 -v datadir=/path/to/repo/data/adult -f data/adult/load.sql
--
-- Re-running drops and recreates schema "adult" (CASCADE).
--
-- Objects created:
--   adult.train, adult.test     one row per record, typed columns, id = record number
--                               in its file (1-based, stable), NULL for '?'
--   adult.balanced_ids          the paper's balanced training subset (n = 15682): all
--                               7841 positives of adult.train plus 7841 negatives chosen
--                               deterministically (ordered by md5(id::text), then id)
--   adult.features_d4 .. _d23   (split, id, features float8[], label boolean) for both
--                               splits; one-hot groups in a fixed order and numeric
--                               columns scaled by public constants (the maximum possible
--                               value of each UCI column), never by data-derived bounds,
--                               so every feature lies in [0, 1].
--
-- Feature sets (order of the array elements):
--   d4  : sex(Male, Female), capital_gain/99999, hours_per_week/99
--   d9  : race(5), sex(2), capital_gain/99999, hours_per_week/99
--   d15 : relationship(6), race(5), sex(2), capital_gain/99999, hours_per_week/99
--   d23 : marital_status(7), relationship(6), race(5), sex(2),
--         capital_gain/99999, capital_loss/4356, hours_per_week/99
-- One-hot groups other than sex use alphabetical order of the UCI values:
--   race           Amer-Indian-Eskimo, Asian-Pac-Islander, Black, Other, White
--   relationship   Husband, Not-in-family, Other-relative, Own-child, Unmarried, Wife
--   marital_status Divorced, Married-AF-spouse, Married-civ-spouse, Married-spouse-absent,
--                  Never-married, Separated, Widowed

\set ON_ERROR_STOP on
\if :{?datadir}
\else
  \echo 'load.sql: set the data directory, e.g. psql -v datadir=/path/to/data/adult -f load.sql'
  DO $$ BEGIN RAISE EXCEPTION 'load.sql: psql variable "datadir" is not set'; END $$;
\endif

-- \copy does not interpolate psql variables, but its PROGRAM is run through the shell,
-- so pass the directory through the environment.
\setenv DPOBJ_ADULT_DIR :datadir

SET client_min_messages = warning;

BEGIN;

DROP SCHEMA IF EXISTS adult CASCADE;
CREATE SCHEMA adult;
COMMENT ON SCHEMA adult IS
  'UCI Adult (Kohavi & Becker 1996, doi:10.24432/C5XW20, CC BY 4.0), loaded by data/adult/load.sql';

CREATE TABLE adult.train (
    id              int GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    age             int NOT NULL,
    workclass       text,
    fnlwgt          int NOT NULL,
    education       text NOT NULL,
    education_num   int NOT NULL,
    marital_status  text NOT NULL,
    occupation      text,
    relationship    text NOT NULL,
    race            text NOT NULL,
    sex             text NOT NULL,
    capital_gain    int NOT NULL,
    capital_loss    int NOT NULL,
    hours_per_week  int NOT NULL,
    native_country  text,
    income_gt_50k   boolean NOT NULL
);
CREATE TABLE adult.test (LIKE adult.train INCLUDING ALL);
-- LIKE ... INCLUDING ALL copies the identity column; give test its own sequence start.
ALTER TABLE adult.test ALTER COLUMN id RESTART WITH 1;

COMMENT ON TABLE adult.train IS 'adult.data (32561 records); id = record number in the file';
COMMENT ON TABLE adult.test IS 'adult.test (16281 records); id = record number in the file';

-- Staging: the income label as text (adult.test labels end with a period).
CREATE TEMP TABLE adult_raw (
    age int, workclass text, fnlwgt int, education text, education_num int,
    marital_status text, occupation text, relationship text, race text, sex text,
    capital_gain int, capital_loss int, hours_per_week int, native_country text,
    income text
);

-- Files: ", " between fields, '?' for missing values, a trailing blank line;
-- adult.test also starts with the line "|1x3 Cross validator".  sed drops blank lines
-- and lines starting with '|', and removes the space after each comma.
-- COPY assigns the identity values in file order (one session, one COPY), so id is
-- the record number.
\copy adult_raw FROM PROGRAM 'sed -e ''/^|/d'' -e ''/^[[:space:]]*$/d'' -e ''s/, /,/g'' "$DPOBJ_ADULT_DIR/adult.data"' WITH (FORMAT csv, NULL '?')
INSERT INTO adult.train (age, workclass, fnlwgt, education, education_num, marital_status,
                         occupation, relationship, race, sex, capital_gain, capital_loss,
                         hours_per_week, native_country, income_gt_50k)
SELECT age, workclass, fnlwgt, education, education_num, marital_status, occupation,
       relationship, race, sex, capital_gain, capital_loss, hours_per_week, native_country,
       CASE rtrim(income, '.') WHEN '>50K' THEN true WHEN '<=50K' THEN false END
FROM adult_raw;
TRUNCATE adult_raw;

\copy adult_raw FROM PROGRAM 'sed -e ''/^|/d'' -e ''/^[[:space:]]*$/d'' -e ''s/, /,/g'' "$DPOBJ_ADULT_DIR/adult.test"' WITH (FORMAT csv, NULL '?')
INSERT INTO adult.test (age, workclass, fnlwgt, education, education_num, marital_status,
                        occupation, relationship, race, sex, capital_gain, capital_loss,
                        hours_per_week, native_country, income_gt_50k)
SELECT age, workclass, fnlwgt, education, education_num, marital_status, occupation,
       relationship, race, sex, capital_gain, capital_loss, hours_per_week, native_country,
       CASE rtrim(income, '.') WHEN '>50K' THEN true WHEN '<=50K' THEN false END
FROM adult_raw;
DROP TABLE adult_raw;

-- Balanced training subset of the paper: all positives plus as many negatives,
-- picked by a fixed hash order (deterministic, independent of load order details).
CREATE TABLE adult.balanced_ids (id int PRIMARY KEY REFERENCES adult.train (id));
COMMENT ON TABLE adult.balanced_ids IS
  'ids of adult.train in the balanced subset: all 7841 positives + the 7841 negatives first in md5(id::text) order (n = 15682)';
INSERT INTO adult.balanced_ids (id)
SELECT id FROM adult.train WHERE income_gt_50k
UNION ALL
(SELECT id FROM adult.train WHERE NOT income_gt_50k
 ORDER BY md5(id::text), id
 LIMIT (SELECT count(*) FROM adult.train WHERE income_gt_50k));

-- Both splits with the columns the feature views need.
CREATE VIEW adult.all_rows AS
SELECT 'train'::text AS split, t.* FROM adult.train t
UNION ALL
SELECT 'test'::text AS split, t.* FROM adult.test t;

CREATE VIEW adult.features_d4 AS
SELECT split, id,
       ARRAY[(sex = 'Male')::int, (sex = 'Female')::int,
             capital_gain / 99999.0, hours_per_week / 99.0]::float8[] AS features,
       income_gt_50k AS label
FROM adult.all_rows;

CREATE VIEW adult.features_d9 AS
SELECT split, id,
       ARRAY[(race = 'Amer-Indian-Eskimo')::int, (race = 'Asian-Pac-Islander')::int,
             (race = 'Black')::int, (race = 'Other')::int, (race = 'White')::int,
             (sex = 'Male')::int, (sex = 'Female')::int,
             capital_gain / 99999.0, hours_per_week / 99.0]::float8[] AS features,
       income_gt_50k AS label
FROM adult.all_rows;

CREATE VIEW adult.features_d15 AS
SELECT split, id,
       ARRAY[(relationship = 'Husband')::int, (relationship = 'Not-in-family')::int,
             (relationship = 'Other-relative')::int, (relationship = 'Own-child')::int,
             (relationship = 'Unmarried')::int, (relationship = 'Wife')::int,
             (race = 'Amer-Indian-Eskimo')::int, (race = 'Asian-Pac-Islander')::int,
             (race = 'Black')::int, (race = 'Other')::int, (race = 'White')::int,
             (sex = 'Male')::int, (sex = 'Female')::int,
             capital_gain / 99999.0, hours_per_week / 99.0]::float8[] AS features,
       income_gt_50k AS label
FROM adult.all_rows;

CREATE VIEW adult.features_d23 AS
SELECT split, id,
       ARRAY[(marital_status = 'Divorced')::int, (marital_status = 'Married-AF-spouse')::int,
             (marital_status = 'Married-civ-spouse')::int,
             (marital_status = 'Married-spouse-absent')::int,
             (marital_status = 'Never-married')::int, (marital_status = 'Separated')::int,
             (marital_status = 'Widowed')::int,
             (relationship = 'Husband')::int, (relationship = 'Not-in-family')::int,
             (relationship = 'Other-relative')::int, (relationship = 'Own-child')::int,
             (relationship = 'Unmarried')::int, (relationship = 'Wife')::int,
             (race = 'Amer-Indian-Eskimo')::int, (race = 'Asian-Pac-Islander')::int,
             (race = 'Black')::int, (race = 'Other')::int, (race = 'White')::int,
             (sex = 'Male')::int, (sex = 'Female')::int,
             capital_gain / 99999.0, capital_loss / 4356.0,
             hours_per_week / 99.0]::float8[] AS features,
       income_gt_50k AS label
FROM adult.all_rows;

COMMENT ON VIEW adult.features_d4 IS 'sex(Male,Female), capital_gain/99999, hours_per_week/99';
COMMENT ON VIEW adult.features_d9 IS 'race(5), sex(2), capital_gain/99999, hours_per_week/99';
COMMENT ON VIEW adult.features_d15 IS 'relationship(6), race(5), sex(2), capital_gain/99999, hours_per_week/99';
COMMENT ON VIEW adult.features_d23 IS 'marital_status(7), relationship(6), race(5), sex(2), capital_gain/99999, capital_loss/4356, hours_per_week/99';

-- Sanity checks: known record and label counts, every categorical value covered by
-- exactly one one-hot slot (a typo above or a changed file would break the encoding).
DO $check$
DECLARE
    n record;
BEGIN
    SELECT (SELECT count(*) FROM adult.train WHERE income_gt_50k)     AS train_pos,
           (SELECT count(*) FROM adult.train WHERE NOT income_gt_50k) AS train_neg,
           (SELECT count(*) FROM adult.test WHERE income_gt_50k)      AS test_pos,
           (SELECT count(*) FROM adult.test WHERE NOT income_gt_50k)  AS test_neg,
           (SELECT count(*) FROM adult.balanced_ids)                  AS bal,
           (SELECT count(*) FROM adult.balanced_ids b JOIN adult.train t USING (id)
             WHERE t.income_gt_50k)                                   AS bal_pos,
           (SELECT max(id) FROM adult.train)                          AS train_max,
           (SELECT max(id) FROM adult.test)                           AS test_max
      INTO n;
    IF (n.train_pos, n.train_neg, n.test_pos, n.test_neg, n.bal, n.bal_pos,
        n.train_max, n.test_max)
       IS DISTINCT FROM (7841::bigint, 24720::bigint, 3846::bigint, 12435::bigint,
                         15682::bigint, 7841::bigint, 32561, 16281) THEN
        RAISE EXCEPTION 'adult: unexpected counts %', n;
    END IF;
    IF EXISTS (SELECT 1 FROM adult.features_d23
                WHERE features[1] + features[2] + features[3] + features[4] + features[5]
                      + features[6] + features[7] <> 1              -- marital_status
                   OR features[8] + features[9] + features[10] + features[11]
                      + features[12] + features[13] <> 1            -- relationship
                   OR features[14] + features[15] + features[16] + features[17]
                      + features[18] <> 1                           -- race
                   OR features[19] + features[20] <> 1              -- sex
                   OR cardinality(features) <> 23
                   OR features[21] NOT BETWEEN 0 AND 1
                   OR features[22] NOT BETWEEN 0 AND 1
                   OR features[23] NOT BETWEEN 0 AND 1) THEN
        RAISE EXCEPTION 'adult: a categorical value is not covered by the one-hot encoding, or a scaled feature is outside [0, 1]';
    END IF;
END
$check$;

COMMIT;

ANALYZE adult.train;
ANALYZE adult.test;
ANALYZE adult.balanced_ids;

\echo 'adult: loaded train 32561 rows (7841 >50K), test 16281 rows (3846 >50K), balanced subset 15682 ids'
