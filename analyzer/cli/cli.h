/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool's command line (main.c), for main(), triage.c and the crash
 * extension (crash/bridge.c).
 */
#ifndef KMP_CLI_H
#define KMP_CLI_H

#include <stdio.h>

#include "kmp.h"

/*
 * The command line @argv run, printing its report to @to and its messages
 * to @msgs; returns the exit status.  main() calls it with stdout and
 * stderr, the crash extension with its streams to crash's output.
 */
int kmp_cli_run(int argc, char **argv, FILE *to, FILE *msgs);
/* The library's notes on @to ("kmempool: MSG"), progress when stderr is a terminal. */
struct kmp_notes kmp_cli_notes(FILE *to);

#endif
