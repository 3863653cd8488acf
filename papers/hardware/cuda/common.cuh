// Shared-memory accesses as inline PTX, and the prologue/epilogue every case kernel uses.
//
// Each access is one `asm volatile` statement, so the compiler neither removes, merges nor
// hoists it out of the measurement loop, and each becomes exactly one SASS instruction
// (LDS/STS of 8 to 128 bits, LDSM, STSM). Addresses are 32-bit shared-window addresses
// (`__cvta_generic_to_shared`).
//
// Sources (PTX ISA 8.x/9.x):
//   ld.shared / st.shared: §9.7.9.8 "ld", §9.7.9.10 "st" (.u8/.u16/.u32 and .v2/.v4 vectors;
//     a 32-bit register may carry a narrower .u8/.u16 value, §5.2.x "operand size exceeding
//     instruction-type size").
//   ldmatrix: §9.7.14.5.15 (.sync.aligned.m8n8.x1/.x2/.x4[.trans].shared.b16; lanes 0-7, 0-15
//     or 0-31 supply the 16-byte-aligned row addresses), sm_75+.
//   stmatrix: §9.7.14.5.16 (same shapes and addressing), sm_90+.
// Build with -gencode=arch=compute_90a,code=sm_90a (see ../build.sh).
#pragma once

#ifdef HW_STUB
#include "stub.h"  // host C++ compilers: a syntax check without CUDA (tests/test_papers_hardware.py)
#endif

// ---- addresses ------------------------------------------------------------------------------

__device__ __forceinline__ unsigned hw_shared_address(const void *p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// ---- ld.shared / st.shared, 1 to 16 bytes per lane ------------------------------------------

__device__ __forceinline__ unsigned hw_ld_b8(unsigned a) {
  unsigned v;
  asm volatile("ld.shared.u8 %0, [%1];" : "=r"(v) : "r"(a));
  return v;
}
__device__ __forceinline__ unsigned hw_ld_b16(unsigned a) {
  unsigned v;
  asm volatile("ld.shared.u16 %0, [%1];" : "=r"(v) : "r"(a));
  return v;
}
__device__ __forceinline__ unsigned hw_ld_b32(unsigned a) {
  unsigned v;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(a));
  return v;
}
__device__ __forceinline__ unsigned hw_ld_b64(unsigned a) {
  unsigned x, y;
  asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "r"(a));
  return x ^ y;
}
__device__ __forceinline__ unsigned hw_ld_b128(unsigned a) {
  unsigned x, y, z, w;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(a));
  return x ^ y ^ z ^ w;
}

__device__ __forceinline__ void hw_st_b8(unsigned a, unsigned v) {
  asm volatile("st.shared.u8 [%0], %1;" :: "r"(a), "r"(v) : "memory");
}
__device__ __forceinline__ void hw_st_b16(unsigned a, unsigned v) {
  asm volatile("st.shared.u16 [%0], %1;" :: "r"(a), "r"(v) : "memory");
}
__device__ __forceinline__ void hw_st_b32(unsigned a, unsigned v) {
  asm volatile("st.shared.u32 [%0], %1;" :: "r"(a), "r"(v) : "memory");
}
__device__ __forceinline__ void hw_st_b64(unsigned a, unsigned v) {
  asm volatile("st.shared.v2.u32 [%0], {%1, %2};" :: "r"(a), "r"(v), "r"(v + 1) : "memory");
}
__device__ __forceinline__ void hw_st_b128(unsigned a, unsigned v) {
  asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};"
               :: "r"(a), "r"(v), "r"(v + 1), "r"(v + 2), "r"(v + 3) : "memory");
}

// ---- ldmatrix: 1, 2 or 4 8x8 matrices of 16-bit elements --------------------------------------

