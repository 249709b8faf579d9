/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The stop flag replay's reader honours (replay_io.h), for pktdedup-keys: it stops a read
 * that waits on a pipe when a stop signal sets it. pktdedup-keys leaves SIGINT its default
 * action, so nothing sets it; it is defined here, apart from keys.c, so that the reader
 * and the program that calls it share no global in a circle (scripts/check_layers.py).
 */
#include "replay_io.h"

_Atomic int pd_force_quit;
