// Texel filtering for image instructions (exec_image.cpp): a sample
// request's level of detail and its filtered texel, as the Vulkan spec's
// "Texel Filtering" chapter computes them (the summary at the top of
// exec_image.cpp). Internal to simt.
#ifndef WARPSIM_SIMT_IMAGE_SAMPLE_H_
#define WARPSIM_SIMT_IMAGE_SAMPLE_H_

#include <cstdint>

#include "simt/image.h"

namespace warpsim::simt {

// Everything a sample instruction computes per lane before filtering.
struct SampleRequest {
  double coord[3] = {0, 0, 0};  // spatial (cube: direction)
  double layer = 0;
  bool dref = false;
  float dref_value = 0;
  bool has_lod = false;
  float lod = 0;
  bool has_grad = false;  // also implicit LOD
  double dx[3] = {0, 0, 0}, dy[3] = {0, 0, 0};
  float bias = 0;
  float min_lod = 0;
  int32_t offset[3] = {0, 0, 0};
};

// Spatial coordinate count of a view (cube: 2 after face selection, but its
// coordinates have 3 components).
uint32_t SpatialDims(ViewDim d);

// A texel of zeros (alpha too): what a read outside an image gives.
Texel ZeroTexel();

// Reads a texel, or 0 when it is outside the image (robust access).
Texel FetchTexel(const ImageDesc& img, uint32_t level, int64_t x, int64_t y,
                 int64_t z, int64_t layer, int64_t sample);

// Lambda (LOD) of a request before clamping, relative to the base level.
float ComputeLambda(const ImageDesc& img, const SamplerDesc& s,
                    const SampleRequest& q, uint32_t nspatial);

// The filtered texel of request `q` (a gather: `component` of the 2x2
// footprint, with `gather_offsets` when set). `first_offset` (optional):
// set to the byte offset of the first texel read; `filtered` (optional):
// made true where a linear filter blends texels.
Texel Sample(const ImageDesc& img, const SamplerDesc& s, const SampleRequest& q,
             bool gather, uint32_t component, const int32_t* gather_offsets,
             uint64_t* first_offset, bool* filtered);

}  // namespace warpsim::simt

#endif  // WARPSIM_SIMT_IMAGE_SAMPLE_H_
