#!/bin/bash
# Tests of check-default-names.py on small fake kernel trees it creates:
# the series' macro chain in stub headers, a helper that names its pools
# after its callers (mempool_id_derive()), a helper passing its caller's
# identity on to another one, a composite module, a local
# wrapper macro, calls over several lines, comments and strings that name
# the API, #if/#else branches, a bio_set, a _named call with NULL, and an
# explicit name equal to a default one.  Exits non-zero on any failure.
GROUP=names
. "$(dirname "$0")/../vmcore-tests/lib.sh"
CHK=${KMP_NAMES_CHECK:-$ROOT/kernel-patches/check-default-names.py}
W=$(mktemp -d "$T/names.XXXXXX")
trap 'rm -rf "$W"' EXIT

# mktree DIR: a tree with two colliding call sites, fake_mod:fake_init.
mktree() {
	local t=$1
	mkdir -p "$t/include/linux" "$t/drivers/fake"
	# The shapes of the series' macros (include/linux/mempool.h, bio.h).
	mkdir -p "$t/mm" "$t/block"
	# The naming rule, as mm/mempool.c and block/bio.c state it.
	cat > "$t/mm/mempool.c" <<'EOF'
name = kasprintf(gfp, "%s:%s", id->object, id->caller);
name = kasprintf(gfp, "%s:%s:%s", id->object, id->caller, kind);
EOF
	echo 'snprintf(name, sizeof(name), "%s:%s:%s", bs->object, bs->caller, kind);' \
		> "$t/block/bio.c"
	cat > "$t/include/linux/mempool.h" <<'EOF'
#define MEMPOOL_OBJECT	KBUILD_MODNAME
#define MEMPOOL_ID(_name, _size)					\
	(&(const struct mempool_id) {					\
		.name = (_name), .object = MEMPOOL_OBJECT,		\
		.caller = __func__, .elem_size = (_size),		\
	})
int __mempool_init_node(mempool_t *pool, int min_nr, mempool_alloc_t *alloc_fn,
			mempool_free_t *free_fn, void *pool_data,
			gfp_t gfp_mask, int node_id,
			const struct mempool_id *id);
#define mempool_init_named(pool, name, elem_size, min_nr, alloc_fn,	\
			   free_fn, pool_data)				\
	__mempool_init_node(pool, min_nr, alloc_fn, free_fn, pool_data,	\
			    GFP_KERNEL, NUMA_NO_NODE,			\
			    MEMPOOL_ID(name, elem_size))
#define mempool_create_named(name, elem_size, min_nr, alloc_fn,	\
			     free_fn, pool_data)			\
	__mempool_create_node(min_nr, alloc_fn, free_fn, pool_data,	\
			      GFP_KERNEL, NUMA_NO_NODE,			\
			      MEMPOOL_ID(name, elem_size))
#define mempool_create(min_nr, alloc_fn, free_fn, pool_data)		\
	__mempool_create_node(min_nr, alloc_fn, free_fn, pool_data,	\
			      GFP_KERNEL, NUMA_NO_NODE, MEMPOOL_ID(NULL, 0))
#define mempool_create_slab_pool_named(name, min_nr, kc)		\
	mempool_create_named(name, 0, min_nr, mempool_alloc_slab,	\
			     mempool_free_slab, (void *)(kc))
#define mempool_create_slab_pool(min_nr, kc)				\
	mempool_create_slab_pool_named(NULL, min_nr, kc)
#define mempool_create_kmalloc_pool_named(name, min_nr, size)		\
	mempool_create_named(name, 0, min_nr, mempool_kmalloc,		\
			     mempool_kfree, (void *)(size_t)(size))
#define mempool_create_kmalloc_pool(min_nr, size)			\
	mempool_create_kmalloc_pool_named(NULL, min_nr, size)
EOF
	cat > "$t/include/linux/bio.h" <<'EOF'
int __bioset_init(struct bio_set *bs, const struct mempool_id *id,
		  unsigned int pool_size, unsigned int front_pad, int flags);
#define bioset_init_named(bs, name, pool_size, front_pad, flags)	\
	__bioset_init(bs, MEMPOOL_ID(name, 0), pool_size, front_pad, flags)
#define bioset_init(bs, pool_size, front_pad, flags)			\
	__bioset_init(bs, MEMPOOL_ID(NULL, 0), pool_size, front_pad, flags)
EOF
	# A helper that names its pools after its caller (like dm-io).
	cat > "$t/include/linux/fake-client.h" <<'EOF'
