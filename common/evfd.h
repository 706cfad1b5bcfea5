/*
 * evfd.h - the event fds of an epoll loop, set up one way for dts,
 * dts-load and dts-console: signals through a signalfd, timers through
 * timerfds, all non-blocking and close-on-exec.
 */
#ifndef DTS_EVFD_H
#define DTS_EVFD_H

#include <signal.h>
#include <stdint.h>
#include <time.h>

/*
 * Block the signals of mask and return a signalfd that reads them, or -1.
 * SIGPIPE is ignored as well: a write to a closed socket or pipe returns
 * EPIPE instead of ending the process.
 */
int  evfd_signals(const sigset_t *mask);

/* A timerfd on clock (CLOCK_MONOTONIC, CLOCK_REALTIME), or -1. */
int  evfd_timer(clockid_t clock);

/*
 * Arm timer fd to expire once: at ns on its clock if absolute, else ns
 * from now; ns 0 disarms it.  0, or -1 (errno set).
 */
int  evfd_timer_set(int fd, int64_t ns, int absolute);

/* Add fd to epoll set ep for events, with fd as its data.  0 or -1. */
int  evfd_watch(int ep, int fd, uint32_t events);

#endif /* DTS_EVFD_H */
