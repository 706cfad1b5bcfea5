/*
 * evfd.c - signalfd, timerfd and epoll set-up.  See evfd.h.
 */
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>

#include "evfd.h"
#include "timeutil.h"

int
evfd_signals(const sigset_t *mask)
{
	if (sigprocmask(SIG_BLOCK, mask, NULL) == -1 ||
	    signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		return -1;
	return signalfd(-1, mask, SFD_NONBLOCK | SFD_CLOEXEC);
}

int
evfd_timer(clockid_t clock)
{
	return timerfd_create(clock, TFD_NONBLOCK | TFD_CLOEXEC);
}

int
evfd_timer_set(int fd, int64_t ns, int absolute)
{
	struct itimerspec	 its;

	memset(&its, 0, sizeof(its));
	its.it_value = ns_to_ts(ns);
	return timerfd_settime(fd, absolute ? TFD_TIMER_ABSTIME : 0, &its,
	    NULL);
}

int
evfd_watch(int ep, int fd, uint32_t events)
{
	struct epoll_event	 ev;

	memset(&ev, 0, sizeof(ev));
	ev.events = events;
	ev.data.fd = fd;
	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}
