# kmempool: named kernel mempools, /proc/mempool, and an analyzer that
# reads the same table out of kernel memory.
#
#   make demo    build, boot, hang, kdump, analyze the dump, print the triage
#   make test    every test: unit, bad input, series, live VM, kdump formats
#
# Both install missing Debian packages first (make deps).  Everything
# generated goes under build/ (git-ignored).
B := $(CURDIR)/build
KERNEL := $(B)/kernel
KERNEL_NOPROC := $(B)/kernel-noproc
ANALYZER := $(B)/analyzer/kmempool
MODULE := $(B)/module/kmp_test.ko
INITRD := $(B)/initrd/test.cpio.gz
# The Debian suite whose own kernel the stock targets use: bullseye (5.10),
# bookworm (6.1, the default), trixie (6.12), sid (7.2).
SUITE ?= bookworm

all: analyzer kernel

deps:
	@bash qemu/deps.sh

kernel: deps
	@bash qemu/build-kernel.sh default

kernel-noproc: deps
	@bash qemu/build-kernel.sh noproc

analyzer: deps
	@$(MAKE) -s -C analyzer O=$(B)/analyzer all

# The parts of check (unit tests, bad input, crafted cores) run one per CPU.
analyzer-check: deps
	@$(MAKE) -s -j$$(nproc) -Otarget -C analyzer O=$(B)/analyzer check

# The test module, built against the default kernel's object directory.
module: kernel
	@bash vmcore-tests/build-module.sh $(KERNEL) $(B)/module

initrd: kernel analyzer module
	@bash vmcore-tests/build-initrd.sh $(KERNEL) $(ANALYZER) $(MODULE) $(INITRD)

# The same for the CONFIG_PROC_MEMPOOL=n flavor.
module-noproc: kernel-noproc
	@bash vmcore-tests/build-module.sh $(KERNEL_NOPROC) $(B)/module-noproc

initrd-noproc: kernel-noproc analyzer module-noproc
	@bash vmcore-tests/build-initrd.sh $(KERNEL_NOPROC) $(ANALYZER) \
		$(B)/module-noproc/kmp_test.ko $(B)/initrd/noproc.cpio.gz

# The debug flavor (KASAN, lockdep, DEBUG_LIST, DEBUG_OBJECTS, kmemleak:
# kernel-patches/kmempool-debug.config), its test module and initramfs,
# and the stress run on it (issue 12): `make test-stress` loops for
# STRESS_SECONDS (120), `make stress` for at least 600 s.
KERNEL_DEBUG := $(B)/kernel-debug

kernel-debug: deps
	@bash qemu/build-kernel.sh debug

module-debug: kernel-debug
	@bash vmcore-tests/build-module.sh $(KERNEL_DEBUG) $(B)/module-debug

initrd-debug: kernel-debug analyzer module-debug
	@bash vmcore-tests/build-initrd.sh $(KERNEL_DEBUG) $(ANALYZER) \
		$(B)/module-debug/kmp_test.ko $(B)/initrd/debug.cpio.gz

test-stress: initrd-debug
	@bash vmcore-tests/test-stress.sh

stress: initrd-debug
	@s=$${STRESS_SECONDS:-600}; [ "$$s" -ge 600 ] || s=600; \
		STRESS_SECONDS=$$s bash vmcore-tests/test-stress.sh

# The stock flavor of the project's own tinyconfig tree: the default
# flavor's fragment built WITHOUT the series (qemu/build-kernel-stock.sh,
# build/kernel-stock, build/obj-stock; not Debian's kernel, that is
# `make stock`).  The fast-path benchmark (issue 12 part 3) times
# mempool_alloc()/mempool_free() and create/destroy in it and in the
# patched kernel: `make bench-fastpath` (also part of `make bench`);
# `make test-fastpath` checks it (not part of make test).
kernel-stock-tiny: deps
	@bash qemu/build-kernel-stock.sh

bench-fastpath: deps
	@bash vmcore-tests/bench-fastpath.sh

# A full /proc/mempool read at 10,000 and 100,000 pools, quiet and under
# churn (series v7: linear; also part of `make bench`).
bench-procread: initrd
	@bash vmcore-tests/bench-procread.sh

test-fastpath: deps
	@bash vmcore-tests/test-fastpath.sh

# Debian's own kernel (no series): packages fetched with apt-get download
# and unpacked under build/debian/ (build/debian-SUITE/ for SUITE=bullseye,
# trixie, sid: through a private apt configuration, with a chroot of that
# suite for the module build and the capture tools), the stock test module
# built against its headers, and the stock initramfs.  `make stock
# [SUITE=...]` builds them all (cached); `make test-stock [SUITE=...]` runs
# the stock test on that kernel, `make test-kernels` on all four.
debian-kernel: deps
	@bash qemu/debian-kernel.sh $(SUITE)

module-stock: debian-kernel
	@bash vmcore-tests/build-module-stock.sh $(SUITE)

initrd-stock: debian-kernel module-stock
	@[ -x $(ANALYZER) ] || $(MAKE) -s analyzer
	@bash vmcore-tests/build-initrd-stock.sh $(SUITE) $(ANALYZER)

