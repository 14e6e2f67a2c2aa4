-- Partitions and inheritance (docs/USAGE.md "Partitions and inheritance"): a
-- partition's or inheritance child's rows are also its parents' rows, so one
-- table of a tree at most is protected -- protect() refuses a second, and a run
-- refuses (before the charge) a tree that ATTACH PARTITION or ALTER TABLE ...
-- INHERIT joined after protect(); protect() warns when a parent is readable.
CREATE SCHEMA regress_pt;
GRANT USAGE ON SCHEMA regress_pt TO PUBLIC;
CREATE ROLE regress_pt_owner;
CREATE ROLE regress_pt_alice;
CREATE ROLE regress_pt_bob;
GRANT CREATE ON SCHEMA regress_pt TO regress_pt_owner;
SET ROLE regress_pt_owner;

-- ---- a partition of a protected partitioned table -------------------------------
CREATE TABLE regress_pt.p (i int, a float8, y boolean) PARTITION BY RANGE (i);
CREATE TABLE regress_pt.p1 PARTITION OF regress_pt.p FOR VALUES FROM (0) TO (100);
CREATE TABLE regress_pt.p2 PARTITION OF regress_pt.p FOR VALUES FROM (100) TO (200)
    PARTITION BY RANGE (i);
CREATE TABLE regress_pt.p21 PARTITION OF regress_pt.p2 FOR VALUES FROM (100) TO (200);
INSERT INTO regress_pt.p SELECT i, (i % 100) / 100.0, i % 3 = 0 FROM generate_series(0, 199) i;
SELECT dpobj.protect('regress_pt.p');
-- a second, independent budget on its partitions' rows: refused, at any depth
SELECT * FROM regress.err($$SELECT dpobj.protect('regress_pt.p1')$$);
SELECT * FROM regress.err($$SELECT dpobj.protect('regress_pt.p21', privacy_unit => 'i', max_rows_per_unit => 1)$$);
SELECT relid FROM dpobj.protected_tables WHERE relid::text LIKE 'regress_pt.%' ORDER BY 1;

-- ---- reverse order: a parent of a protected partition ----------------------------
CREATE TABLE regress_pt.q (i int, a float8, y boolean) PARTITION BY RANGE (i);
CREATE TABLE regress_pt.q1 PARTITION OF regress_pt.q FOR VALUES FROM (0) TO (100);
SELECT dpobj.protect('regress_pt.q1');
SELECT * FROM regress.err($$SELECT dpobj.protect('regress_pt.q')$$);

-- ---- inheritance, both ways ---------------------------------------------------
CREATE TABLE regress_pt.h (i int, a float8, y boolean);
CREATE TABLE regress_pt.h_c () INHERITS (regress_pt.h);
CREATE TABLE regress_pt.h_cc () INHERITS (regress_pt.h_c);
SELECT dpobj.protect('regress_pt.h_c');
SELECT * FROM regress.err($$SELECT dpobj.protect('regress_pt.h')$$);
SELECT * FROM regress.err($$SELECT dpobj.protect('regress_pt.h_cc')$$);

-- ---- joined after protect(): every run refused before the charge ----------------
CREATE TABLE regress_pt.s (i int, a float8, y boolean) PARTITION BY RANGE (i);
CREATE TABLE regress_pt.s1 PARTITION OF regress_pt.s FOR VALUES FROM (0) TO (100);
CREATE TABLE regress_pt.s_new (i int, a float8, y boolean);
INSERT INTO regress_pt.s SELECT i, i / 100.0, i % 3 = 0 FROM generate_series(0, 99) i;
INSERT INTO regress_pt.s_new SELECT i, (i - 100) / 100.0, i % 3 = 0 FROM generate_series(100, 199) i;
SELECT dpobj.protect('regress_pt.s');
SELECT dpobj.protect('regress_pt.s_new');
SELECT 1 FROM dpobj.grant_budget('regress_pt.s', 'regress_pt_alice', 1, 0.001);
SELECT 1 FROM dpobj.grant_budget('regress_pt.s_new', 'regress_pt_alice', 1, 0.001);
ALTER TABLE regress_pt.s ATTACH PARTITION regress_pt.s_new FOR VALUES FROM (100) TO (200);
-- inheritance added later: the same
CREATE TABLE regress_pt.g (i int, a float8, y boolean);
CREATE TABLE regress_pt.g_c (i int, a float8, y boolean);
INSERT INTO regress_pt.g_c SELECT i, i / 100.0, i % 3 = 0 FROM generate_series(0, 99) i;
SELECT dpobj.protect('regress_pt.g');
SELECT dpobj.protect('regress_pt.g_c');
SELECT 1 FROM dpobj.grant_budget('regress_pt.g_c', 'regress_pt_alice', 1, 0.001);
ALTER TABLE regress_pt.g_c INHERIT regress_pt.g;
RESET ROLE;
SET ROLE regress_pt_alice;
SELECT * FROM regress.err($$SELECT dpobj.train('regress_pt.s', 'opdisc', ARRAY['a'], 'y', 0.25, 1e-5)$$);
SELECT * FROM regress.err($$SELECT dpobj.train('regress_pt.s_new', 'opdisc', ARRAY['a'], 'y', 0.25, 1e-5)$$);
SELECT * FROM regress.err($$SELECT dpobj.train('regress_pt.g_c', 'opdisc', ARRAY['a'], 'y', 0.25, 1e-5)$$);
SELECT * FROM regress.err($$SELECT dpobj.submit('regress_pt.s', 'opdisc', ARRAY['a'], 'y', 0.25, 1e-5)$$);
SELECT relation, spent_epsilon FROM dpobj.my_budgets ORDER BY 1;
RESET ROLE;
-- nothing reached the ledger
SELECT count(*) FROM dpobj.ledger WHERE rolname = 'regress_pt_alice';
-- detached again: each table's runs are its own
SET ROLE regress_pt_owner;
ALTER TABLE regress_pt.s DETACH PARTITION regress_pt.s_new;
RESET ROLE;
SET ROLE regress_pt_alice;
SELECT mechanism FROM dpobj.train('regress_pt.s', 'opdisc', ARRAY['a'], 'y', 0.25, 0.00001);
SELECT relation, spent_epsilon FROM dpobj.my_budgets ORDER BY 1;
RESET ROLE;

