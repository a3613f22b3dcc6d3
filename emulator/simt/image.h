// Images as the executor sees them: a descriptor per bound image (texel
// format, extent, mip levels, samples, memory) and, for sampled images,
// the sampler state. Filled by the runner from a scene binding; read by the
// image instruction family (exec_image.cpp).
#ifndef WARPSIM_SIMT_IMAGE_H_
#define WARPSIM_SIMT_IMAGE_H_

#include <cstdint>

namespace warpsim::simt {

struct ImageDesc {
  bool bound = false;
  uint8_t* data = nullptr;
  uint64_t size = 0;
  uint32_t width = 0, height = 1, depth = 1;
  uint32_t layers = 1;
  uint32_t mip_levels = 1;
  uint32_t samples = 1;
};

}  // namespace warpsim::simt

#endif  // WARPSIM_SIMT_IMAGE_H_
