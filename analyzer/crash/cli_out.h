/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool crash extension: force-included (-include) into cli/main.c as
 * the extension builds it (analyzer/Makefile).  main.c's stdout is crash's
 * own output (crash's fp: the terminal, the pager, a pipe or a file of
 * `mempool > FILE`) and its stderr crash's stderr, both read from the
 * bridge at each use; once the command was interrupted (Ctrl-C) both are a
 * sink, so nothing of a command cut short is printed as if it were whole.
 * crash's global stdout is never touched.
 */
#ifndef KMP_CRASH_CLI_OUT_H
#define KMP_CRASH_CLI_OUT_H

#include <stdio.h>

FILE *kmp_crash_stdout(void);
FILE *kmp_crash_stderr(void);

#undef stdout
#define stdout (kmp_crash_stdout())
#undef stderr
#define stderr (kmp_crash_stderr())
/* After <stdio.h> (and _FORTIFY_SOURCE's inline printf): every call site. */
#define printf(...) fprintf(stdout, __VA_ARGS__)

#endif
