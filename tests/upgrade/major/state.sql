-- tests/upgrade/major/state.sql — everything that must survive the move, by name (roles,
-- tables, collations), never by OID: one line per row, "section|json".
\pset tuples_only on
\pset format unaligned
SELECT 'budget|' || (to_jsonb(b) - 'id')::text FROM dpobj.budgets b ORDER BY b.id;
SELECT 'ledger|' || (to_jsonb(l) - 'rolid' || jsonb_build_object('role', r.rolname))::text
  FROM dpobj.ledger l LEFT JOIN pg_roles r ON r.oid = l.rolid ORDER BY l.id;
-- the unit column by name: a dump renumbers it (dpobj.reattach_unit() records the new number)
SELECT 'protected|' || (to_jsonb(p) - 'unit_collation' - 'unit_attnum'
                        || jsonb_build_object('collation', c.collname, 'unit_column_now', a.attname))::text
  FROM dpobj.protected_tables p LEFT JOIN pg_collation c ON c.oid = p.unit_collation
  LEFT JOIN pg_attribute a ON a.attrelid = p.relid AND a.attnum = p.unit_attnum
 ORDER BY p.relid::text;
SELECT 'model|' || (to_jsonb(m) - 'ownerid' || jsonb_build_object('owner', r.rolname))::text
  FROM dpobj.models m LEFT JOIN pg_roles r ON r.oid = m.ownerid ORDER BY m.id;
SELECT 'feature_domain|' || to_jsonb(f)::text FROM dpobj.feature_domains f ORDER BY f.relid::text, f.column_name;
SELECT 'budget_domain|' || to_jsonb(d)::text FROM dpobj.budget_domains d ORDER BY d.name;
SELECT 'cron|' || jsonb_build_object('name', jobname, 'schedule', schedule, 'command', command,
                                     'database', database, 'user', username, 'active', active)::text
  FROM cron.job ORDER BY jobid;
-- what each role sees of the ledger, its budgets and its models.  A zCDP budget's spent and
-- remaining epsilon are composed from the stored rho in float arithmetic, whose 15th digit
-- differed between the Debian 12 build on 15 and the unstable build on 18 (compiler or libm):
-- compared to 12 decimals; the stored amounts (the budget lines above) compare exactly.
SET ROLE major_alice;
SELECT 'sees|alice|' || jsonb_build_object('ledger', (SELECT jsonb_agg(id ORDER BY id) FROM dpobj.ledger),
         'budgets', (SELECT jsonb_agg(to_jsonb(mb) || jsonb_build_object(
             'spent_epsilon', round(mb.spent_epsilon, 12), 'remaining_epsilon', round(mb.remaining_epsilon, 12)) ORDER BY mb.relation) FROM dpobj.my_budgets mb),
         'models', (SELECT jsonb_agg(name ORDER BY name) FROM dpobj.models))::text;
SET ROLE major_bob;
SELECT 'sees|bob|' || jsonb_build_object('ledger', (SELECT jsonb_agg(id ORDER BY id) FROM dpobj.ledger),
         'budgets', (SELECT jsonb_agg(to_jsonb(mb) || jsonb_build_object(
             'spent_epsilon', round(mb.spent_epsilon, 12), 'remaining_epsilon', round(mb.remaining_epsilon, 12)) ORDER BY mb.relation) FROM dpobj.my_budgets mb),
         'models', (SELECT jsonb_agg(name ORDER BY name) FROM dpobj.models))::text;
SET ROLE major_carol;
SELECT 'sees|carol|' || jsonb_build_object('ledger', (SELECT jsonb_agg(id ORDER BY id) FROM dpobj.ledger),
         'budgets', (SELECT jsonb_agg(to_jsonb(mb) || jsonb_build_object(
             'spent_epsilon', round(mb.spent_epsilon, 12), 'remaining_epsilon', round(mb.remaining_epsilon, 12)) ORDER BY mb.relation) FROM dpobj.my_budgets mb),
         'models', (SELECT jsonb_agg(name ORDER BY name) FROM dpobj.models))::text;
RESET ROLE;
