// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the name rule and the comm cleaning on arbitrary
 * bytes, and a pool whose name and owner are the input (split at the
 * first NUL) read through the pool reader: an accepted name is one word of
 * bytes the kernel's isprint() accepts and its isspace() does not, and the
 * report stays one line per pool.
 */
#include <stdint.h>
#include <string.h>

#include "fuzz_common.h"
#include "memimg.h"
#include "namerule.h"
#include "pools.h"
#include "report.h"

#define BASE 0xffff888000000000ULL
#define STR 0xffff888000100000ULL

static struct kmp_vmlinux V;
static struct kmp_layout L;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_load_layout(&V, &L);
	return 0;
}

static void put(unsigned char *b, uint64_t off, uint64_t size, uint64_t v)
{
	for (uint64_t i = 0; i < size; i++)
		b[off + i] = (unsigned char)(v >> (8 * i));
}

static void quiet(const char *msg, void *arg)
{
	(void)msg;
	(void)arg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct kmp_limits lim = { 4, 4 };
	struct kmp_pools pools = { .notes.note = quiet };
	char why[128], *comm = malloc(size + 1);
	const uint8_t *nul = memchr(data, 0, size);
	uint64_t node = BASE + 0x100 + L.list.off, wq = BASE + 0x100 + L.wait.off + L.wqh_head.off;
	struct kmp_err err;
	struct memimg img;
	struct kmp_mem mem;
	unsigned char *m, *s;
	char *text = NULL;
	size_t len = 0, lines = 0;
	FILE *f;

	if (!comm)
		return 0;
	if (kmp_name_ok((const char *)data, size, why, sizeof(why))) {
		if (!size)
			abort();
		/* The kernel's isprint() && !isspace(): 0x21..0x7e, 0xa1..0xff. */
		for (size_t i = 0; i < size; i++)
			if (data[i] < 0x21 || (data[i] > 0x7e && data[i] < 0xa1))
				abort();
	}
	memcpy(comm, data, size);
	comm[size] = '\0';
	kmp_comm_clean(comm);
	for (char *p = comm; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			abort();
	free(comm);

	/* One pool, name = bytes up to the first NUL, owner = the rest. */
	memimg_init(&img, &mem);
	m = memimg_add(&img, BASE, 0x1000);
	s = memimg_add(&img, STR, ((size + 2 + 63) & ~63UL));
	memcpy(s, data, size);
	put(m, L.lh_next.off, 8, node);
	put(m, L.lh_prev.off, 8, node);
	put(m, 0x100 + L.list.off + L.lh_next.off, 8, BASE);
	put(m, 0x100 + L.list.off + L.lh_prev.off, 8, BASE);
	put(m, 0x100 + L.wait.off + L.wqh_head.off + L.lh_next.off, 8, wq);
	put(m, 0x100 + L.wait.off + L.wqh_head.off + L.lh_prev.off, 8, wq);
	put(m, 0x100 + L.name.off, L.name.size, STR);
	put(m, 0x100 + L.owner.off, L.owner.size, nul ? STR + (uint64_t)(nul - data) + 1 : 0);
	(void)kmp_read_pools(&mem, &L, BASE, &lim, &pools, &err);
	for (size_t i = 0; i < pools.n; i++)
		if (!kmp_name_ok(pools.v[i].name, strlen(pools.v[i].name), why, sizeof(why)) ||
		    (strcmp(pools.v[i].owner, "-") &&
		     !kmp_name_ok(pools.v[i].owner, strlen(pools.v[i].owner), why, sizeof(why))))
			abort();
	f = open_memstream(&text, &len);
	if (f) {
		kmp_report_text(f, "1.0", &pools);
		fclose(f);
		for (size_t i = 0; i < len; i++)
			lines += text[i] == '\n';
		if (lines != pools.n + 2)
			abort();
		free(text);
	}
	kmp_pools_free(&pools);
	memimg_free(&img);
	return 0;
}
