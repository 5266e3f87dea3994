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

all: analyzer kernel

deps:
	@bash qemu/deps.sh

kernel: deps
	@bash qemu/build-kernel.sh default

kernel-noproc: deps
	@bash qemu/build-kernel.sh noproc

analyzer: deps
	@$(MAKE) -s -C analyzer O=$(B)/analyzer all

analyzer-check: deps
	@$(MAKE) -s -C analyzer O=$(B)/analyzer check

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

test: deps
	@bash vmcore-tests/run-tests.sh

demo: deps
	@bash vmcore-tests/demo.sh

bench: deps
	@bash vmcore-tests/bench.sh

clean:
	rm -rf $(B)/analyzer $(B)/module $(B)/initrd $(B)/t

distclean:
	rm -rf $(B)

.PHONY: all deps kernel kernel-noproc analyzer analyzer-check module initrd \
	module-noproc initrd-noproc test demo bench \
	clean distclean
