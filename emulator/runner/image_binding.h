// Binding images, texel buffers and samplers: turns a scene binding of an
// image-like buffer (and its sampler) into the simt::ImageDesc the image
// instructions read.
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

}  // namespace warpsim::runner

#endif  // WARPSIM_RUNNER_IMAGE_BINDING_H_
