#!/bin/bash
# The fast path measured (issue 12 part 3): kmp_bench.ko in the patched
# kernel (build/kernel) and in the same tinyconfig tree built without the
# series (build/kernel-stock, qemu/build-kernel-stock.sh), booted one after
# the other with the same VM settings (512 MB, 1 vCPU) and the same
# initramfs, interleaved (patched, stock, patched, stock, ...).  Prints per
# operation the cost in each kernel, the ratio patched / stock, and the
# sizes of mempool_t and struct bio_set.  Two modes:
#   icount  QEMU TCG with "-icount shift=0": the guest's clock, and so its
#           TSC, advances by one per guest instruction, so "cycles" are
#           the instructions the guest executed - exact and repeatable,
#           whatever else the host runs (the boots must agree exactly)
#   time    the rig's usual VM (TCG here, KVM if qemu/accel.sh's probe boot
#           works): the guest TSC follows host time; under TCG that is the
#           host's cost of emulating the code, noisy when the host is busy
#
#   vmcore-tests/bench-fastpath.sh
#
# Environment: FASTPATH_MODES (default "icount time"), FASTPATH_BOOTS
# (boots per kernel in time mode, default 5; icount mode boots each kernel
# twice), FASTPATH_PARAMS (kmp_bench.ko parameters in time mode, default
# the module's: rounds=21 iters=20000 cd_iters=500), FASTPATH_OUT (default
# build/bench/fastpath).  Leaves OUT/MODE-{patched,stock}-N/ (each boot's
# bench.txt, serial.log) and OUT/summary.txt, lines of
#   accel MODE ACCEL
#   test MODE NAME PATCHED STOCK RATIO     (median over boots of each
#                                           boot's median, per operation)
#   repeat MODE NAME KERNEL V1 V2 ...      (each boot's median)
#   size TYPE PATCHED STOCK
# Exit status 1 if a boot or the module failed.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$ROOT/build
MODES=${FASTPATH_MODES:-icount time}
BOOTS=${FASTPATH_BOOTS:-5}
PARAMS=${FASTPATH_PARAMS:-}
OUT=${FASTPATH_OUT:-$B/bench/fastpath}
KP=$B/kernel KS=$B/kernel-stock
INITRD=$B/initrd/bench.cpio.gz
stage() { echo "==> [fastpath] $*" >&2; }

# Both kernels, the module built against each, one initramfs for both.
bash "$ROOT/qemu/build-kernel.sh" default >&2
bash "$ROOT/qemu/build-kernel-stock.sh" >&2
bash "$ROOT/vmcore-tests/build-bench-module.sh" "$KP" "$B/bench-module/patched" >&2
bash "$ROOT/vmcore-tests/build-bench-module.sh" "$KS" "$B/bench-module/stock" >&2
key=$(cat "$ROOT/qemu/init.sh" "$ROOT/qemu/save-results.sh" "$ROOT/qemu/mkinitramfs.sh" |
	sha256sum | cut -c1-16)
if [ ! -f "$INITRD" ] || [ "$(cat "$INITRD.key" 2>/dev/null)" != "$key" ]; then
	stage "building $INITRD (busybox only, the same for both kernels)"
	bash "$ROOT/qemu/mkinitramfs.sh" "$INITRD"
	echo "$key" > "$INITRD.key"
fi

# time mode: the same accelerator for both, the patched kernel's probe
# decides; icount mode is TCG's.
ACCEL=$(bash "$ROOT/qemu/accel.sh" "$KP" "$INITRD")
rm -rf "$OUT"; mkdir -p "$OUT/in"
: > "$OUT/modes"
failed=0
for mode in $MODES; do
	case $mode in
	icount)	boots=2 accel=tcg qargs="-icount shift=0" params="rounds=5 iters=2000 cd_iters=100" ;;
	time)	boots=$BOOTS accel=$ACCEL qargs="" params=$PARAMS ;;
	*) echo "bench-fastpath: unknown mode $mode (icount|time)" >&2; exit 2 ;;
	esac
	echo "$mode $boots $accel" >> "$OUT/modes"
	echo "$params" > "$OUT/in/bench.params"
	stage "$mode: $boots boots per kernel, interleaved, $accel ${qargs:+($qargs) }512 MB, 1 vCPU, kmp_bench ${params:-(defaults)}"
	for ((i = 1; i <= boots; i++)); do
		for k in patched stock; do
			kdir=$KP; [ $k = stock ] && kdir=$KS
			o=$OUT/$mode-$k-$i
			t0=$(date +%s)
			if KMP_ACCEL=$accel KMP_QEMU_ARGS=$qargs bash "$ROOT/qemu/run-vm.sh" \
				--kernel "$kdir" --initrd "$INITRD" \
				--script "$ROOT/vmcore-tests/guest/bench-fastpath.sh" \
				--input "$ROOT/vmcore-tests/guest/common.sh" \
				--input "$B/bench-module/$k/kmp_bench.ko" --input "$OUT/in/bench.params" \
				--mem 512 --smp 1 --timeout 600 --out "$o" >&2 &&
				[ "$(cat "$o/insmod.rc" 2>/dev/null)" = 0 ] &&
				grep -q '^end status=0$' "$o/bench.txt"; then
				stage "$mode: $k boot $i: $(( $(date +%s) - t0 )) s"
			else
				stage "$mode: $k boot $i FAILED (see $o/serial.log)"
				failed=1
			fi
		done
	done
