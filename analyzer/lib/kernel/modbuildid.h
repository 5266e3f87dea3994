/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: a loaded module's GNU build ID, read from kernel memory (issue
 * 20), to ask debuginfod for its debug file.  Two places, the first the
 * kernel has:
 *   - struct module's build_id[] (CONFIG_STACKTRACE_BUILD_ID, 5.14 on);
 *   - the module's ELF notes as sysfs shows them
 *     (/sys/module/NAME/notes/.note.gnu.build-id): mod->notes_attrs, whose
 *     attrs[i] (struct bin_attribute; to 6.x counted by notes, from 7.x
 *     listed by grp.bin_attrs up to its NULL) hold each note section's
 *     address (private) and size, with the types from the unit of
 *     module_notes_read() or mod_sysfs_setup() (kernel/module/sysfs.c;
 *     kernel/module.c to 5.18).
 * Everything read from memory is bounded and checked like a note in a file.
 */
#ifndef KMP_MODBUILDID_H
#define KMP_MODBUILDID_H

#include "kernel.h"

/* Longest build ID accepted, in bytes (GNU's are 20; 64 like vmlinux.c). */
#define KMP_BUILD_ID_MAX 64

/*
 * The build ID of the module whose struct module is at runtime address
 * @mod, as lower-case hex into @hex (at least 2 * KMP_BUILD_ID_MAX + 1
 * bytes).  False with @why set when the kernel keeps none or it cannot be
 * read.
 */
bool kmp_module_build_id(const struct kmp_kernel *k, uint64_t mod, char *hex, size_t len,
			 struct kmp_err *why);

/* Tell @vml the symbols kmp_module_build_id() will look up (kmp_vmlinux_expect()). */
void kmp_module_build_id_expect(struct kmp_vmlinux *vml);

/*
 * The GNU build ID among the ELF notes in @buf (@n bytes, 4-byte aligned
 * note headers, as in a SHT_NOTE section), as hex into @hex; false if none
 * or the notes are malformed.  Exposed for the unit tests.
 */
bool kmp_notes_build_id(const unsigned char *buf, size_t n, char *hex, size_t len);

#endif
