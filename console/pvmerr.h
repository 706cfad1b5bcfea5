/*
 * pvmerr.h - PVM's error codes by name and by meaning: the one table of
 * them, for the console (pvm.c) and the test tool tests/pvm/dts-pvmctl.
 * Needs libpvm3's pvm3.h to build; this header does not include it.
 */
#ifndef DTS_CONSOLE_PVMERR_H
#define DTS_CONSOLE_PVMERR_H

/* "PvmDupHost"; "PVM error -28" for a code not in the table. */
const char *pvmerr_name(int code);

/* "duplicate host (already in the VM)"; "PVM error -99" if unknown. */
const char *pvmerr_msg(int code);

#endif /* DTS_CONSOLE_PVMERR_H */
