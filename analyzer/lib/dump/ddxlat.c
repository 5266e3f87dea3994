// SPDX-License-Identifier: GPL-2.0
/* kmempool: a kdump-compressed dump's address translation; see ddxlat.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddxlat.h"
#include "vmcoreinfo.h"

struct kmp_ddxlat {
	addrxlat_ctx_t *ctx;
	addrxlat_sys_t *sys;
	const struct kmp_diskdump *d;
	kmp_ddxlat_page_fn page;
	void *arg;
	unsigned long missed;	/* pages asked for and not there */
};

/* A page lent to libaddrxlat: a copy (the reader's own may be evicted while it holds it). */
static void put_page(const addrxlat_buffer_t *buf)
{
	free(buf->priv);
}

static addrxlat_status get_page(const addrxlat_cb_t *cb, addrxlat_buffer_t *buf)
{
	struct kmp_ddxlat *x = cb->priv;
	uint64_t ps = x->d->page_size;
	const unsigned char *p;
	void *copy;

	if (buf->addr.as != ADDRXLAT_MACHPHYSADDR)
		return addrxlat_ctx_err(x->ctx, ADDRXLAT_ERR_NOTIMPL, "address space not readable");
	buf->addr.addr &= ~(ps - 1);
	if (!(p = x->page(x->arg, buf->addr.addr / ps)) && ++x->missed)
		return addrxlat_ctx_err(x->ctx, ADDRXLAT_ERR_NODATA, "page 0x%llx not in the dump",
					(unsigned long long)buf->addr.addr);
	if (!(copy = malloc(ps)))
		return addrxlat_ctx_err(x->ctx, ADDRXLAT_ERR_NOMEM, "out of memory");
	memcpy(copy, p, ps);
	buf->ptr = copy;
	buf->size = ps;
	buf->byte_order = ADDRXLAT_HOST_ENDIAN;
	buf->put_page = put_page;
	buf->priv = copy;
	return ADDRXLAT_OK;
}

static unsigned long read_caps(const addrxlat_cb_t *cb)
{
	(void)cb;
	return ADDRXLAT_CAPS(ADDRXLAT_MACHPHYSADDR);
}

/*
 * VMCOREINFO's value of KIND(NAME)= (KIND(OBJ.ELEM)= for offsets): the
 * last such line, as libkdumpfile keeps it, the number parsed as it
 * parses it (base 16 for a symbol, strtoull's own for the rest).
 */
static addrxlat_status info_value(struct kmp_ddxlat *x, const char *kind, const char *name,
				  const char *elem, addrxlat_addr_t *val)
{
	char key[128], num[32], *end;
	const char *v;
	size_t n = 0;

	if ((size_t)snprintf(key, sizeof(key), "%s(%s%s%s)", kind, name, elem ? "." : "",
			     elem ? elem : "") >= sizeof(key) ||
	    !(v = kmp_vmcoreinfo_value(x->d->vmcoreinfo, key, &n)))
		return addrxlat_ctx_err(x->ctx, ADDRXLAT_ERR_NODATA, "no %s(%s) in VMCOREINFO",
					kind, name);
	if (!n || n >= sizeof(num))
		return addrxlat_ctx_err(x->ctx, ADDRXLAT_ERR_NODATA, "%s(%s) is not a number",
					kind, name);
	memcpy(num, v, n);
	num[n] = '\0';
	*val = strtoull(num, &end, strcmp(kind, "SYMBOL") ? 0 : 16);
	if (end == num || *end)
		return addrxlat_ctx_err(x->ctx, ADDRXLAT_ERR_NODATA, "%s(%s) is not a number",
					kind, name);
	return ADDRXLAT_OK;
}

static addrxlat_status reg_value(const addrxlat_cb_t *cb, const char *name, addrxlat_addr_t *val)
{
	struct kmp_ddxlat *x = cb->priv;

	(void)val;
	return addrxlat_ctx_err(x->ctx, ADDRXLAT_ERR_NODATA, "no register %s", name);
}

static addrxlat_status sym_value(const addrxlat_cb_t *cb, const char *name, addrxlat_addr_t *val)
{
	return info_value(cb->priv, "SYMBOL", name, NULL, val);
}

static addrxlat_status sym_sizeof(const addrxlat_cb_t *cb, const char *name, addrxlat_addr_t *val)
{
	return info_value(cb->priv, "SIZE", name, NULL, val);
}

static addrxlat_status sym_offsetof(const addrxlat_cb_t *cb, const char *obj, const char *elem,
				    addrxlat_addr_t *val)
{
	return info_value(cb->priv, "OFFSET", obj, elem, val);
}

static addrxlat_status num_value(const addrxlat_cb_t *cb, const char *name, addrxlat_addr_t *val)
{
	return info_value(cb->priv, "NUMBER", name, NULL, val);
}

/* A context whose questions this reader answers; false if none can be made. */
static bool make_ctx(struct kmp_ddxlat *x)
{
	addrxlat_cb_t *cb;

	if (!(x->ctx = addrxlat_ctx_new()))
		return false;
	if (!(cb = addrxlat_ctx_add_cb(x->ctx)))
		return false;
	cb->priv = x;
	cb->get_page = get_page;
	cb->read_caps = read_caps;
	cb->reg_value = reg_value;
	cb->sym_value = sym_value;
	cb->sym_sizeof = sym_sizeof;
	cb->sym_offsetof = sym_offsetof;
	cb->num_value = num_value;
	return true;
}

