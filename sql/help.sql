-- dpobj.help(): docs/REFERENCE.md compiled into the extension (src/api/helpgen.awk)
\set ref `cat docs/REFERENCE.md`
-- the overview lists the topics
SELECT dpobj.help() LIKE '%Topics (SELECT dpobj.help(''topic'')):%' AS lists_topics;
-- every topic in the list is a section of docs/REFERENCE.md, verbatim
SELECT t AS topic, position(rtrim(dpobj.help(t), E'\n') IN :'ref') > 0 AS verbatim_in_reference
  FROM (SELECT (regexp_matches(dpobj.help(), E'^  (\\S+)  ', 'gn'))[1] AS t) s
 ORDER BY t;
-- ... and every section of docs/REFERENCE.md is a topic
SELECT (SELECT count(*) FROM regexp_matches(:'ref', E'^## ', 'gn')) =
       (SELECT count(*) FROM regexp_matches(dpobj.help(), E'^  (\\S+)  ', 'gn')) AS same_count;
-- every mechanism dpobj.train() runs has a topic; names are case-insensitive
SELECT m, dpobj.help(m) LIKE '## ' || m || ' - %' AS has_topic
  FROM unnest(ARRAY['opdisc', 'rspm', 'expmech', 'logistic', 'noisysgd', 'auto', 'opsamp']) m;
SELECT dpobj.help('OpDisc') = dpobj.help('opdisc') AS case_insensitive;
-- an unknown topic
SELECT dpobj.help('no such topic');
