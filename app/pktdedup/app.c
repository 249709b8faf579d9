/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The run's state, below every file of the app: its configuration, plan, workers and
 * ports (struct pd_app), the stop flag the signal handler sets and the signals that set
 * it, SIGUSR1's ask for a counter line, and the app's logtype.
 * main.c fills them; the others read them.
 */
#include "pktdedup.h"

struct pd_app pd_app;
RTE_LOG_REGISTER(pd_logtype, pktdedup, INFO)
_Atomic int pd_force_quit;
_Atomic int pd_stats_asked;

void pd_stop_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
}