struct fake_client *__fake_client_create(int n, const struct mempool_id *id);
#define fake_client_create(n)	__fake_client_create(n, MEMPOOL_ID(NULL, 0))
#define fake_client_create_named(n, name)				\
	__fake_client_create(n, MEMPOOL_ID(name, 0))
EOF
	mkdir -p "$t/lib"
	echo 'obj-y += fake-client.o' > "$t/lib/Makefile"
	cat > "$t/lib/fake-client.c" <<'EOF'
struct fake_client *__fake_client_create(int n,
					 const struct mempool_id *id)
{
	struct mempool_id sub;
	char *name = mempool_id_derive(&sub, id, "fakec", GFP_KERNEL);

	c->pool = __mempool_create_node(n, f, g, NULL, GFP_KERNEL, 0, &sub);
	kfree(name);
	return c;
}
EOF
	# Two clients in one function collide, a named one does not.
	cat > "$t/drivers/fake/client.c" <<'EOF'
#include <linux/fake-client.h>
static int client_setup(void)
{
	a = fake_client_create(1);
	b = fake_client_create(2);
	c = fake_client_create_named(3, "fake_c");
	return 0;
}
EOF
	cat > "$t/drivers/fake/Makefile" <<'EOF'
obj-$(CONFIG_FAKE) += fake-mod.o
fake-mod-y := core.o
fake-mod-$(CONFIG_FAKE_EXTRA) += \
	extra.o
obj-$(CONFIG_OTHER) += other.o
obj-$(CONFIG_CLIENT) += client.o
EOF
	# core.c: lines 5 and 7 collide (fake_mod:fake_init); the bio_set,
	# the explicit name, the comment and the string do not.
	cat > "$t/drivers/fake/core.c" <<'EOF'
/* mempool_create(1, a, b, c) in a comment is no call site */
static int fake_init(void)
{
	pr_info("mempool_create_slab_pool(1, c) in a string is none either\n");
	a = mempool_create_slab_pool(4,
				     cache_a);
	b = mempool_create_kmalloc_pool(2, 64);
	c = mempool_create_slab_pool_named("fake_named", 1, cache_c);
	return 0;
}

static int fake_other(void)
{
	return bioset_init(&bs, 4, 0, 0);
}
EOF
	# extra.c: a local wrapper, in two #if branches that never coexist.
	cat > "$t/drivers/fake/extra.c" <<'EOF'
#define MKPOOL(n) mempool_create_kmalloc_pool(n, 8)
#if defined(CONFIG_X)
static void extra_setup(void)
{
	p = MKPOOL(1);
}
#else
static void extra_setup(void)
{
	p = MKPOOL(2);
}
#endif
EOF
	# other.c: a _named call with NULL falls back to the default name, so
	# does a direct call with MEMPOOL_ID(NULL, 0); a helper that passes on
	# its caller's identity is no call site.  other_debug() opens its body
	# in both branches of an #ifdef.
	cat > "$t/drivers/fake/other.c" <<'EOF'
static int other_init(void)
{
	return mempool_init_named(&p, NULL, 0, 1, f, g, NULL);
}
#if 0
static int other_init(void)
{
	return mempool_create(1, f, g, NULL);
}
#endif
#ifdef CONFIG_OTHER_DEBUG
static int other_debug(int level)
{
	pr_debug("level %d\n", level);
#else
static int other_debug(int level)
{
#endif
	return mempool_create_slab_pool(1, cache);
}
static mempool_t *other_direct(void)
{
	return __mempool_create_node(1, f, g, NULL, GFP_KERNEL, 0,
				     MEMPOOL_ID(NULL, 0));
}
static mempool_t *other_helper(const struct mempool_id *id)
{
	return __mempool_create_node(1, f, g, NULL, GFP_KERNEL, 0, id);
}
EOF
}

run() { out=$("$PY" "$CHK" "$@" 2>&1); rc=$?; }
has() { grep -qxF -- "$1" <<< "$out"; }

# 1. Two sites collide.
mktree "$W/dup"
run "$W/dup"
check "collision: exit status 1 (got $rc)" test "$rc" = 1
check "collision: 10 default call sites (2 in #if branches, 2 of a helper)" \
	has "call sites with a default name: 10 (7 mempool, 1 bio_set, 2 helper)"
check "collision: the helper is found, with the kind it derives" \
	has "helpers naming pools after their callers: __fake_client_create() (fakec)"
check "collision: 7 distinct default names" has "distinct default names: 7"
check "collision: two names shared, by 2 sites each" \
	has "default names shared by more than one call site: 2 names, 4 call sites"
check "collision: a helper's pools are named <caller object>:<caller>:<kind>" \
	has "DUPLICATE client:client_setup:fakec (2 default)"
