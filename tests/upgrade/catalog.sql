-- tests/upgrade/catalog.sql — every object that belongs to the dpobj extension, with its
-- full definition, as sorted text without OIDs: two databases have the same dpobj catalog
-- exactly when this query prints the same lines in both (tests/upgrade/run.sh diffs them).
-- Covers functions and aggregates (definition, volatility, strictness, security, config,
-- ACL, comment), types, tables and views (columns, defaults, constraints, indexes,
-- triggers, policies, row-level security, ACL, comments, view definitions), sequences,
-- event triggers, the schema's ACL, the extension's configuration tables and conditions,
-- and, for anything else, PostgreSQL's own description of the object.
SET search_path = pg_catalog;

WITH ext AS (
    SELECT oid, extversion, extrelocatable, extconfig, extcondition
      FROM pg_extension WHERE extname = 'dpobj'
), members AS (
    SELECT d.classid, d.objid
      FROM pg_depend d JOIN ext ON d.refobjid = ext.oid
     WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
), lines AS (
    -- functions, procedures and aggregates
    SELECT 'function ' || p.oid::regprocedure::text AS ident,
           concat_ws(E'\n',
               CASE WHEN p.prokind = 'a' THEN
                   (SELECT format('aggregate transfn=%s stype=%s finalfn=%s modify=%s combinefn=%s serialfn=%s deserialfn=%s initval=%s kind=%s',
                                  a.aggtransfn::oid::regprocedure, format_type(a.aggtranstype, NULL),
                                  nullif(a.aggfinalfn::oid, 0)::regprocedure, a.aggfinalmodify,
                                  nullif(a.aggcombinefn::oid, 0)::regprocedure,
                                  nullif(a.aggserialfn::oid, 0)::regprocedure,
                                  nullif(a.aggdeserialfn::oid, 0)::regprocedure,
                                  a.agginitval, a.aggkind)
                      FROM pg_aggregate a WHERE a.aggfnoid = p.oid)
                    || format(' parallel=%s', p.proparallel)
               ELSE pg_get_functiondef(p.oid) END,
               'acl=' || coalesce(p.proacl::text, '(default)'),
               'owner_super=' || (SELECT r.rolsuper FROM pg_roles r WHERE r.oid = p.proowner),
               'comment=' || coalesce(obj_description(p.oid, 'pg_proc'), '')) AS def
      FROM members m JOIN pg_proc p ON p.oid = m.objid
     WHERE m.classid = 'pg_proc'::regclass
    UNION ALL
    -- types (a composite type's attributes are listed with its relation)
    SELECT 'type ' || format_type(t.oid, NULL),
           format('typtype=%s len=%s byval=%s align=%s storage=%s category=%s in=%s out=%s recv=%s send=%s relkind=%s acl=%s comment=%s',
                  t.typtype, t.typlen, t.typbyval, t.typalign, t.typstorage, t.typcategory,
                  t.typinput::oid::regprocedure, t.typoutput::oid::regprocedure,
                  nullif(t.typreceive::oid, 0)::regprocedure, nullif(t.typsend::oid, 0)::regprocedure,
                  (SELECT c.relkind FROM pg_class c WHERE c.oid = t.typrelid),
                  coalesce(t.typacl::text, '(default)'),
                  coalesce(obj_description(t.oid, 'pg_type'), ''))
      FROM members m JOIN pg_type t ON t.oid = m.objid
     WHERE m.classid = 'pg_type'::regclass
    UNION ALL
    -- relations: tables, views, sequences, composite types' relations
    SELECT format('relation %s.%s', c.relnamespace::regnamespace, quote_ident(c.relname)),
           concat_ws(E'\n',
               format('relkind=%s rls=%s force_rls=%s options=%s acl=%s comment=%s', c.relkind,
                      c.relrowsecurity, c.relforcerowsecurity, coalesce(c.reloptions::text, ''),
                      coalesce(c.relacl::text, '(default)'), coalesce(obj_description(c.oid, 'pg_class'), '')),
               (SELECT string_agg(format('column %s %s notnull=%s default=%s identity=%s generated=%s comment=%s',
                                         quote_ident(a.attname), format_type(a.atttypid, a.atttypmod),
                                         a.attnotnull, coalesce(pg_get_expr(ad.adbin, ad.adrelid), ''),
                                         a.attidentity, a.attgenerated,
                                         coalesce(col_description(c.oid, a.attnum), '')),
                                  E'\n' ORDER BY a.attnum)
                  FROM pg_attribute a LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
                 WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped),
               (SELECT string_agg(format('constraint %s %s', quote_ident(k.conname), pg_get_constraintdef(k.oid)),
                                  E'\n' ORDER BY k.conname)
                  FROM pg_constraint k WHERE k.conrelid = c.oid),
               (SELECT string_agg('index ' || pg_get_indexdef(i.indexrelid), E'\n'
                                  ORDER BY pg_get_indexdef(i.indexrelid))
                  FROM pg_index i WHERE i.indrelid = c.oid),
               (SELECT string_agg(format('trigger %s enabled=%s', pg_get_triggerdef(g.oid), g.tgenabled),
                                  E'\n' ORDER BY g.tgname)
                  FROM pg_trigger g WHERE g.tgrelid = c.oid AND NOT g.tgisinternal),
               (SELECT string_agg(format('policy %s cmd=%s permissive=%s roles=%s using=%s check=%s',
                                         quote_ident(po.polname), po.polcmd, po.polpermissive,
                                         (SELECT string_agg(CASE WHEN r = 0 THEN 'public' ELSE r::regrole::text END, ','
                                                           ORDER BY r::regrole::text)
                                            FROM unnest(po.polroles) r),
                                         coalesce(pg_get_expr(po.polqual, po.polrelid), ''),
                                         coalesce(pg_get_expr(po.polwithcheck, po.polrelid), '')),
                                  E'\n' ORDER BY po.polname)
                  FROM pg_policy po WHERE po.polrelid = c.oid),
               CASE WHEN c.relkind IN ('v', 'm') THEN 'view ' || pg_get_viewdef(c.oid) END,
               (SELECT format('sequence type=%s start=%s inc=%s min=%s max=%s cache=%s cycle=%s',
                              format_type(s.seqtypid, NULL), s.seqstart, s.seqincrement, s.seqmin,
                              s.seqmax, s.seqcache, s.seqcycle)
                  FROM pg_sequence s WHERE s.seqrelid = c.oid))
      FROM members m JOIN pg_class c ON c.oid = m.objid
     WHERE m.classid = 'pg_class'::regclass
    UNION ALL
    SELECT 'event trigger ' || quote_ident(e.evtname),
           format('event=%s function=%s tags=%s enabled=%s', e.evtevent,
                  e.evtfoid::oid::regprocedure, coalesce(e.evttags::text, ''), e.evtenabled)
      FROM members m JOIN pg_event_trigger e ON e.oid = m.objid
     WHERE m.classid = 'pg_event_trigger'::regclass
    UNION ALL
    -- anything else the extension owns (casts, operators, ...): PostgreSQL's description
    SELECT 'object ' || pg_describe_object(m.classid, m.objid, 0), ''
      FROM members m
     WHERE m.classid NOT IN ('pg_proc'::regclass, 'pg_type'::regclass, 'pg_class'::regclass,
                             'pg_event_trigger'::regclass)
    UNION ALL
    SELECT 'extension dpobj',
           format('version=%s relocatable=%s schema_acl=%s schema_owner_super=%s config=%s conditions=%s',
                  ext.extversion, ext.extrelocatable, n.nspacl,
                  (SELECT r.rolsuper FROM pg_roles r WHERE r.oid = n.nspowner),
                  (SELECT string_agg(x::regclass::text, ',' ORDER BY x::regclass::text) FROM unnest(ext.extconfig) x),
                  (SELECT string_agg(cond, ',' ORDER BY cond) FROM unnest(ext.extcondition) cond))
      FROM ext, pg_namespace n WHERE n.nspname = 'dpobj'
    UNION ALL
    SELECT 'role dpobj_admin', format('login=%s super=%s', rolcanlogin, rolsuper)
      FROM pg_roles WHERE rolname = 'dpobj_admin'
)
SELECT ident || E'\n' || coalesce(def, '') || E'\n' FROM lines ORDER BY ident, def;
