/*
 * shell.h - the interactive shell: GNU readline's callback interface, so
 * the prompt shares one event loop with the master (no threads).  History
 * in console.history, tab completion of commands, modes, set keys and PVM
 * host names from the command table, messages that arrive on their own
 * printed above the prompt.  Used only when stdin is a terminal.
 */
#ifndef DTS_CONSOLE_SHELL_H
#define DTS_CONSOLE_SHELL_H

struct console;

/* Set up readline, load the history, show the prompt. */
void shell_init(struct console *c);

/* stdin is readable. */
void shell_input(void);

/* Hide the prompt while a command waits for replies; show it again. */
void shell_pause(void);
void shell_resume(void);

/* Ctrl-C: drop the line being typed. */
void shell_interrupt(void);

/* The terminal changed size. */
void shell_winch(void);

/* Save the history, restore the terminal. */
void shell_fini(void);

#endif /* DTS_CONSOLE_SHELL_H */
