/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel objects kmempool reads beyond mempools, with the kernel's
 * names, for tests/unit_kobjs.c and fuzz/fuzz_kobjs.c: struct module (6.4
 * on: mem[] by enum mod_mem_type), mod_kallsyms, elf64_sym, kmem_cache,
 * page, slab, folio, vmap_area, vm_struct, vmap_node.  Built three ways:
 * as a kernel has them, and two hostile ones a damaged or crafted vmlinux
 * could describe (-DKOBJ_HUGE: struct module and struct vmap_node far past
 * 64 KiB; -DKOBJ_ENUM_MAX: MOD_TEXT = INT64_MAX).
 */
#ifndef FAKE_KOBJS_H
#define FAKE_KOBJS_H

struct list_head {
	struct list_head *next, *prev;
};

#ifdef KOBJ_ENUM_MAX
enum mod_mem_type {
	MOD_TEXT = 0x7fffffffffffffffLL,
	MOD_DATA = 1,
	MOD_RODATA = 2,
	MOD_RO_AFTER_INIT = 3,
};
#else
enum mod_mem_type {
	MOD_TEXT,
	MOD_DATA,
	MOD_RODATA,
	MOD_RO_AFTER_INIT,
	MOD_INIT_TEXT,
	MOD_INIT_DATA,
	MOD_INIT_RODATA,
	MOD_MEM_NUM_TYPES,
};
#endif

struct module_memory {
	void *base;
	unsigned int size;
	char pad[20];
};

struct elf64_sym {
	unsigned int st_name;
	unsigned char st_info;
	unsigned char st_other;
	unsigned short st_shndx;
	unsigned long st_value;
	unsigned long st_size;
};

struct mod_kallsyms {
	struct elf64_sym *symtab;
	unsigned int num_symtab;
	char *strtab;
	char *typetab;
};

struct module {
	int state;
	struct list_head list;
#ifdef KOBJ_HUGE
	char huge[0x100000];	/* a vmlinux that says struct module is over 1 MiB */
#endif
	char name[56];
	char pad[40];
	struct module_memory mem[7];
	struct mod_kallsyms *kallsyms;
};

struct kmem_cache {
	unsigned long flags;
	unsigned int size;
	unsigned int object_size;
	const char *name;
	unsigned int red_left_pad;
};

struct page {
	unsigned long flags;
	union {
		struct {
			struct list_head lru;
			void *mapping;
			unsigned long index;
		};
		unsigned long compound_head;
	};
	unsigned int page_type;
	int _refcount;
	unsigned long memcg_data;
};

struct slab {
	unsigned long __page_flags;
	struct kmem_cache *slab_cache;
	char pad[32];
};

struct folio {
	struct page page;
	unsigned long _flags_1;
	char pad[56];
};

enum pageflags {
	PG_locked,
	PG_head = 6,
	PG_slab = 9,
};

struct vm_struct {
	struct vm_struct *next;
	void *addr;
	unsigned long size;
	unsigned long flags;
	void **pages;
	unsigned int nr_pages;
};

struct vmap_area {
	unsigned long va_start;
	unsigned long va_end;
	struct list_head list;
	struct vm_struct *vm;
};

struct rb_list {
	void *root;
	struct list_head head;
};

struct vmap_node {
#ifdef KOBJ_HUGE
	char huge[0x80000];	/* 512 KiB: under the old 1 MiB cap, past 64 KiB */
#endif
	struct rb_list busy;
	struct rb_list lazy;
};

#endif
