/*-------------------------------------------------------------------------
 *
 * selecthint.h
 *	  The hint on a plain SELECT of a protected table (selecthint.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_SELECTHINT_H
#define DPOBJ_SELECTHINT_H

/* installs the parse-analysis hook (from _PG_init) */
extern void dpobj_select_hint_init(void);

#endif							/* DPOBJ_SELECTHINT_H */
