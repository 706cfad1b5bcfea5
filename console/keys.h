/*
 * keys.h - dts-console's key commands (-k, -P, -N): they print what an
 * administrator copies to the nodes, and exit.
 */
#ifndef DTS_CONSOLE_KEYS_H
#define DTS_CONSOLE_KEYS_H

#include "conf.h"

/* -k FILE: a new key pair for this console; prints its public key. */
int keys_generate(const char *path);

/* -P: the public key of console.sign_key, for the nodes' console_keys. */
int keys_public(const struct dts_conf *c);

/* -N ADDRESS: the key of the node at ADDRESS, from console.node_secret,
 * for that node's key_file. */
int keys_node(const struct dts_conf *c, const char *addr);

#endif /* DTS_CONSOLE_KEYS_H */
