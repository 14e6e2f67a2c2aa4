/*-------------------------------------------------------------------------
 *
 * help.c
 *	  dpobj.help(topic text DEFAULT NULL) RETURNS text — MADlib-style online
 *	  help.  Without a topic: the overview and the list of topics with their
 *	  one-line summaries; with one: that section of docs/REFERENCE.md.  The
 *	  text is docs/REFERENCE.md itself (help.h), so the manual and the help
 *	  cannot drift apart.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"

#include "api/help.h"

PG_FUNCTION_INFO_V1(dpobj_help);

static const DPHelpTopic *
help_find(const char *name)
{
	for (int i = 0; i < dp_help_ntopics; i++)
		if (pg_strcasecmp(dp_help_topics[i].name, name) == 0)
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
	appendStringInfoString(&buf, "\nTopics (SELECT dpobj.help('topic')):\n\n");
	for (int i = 0; i < dp_help_ntopics; i++)
		appendStringInfo(&buf, "  %-*s  %s\n", width, dp_help_topics[i].name,
						 dp_help_topics[i].summary);
	return buf.data;
}

Datum
dpobj_help(PG_FUNCTION_ARGS)
{
	const DPHelpTopic *t;
	char	   *name;

	if (PG_ARGISNULL(0))
		PG_RETURN_TEXT_P(cstring_to_text(help_index()));
	name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	t = help_find(name);
	if (t == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("no help topic \"%s\"", name),
				 errhint("SELECT dpobj.help() lists the topics.")));
	PG_RETURN_TEXT_P(cstring_to_text(t->text));
}
