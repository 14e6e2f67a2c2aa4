/*-------------------------------------------------------------------------
 *
 * glmloss.h
 *	  The losses of the continuous-weight mechanisms (dp_logistic,
 *	  dp_noisysgd, dp_opsamp) as functions of the margin z = y <theta, x>.
 *	  Plain C (no PostgreSQL header): shared by the GLM solver
 *	  (glmsolve.c) and its unit test.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_GLMLOSS_H
#define DPOBJ_GLMLOSS_H

typedef enum GLMLoss
{
	GLM_LOSS_LOGISTIC = 1,
	GLM_LOSS_HUBER,				/* Huber-smoothed hinge, parameter h */
	GLM_LOSS_HINGE				/* scaled hinge (dp_opsamp) */
} GLMLoss;

/* loss value, first and second derivative in z = y <theta, x> */
extern void glm_loss(GLMLoss loss, double h, double z, double *f, double *df, double *d2f);

#endif							/* DPOBJ_GLMLOSS_H */
