-- bench/ebm/setup.sql — the tables and the additive model's margin for bench/ebm
-- (after data/adult, data/bank_marketing and data/german_credit's load.sql).
-- be.rows(tbl, split, features, label): adult12 (Adult's 12 columns: 7 one-hot groups
-- with the training split's levels, 5 numerics scaled to [0, 1]), adult_pm1 (the same,
-- its numerics in [-1, 1] as train()'s encoding has them), bank (d = 50) and german
-- (d = 63) as loaded; be.tables(tbl, groups, w_false, lo): the one-hot groups in order
-- (0 a numeric), the public class weight of a negative row, pos / (1 - pos) of the
-- training split rounded to 2 digits, and the numerics' lower bound.
\set ON_ERROR_STOP 1
CREATE SCHEMA be;
CREATE FUNCTION be.onehot(v text, levels text[]) RETURNS float8[] LANGUAGE sql IMMUTABLE AS
$$ SELECT array_agg((v IS NOT DISTINCT FROM l)::int::float8 ORDER BY o) FROM unnest(levels) WITH ORDINALITY u(l, o) $$;
CREATE TABLE be.levels AS
SELECT c, array_agg(DISTINCT v ORDER BY v) FILTER (WHERE v IS NOT NULL) || '{NULL}'::text[] AS levels
  FROM adult.train, LATERAL (VALUES ('workclass', workclass), ('education', education),
        ('marital_status', marital_status), ('occupation', occupation), ('relationship', relationship),
        ('race', race), ('sex', sex)) v(c, v)
 GROUP BY c;
CREATE FUNCTION be.adult12(a adult.train) RETURNS float8[] LANGUAGE sql STABLE AS $$
SELECT be.onehot(a.workclass, (SELECT levels FROM be.levels WHERE c = 'workclass'))
    || be.onehot(a.education, (SELECT levels FROM be.levels WHERE c = 'education'))
    || be.onehot(a.marital_status, (SELECT levels FROM be.levels WHERE c = 'marital_status'))
    || be.onehot(a.occupation, (SELECT levels FROM be.levels WHERE c = 'occupation'))
    || be.onehot(a.relationship, (SELECT levels FROM be.levels WHERE c = 'relationship'))
    || be.onehot(a.race, (SELECT levels FROM be.levels WHERE c = 'race'))
    || be.onehot(a.sex, (SELECT levels FROM be.levels WHERE c = 'sex'))
    || ARRAY[least(a.age, 90) / 90.0, a.education_num / 16.0, a.capital_gain / 99999.0,
             a.capital_loss / 4356.0, a.hours_per_week / 99.0]::float8[] $$;
CREATE TABLE be.rows AS
SELECT 'adult12' AS tbl, 'train' AS split, be.adult12(a) AS features, a.income_gt_50k AS label FROM adult.train a
UNION ALL SELECT 'adult12', 'test', be.adult12(ROW(a.*)::adult.train), a.income_gt_50k FROM adult.test a
UNION ALL SELECT 'bank', split, features, label FROM bank.features
UNION ALL SELECT 'german', split, features, label FROM german.features;
INSERT INTO be.rows SELECT 'adult_pm1', split, features[1:cardinality(features) - 5] ||
       ARRAY(SELECT 2 * v - 1 FROM unnest(features[cardinality(features) - 4:]) v), label
  FROM be.rows WHERE tbl = 'adult12';
CREATE TABLE be.tables AS
SELECT 'adult12' AS tbl, (SELECT array_agg(cardinality(levels) ORDER BY c = 'workclass' DESC, c = 'education' DESC,
                                   c = 'marital_status' DESC, c = 'occupation' DESC, c = 'relationship' DESC, c = 'race' DESC)
                            FROM be.levels) || '{0,0,0,0,0}'::int[] AS groups
UNION ALL SELECT 'adult_pm1', NULL
UNION ALL SELECT 'bank', '{12,3,4,2,2,2,3,12,4,0,0,0,0,0,0}'
UNION ALL SELECT 'german', '{4,5,11,5,5,5,3,4,3,3,4,2,2,0,0,0,0,0,0,0}';
UPDATE be.tables SET groups = (SELECT groups FROM be.tables WHERE tbl = 'adult12') WHERE tbl = 'adult_pm1';
ALTER TABLE be.tables ADD COLUMN w_false float8, ADD COLUMN lo float8 DEFAULT 0;
UPDATE be.tables SET lo = -1 WHERE tbl = 'adult_pm1';
UPDATE be.tables t SET w_false = (SELECT round((avg(label::int) / (1 - avg(label::int)))::numeric, 2)
                                    FROM be.rows r WHERE r.tbl = t.tbl AND split = 'train');
CREATE INDEX ON be.rows (tbl, split);
ANALYZE be.rows;
-- Wide declared domains (private bins, bins.sql): the same rows with their numerics
-- declared on loose public bounds, as an analyst might ("amounts on [0, 1e6]"), encoded as
-- train() encodes a declared domain (clipped, scaled to [-1, 1]): **adult_wide** (age on
-- [0, 150], education_num [0, 16], capital gain and loss [0, 1e6], hours [0, 168]),
-- **bank_wide** (age [0, 150], balance [-1e5, 1e6], day [0, 31], campaign [0, 1000], pdays
-- [-1, 1e4], previous [0, 1000]) and **german_wide** (duration [0, 1000] months, amount
-- [0, 1e6], rate and residence [0, 4], age [0, 150], credits [0, 4], liable [0, 2]; held
-- out as german is).
CREATE FUNCTION be.wide(v float8, lo float8, hi float8) RETURNS float8 LANGUAGE sql IMMUTABLE AS
$$ SELECT 2 * (least(greatest(v, lo), hi) - lo) / (hi - lo) - 1 $$;
INSERT INTO be.rows
SELECT 'adult_wide', split, (be.adult12(a))[1:65] ||
       ARRAY[be.wide(age, 0, 150), be.wide(education_num, 0, 16), be.wide(capital_gain, 0, 1e6),
             be.wide(capital_loss, 0, 1e6), be.wide(hours_per_week, 0, 168)], income_gt_50k
  FROM (SELECT 'train' AS split, * FROM adult.train UNION ALL SELECT 'test', * FROM adult.test) t,
       LATERAL (SELECT (t.id, t.age, t.workclass, t.fnlwgt, t.education, t.education_num,
                        t.marital_status, t.occupation, t.relationship, t.race, t.sex,
                        t.capital_gain, t.capital_loss, t.hours_per_week, t.native_country,
                        t.income_gt_50k)::adult.train AS a) x;
INSERT INTO be.rows
SELECT 'bank_wide', f.split, f.features[1:44] ||
       ARRAY[be.wide(m.age, 0, 150), be.wide(m.balance, -1e5, 1e6), be.wide(m.day, 0, 31),
             be.wide(m.campaign, 0, 1000), be.wide(m.pdays, -1, 1e4), be.wide(m.previous, 0, 1000)], f.label
  FROM bank.features f JOIN bank.marketing m USING (id);
INSERT INTO be.rows
SELECT 'german_wide', f.split, f.features[1:56] ||
       ARRAY[be.wide(c.duration, 0, 1000), be.wide(c.amount, 0, 1e6), be.wide(c.rate, 0, 4),
             be.wide(c.residence, 0, 4), be.wide(c.age, 0, 150), be.wide(c.credits, 0, 4),
             be.wide(c.liable, 0, 2)], f.label
  FROM german.features f JOIN german.credit c USING (id);
INSERT INTO be.tables
SELECT t.tbl || '_wide', t.groups, t.w_false, -1 FROM be.tables t WHERE t.tbl IN ('bank', 'german')
UNION ALL SELECT 'adult_wide', t.groups, t.w_false, -1 FROM be.tables t WHERE t.tbl = 'adult12';
ANALYZE be.rows;