/* KERNEL_VERSION(a, b, c) of the release, as libkdumpfile reads it; false if it does not parse. */
static bool version_code(const char *rel, unsigned long *code)
{
	unsigned long a, b = 0, c = 0;
	const char *p = rel;
	char *end;

	a = strtoul(p, &end, 10);
	if (end == p || *end != '.')
		return false;
	p = end + 1;
	b = strtoul(p, &end, 10);
	if (end == p || *end != '.')
		return false;
	if (*end) {
		p = end + 1;
		c = strtoul(p, &end, 10);
		if (end == p)
			return false;
	}
	/* As KERNEL_VERSION() (libkdumpfile's): the sublevel saturates at 255 (4.9.337). */
	*code = (a << 16) + (b << 8) + (c > 255 ? 255 : c);
	return true;
}

/* VMCOREINFO's OSRELEASE into @rel; false without one. */
static bool release(const char *info, char *rel, size_t len)
{
	size_t n = 0;
	const char *v = kmp_vmcoreinfo_value(info, "OSRELEASE", &n);

	if (!v || !n || n >= len)
		return false;
	memcpy(rel, v, n);
	rel[n] = '\0';
	return true;
}

struct kmp_ddxlat *kmp_ddxlat_new(const struct kmp_diskdump *d, kmp_ddxlat_page_fn page,
				  void *arg)
{
	addrxlat_opt_t opts[ADDRXLAT_OPT_NUM];
	struct kmp_ddxlat *x;
	addrxlat_addr_t phys_base;
	unsigned long code, shift = 0;
	char rel[65];

	if (!d->vmcoreinfo || strcmp(d->machine, "x86_64") ||
	    !release(d->vmcoreinfo, rel, sizeof(rel)) || !version_code(rel, &code))
		return NULL;
	while ((1UL << shift) < d->page_size)
		shift++;
	if (!(x = calloc(1, sizeof(*x))))
		return NULL;
	x->d = d;
	x->page = page;
	x->arg = arg;
	if (!make_ctx(x) || !(x->sys = addrxlat_sys_new()))
		goto fail;
	if (info_value(x, "NUMBER", "phys_base", NULL, &phys_base) != ADDRXLAT_OK)
		phys_base = d->phys_base;
	for (size_t i = 0; i < ADDRXLAT_OPT_NUM; i++)
		opts[i].idx = ADDRXLAT_OPT_NULL;
	addrxlat_opt_arch(&opts[ADDRXLAT_OPT_arch], "x86_64");
	addrxlat_opt_os_type(&opts[ADDRXLAT_OPT_os_type], "linux");
	addrxlat_opt_version_code(&opts[ADDRXLAT_OPT_version_code], code);
	addrxlat_opt_page_shift(&opts[ADDRXLAT_OPT_page_shift], shift);
	addrxlat_opt_phys_base(&opts[ADDRXLAT_OPT_phys_base], phys_base);
	/*
	 * A page the set-up read and this reader did not have (another
	 * compression) could have made libaddrxlat settle for a guess where
	 * libkdumpfile would read: such a dump is left to libkdumpfile.
	 */
	if (addrxlat_sys_os_init(x->sys, x->ctx, ADDRXLAT_OPT_NUM, opts) != ADDRXLAT_OK || x->missed)
		goto fail;
	return x;
fail:
	kmp_ddxlat_free(x);
	return NULL;
}

struct kmp_ddxlat *kmp_ddxlat_clone(const struct kmp_ddxlat *x, kmp_ddxlat_page_fn page,
				    void *arg)
{
	struct kmp_ddxlat *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->d = x->d;
	c->page = page;
	c->arg = arg;
	if (!make_ctx(c)) {
		kmp_ddxlat_free(c);
		return NULL;
	}
	c->sys = x->sys;
	addrxlat_sys_incref(c->sys);
	return c;
}

void kmp_ddxlat_free(struct kmp_ddxlat *x)
{
	if (!x)
		return;
	if (x->sys)
		addrxlat_sys_decref(x->sys);
	if (x->ctx)
		addrxlat_ctx_decref(x->ctx);
	free(x);
}

addrxlat_status kmp_ddxlat_conv(struct kmp_ddxlat *x, uint64_t va, uint64_t *pa)
{
	addrxlat_fulladdr_t fa = { .addr = va, .as = ADDRXLAT_KVADDR };
	addrxlat_status st = addrxlat_fulladdr_conv(&fa, ADDRXLAT_KPHYSADDR, x->ctx, x->sys);

	if (st == ADDRXLAT_OK)
		*pa = fa.addr;
	return st;
}

const char *kmp_ddxlat_err(const struct kmp_ddxlat *x)
{
	const char *e = addrxlat_ctx_get_err(x->ctx);

	return e ? e : "unknown error";
}

const addrxlat_sys_t *kmp_ddxlat_sys(const struct kmp_ddxlat *x)
{
	return x->sys;
}