check "collision: the name is <composite module>:<function>" \
	has "DUPLICATE fake_mod:fake_init (2 default)"
check "collision: file:line of the multi-line call (its first line)" \
	has "    drivers/fake/core.c:5: mempool_create_slab_pool() in fake_init()"
check "collision: file:line of the second call" \
	has "    drivers/fake/core.c:7: mempool_create_kmalloc_pool() in fake_init()"
check "collision: #if/#else branches are reported, not counted" \
	has "# not counted: fake_mod:extra_setup at drivers/fake/extra.c:5, drivers/fake/extra.c:10 (different branches of one #if, never in one kernel)"
check "collision: only the four sites are listed as duplicates" \
	test "$(grep -c '^    [^ ]' <<< "$out")" = 4
check "collision: a _named call suggested for each" bash -c \
	'grep -qx "        suggest: mempool_create_slab_pool_named(\"fake_mod_a\", ...)" <<< "$1" &&
	 grep -qx "        suggest: mempool_create_kmalloc_pool_named(\"fake_mod_b\", ...)" <<< "$1"' \
	_ "$out"
check "collision: no warnings, no approximations" \
	bash -c '! grep -E "^# (warning|[0-9]+ approx)" <<< "$1"' _ "$out"
run -l -v "$W/dup"
check "list: bio_set named <object>:<function>:bio" \
	has "site drivers/fake/core.c:14 bioset_init fake_mod:fake_other:bio"
check "list: _named(NULL) gets the default name, object from obj-y" \
	has "site drivers/fake/other.c:3 mempool_init_named other:other_init"
check "list: a direct __mempool_create_node(..., MEMPOOL_ID(NULL, 0))" \
	has "site drivers/fake/other.c:23 __mempool_create_node other:other_direct"
check "list: the functions passing on an identity are helpers, no sites" bash -c \
	'[ "$(grep "^# helper" <<< "$1")" = "# helper (passes on an identity, not a call site): drivers/fake/other.c:28 __mempool_create_node(id) in other_helper()
# helper (passes on an identity, not a call site): lib/fake-client.c:7 __mempool_create_node(&sub) in __fake_client_create()" ] &&
	 ! grep -q "^site drivers/fake/other.c:28 " <<< "$1"' _ "$out"
check "list: a helper's call site, named after the caller" \
	has "site drivers/fake/client.c:4 fake_client_create client:client_setup:fakec"
check "list: a function whose head is in both branches of an #ifdef" \
	has "site drivers/fake/other.c:19 mempool_create_slab_pool other:other_debug"
check "list: nothing from #if 0" bash -c '! grep -q "^site drivers/fake/other.c:8 " <<< "$1"' _ "$out"
check "list: the comment, the string and the explicit name are no default sites" \
	bash -c "! grep -E '^site drivers/fake/core.c:(1|4|8) ' <<< \"\$1\"" _ "$out"

# 2. The collision resolved by naming one pool: all unique.
cp -r "$W/dup" "$W/uniq"
sed -i 's/mempool_create_kmalloc_pool(2, 64)/mempool_create_kmalloc_pool_named("fake_b", 2, 64)/' \
	"$W/uniq/drivers/fake/core.c"
sed -i 's/fake_client_create(2)/fake_client_create_named(2, "fake_b2")/' \
	"$W/uniq/drivers/fake/client.c"
run "$W/uniq"
check "unique: exit status 0 (got $rc)" test "$rc" = 0
check "unique: 8 sites, 7 names, no duplicate" bash -c \
	'grep -qx "call sites with a default name: 8 (6 mempool, 1 bio_set, 1 helper)" <<< "$1" &&
	 grep -qx "distinct default names: 7" <<< "$1" && ! grep -q "^DUPLICATE" <<< "$1"' _ "$out"

# 3. An explicit name equal to a default name is a duplicate too.
cp -r "$W/uniq" "$W/expl"
sed -i 's/"fake_b"/"other:other_init"/' "$W/expl/drivers/fake/core.c"
run "$W/expl"
check "explicit: exit status 1 (got $rc)" test "$rc" = 1
check "explicit: the default name and the explicit site are listed" bash -c \
	'grep -qx "DUPLICATE other:other_init (1 default, 1 explicit)" <<< "$1" &&
	 grep -qx "    drivers/fake/core.c:7: mempool_create_kmalloc_pool_named() names it explicitly" <<< "$1"' \
	_ "$out"

