"""The data-path slicer of the probe scripts (``papers/triton_lowering/datapath.py``): which
assembly instructions move or combine the tensor's values, and which only compute addresses or
lane indices (those ``check`` does not report), on hand-written PTX and AMDGCN shaped like
Triton 3.9's."""

from __future__ import annotations


from tests.support import papers_module

DATAPATH = papers_module("papers/triton_lowering/datapath.py")

PTX = """\
	.reg .b32 	%r<20>;
	mov.u32 	%r1, %tid.x;
	// begin inline asm
	mov.u32 %r2, 0x0;
	@%p1 ld.global.b32 { %r2 }, [ %rd1 + 0 ];
	// end inline asm
	ld.global.b32 	%r3, [%rd2];
	setp.eq.s32 	%p2, %r1, 0;
	selp.b32 	%r4, %r2, %r3, %p2;
	prmt.b32 	%r5, %r1, 0, 0x7701U;
	shfl.sync.idx.b32 	%r6, %r4, %r5, 31, -1;
	selp.b32 	%r7, 21520, 12816, %p2;
	prmt.b32 	%r8, %r6, %r3, %r7;
	selp.b32 	%r9, 0, 4128, %p2;
	st.shared.b32 	[%r9], %r8;
	bar.sync 	0;
	ld.shared.b32 	%r10, [%r9];
	shfl.sync.bfly.b32 	%r11, %r3, 1, 31, -1;
	// begin inline asm
	@%p1 st.global.b32 [ %rd3 + 0 ], { %r10 };
	// end inline asm
"""

AMD = """\
	v_and_b32_e32 v1, 2, v0
	global_load_dword v4, v[8:9], off
	v_cmp_eq_u32_e32 vcc, 0, v1
	v_mov_b32_e32 v2, 0x120
	v_cndmask_b32_e64 v2, v2, 0, vcc
	v_cndmask_b32_e32 v3, v4, v4, vcc
	ds_bpermute_b32 v5, v2, v3
	ds_write_b32 v2, v5
	ds_read_b32 v2, v2
	s_waitcnt lgkmcnt(0)
	global_store_dword v[0:1], v2, off
	s_endpgm
---
amdhsa.kernels:
"""


def _ops(asm: str, amd: bool) -> tuple[list[str], list[str]]:
    on = DATAPATH.data_path_lines(asm, amd)
    lines = asm.splitlines()
    return ([lines[i].split()[0] for i in sorted(on)],
            [s.split()[0] for i, s in enumerate(lines)
             if i not in on and s.strip() and s.split()[0][0].isalpha()])


def test_ptx_values_are_sliced_addresses_and_lanes_are_not():
    on, off = _ops(PTX, amd=False)
    assert on.count("selp.b32") == 2  # the values' select and the byte selector's select
    assert on.count("prmt.b32") == 1  # the byte permute of values, not the lane byte swap
    assert "shfl.sync.idx.b32" in on and "st.shared.b32" in on and "ld.shared.b32" in on
    assert "shfl.sync.bfly.b32" in on  # dead, but it moves loaded values
    assert off.count("prmt.b32") == 1 and off.count("selp.b32") == 1  # lane, address


def test_amdgcn_address_selects_are_not_on_the_data_path():
    on, off = _ops(AMD, amd=True)
    assert off.count("v_cndmask_b32_e64") == 1  # the scratch offset 0 or 0x120
    assert on.count("v_cndmask_b32_e32") == 1  # a select of values
    assert {"ds_bpermute_b32", "ds_write_b32", "ds_read_b32", "global_store_dword"} <= set(on)
    end = AMD.splitlines().index("---")
    assert max(DATAPATH.data_path_lines(AMD, True)) < end  # the metadata is not read


def test_is_amdgcn_tells_the_two_apart():
    assert DATAPATH.is_amdgcn('\t.amdgcn_target "amdgcn-amd-amdhsa--gfx942"\n' + AMD)
    assert not DATAPATH.is_amdgcn(".version 8.7\n.target sm_90\n" + PTX)
