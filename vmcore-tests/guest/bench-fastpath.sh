# In the patched or the stock kernel: load kmp_bench.ko (the fast-path
# benchmark, issue 12 part 3), keep its result lines, unload it.
. ./common.sh
uname -r > /out/uname
insmod ./kmp_bench.ko $(cat bench.params); echo $? > /out/insmod.rc
dmesg | sed -n 's/.*kmp_bench: //p' > /out/bench.txt
rmmod kmp_bench; echo $? > /out/rmmod.rc
exit 0
