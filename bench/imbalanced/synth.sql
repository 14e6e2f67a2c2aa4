-- bench/imbalanced/synth.sql: the synthetic imbalanced table of bench/imbalanced and
-- bench/auto_imbalanced (40 000 rows, d = 15, 13.7 % positives; the first 30 000 train),
-- seeded, so every run builds the same rows.
SELECT setseed(0.42);
CREATE TABLE raw AS
SELECT i, (random() * 5)::int % 5 AS c1, (random() * 4)::int % 4 AS c2, (random() * 3)::int % 3 AS c3,
       random() AS x1, random() AS x2, random() AS x3, random() AS u
  FROM generate_series(1, 40000) i;
CREATE TABLE synth AS
SELECT CASE WHEN i <= 30000 THEN 'train' ELSE 'test' END AS split,
       ARRAY[(c1 = 0)::int, (c1 = 1)::int, (c1 = 2)::int, (c1 = 3)::int, (c1 = 4)::int,
             (c2 = 0)::int, (c2 = 1)::int, (c2 = 2)::int, (c2 = 3)::int,
             (c3 = 0)::int, (c3 = 1)::int, (c3 = 2)::int, x1, x2, x3]::float8[] AS features,
       u < 1 / (1 + exp(-(-3.2 + 1.2 * (c1 = 0)::int + 0.8 * (c1 = 1)::int - 0.6 * (c2 = 3)::int
                           + 1.0 * (c3 = 2)::int + 1.5 * x1 - 1.0 * x2 + 0.5 * x3))) AS label
  FROM raw;