__device__ __forceinline__ unsigned hw_ldmatrix_x1(unsigned a) {
  unsigned x;
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(x) : "r"(a));
  return x;
}
__device__ __forceinline__ unsigned hw_ldmatrix_x2(unsigned a) {
  unsigned x, y;
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
               : "=r"(x), "=r"(y) : "r"(a));
  return x ^ y;
}
__device__ __forceinline__ unsigned hw_ldmatrix_x4(unsigned a) {
  unsigned x, y, z, w;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(a));
  return x ^ y ^ z ^ w;
}
__device__ __forceinline__ unsigned hw_ldmatrix_x1_trans(unsigned a) {
  unsigned x;
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(x) : "r"(a));
  return x;
}
__device__ __forceinline__ unsigned hw_ldmatrix_x2_trans(unsigned a) {
  unsigned x, y;
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
               : "=r"(x), "=r"(y) : "r"(a));
  return x ^ y;
}
__device__ __forceinline__ unsigned hw_ldmatrix_x4_trans(unsigned a) {
  unsigned x, y, z, w;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(a));
  return x ^ y ^ z ^ w;
}

// ---- stmatrix (sm_90+) --------------------------------------------------------------------------

__device__ __forceinline__ void hw_stmatrix_x1(unsigned a, unsigned v) {
  asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" :: "r"(a), "r"(v)
               : "memory");
}
__device__ __forceinline__ void hw_stmatrix_x2(unsigned a, unsigned v) {
  asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};"
               :: "r"(a), "r"(v), "r"(v + 1) : "memory");
}
__device__ __forceinline__ void hw_stmatrix_x4(unsigned a, unsigned v) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};"
               :: "r"(a), "r"(v), "r"(v + 1), "r"(v + 2), "r"(v + 3) : "memory");
}
__device__ __forceinline__ void hw_stmatrix_x1_trans(unsigned a, unsigned v) {
  asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" :: "r"(a), "r"(v)
               : "memory");
}
__device__ __forceinline__ void hw_stmatrix_x2_trans(unsigned a, unsigned v) {
  asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};"
               :: "r"(a), "r"(v), "r"(v + 1) : "memory");
}
__device__ __forceinline__ void hw_stmatrix_x4_trans(unsigned a, unsigned v) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};"
               :: "r"(a), "r"(v), "r"(v + 1), "r"(v + 2), "r"(v + 3) : "memory");
}

// ---- prologue and epilogue ----------------------------------------------------------------------

// Zero the buffer (32-bit stores: the baseline shared-memory traffic every launch has, the
// same with 0 iterations as with N, so it cancels in the runner's difference) and wait.
__device__ __forceinline__ void hw_zero(unsigned char *smem, int bytes) {
  for (int i = 4 * static_cast<int>(threadIdx.x); i < bytes; i += 4 * static_cast<int>(blockDim.x))
    *reinterpret_cast<unsigned *>(smem + i) = 0u;
  __syncthreads();
}

// Keep every loaded value alive (out[thread]) and report each warp's loop time in SM cycles.
__device__ __forceinline__ void hw_finish(unsigned *out, long long *cycles, unsigned acc,
                                          long long t0, long long t1) {
  out[threadIdx.x] = acc;
  if (cycles != nullptr && threadIdx.x % 32 == 0) cycles[threadIdx.x / 32] = t1 - t0;
}

// One CTA of `threads` threads.
#ifdef HW_STUB
#define HW_LAUNCH(kernel, threads, ...) kernel(__VA_ARGS__)
#else
#define HW_LAUNCH(kernel, threads, ...) kernel<<<1, (threads)>>>(__VA_ARGS__)
#endif

// The case table the driver (driver.cu) runs; kernels/registry.cu defines it.
struct HwCase {
  const char *name;    // the case name in cases.json
  const char *kernel;  // the kernel's (extern "C") name, as ncu reports it
  int warps;           // warps in the CTA
  int instrs;          // measured instructions per warp per iteration
  void (*launch)(int iters, unsigned zero, unsigned *out, long long *cycles);
};
extern const HwCase kHwCases[];
extern const int kHwNumCases;
