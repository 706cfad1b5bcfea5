/*
 * unit_util.c - helpers the unit tests share (unit_util.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "timeutil.h"
#include "unit_util.h"

char *
tu_slurp(const char *path, size_t *len)
{
	char	*buf = NULL, *nb;
	size_t	 n = 0, cap = 0;
	ssize_t	 r;
	int	 fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd == -1)
		return NULL;
	for (;;) {
		if (cap - n < 4096) {
			cap = cap == 0 ? 8192 : cap * 2;
			if ((nb = realloc(buf, cap)) == NULL)
				break;
			buf = nb;
		}
		if ((r = read(fd, buf + n, cap - n - 1)) <= 0) {
			if (r == 0) {
				close(fd);
				buf[n] = '\0';
				if (len != NULL)
					*len = n;
				return buf;
			}
			break;
		}
		n += (size_t)r;
	}
	close(fd);
	free(buf);
	return NULL;
}

int
tu_seal(const struct auth_key *k, struct seqgen *g, struct proto_msg *m,
    uint8_t buf[PROTO_MAX_DGRAM])
{
	int	 n;

	n = proto_seal(k, g, now_mono_us(), m, buf, PROTO_MAX_DGRAM);
	assert_true(n > 0);
	return n;
}
