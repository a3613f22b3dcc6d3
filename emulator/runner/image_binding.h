// Binding images, texel buffers and samplers: turns a scene binding of an
// image-like buffer (and its sampler) into the simt::ImageDesc the image
// instructions read.
//
// Which scene buffer fields describe the image:
//   - format: the buffer's ElementFormat (a Vulkan format, or a DATA_TYPE
//     whose components become R, G, B, A in order); the shader's declared
//     image format is not consulted (Vulkan reads the view's format too);
//   - extent: WIDTH/HEIGHT/DEPTH; a buffer without dimensions is a 1D image
//     of element_count texels. An arrayed view takes its layers from DEPTH
//     (2D arrays, cubes) or HEIGHT (1D arrays);
//   - MIP_LEVELS / SAMPLES: the layout in simt/image.h (levels after each
//     other, samples as planes). The scene only fills level 0 / sample 0;
//     BindImage grows the buffer with zeros to hold the whole chain, so
//     levels above 0 read 0 until something renders into them;
//   - BASE_MIP_LEVEL of the binding: the view starts at that level;
//   - texel buffers honour DESCRIPTOR_OFFSET / DESCRIPTOR_RANGE.
#ifndef WARPSIM_RUNNER_IMAGE_BINDING_H_
#define WARPSIM_RUNNER_IMAGE_BINDING_H_

#include <map>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "scene/scene.h"
#include "simt/image.h"
#include "spirv/module.h"

namespace warpsim::runner {

// Fills `desc` for element `index` of `binding` (BUFFER_ARRAY bindings have
// several), whose shader-side type is `type_id` in `module` (an image,
// sampler or sampled-image type). `buffers` holds the current bytes of every
// scene buffer by name; desc->data points into it.
Status BindImage(const scene::Scene& scene, const scene::Binding& binding,
                 uint32_t index, uint32_t type_id, const spirv::Module& module,
                 std::map<std::string, std::vector<uint8_t>>* buffers,
                 simt::ImageDesc* desc);

// The texel format of a scene buffer's element format.
simt::TexelFormat TexelFormatOf(const scene::ElementFormat& format);

// Bytes an image buffer needs for all its mip levels and samples (the
// layout of simt/image.h). Callers that create image storage up front (so
// that BindImage never has to grow a buffer) use this.
uint64_t ImageStorageBytes(const scene::Buffer& buffer);

// Byte offset of mip level `level` in that layout.
uint64_t ImageLevelOffset(const scene::Buffer& buffer, uint32_t level);

}  // namespace warpsim::runner

#endif  // WARPSIM_RUNNER_IMAGE_BINDING_H_
