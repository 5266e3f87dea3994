/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: name a pool after where it lives, for kernels without the
 * series.  In order:
 *   - in a global of vmlinux or a module: the symbol and, where the DWARF
 *     of its type is at hand, the member path ("kmp_stock_devs[1].pool",
 *     "fs_bio_set.bio_pool"); otherwise "symbol+0xOFF";
 *   - elsewhere (kmalloc'd): a global that points at it ("*kmp_stock_private");
 *   - inside a slab object that a global points at: "kmp_stock_ctx->page_pool"
 *     (with DWARF) or "(*kmp_stock_ctx)+0x40";
 *   - inside a slab object nothing points at, by the struct of the kernel's
 *     or modules' BTF that alone fits it: "<gendisk vda>.bio_split.bio_pool";
 *   - a heap object that a pointer member of one such object (and no other)
 *     points at: "*<r1conf>.r1bio_pool" (kmp_naming_referrer());
 *   - otherwise its slab cache and offset: "<kmalloc-1k>+0x40" (a vmalloc
 *     area: "<vmalloc 0x...>+0x0");
 *   - else "-".
 * Module names come from the modules' symbol tables in memory; module
 * debug files (optional) add member paths.
 */
#ifndef KMP_PLACENAME_H
#define KMP_PLACENAME_H

#include "kernel.h"

struct kmp_naming;

/*
 * @moddebug: files or directories to look in for NAME.ko with DWARF (may
 * be NULL); @release: the kernel release, for the default places.
 */
struct kmp_naming *kmp_naming_new(const struct kmp_kernel *k, const struct kmp_slablayout *sl,
				  const char *const *moddebug, size_t nmoddebug,
				  const char *release);
void kmp_naming_free(struct kmp_naming *nm);
/*
 * The symbols naming may ask of @vml (the kernel's BTF bounds, for heap
 * objects named by type), registered with the session's before its one
 * read of the symbol tables.
 */
void kmp_naming_expect(struct kmp_vmlinux *vml);

/*
 * Before naming many pools: find the globals that point at any of them
 * (or at the slab objects that hold them) in one pass over global data,
 * instead of one pass per pool.
 */
void kmp_naming_prepare(struct kmp_naming *nm, const uint64_t *addrs, size_t n);

/*
 * Search @dir and the directories below it (8 deep) for the debug file of
 * module @mod ("dm-crypt.ko", "dm_crypt.ko.debug" for dm_crypt) into @out.
 * At most *@budget directory entries are read, counted down in *@budget.
 */
bool kmp_find_module_file(const char *dir, const char *mod, char *out, size_t len,
			  size_t *budget);

/* Name the pool at @addr into @out ("-" when nothing names it). */
void kmp_naming_pool(struct kmp_naming *nm, uint64_t addr, char *out, size_t len);
/*
 * The same, for a pool known to lie in the object that starts at @obj (0:
 * unknown).  True when the name is a heap object's last resort
 * ("<kmalloc-96>+0x0", "<vmalloc 0x...>+0x0"), which kmp_naming_referrer()
 * may better once every pool around has been named.
 */
bool kmp_naming_pool_in(struct kmp_naming *nm, uint64_t addr, uint64_t obj, char *out,
			size_t len);
/*
 * "*<r1conf>.r1bio_pool" (C's reading: what that member points at): the
 * pool at @addr named by the one heap object, among those this naming has
 * named by their type so far, whose struct has a member there that is a
 * pointer to the kernel's mempool struct and holds @addr (in embedded
 * structs, unions and arrays too).  False, @out untouched, when no object
 * or two do, or a named object's pointers could not all be read.
 */
bool kmp_naming_referrer(struct kmp_naming *nm, uint64_t addr, char *out, size_t len);

#endif
