/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: the one walk over ELF notes (a PT_NOTE segment of an ELF core
 * or /proc/kcore, a kdump-compressed dump's note area): 12-byte headers,
 * names and descriptions each padded to 4 bytes, every length checked
 * against the buffer before it is used.  Callers decide what a note that
 * does not fit means: the ELF checks refuse the dump, the readers that
 * follow libkdumpfile stop there.
 */
#ifndef KMP_ELFNOTE_H
#define KMP_ELFNOTE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

struct kmp_note {
	const unsigned char *name, *desc;
	uint32_t namesz, descsz, type;
	uint64_t off;			/* of its header in the buffer */
};

enum kmp_note_step {
	KMP_NOTE_OK,			/* *note filled in, *off at the next one */
	KMP_NOTE_END,			/* no bytes left, or only zero padding */
	KMP_NOTE_BAD_HDR,		/* fewer than 12 bytes left, not all zero */
	KMP_NOTE_PAST_END,		/* its name or description runs past the buffer
					 * (*note has its header's sizes) */
};

static inline uint32_t kmp_note_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The note at *@off of the @len bytes at @buf (little-endian, as x86_64's). */
static inline enum kmp_note_step kmp_note_next(const unsigned char *buf, uint64_t len,
					       uint64_t *off, struct kmp_note *n)
{
	uint64_t at = *off, name, desc, end;

	if (at >= len)
		return KMP_NOTE_END;
	if (len - at < 12) {
		/* Padding after the last note (kcore, some dumpers): zeros only. */
		for (uint64_t i = at; i < len; i++)
			if (buf[i])
				return KMP_NOTE_BAD_HDR;
		return KMP_NOTE_END;
	}
	n->off = at;
	n->namesz = kmp_note_u32(buf + at);
	n->descsz = kmp_note_u32(buf + at + 4);
	n->type = kmp_note_u32(buf + at + 8);
	name = at + 12;
	desc = name + (((uint64_t)n->namesz + 3) & ~3ULL);
	end = desc + (((uint64_t)n->descsz + 3) & ~3ULL);
	if (desc > len || n->descsz > len - desc)
		return KMP_NOTE_PAST_END;
	n->name = buf + name;
	n->desc = buf + desc;
	*off = end;
	return KMP_NOTE_OK;
}

/* Does note @n's name say @want (with or without its NUL)?  As libkdumpfile. */
static inline bool kmp_note_is(const struct kmp_note *n, const char *want)
{
	size_t len = strlen(want);

	return (n->namesz == len || n->namesz == len + 1) && !memcmp(n->name, want, len) &&
	       (n->namesz == len || !n->name[len]);
}

#endif
