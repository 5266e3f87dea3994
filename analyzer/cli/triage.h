/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool triage DUMP|DIR... (issue 20): many dumps, one JSON line each,
 * several at a time, each analysed in a process of its own.  @argv[0] is
 * "triage"; returns triage's exit status (kmempool(1), TRIAGE).
 */
#ifndef KMP_TRIAGE_H
#define KMP_TRIAGE_H

int kmp_triage_main(int argc, char **argv);

#endif
