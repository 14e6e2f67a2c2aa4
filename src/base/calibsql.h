/*-------------------------------------------------------------------------
 *
 * calibsql.h
 *	  The server's side of calibrate.c (calibsql.c): its interrupt hook, and
 *	  the refusals, with errcode and hint, of what it cannot calibrate.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_CALIBSQL_H
#define DPOBJ_CALIBSQL_H

/* _PG_init: calibrate.c's long searches honour cancel and timeouts */
extern void dpobj_calib_init(void);

/*
 * zcdp_rho(eps, delta), or an error before anything is charged when no rho
 * converts to (eps, delta) (public grounds: the arguments only).
 */
extern double dpobj_zcdp_rho_checked(const char *aggname, double eps, double delta);

/* the same without the error: false when no rho converts to (eps, delta) */
extern bool dpobj_zcdp_rho_try(double eps, double delta, double *rho);

/* a noise scale is one only when finite and at least DBL_MIN */
extern bool dpobj_noise_scale_ok(double sigma);

#endif							/* DPOBJ_CALIBSQL_H */
