// The C ABI of the CUDA driver and NVML entry points the interposer touches, declared here
// because no CUDA headers exist on the build machines. Types and values follow cuda.h / nvml.h
// (CUDA 12/13): only the leading members of structs whose prefix we read are declared.
#pragma once

#include <cstddef>

extern "C" {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st*;
using CUstream = struct CUstream_st*;
using CUmemoryPool = struct CUmemPoolHandle_st*;
using CUarray = struct CUarray_st*;
using CUmemGenericAllocationHandle = unsigned long long;
using cuuint64_t = unsigned long long;
using CUmipmappedArray = struct CUmipmappedArray_st*;
using CUgraph = struct CUgraph_st*;
using CUgraphNode = struct CUgraphNode_st*;
using CUgraphExec = struct CUgraphExec_st*;
// Passed through untouched, never read: declared only so the signatures match.
struct CUgraphEdgeData;
struct CUDA_GRAPH_INSTANTIATE_PARAMS;
struct CUmemAccessDesc;
// The pre-3.2 ("v1") ABI: 32-bit device pointers and sizes.
using CUdeviceptr_v1 = unsigned int;

inline constexpr CUresult CUDA_SUCCESS = 0;
inline constexpr CUresult CUDA_ERROR_INVALID_VALUE = 1;
inline constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;
inline constexpr CUresult CUDA_ERROR_NOT_INITIALIZED = 3;
inline constexpr CUresult CUDA_ERROR_INVALID_DEVICE = 101;
inline constexpr CUresult CUDA_ERROR_INVALID_CONTEXT = 201;
inline constexpr CUresult CUDA_ERROR_NOT_FOUND = 500;

// cuGetProcAddress flags and symbol status (CUdriverProcAddress_flags,
// CUdriverProcAddressQueryResult).
inline constexpr cuuint64_t CU_GET_PROC_ADDRESS_DEFAULT = 0;
inline constexpr cuuint64_t CU_GET_PROC_ADDRESS_LEGACY_STREAM = 1;
inline constexpr cuuint64_t CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM = 2;
using CUdriverProcAddressQueryResult = int;
inline constexpr int CU_GET_PROC_ADDRESS_SUCCESS = 0;
inline constexpr int CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND = 1;

// Arrays. CUarray_format values are listed in array_size.cc, which sizes them.
using CUarray_format = int;
inline constexpr unsigned int CUDA_ARRAY3D_LAYERED = 0x01;
inline constexpr unsigned int CUDA_ARRAY3D_CUBEMAP = 0x04;
inline constexpr unsigned int CUDA_ARRAY3D_SPARSE = 0x40;
inline constexpr unsigned int CUDA_ARRAY3D_DEFERRED_MAPPING = 0x80;
struct CUDA_ARRAY_DESCRIPTOR {
  size_t Width;
  size_t Height;
  CUarray_format Format;
  unsigned int NumChannels;
};
struct CUDA_ARRAY3D_DESCRIPTOR {
  size_t Width;
  size_t Height;
  size_t Depth;
  CUarray_format Format;
  unsigned int NumChannels;
  unsigned int Flags;
};
struct CUDA_ARRAY_DESCRIPTOR_v1 {
  unsigned int Width;
  unsigned int Height;
  CUarray_format Format;
  unsigned int NumChannels;
};
struct CUDA_ARRAY3D_DESCRIPTOR_v1 {
  unsigned int Width;
  unsigned int Height;
  unsigned int Depth;
  CUarray_format Format;
  unsigned int NumChannels;
  unsigned int Flags;
};

// CUmemAllocationProp: only the prefix the interposer reads (type, handle types, location).
inline constexpr int CU_MEM_LOCATION_TYPE_DEVICE = 1;
struct CUmemLocation {
  int type;
  int id;
};
struct CUmemAllocationProp {
  int type;
  int requestedHandleTypes;
  CUmemLocation location;
  void* win32HandleMetaData;
  struct {
    unsigned char compressionType;
    unsigned char gpuDirectRDMACapable;
    unsigned short usage;
    unsigned char reserved[4];
  } allocFlags;
};

// CUmemPool_attribute: the release threshold's value is a cuuint64_t.
inline constexpr int CU_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4;

// Graph memory nodes. CUmemPoolProps is 88 bytes in every CUDA 11.2+ header: later versions
// carve maxSize and usage out of its reserved bytes, which are not read here.
struct CUmemPoolProps {
  int allocType;
  int handleTypes;
  CUmemLocation location;
  void* win32SecurityAttributes;
  unsigned char reserved[64];
};
struct CUDA_MEM_ALLOC_NODE_PARAMS {
  CUmemPoolProps poolProps;
  const CUmemAccessDesc* accessDescs;
  size_t accessDescCount;
  size_t bytesize;
  CUdeviceptr dptr;  // out
};
static_assert(sizeof(CUmemPoolProps) == 88 && sizeof(CUDA_MEM_ALLOC_NODE_PARAMS) == 120);
static_assert(offsetof(CUDA_MEM_ALLOC_NODE_PARAMS, bytesize) == 104);

// cuGraphAddNode's tagged union (CUDA 12.2+): the type, then the parameters at offset 16.
inline constexpr int CU_GRAPH_NODE_TYPE_GRAPH = 4;
inline constexpr int CU_GRAPH_NODE_TYPE_MEM_ALLOC = 10;
inline constexpr int CU_GRAPH_NODE_TYPE_MEM_FREE = 11;
inline constexpr int CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE = 1;
struct CUDA_CHILD_GRAPH_NODE_PARAMS {
  CUgraph graph;
  int ownership;  // CUgraphChildGraphNodeOwnership (CUDA 12.9+; 0 = clone before)
};
struct CUDA_MEM_FREE_NODE_PARAMS {
  CUdeviceptr dptr;
};
struct CUgraphNodeParams {
  int type;
  int reserved0[3];
  union {
    long long reserved1[29];
    CUDA_MEM_ALLOC_NODE_PARAMS alloc;
    CUDA_CHILD_GRAPH_NODE_PARAMS graph;
    CUDA_MEM_FREE_NODE_PARAMS free;
  };
  long long reserved2;
};
static_assert(sizeof(CUgraphNodeParams) == 256 && offsetof(CUgraphNodeParams, alloc) == 16);

// NVML.
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
inline constexpr nvmlReturn_t NVML_SUCCESS = 0;
inline constexpr nvmlReturn_t NVML_ERROR_UNINITIALIZED = 1;
inline constexpr nvmlReturn_t NVML_ERROR_INVALID_ARGUMENT = 2;
struct nvmlMemory_t {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
struct nvmlMemory_v2_t {
  unsigned int version;
  unsigned long long total;
  unsigned long long reserved;
  unsigned long long free;
  unsigned long long used;
};

}  // extern "C"
