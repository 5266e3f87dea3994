#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Damage the kallsyms tables or the BTF inside a copy of a real ELF vmcore,
in place (test-btf.sh runs kmempool on it from the dump alone, then
restores the copy from the original: every patched range is printed as
OFFSET LENGTH, one per line, on stdout).

    btf_damage.py COPY CASE VMLINUX

CASE: num_syms (kallsyms_num_syms = 2^32 - 1), names_len (the first entry's
length byte 0x7f, its two-byte form 0xff 0xff), token_index (every token
index past the token table), btf_magic (the BTF header's magic), btf_size
(its type section 64 MiB long), btf_id (struct mempool_s/mempool's member
'elements' of type id 0x7ffffff0, past the last type), btf_loop (that
member of a typedef that is its own type).  Addresses: VMCOREINFO's
SYMBOL() lines in the dump's notes, __start_BTF from the vmlinux plus
KERNELOFFSET.
"""
import re
import struct
import subprocess
import sys


def segments(f):
    f.seek(0)
    eh = f.read(64)
    phoff, = struct.unpack_from('<Q', eh, 32)
    phentsize, phnum = struct.unpack_from('<HH', eh, 54)
    segs, notes = [], []
    for i in range(phnum):
        f.seek(phoff + i * phentsize)
        p_type, _, off, vaddr, _, filesz = struct.unpack('<IIQQQQ', f.read(40))
        if p_type == 1:
            segs.append((vaddr, off, filesz))
        elif p_type == 4:
            notes.append((off, filesz))
    return segs, notes


def file_off(segs, addr, n=1):
    for vaddr, off, filesz in segs:
        if vaddr <= addr and addr + n <= vaddr + filesz:
            return off + addr - vaddr
    sys.exit(f'0x{addr:x} is not in the dump')


def vmcoreinfo(f, notes):
    text = b''
    for off, size in notes:
        f.seek(off)
        text += f.read(size)
    return text.decode('latin-1')


def btf_types(b):
    """(id, offset in b, kind, vlen, name_off) of every type of BTF blob b."""
    _, _, _, hdr_len, type_off, type_len, _, _ = struct.unpack_from('<HBBIIIII', b, 0)
    at, end, tid = hdr_len + type_off, hdr_len + type_off + type_len, 1
    extra = {1: 4, 3: 12, 4: 12, 5: 12, 6: 8, 13: 8, 14: 4, 15: 12, 17: 4, 19: 12}
    per = {4: 12, 5: 12, 6: 8, 13: 8, 15: 12, 19: 12}
    while at < end:
        name_off, info, _ = struct.unpack_from('<III', b, at)
        kind, vlen = (info >> 24) & 0x1f, info & 0xffff
        yield tid, at, kind, vlen, name_off
        at += 12 + (per[kind] * vlen if kind in per else extra.get(kind, 0))
        tid += 1


def main():
    path, case, vmlinux = sys.argv[1:4]
    f = open(path, 'r+b')
    segs, notes = segments(f)
    vi = vmcoreinfo(f, notes)
    sym = {m.group(1): int(m.group(2), 16) for m in re.finditer(r'SYMBOL\((\w+)\)=([0-9a-f]+)', vi)}
    kaslr = int(re.search(r'KERNELOFFSET=([0-9a-f]+)', vi).group(1), 16)
    patches = []

    def put(addr, data):
        off = file_off(segs, addr, len(data))
        f.seek(off)
        f.write(data)
        patches.append((off, len(data)))

    if case == 'num_syms':
        put(sym['kallsyms_num_syms'], struct.pack('<I', 0xffffffff))
    elif case == 'names_len':
        put(sym['kallsyms_names'], b'\xff\xff')
    elif case == 'token_index':
        put(sym['kallsyms_token_index'], struct.pack('<256H', *([0xfff0] * 256)))
    else:
        nm = subprocess.run(['nm', vmlinux], capture_output=True, text=True).stdout
        link = {m.group(2): int(m.group(1), 16)
                for m in re.finditer(r'^([0-9a-f]+) \w (__start_BTF|__stop_BTF)$', nm, re.M)}
        start, stop = link['__start_BTF'] + kaslr, link['__stop_BTF'] + kaslr
        f.seek(file_off(segs, start, stop - start))
        b = f.read(stop - start)
        hdr_len, type_off, type_len, str_off = struct.unpack_from('<IIII', b, 4)
        strs = hdr_len + str_off

        def name(o):
            return b[strs + o:b.index(b'\0', strs + o)].decode()
        if case == 'btf_magic':
            put(start, struct.pack('<H', 0x1234))
        elif case == 'btf_size':
            put(start + 12, struct.pack('<I', 64 << 20))
        elif case in ('btf_id', 'btf_loop'):
            types = list(btf_types(b))
            pool = [t for t in types if t[2] == 4 and name(t[4]) in ('mempool_s', 'mempool')][0]
            member = [pool[1] + 12 + 12 * i for i in range(pool[3])
                      if name(struct.unpack_from('<I', b, pool[1] + 12 + 12 * i)[0]) == 'elements'][0]
            if case == 'btf_id':
                put(start + member + 4, struct.pack('<I', 0x7ffffff0))
            else:
                td = [t for t in types if t[2] == 8][0]	# any typedef: now its own type
                put(start + td[1] + 8, struct.pack('<I', td[0]))
                put(start + member + 4, struct.pack('<I', td[0]))
        else:
            sys.exit(f'unknown case {case}')
    for off, n in patches:
        print(off, n)


if __name__ == '__main__':
    main()