stock: initrd-stock

test-stock: deps
	@bash vmcore-tests/test-stock.sh $(SUITE)

test-kernels: deps
	@bash vmcore-tests/test-kernels.sh

test: deps
	@bash vmcore-tests/run-tests.sh

# One target per test group of `make test`, for quick iteration (issue 12);
# each builds what it needs first (cached).  Also test-stress, test-stock,
# test-install, test-crash, test-json, test-top, deb above and below.
test-analyzer: analyzer-check

test-fuzz: deps
	@$(MAKE) -s -C analyzer O=$(B)/analyzer fuzz-smoke

# The series on the pinned base: applies, checkpatch --strict, signed off,
# builds after every patch, kernel-doc, struct mempool's growth.
test-series: deps
	@bash vmcore-tests/test-series.sh

# The stall the hung task detector reports, and a leaky module's unload
# (series 5-6/11), on the default kernel.
test-stall: initrd
	@bash vmcore-tests/test-stall.sh

test-rig: initrd
	@bash vmcore-tests/test-rig.sh

test-live: initrd
	@bash vmcore-tests/test-live.sh

test-md: initrd
	@bash vmcore-tests/test-md.sh

test-scale: initrd
	@bash vmcore-tests/test-scale.sh

test-noproc: initrd-noproc
	@bash vmcore-tests/test-noproc.sh

test-kdump: initrd kernel-noproc
	@$(MAKE) -s -C analyzer O=$(B)/analyzer $(B)/analyzer/kmempool-asan $(B)/analyzer/fake_vmlinux
	@bash vmcore-tests/test-kdump.sh

# What it prints is also kept in build/demo.log (make test's readme step
# compares README's demo blocks with it).
demo: deps
	@mkdir -p $(B) && bash -c 'set -o pipefail; bash vmcore-tests/demo.sh 2>&1 | tee $(B)/demo.log.tmp' && \
		mv $(B)/demo.log.tmp $(B)/demo.log

bench: deps
	@bash vmcore-tests/bench.sh

# kmempool against each Debian suite's drgn on that suite's stock dump (issue 23).
bench-stock: deps
	@bash vmcore-tests/bench-stock.sh

# make install / make uninstall [PREFIX=/usr/local] [DESTDIR=STAGING]: the
# analyzer, its man page, bash completion and the crash extension (issue 11);
# ANALYZER_O is the analyzer's build directory.
ANALYZER_O ?= $(B)/analyzer

install:
	@$(MAKE) -s -C analyzer O=$(ANALYZER_O) install

uninstall:
	@$(MAKE) -s -C analyzer O=$(ANALYZER_O) uninstall

test-install:
	@bash vmcore-tests/test-install.sh

# The crash extension against the CLI on the kdump and stock tests' dumps.
test-crash:
	@bash vmcore-tests/test-crash.sh

# The crash extension under valgrind: 1 against 100 mempool commands in one
# crash, nothing of the extension's may grow (~5 min; not part of make test).
test-crash-valgrind:
	@CRASH_VALGRIND=1 bash vmcore-tests/test-crash.sh

# Every command's JSON against analyzer/kmempool.schema.json.
test-json:
	@bash vmcore-tests/test-json.sh

# kmempool walking /proc/kcore while pools come and go (issue 9): CHURN_RUNS,
# CHURN_TOPS.
test-churn: initrd
	@bash vmcore-tests/test-churn.sh

# README's demo blocks against a real run of the demo (issue 35).
test-readme: initrd
	@bash vmcore-tests/test-readme.sh

# kmempool top on the hang dump.
test-top:
	@bash vmcore-tests/test-top.sh

# debuginfod (issue 20): a debuginfod server on 127.0.0.1 indexing the stock
# rig's -dbg .deb; the stock dump analysed with no vmlinux on disk, then from
# the client's cache (needs make test-stock's dump).
test-debuginfod: deps
	@bash vmcore-tests/test-debuginfod.sh

# kmempool triage (issue 20) over the rigs' dumps (make test-kdump, test-stock).
test-triage: deps
	@bash vmcore-tests/test-triage.sh

# The Debian package (debian/): dpkg-buildpackage -us -uc -b in build/t/deb,
# lintian, and an install into a fresh debootstrap chroot.
deb: deps
	@bash vmcore-tests/test-deb.sh

clean:
	rm -rf $(B)/analyzer $(B)/module $(B)/initrd $(B)/t

distclean:
	rm -rf $(B)

.PHONY: all deps kernel kernel-noproc analyzer analyzer-check module initrd \
	module-noproc initrd-noproc test demo bench \
	kernel-debug module-debug initrd-debug test-stress stress \
	debian-kernel module-stock initrd-stock stock test-stock test-kernels \
	clean distclean install uninstall test-install test-crash test-json deb test-top test-churn \
	test-analyzer test-fuzz test-series test-rig test-live test-md test-scale test-noproc \
	test-kdump test-debuginfod test-triage \
	kernel-stock-tiny bench-fastpath bench-procread test-fastpath bench-stock test-crash-valgrind \
	test-stall test-readme
