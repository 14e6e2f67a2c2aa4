/*-------------------------------------------------------------------------
 *
 * help.c
 *	  dpobj.help(topic text DEFAULT NULL) RETURNS SETOF text — MADlib-style
 *	  online help, one row per line (so psql shows it as lines, not one value
 *	  with "+" at every line end).  Without a topic: the overview and the list
 *	  of topics with their one-line summaries; with a topic, or the name of a
 *	  function, table or view it documents ("declare_domain", also written
 *	  "dpobj.declare_domain" or "declare_domain()"): that section of
 *	  docs/REFERENCE.md.  The text is docs/REFERENCE.md itself (help.h), so the
 *	  manual and the help cannot drift apart.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"

#include "api/help.h"

PG_FUNCTION_INFO_V1(dpobj_help);

/* the topic of this name, or of the function, table or view of this name */
static const DPHelpTopic *
help_find(const char *name)
{
	size_t		len;
	char	   *bare;

	for (int i = 0; i < dp_help_ntopics; i++)
		if (pg_strcasecmp(dp_help_topics[i].name, name) == 0)
			return &dp_help_topics[i];
	/* "dpobj.declare_domain()" names declare_domain */
	if (pg_strncasecmp(name, "dpobj.", 6) == 0)
		name += 6;
	bare = pstrdup(name);
	len = strlen(bare);
	if (len >= 2 && strcmp(bare + len - 2, "()") == 0)
		bare[len - 2] = '\0';
	for (int i = 0; i < dp_help_naliases; i++)
		if (pg_strcasecmp(dp_help_aliases[i].name, bare) == 0)
			return &dp_help_topics[dp_help_aliases[i].topic];
	for (int i = 0; i < dp_help_ntopics; i++)
		if (pg_strcasecmp(dp_help_topics[i].name, bare) == 0)
			return &dp_help_topics[i];
	return NULL;
}

static char *
help_index(void)
{
	StringInfoData buf;
	int			width = 0;

	for (int i = 0; i < dp_help_ntopics; i++)
		width = Max(width, (int) strlen(dp_help_topics[i].name));
	initStringInfo(&buf);
	appendStringInfoString(&buf, dp_help_overview);
	appendStringInfoString(&buf, "\nTopics (SELECT dpobj.help('topic'), or a function's name):\n\n");
	for (int i = 0; i < dp_help_ntopics; i++)
		appendStringInfo(&buf, "  %-*s  %s\n", width, dp_help_topics[i].name,
						 dp_help_topics[i].summary);
	return buf.data;
}

/* the text to show, every line ending in a newline */
static char *
help_text(FunctionCallInfo fcinfo)
{
	const DPHelpTopic *t;
	char	   *name;

	if (PG_ARGISNULL(0))
		return help_index();
	name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	t = help_find(name);
	if (t == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("no help topic \"%s\"", name),
				 errhint("SELECT dpobj.help() lists the topics; a function's name, "
						 "e.g. 'declare_domain', finds the topic that documents it.")));
	return pstrdup(t->text);
}

/* one row per line of the text */
Datum
dpobj_help(PG_FUNCTION_ARGS)
{
	FuncCallContext *funcctx;
	char	   *line;
	char	   *end;

	if (SRF_IS_FIRSTCALL())
	{
		MemoryContext oldcxt;

		funcctx = SRF_FIRSTCALL_INIT();
		oldcxt = MemoryContextSwitchTo(funcctx->multi_call_memory_ctx);
		funcctx->user_fctx = help_text(fcinfo);
		MemoryContextSwitchTo(oldcxt);
	}
	funcctx = SRF_PERCALL_SETUP();
	line = (char *) funcctx->user_fctx;
	if (*line == '\0')
		SRF_RETURN_DONE(funcctx);
	end = strchr(line, '\n');
	if (end == NULL)
		end = line + strlen(line);
	funcctx->user_fctx = (*end == '\n') ? end + 1 : end;
	SRF_RETURN_NEXT(funcctx, PointerGetDatum(cstring_to_text_with_len(line, end - line)));
}
