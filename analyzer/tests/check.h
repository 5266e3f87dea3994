/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The checks of the host-side unit tests (one program each): begin() a
 * test, CHECK() its conditions, end() it with one "ok"/"not ok" line;
 * passed and failed count the tests for the program's last line.
 */
#ifndef KMP_TESTS_CHECK_H
#define KMP_TESTS_CHECK_H

#include <stdbool.h>
#include <stdio.h>

#include "kmp.h"

static int passed, failed;
static int test_failed;
static const char *test_name;

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			printf("  %s:%d: %s: ", __FILE__, __LINE__, test_name); \
			printf(__VA_ARGS__);				\
			printf("\n");					\
			test_failed = 1;				\
		}							\
	} while (0)

/* The exit status of a run that ended so: kmp_exit_status(), the one mapping. */
static inline int status(bool ok, const struct kmp_err *err, bool opened)
{
	return ok ? KMP_OK : kmp_exit_status(err, opened);
}

static inline void begin(const char *name)
{
	test_name = name;
	test_failed = 0;
}

static inline void end(void)
{
	printf("%s - %s\n", test_failed ? "not ok" : "ok", test_name);
	if (test_failed)
		failed++;
	else
		passed++;
}

#endif
