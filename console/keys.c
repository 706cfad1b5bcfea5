/*
 * keys.c - dts-console's key commands.  See keys.h.  Each returns the
 * process's exit status and says what went wrong in one line.
 */
#include <arpa/inet.h>
#include <stdio.h>

#include <sodium.h>

#include "auth.h"
#include "keys.h"

int
keys_generate(const char *path)
{
	char	 pub[2 * AUTH_PUB_LEN + 1], err[512];

	if (auth_signer_generate(path, pub, err, sizeof(err)) == -1) {
		fprintf(stderr, "dts-console: %s\n", err);
		return 1;
	}
	printf("%s\n", pub);
	return 0;
}

int
keys_public(const struct dts_conf *c)
{
	struct auth_key	 k = { 0 };
	char		 pub[2 * AUTH_PUB_LEN + 1], err[512];

	if (auth_signer_load(&k, c->console.sign_key, err,
	    sizeof(err)) == -1) {
		fprintf(stderr, "dts-console: console.sign_key: %s\n", err);
		return 1;
	}
	auth_signer_public(&k, pub);
	sodium_memzero(&k, sizeof(k));
	printf("%s\n", pub);
	return 0;
}

int
keys_node(const struct dts_conf *c, const char *addr)
{
	struct auth_key	 k = { 0 };
	struct in_addr	 a;
	uint8_t		 key[AUTH_KEY_LEN];
	char		 hex[2 * AUTH_KEY_LEN + 1], err[512];

	if (inet_pton(AF_INET, addr, &a) != 1) {
		fprintf(stderr, "dts-console: -N: \"%s\" is not an IPv4 "
		    "address\n", addr);
		return 2;
	}
	if (auth_key_load(&k, c->console.node_secret, err,
	    sizeof(err)) == -1) {
		fprintf(stderr, "dts-console: console.node_secret: %s\n", err);
		return 1;
	}
	auth_node_key(k.key, a.s_addr, key);
	sodium_bin2hex(hex, sizeof(hex), key, sizeof(key));
	printf("%s\n", hex);
	sodium_memzero(&k, sizeof(k));
	sodium_memzero(key, sizeof(key));
	sodium_memzero(hex, sizeof(hex));
	return 0;
}
