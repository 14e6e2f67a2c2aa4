/*
 * tests/fuzz/asaninit.c — preloaded after gcc's libasan by tests/fuzz/sanitize.sh: the
 * sanitizer runtime, preloaded into an uninstrumented server, initialises at its first
 * malloc; when that malloc is the one inside bindtextdomain() called by a library's
 * constructor (libgpg-error's, a dependency of the server's libsystemd), glibc's gettext
 * lock is held and the runtime's initialisation, which asks dlerror() for a message, waits
 * for it forever (the server never starts).  This bindtextdomain() mallocs first, with no
 * lock held, then calls glibc's.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>

char	   *bindtextdomain(const char *domain, const char *dir);

char *
bindtextdomain(const char *domain, const char *dir)
{
	static char *(*real) (const char *, const char *);
	void	   *volatile p = malloc(1);	/* (volatile: kept, not folded away with the free) */

	free(p);
	if (real == NULL)
		real = (char *(*) (const char *, const char *)) dlsym(RTLD_NEXT, "bindtextdomain");
	return real(domain, dir);
}
