#!/usr/bin/env python3
"""Regenerates the seed corpora of fuzz/fuzz_pte_{text,raw,walk}.c.

Entries are hand-computed from the hwref defines (VER2: pascal/gp100/dev_mmu.h,
VER3: hopper/gh100/dev_mmu.h, NVIDIA open-gpu-kernel-modules 595.45.04), the
same images as tests/gmmu-dump. Run from the repository root."""
import os
import struct

top = os.path.dirname(os.path.abspath(__file__))


def put(img, off, v):
    img[off:off + 8] = struct.pack('<Q', v & (2**64 - 1))


def write(target, name, data):
    d = os.path.join(top, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)


def v2_image():
    img = bytearray(0x6000)
    put(img, 0x0000, 0x10102)              # PD3[0] -> PD2 0x101000 (VIDEO)
    put(img, 0x1000, 0x10202)              # PD2[0] -> PD1 0x102000
    put(img, 0x2000, 0x10302)              # PD1[0] -> PD0 0x103000
    put(img, 0x2008, 0x060000380000000f)   # PD1[1] 512M SYS_NONCOH BAR1 page
    put(img, 0x3000, 0x10402)              # PD0[0] big -> 0x104000
    put(img, 0x3008, 0x10502)              #        small -> 0x105000
    put(img, 0x3010, 0x0600000004000001)   # PD0[1] 2M vidmem 0x40000000
    put(img, 0x4000, 0x060000380000000f)   # PT_BIG[0] 64K BAR1
    for i in range(4):
        put(img, 0x5000 + 8 * i, 0x060000380000000f + (i << 8))
    put(img, 0x5000 + 8 * 40, 0x0000000400000103)  # PEER 2
    return img


def v3_image():
    img = bytearray(0x6000)
    put(img, 0x0000, 0x101002)             # PD4[0] -> PD3
    put(img, 0x1000, 0x102002)             # PD3[0] -> PD2
    put(img, 0x2000, 0x103002)             # PD2[0] -> PD1
    put(img, 0x3000, 0x104002)             # PD1[0] -> PD0
    put(img, 0x3010, 0x80000601)           # PD1[2] 512M vidmem
    put(img, 0x4008, 0x105002)             # PD0[0] small -> 0x105000
    put(img, 0x4010, 0x1200601)            # PD0[1] 2M
    for i in range(3):
        put(img, 0x5000 + 8 * i, 0x3800000068f + 0x1000 * i)
    put(img, 0x5018, 0xa000000000007683)   # PEER 5
    return img


# selector = gmmu_format_at() index: 0 v2-gp, 1 v2-tu, 2 v2-ga, 3 v3-gh, 4 v3-gb
for sel in (0, 2):
    write('fuzz_pte_walk', 'v2-sel%d.bin' % sel, bytes([sel, 0, 0, 0, 0, 0, 0, 0]) + v2_image())
for sel in (3, 4):
    write('fuzz_pte_walk', 'v3-sel%d.bin' % sel, bytes([sel, 0, 0, 0, 0, 0, 0, 0]) + v3_image())
cyc = v2_image()
put(cyc, 0x2010, 0x10102)                  # PD1[2] -> PD2: a cycle
write('fuzz_pte_walk', 'v2-cycle.bin', bytes([2, 0, 0, 0, 0, 0, 0, 0]) + cyc)

ptes = bytearray()
for i in range(64):
    ptes += struct.pack('<Q', 0x0600000000010001 + (i << 8))
ptes += bytes(64)
for i in range(16):
    ptes += struct.pack('<Q', 0x060000380000000f + (i << 8))
ptes += struct.pack('<Q', 0x00000001ffffff01)   # ADDRESS_VID all ones
ptes += struct.pack('<Q', 0x0000000400000103)
write('fuzz_pte_raw', 'v2-runs.bin', bytes([2, 0]) + bytes(ptes))
v3 = b''.join(struct.pack('<Q', 0x3800000068f + 0x1000 * i) for i in range(32))
write('fuzz_pte_raw', 'v3-bar1.bin', bytes([4, 0]) + v3)
write('fuzz_pte_raw', 'odd.bin', bytes([1, 0x80]) + bytes(23))

write('fuzz_pte_text', 'log.txt', b'\x00# from a debug log\n0x7f97_94000001 0600000000010101\n'
      b'00000010: 0x0600_0000_0001_0201, 0x0600000000010301  # offset\n'
      b'0x0000000000000000000000000000abcd\n')
spec = (b'{ "chip": "AD102", "peers": [ { "index": 1, "bar1_base": "0x38000000000" } ],\n'
        b'  "mappings": [ { "name": "peer1", "va": "0x7f0000000000", "size": "24GiB",\n'
        b'    "page_size": "2M", "aperture": "SYS_NONCOH", "peer": 1, "offset": "0",\n'
        b'    "kind": "GENERIC_MEMORY", "flags": { "vol": true, "read_only": false } },\n'
        b'  { "va": 4096, "size": "4K", "aperture": "PEER", "peer": 2, "offset": "0x1000" } ] }\n')
write('fuzz_pte_text', 'spec.json', b'\x01' + spec)
write('fuzz_pte_text', 'spec-fmt.json', b'\x03' + spec)
