/*
 * pvmcmd.h - the console's PVM commands: conf, add, delete, tasks, spawn,
 * halt.  Each connects first (starting dts if no pvmd runs; halt never
 * starts one), refreshes the cached host table, and reports every PVM
 * error as one line.
 */
#ifndef DTS_CONSOLE_PVMCMD_H
#define DTS_CONSOLE_PVMCMD_H

struct console;

int cpvm_cmd_conf(struct console *c, int argc, char **argv);
int cpvm_cmd_add(struct console *c, int argc, char **argv);
int cpvm_cmd_delete(struct console *c, int argc, char **argv);
int cpvm_cmd_tasks(struct console *c, int argc, char **argv);
int cpvm_cmd_spawn(struct console *c, int argc, char **argv);
int cpvm_cmd_halt(struct console *c, int argc, char **argv);

#endif /* DTS_CONSOLE_PVMCMD_H */
