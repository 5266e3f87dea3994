# Sourced by the initramfs builders (vmcore-tests/build-initrd*.sh).
# capture_tools ROOT WHO: set the array `tools` to mkinitramfs.sh's options
# that put kexec and makedumpfile into the image: the host's (ROOT empty)
# or those of the suite chroot ROOT, found where that suite installs them
# (makedumpfile: /usr/bin from 1.7.6).  WHO names the caller in errors.
capture_tools() {
	local r=$1 who=$2 t p
	if [ -z "$r" ]; then
		tools=(--bin "$(command -v kexec)" --bin "$(command -v makedumpfile)")
		return 0
	fi
	tools=(--root "$r")
	for t in kexec makedumpfile; do
		p=$(chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin sh -c "command -v $t") ||
			{ echo "$who: no $t in $r" >&2; return 1; }
		tools+=(--bin "$p")
	done
	tools+=(--root "")
}
