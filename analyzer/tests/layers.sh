#!/bin/bash
# The layers of analyzer/lib (issue 35): every file of lib/ sits in one
# layer folder, and includes (#include "x.h") only headers of its own layer
# or of a lower one.  The order is the Makefile's LIB_LAYERS, lowest first.
#   tests/layers.sh LIBDIR "LAYER..."      check LIBDIR
#   tests/layers.sh --self-test LIBDIR "LAYER..."
#       also check that a copy with one upward include, one file outside
#       the layers and one unknown header is refused (the check can fail)
set -u

# check DIR "LAYERS": prints one line per violation, returns 1 if any.
check() {
	local dir=$1 layers=$2 bad=0 rank=0 l f h inc hl
	declare -A rank_of=() layer_of=()
	for l in $layers; do
		rank_of[$l]=$rank
		rank=$((rank + 1))
		if [ ! -d "$dir/$l" ]; then
			echo "    layer $l: no folder $dir/$l"
			bad=1
		fi
	done
	# Every folder and file of lib/ in a layer; header names unique
	# (the builds put every layer folder on the include path).
	for f in "$dir"/*; do
		l=${f##*/}
		if [ ! -d "$f" ]; then
			echo "    $l: outside the layer folders"
			bad=1
		elif [ -z "${rank_of[$l]+x}" ]; then
			echo "    folder $l: not a layer (add it to LIB_LAYERS in its place)"
			bad=1
		fi
	done
	for l in $layers; do
		for f in "$dir/$l"/*.h; do
			[ -e "$f" ] || continue
			h=${f##*/}
			if [ -n "${layer_of[$h]+x}" ]; then
				echo "    $h: in ${layer_of[$h]} and in $l"
				bad=1
			fi
			layer_of[$h]=$l
		done
	done
	for l in $layers; do
		for f in "$dir/$l"/*; do
			[ -f "$f" ] || continue
			while read -r inc; do
				hl=${layer_of[$inc]-}
				if [ -z "$hl" ]; then
					echo "    $l/${f##*/}: includes \"$inc\", not a header of lib/"
					bad=1
				elif [ "${rank_of[$hl]}" -gt "${rank_of[$l]}" ]; then
					echo "    $l/${f##*/}: includes $hl/$inc, a higher layer"
					bad=1
				fi
			done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
		done
	done
	return $bad
}

self=0
if [ "${1-}" = --self-test ]; then
	self=1
	shift
fi
dir=$1 layers=$2
pass=0 fail=0

if out=$(check "$dir" "$layers"); then
	echo "ok - lib/: every file in a layer folder, every include of its own or a lower layer"
	pass=$((pass + 1))
else
	echo "not ok - lib/ includes across its layers:"
	echo "$out"
	fail=$((fail + 1))
fi

if [ $self = 1 ]; then
	T=$(mktemp -d)
	trap 'rm -rf "$T"' EXIT
	lowest=${layers%% *} highest=${layers##* }
	low_c=$(ls "$dir/$lowest"/*.c | head -1)
	high_h=$(ls "$dir/$highest"/*.h | head -1)
	# One change at a time, each must be refused with its line.
	for kind in upward outside unknown; do
		rm -rf "$T/lib"
		cp -r "$dir" "$T/lib"
		case $kind in
		upward)
			echo "#include \"${high_h##*/}\"" >> "$T/lib/$lowest/${low_c##*/}"
			want="includes $highest/${high_h##*/}, a higher layer" ;;
		outside)
			cp "$low_c" "$T/lib/"
			want="${low_c##*/}: outside the layer folders" ;;
		unknown)
			echo '#include "no_such_header.h"' >> "$T/lib/$lowest/${low_c##*/}"
			want='includes "no_such_header.h", not a header of lib/' ;;
		esac
		if out=$(check "$T/lib" "$layers"); then
			echo "not ok - the layer check passed a lib/ with one $kind include or file"
			fail=$((fail + 1))
		elif ! grep -qF -- "$want" <<< "$out"; then
			echo "not ok - the layer check refused the $kind case without saying \"$want\":"
			echo "$out"
			fail=$((fail + 1))
		else
			echo "ok - the layer check refuses a lib/ with one $kind include or file"
			pass=$((pass + 1))
		fi
	done
fi

echo "layers: $pass passed, $fail failed"
[ $fail = 0 ]
