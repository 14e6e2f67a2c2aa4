/*-------------------------------------------------------------------------
 *
 * help.h
 *	  dpobj.help([topic]): the reference manual (docs/REFERENCE.md), compiled
 *	  into the extension by src/api/helpgen.awk as src/api/helptext.c.
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

/* src/api/helptext.c, generated */
extern const char *const dp_help_overview;
extern const DPHelpTopic dp_help_topics[];
extern const int dp_help_ntopics;

#endif							/* DPOBJ_HELP_H */
