# In the CONFIG_PROC_MEMPOOL=n kernel: no file, but the list is there.
. ./common.sh
VML=/work/vmlinux
[ -e /proc/mempool ]; echo $? > /out/proc-exists.rc
grep -w mempool_list /proc/kallsyms > /out/kallsyms
uname -r > /out/uname
run kmp-boot kmempool -s $VML
insmod /lib/kmp_test.ko $(cat module.params); echo $? > /out/insmod.rc
kmp_cmd drain kmp_test_private 2
run kmp-module kmempool -s $VML
run kmp-info kmempool info -s $VML
rmmod kmp_test; echo $? > /out/rmmod.rc
run kmp-end kmempool -s $VML
exit 0
