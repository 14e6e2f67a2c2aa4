-- dpobj.help(): docs/REFERENCE.md compiled into the extension (src/api/helpgen.awk),
-- one row per line
\set ref `cat docs/REFERENCE.md`
CREATE FUNCTION pg_temp.help_text(topic text) RETURNS text LANGUAGE sql AS
$$ SELECT string_agg(l || E'\n', '' ORDER BY n) FROM dpobj.help(topic) WITH ORDINALITY h(l, n) $$;
-- the overview lists the topics
SELECT pg_temp.help_text(NULL) LIKE '%Topics (SELECT dpobj.help(''topic''), or a function''s name):%' AS lists_topics;
-- every topic in the list is a section of docs/REFERENCE.md, verbatim
SELECT t AS topic, position(rtrim(pg_temp.help_text(t), E'\n') IN :'ref') > 0 AS verbatim_in_reference
  FROM (SELECT (regexp_matches(pg_temp.help_text(NULL), E'^  (\\S+)  ', 'gn'))[1] AS t) s
 ORDER BY t;
-- ... and every section of docs/REFERENCE.md is a topic
SELECT (SELECT count(*) FROM regexp_matches(:'ref', E'^## ', 'gn')) =
       (SELECT count(*) FROM dpobj.help() l WHERE l ~ E'^  \\S+  ') AS same_count;
-- every mechanism dpobj.train() accepts (its registry: dpobj.mechanisms()) and every method
-- it takes by name finds the topic whose heading lists that name for train(); names are
-- case-insensitive
CREATE FUNCTION pg_temp.heading(topic text) RETURNS text LANGUAGE plpgsql AS
$$ BEGIN RETURN (SELECT l FROM dpobj.help(topic) l LIMIT 1);
   EXCEPTION WHEN invalid_parameter_value THEN RETURN NULL; END $$;
SELECT u.m AS name,
       coalesce(pg_temp.heading(u.m) ~ ('^## .*train: .*''' || u.m || ''''), false) AS has_topic
  FROM dpobj.mechanisms() WITH ORDINALITY d(mechanism, methods, i),
       unnest(ARRAY[d.mechanism] || coalesce(d.methods, '{}')) WITH ORDINALITY u(m, j)
 ORDER BY d.i, u.j;
SELECT pg_temp.help_text('OpDisc') = pg_temp.help_text('opdisc') AS case_insensitive;
-- one row per line, as psql shows it
SELECT * FROM dpobj.help('cancel');
-- every function, table or view of dpobj that docs/REFERENCE.md calls (dpobj.x(...)) or
-- names in a heading finds a topic that shows it (the list names any that does not)
CREATE TEMP TABLE documented AS
SELECT DISTINCT o.name
  FROM (SELECT proname::text AS name FROM pg_proc WHERE pronamespace = 'dpobj'::regnamespace
        UNION SELECT relname::text FROM pg_class WHERE relnamespace = 'dpobj'::regnamespace) o
 WHERE position('dpobj.' || o.name || '(' IN :'ref') > 0
    OR :'ref' ~ ('(?n)^## .*dpobj\.' || o.name || '[,)]');
SELECT name FROM documented
 WHERE NOT pg_temp.help_text(name) ~ ('dpobj\.' || name || '[(,)]') ORDER BY name;
SELECT count(*) >= 50 AS many_documented FROM documented;
-- a function's topic, also as dpobj.name or name(); a topic's own name stays its topic
SELECT f, split_part(pg_temp.help_text(f), E'\n', 1) AS first_line
  FROM unnest(ARRAY['declare_domain', 'dpobj.probability_raw', 'get_model()', 'DP_HALFSPACE',
                    'my_budgets', 'predict', 'dpobj.train']) f;
-- an unknown topic
SELECT dpobj.help('no such topic');
