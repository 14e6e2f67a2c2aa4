/*-------------------------------------------------------------------------
 *
 * help.h
 *	  dpobj.help([topic]): the reference manual (docs/REFERENCE.md), compiled
 *	  into the extension by src/api/helpgen.awk as src/api/helptext.c, with
 *	  the function names each topic documents.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_HELP_H
#define DPOBJ_HELP_H

typedef struct DPHelpTopic
{
	const char *name;			/* "train", "opdisc", ... */
	const char *summary;		/* one line */
	const char *text;			/* the section, heading included */
} DPHelpTopic;

/* a documented function, table or view name and the topic that documents it */
typedef struct DPHelpAlias
{
	const char *name;			/* "declare_domain", ... */
	int			topic;			/* index into dp_help_topics */
} DPHelpAlias;

/* src/api/helptext.c, generated */
extern const char *const dp_help_overview;
extern const DPHelpTopic dp_help_topics[];
extern const int dp_help_ntopics;
extern const DPHelpAlias dp_help_aliases[];
extern const int dp_help_naliases;

#endif							/* DPOBJ_HELP_H */