done
[ $failed = 0 ] || exit 1

/usr/bin/python3 - "$OUT" <<'PY'
import statistics, sys
out = sys.argv[1]
tests = ["kmalloc_kfree", "success", "success_private", "reserve", "create_destroy",
	"create_destroy_named"]
what = {"kmalloc_kfree": "kmalloc+kfree, no pool (reference)",
	"success": "alloc+free, allocator succeeds (kmalloc pool)",
	"success_private": "alloc+free, allocator succeeds (own functions)",
	"reserve": "alloc+free from the reserve (allocator fails)",
	"create_destroy": "mempool_create+destroy (min_nr 4)",
	"create_destroy_named": "the same, a named pool (the series' _named API)"}
summary, size = [], {}
for line in open(f"{out}/modes"):
	mode, boots, accel = line.split()
	boots = int(boots)
	summary.append(f"accel {mode} {accel}")
	res = {"patched": {}, "stock": {}}	# kernel -> test -> [per-boot median]
	rr = {"patched": {}, "stock": {}}	# kernel -> test -> [every round's min, max]
	khz = {}
	for k in res:
		for i in range(1, boots + 1):
			for l in open(f"{out}/{mode}-{k}-{i}/bench.txt"):
				w = l.split()
				kv = dict(x.split("=", 1) for x in w[1:] if "=" in x)
				if w[0] == "result":
					res[k].setdefault(kv["test"], []).append(float(kv["cycles"]))
					rr[k].setdefault(kv["test"], []).extend(
						(float(kv["min"]), float(kv["max"])))
				elif w[0] == "size":
					size.setdefault(k, {}).update({t: int(v) for t, v in kv.items()})
				elif w[0] == "begin":
					khz[k] = int(kv["tsc_khz"])
	if mode == "icount":
		print(f"[icount] guest instructions per operation (TCG -icount shift=0, guest TSC "
		      f"{khz['patched'] / 1e6:.2f} GHz = 1 per instruction; {boots} boots per kernel)")
		unit = "instr"
	else:
		print(f"[time] guest TSC cycles per operation ({accel}, TSC {khz['patched'] / 1e6:.2f} GHz; "
		      f"median of {boots} boots' medians; range = the boots' medians)")
		unit = "cycles"
	print(f"  {'test':<20} {'patched':>9} {'stock':>9} {'ratio':>6}   {'range patched | stock':<27} what")
	for t in tests:
		p, s = res["patched"][t], res["stock"][t]
		mp, ms = statistics.median(p), statistics.median(s)
		rng = f"{min(p):.0f}-{max(p):.0f} | {min(s):.0f}-{max(s):.0f}"
		print(f"  {t:<20} {mp:9.2f} {ms:9.2f} {mp / ms:6.3f}   {rng:<27} {what[t]}")
		summary.append(f"test {mode} {t} {mp:.2f} {ms:.2f} {mp / ms:.4f}")
		for k, v in (("patched", p), ("stock", s)):
			summary.append(f"repeat {mode} {t} {k} " + " ".join(f"{x:.2f}" for x in v))
	for t, goal in (("success", 1.01), ("reserve", 1.05)):
		p, s = res["patched"][t], res["stock"][t]
		r = statistics.median(p) / statistics.median(s)
		if mode == "icount":
			print(f"  {t}: patched/stock {r:.3f}, goal <= {goal:.2f}: "
			      f"{'met' if r <= goal else 'NOT met'}")
			continue
		p, s = rr["patched"][t], rr["stock"][t]
		overlap = max(min(p), min(s)) <= min(max(p), max(s))
		print(f"  {t}: patched/stock {r:.3f}; single rounds ranged {min(p):.0f}-{max(p):.0f} "
		      f"(patched) and {min(s):.0f}-{max(s):.0f} (stock), "
		      f"{'overlapping: no difference measurable at this noise' if overlap else 'not overlapping'}")
	if mode == "time" and accel == "tcg":
		print("  note: no usable KVM here (qemu/accel.sh's probe fails), so these are TCG's: the "
		      "guest TSC follows host time and the code is emulated - the host's cost of emulating "
		      "each path, noisy when other jobs run (see the range), not a real CPU's cycles")
for t in ("mempool_t", "bio_set"):
	p, s = size["patched"][t], size["stock"][t]
	print(f"sizeof({t}): {p} bytes patched, {s} stock ({p - s:+d})")
	summary.append(f"size {t} {p} {s}")
open(f"{out}/summary.txt", "w").write("\n".join(summary) + "\n")
PY
