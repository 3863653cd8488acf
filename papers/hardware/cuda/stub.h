// Just enough of CUDA for a host C++ compiler to check the generated sources' syntax
// (g++ -fsyntax-only -DHW_STUB -x c++): keywords become nothing or `static`, built-ins become
// declarations. Nothing here runs; it is not a CUDA emulator.
#pragma once

#include <cstddef>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static
#define __constant__
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))

struct hw_stub_dim3 {
  unsigned x, y, z;
};
extern const hw_stub_dim3 threadIdx, blockIdx, blockDim, gridDim;

long long clock64();
void __syncthreads();
std::size_t __cvta_generic_to_shared(const void *p);

enum cudaError_t { cudaSuccess = 0 };
enum cudaMemcpyKind { cudaMemcpyDeviceToHost = 2 };
const char *cudaGetErrorString(cudaError_t err);
cudaError_t cudaGetLastError();
cudaError_t cudaDeviceSynchronize();
template <class T>
cudaError_t cudaMalloc(T **p, std::size_t bytes);
cudaError_t cudaMemcpy(void *dst, const void *src, std::size_t bytes, cudaMemcpyKind kind);