# 3b. A helper's explicit name becomes "<name>:<kind>": naming the second
# client "client:client_setup" gives the first one's default name.
cp -r "$W/uniq" "$W/hexpl"
sed -i 's/"fake_b2"/"client:client_setup"/' "$W/hexpl/drivers/fake/client.c"
run "$W/hexpl"
check "helper explicit: exit status 1 (got $rc)" test "$rc" = 1
check "helper explicit: <name>:<kind> collides with the default name" bash -c \
	'grep -qx "DUPLICATE client:client_setup:fakec (1 default, 1 explicit)" <<< "$1" &&
	 grep -qx "    drivers/fake/client.c:5: fake_client_create_named() names it explicitly" <<< "$1"' \
	_ "$out"

# 3c. A helper that passes its caller's identity on to another helper
# (like dm_block_manager_create() to the bufio client) names the pools
# after its own callers, not after itself.
cp -r "$W/uniq" "$W/wrap"
cat >> "$W/wrap/include/linux/fake-client.h" <<'EOF2'
struct fake_wrap *__fake_wrap_create(int n, const struct mempool_id *id);
#define fake_wrap_create(n)	__fake_wrap_create(n, MEMPOOL_ID(NULL, 0))
EOF2
echo 'obj-y += fake-wrap.o' >> "$W/wrap/lib/Makefile"
cat > "$W/wrap/lib/fake-wrap.c" <<'EOF2'
struct fake_wrap *__fake_wrap_create(int n, const struct mempool_id *id)
{
	w->c = __fake_client_create(n + 1, id);
	return w;
}
EOF2
mkdir -p "$W/wrap/drivers/wuser"
printf 'obj-m += wuser-a.o\nobj-m += wuser-b.o\n' > "$W/wrap/drivers/wuser/Makefile"
for u in a b; do
	printf 'static int wuser_setup(void)\n{\n\tw = fake_wrap_create(1);\n\treturn 0;\n}\n' \
		> "$W/wrap/drivers/wuser/wuser-$u.c"
done
run -l -v "$W/wrap"
check "pass-through: exit status 0 (got $rc)" test "$rc" = 0
check "pass-through: the wrapper is a helper with the kind of the helper it calls" \
	has "helpers naming pools after their callers: __fake_client_create() (fakec) __fake_wrap_create() (fakec)"
check "pass-through: each caller of the wrapper is a call site named after itself" bash -c \
	'grep -qx "site drivers/wuser/wuser-a.c:3 fake_wrap_create wuser_a:wuser_setup:fakec" <<< "$1" &&
	 grep -qx "site drivers/wuser/wuser-b.c:3 fake_wrap_create wuser_b:wuser_setup:fakec" <<< "$1"' _ "$out"
check "pass-through: the wrapper's own call passes an identity on, no site" bash -c \
	'grep -qx "# helper (passes on an identity, not a call site): lib/fake-wrap.c:3 __fake_client_create(id) in __fake_wrap_create()" <<< "$1" &&
	 ! grep -q "^site lib/fake-wrap.c" <<< "$1"' _ "$out"
check "pass-through: 10 sites, 3 of helpers" has "call sites with a default name: 10 (6 mempool, 1 bio_set, 3 helper)"
# Two callers of the wrapper in one function of one object collide.
printf 'static int wuser_two(void)\n{\n\tw = fake_wrap_create(1);\n\tv = fake_wrap_create(2);\n\treturn 0;\n}\n' \
	>> "$W/wrap/drivers/wuser/wuser-a.c"
run "$W/wrap"
check "pass-through: two calls in one function collide, exit status 1 (got $rc)" \
	bash -c '[ "$1" = 1 ] && grep -qx "DUPLICATE wuser_a:wuser_two:fakec (2 default)" <<< "$2"' _ "$rc" "$out"

# 4. Usage errors.
run
check "usage: no argument, exit status 2 (got $rc)" test "$rc" = 2
run "$W/none"
check "usage: no such directory, exit status 2 (got $rc)" test "$rc" = 2
mkdir -p "$W/stock/include/linux"; echo '#define mempool_create(a) x(a)' > "$W/stock/include/linux/mempool.h"
run "$W/stock"
check "usage: a tree without the series, exit status 2 (got $rc)" test "$rc" = 2
cp -r "$W/uniq" "$W/rule"
sed -i '1s/"%s:%s", id->object/"%s:%s:%d", id->object/' "$W/rule/mm/mempool.c"
run "$W/rule"
check "usage: a tree whose naming rule changed is refused, exit status 2 (got $rc)" \
	bash -c '[ "$1" = 2 ] && grep -q "naming rule is not the one" <<< "$2"' _ "$rc" "$out"
run --frobnicate "$W/dup"
check "usage: unknown option, exit status 2 (got $rc)" test "$rc" = 2

echo "# names: $pass passed, $fail failed"
[ "$fail" = 0 ]
