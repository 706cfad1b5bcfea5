/*
 * vectors.c - the example datagrams of doc/protocol.txt.  See vectors.h.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "vectors.h"

#define DOC SRCDIR "/doc/protocol.txt"

void
vector_load(const char *name, struct vector *v)
{
	FILE	*f = fopen(DOC, "r");
	char	 line[256], want[64];
	unsigned declared = 0;
	int	 in = 0;

	assert_non_null(f);
	memset(v, 0, sizeof(*v));
	snprintf(want, sizeof(want), "vector %s ", name);
	while (fgets(line, sizeof(line), f) != NULL) {
		if (!in) {
			if (strncmp(line, want, strlen(want)) == 0) {
				in = 1;
				assert_int_equal(sscanf(line + strlen(want),
				    "(%u bytes)", &declared), 1);
			}
			continue;
		}
		if (strncmp(line, "end", 3) == 0)
			break;
		char *p = line, *end;
		strtoul(p, &end, 16);	/* the offset */
		assert_int_equal(strtoul(p, NULL, 16), v->len);
		for (p = end; ; p = end) {
			unsigned long x = strtoul(p, &end, 16);
			if (end == p)
				break;
			assert_true(x <= 0xff && v->len < sizeof(v->b));
			v->b[v->len++] = (uint8_t)x;
		}
	}
	fclose(f);
	assert_true(in);
	assert_int_equal(v->len, declared);
	snprintf(v->name, sizeof(v->name), "%s", name);
}
