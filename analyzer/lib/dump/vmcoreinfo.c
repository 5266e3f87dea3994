// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool: parse VMCOREINFO text ("KEY=value" lines), strictly: the
 * values come from the dump, and the release and build ID become parts of
 * file names (findvmlinux.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmcoreinfo.h"

#define BUILD_ID_MIN 8		/* hex digits: 4 bytes; GNU build IDs are 20 */

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int hexval(char c)
{
	return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

/* Record the first bad line; returns false for the callers' convenience. */
static bool bad(struct kmp_vmcoreinfo *vi, const char *key, const char *val, size_t vlen,
		const char *why)
{
	if (vi->bad[0])
		return false;
	snprintf(vi->bad, sizeof(vi->bad), "%s=%.*s%s: %s", key, vlen > 40 ? 40 : (int)vlen,
		 val, vlen > 40 ? "..." : "", why);
	/* The value is quoted from the dump: keep the message one printable line. */
	for (char *p = vi->bad; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			*p = '?';
	return false;
}

static bool parse_release(struct kmp_vmcoreinfo *vi, const char *val, size_t vlen)
{
	if (vlen == 0 || vlen >= sizeof(vi->osrelease))
		return bad(vi, "OSRELEASE", val, vlen, "not 1 to 64 characters");
	for (size_t i = 0; i < vlen; i++)
		if ((unsigned char)val[i] < 0x21 || (unsigned char)val[i] > 0x7e || val[i] == '/')
			return bad(vi, "OSRELEASE", val, vlen,
				   "not printable, or holds white space or '/'");
	if (memmem(val, vlen, "..", 2))
		return bad(vi, "OSRELEASE", val, vlen, "holds \"..\"");
	memcpy(vi->osrelease, val, vlen);
	vi->osrelease[vlen] = '\0';
	return true;
}

static void parse_build_id(struct kmp_vmcoreinfo *vi, const char *val, size_t vlen,
			   char *why, size_t whylen)
{
	why[0] = '\0';
	if (vlen % 2 || vlen < BUILD_ID_MIN || vlen >= sizeof(vi->build_id)) {
		snprintf(why, whylen, "not an even number of %d to %zu hex digits",
			 BUILD_ID_MIN, sizeof(vi->build_id) - 1);
		return;
	}
	for (size_t i = 0; i < vlen; i++) {
		if (!is_hex(val[i])) {
			snprintf(why, whylen, "not hexadecimal");
			return;
		}
		vi->build_id[i] = (char)(val[i] | (val[i] >= 'A' ? 0x20 : 0));
	}
	vi->build_id[vlen] = '\0';
}

static bool parse_hex(struct kmp_vmcoreinfo *vi, const char *key, const char *val, size_t vlen,
		      uint64_t *out, bool *have)
{
	uint64_t v = 0;

	if (vlen == 0 || vlen > 16)
		return bad(vi, key, val, vlen, "not a hexadecimal number of 1 to 16 digits");
	for (size_t i = 0; i < vlen; i++) {
		if (!is_hex(val[i]))
			return bad(vi, key, val, vlen, "not a hexadecimal number");
		v = v << 4 | (uint64_t)hexval(val[i]);
	}
	*out = v;
	*have = true;
	return true;
}

static bool parse_dec(struct kmp_vmcoreinfo *vi, const char *key, const char *val, size_t vlen,
		      int64_t *out, bool *have)
{
	bool neg = vlen && val[0] == '-';
	uint64_t v = 0;

	if (vlen == neg || vlen - neg > 18)
		return bad(vi, key, val, vlen, "not a decimal number of 1 to 18 digits");
	for (size_t i = neg; i < vlen; i++) {
		if (val[i] < '0' || val[i] > '9')
			return bad(vi, key, val, vlen, "not a decimal number");
		v = v * 10 + (uint64_t)(val[i] - '0');
	}
	*out = neg ? -(int64_t)v : (int64_t)v;
	*have = true;
	return true;
}

const char *kmp_vmcoreinfo_value(const char *text, const char *key, size_t *len)
{
	size_t klen = strlen(key);
	const char *last = NULL;

	while (text && *text) {
		const char *eol = strchr(text, '\n');
		size_t n = eol ? (size_t)(eol - text) : strlen(text);

		if (n > klen && text[klen] == '=' && !memcmp(text, key, klen)) {
			last = text + klen + 1;
			*len = n - klen - 1;
		}
		text += n + (eol ? 1 : 0);
	}
	return last;
}

void kmp_vmcoreinfo_parse(const char *text, struct kmp_vmcoreinfo *vi)
{
	const char *bid = NULL;
	size_t bidlen = 0;
	char why[96];

	memset(vi, 0, sizeof(*vi));
	while (text && *text) {
		const char *eol = strchr(text, '\n');
		size_t len = eol ? (size_t)(eol - text) : strlen(text);
		const char *eq = memchr(text, '=', len);

		if (eq) {
			size_t klen = (size_t)(eq - text);
			const char *val = eq + 1;
			size_t vlen = len - klen - 1;

			if (klen == 9 && !memcmp(text, "OSRELEASE", 9)) {
				parse_release(vi, val, vlen);
			} else if (klen == 8 && !memcmp(text, "BUILD-ID", 8)) {
				bid = val;	/* judged once the release is known */
				bidlen = vlen;
			} else if (klen == 12 && !memcmp(text, "KERNELOFFSET", 12)) {
				parse_hex(vi, "KERNELOFFSET", val, vlen, &vi->kerneloffset,
					  &vi->have_kerneloffset);
			} else if (klen == 9 && !memcmp(text, "CRASHTIME", 9)) {
				parse_dec(vi, "CRASHTIME", val, vlen, &vi->crashtime,
					  &vi->have_crashtime);
			}
		}
		text += len + (eol ? 1 : 0);
	}
	if (!bid)
		return;
	if (vi->osrelease[0] && kmp_build_id_known_broken(vi->osrelease)) {
		vi->build_id_ignored = true;
		return;
	}
	parse_build_id(vi, bid, bidlen, why, sizeof(why));
	if (why[0]) {
		vi->build_id[0] = '\0';
		bad(vi, "BUILD-ID", bid, bidlen, why);
	}
}

/* Stable releases with the broken build ID parser: MAJOR.MINOR.FIRST..LAST. */
static const struct {
	unsigned int major, minor, first, last;
} broken[] = {
	{ 5, 15, 168, 173 },
	{ 6, 1, 113, 118 },
	{ 6, 6, 55, 62 },
	{ 6, 11, 2, 9 },
};

bool kmp_build_id_known_broken(const char *version)
{
	unsigned int v[3];
	int n = 0;

	if (!version)
		return false;
	if (sscanf(version, "%3u.%3u.%3u%n", &v[0], &v[1], &v[2], &n) != 3 || n == 0)
		return false;
	if (version[n] >= '0' && version[n] <= '9')
		return false;
	for (size_t i = 0; i < sizeof(broken) / sizeof(broken[0]); i++)
		if (v[0] == broken[i].major && v[1] == broken[i].minor &&
		    v[2] >= broken[i].first && v[2] <= broken[i].last)
			return true;
	return false;
}

bool kmp_build_id_known_broken_banner(const char *banner)
{
	const char *p;

	if (!strncmp(banner, "Linux version ", 14) && kmp_build_id_known_broken(banner + 14))
		return true;
	p = strstr(banner, " Debian ");
	return p && kmp_build_id_known_broken(p + 8);
}
