/*
 * names.c - lookups in the name table of an enum (names.h).
 */
#include <strings.h>

#include "names.h"

int
names_find(const char *const *names, const char *s)
{
	int	 i;

	for (i = 0; names[i] != NULL; i++)
		if (strcasecmp(names[i], s) == 0)
			return i;
	return -1;
}

const char *
names_get(const char *const *names, unsigned v)
{
	return v < names_count(names) ? names[v] : "?";
}

size_t
names_count(const char *const *names)
{
	size_t	 n;

	for (n = 0; names[n] != NULL; n++)
		;
	return n;
}