-- ---- a tree changed during the scan (after the plan was checked and charged) ---------
-- the owner's row-level security code adds an inheritance child while the scan runs: the
-- plan reads the tree it was checked with, charged before its first row, and releases
SET ROLE regress_pt_owner;
CREATE TABLE regress_pt.m (i int, a float8, y boolean);
CREATE TABLE regress_pt.m_c (i int, a float8, y boolean);
INSERT INTO regress_pt.m SELECT i, i / 100.0, i % 3 = 0 FROM generate_series(0, 99) i;
CREATE FUNCTION regress_pt.grow() RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_inherits WHERE inhrelid = 'regress_pt.m_c'::regclass) THEN
        ALTER TABLE regress_pt.m_c INHERIT regress_pt.m;
    END IF;
    RETURN true;
END $$;
ALTER TABLE regress_pt.m ENABLE ROW LEVEL SECURITY;
ALTER TABLE regress_pt.m FORCE ROW LEVEL SECURITY;
CREATE POLICY grow ON regress_pt.m USING (regress_pt.grow());
SELECT dpobj.protect('regress_pt.m');
SELECT 1 FROM dpobj.grant_budget('regress_pt.m', 'regress_pt_alice', 1, 0.001);
RESET ROLE;
SET ROLE regress_pt_alice;
SELECT * FROM regress.err($$SELECT dpobj.train('regress_pt.m', 'opdisc', ARRAY['a'], 'y', 0.25, 1e-5)$$);
SELECT relation, spent_epsilon FROM dpobj.my_budgets WHERE relation = 'regress_pt.m'::regclass;
RESET ROLE;
SELECT count(*) FROM dpobj.ledger WHERE relation = 'regress_pt.m';

-- ---- a parent (or a partition) others can read: protect() warns --------------
SET ROLE regress_pt_owner;
CREATE TABLE regress_pt.w (i int, a float8, y boolean) PARTITION BY RANGE (i);
CREATE TABLE regress_pt.w1 PARTITION OF regress_pt.w FOR VALUES FROM (0) TO (100);
CREATE TABLE regress_pt.v (i int, a float8, y boolean);
CREATE TABLE regress_pt.v_c () INHERITS (regress_pt.v);
CREATE TABLE regress_pt.x (i int, a float8, y boolean);
CREATE TABLE regress_pt.x_c () INHERITS (regress_pt.x);
CREATE TABLE regress_pt.u (i int, a float8, y boolean) PARTITION BY RANGE (i);
CREATE TABLE regress_pt.u1 PARTITION OF regress_pt.u FOR VALUES FROM (0) TO (100);
GRANT SELECT ON regress_pt.w TO regress_pt_bob;
GRANT SELECT (a) ON regress_pt.v TO PUBLIC;
GRANT SELECT ON regress_pt.u1 TO regress_pt_bob;
-- a parent only its owner reads: no warning
SELECT dpobj.protect('regress_pt.x_c');
SELECT dpobj.protect('regress_pt.w1');
SELECT dpobj.protect('regress_pt.v_c');
-- a partition others can read holds some of the parent's rows: the same
SELECT dpobj.protect('regress_pt.u');
RESET ROLE;

-- ---- clean up -----------------------------------------------------------------
SELECT dpobj.unprotect(relid) FROM dpobj.protected_tables
 WHERE relid::text LIKE 'regress_pt.%' ORDER BY relid::text;
SET client_min_messages = warning;
DROP SCHEMA regress_pt CASCADE;
RESET client_min_messages;
DROP ROLE regress_pt_owner, regress_pt_alice, regress_pt_bob;
