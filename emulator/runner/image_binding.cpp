#include "runner/image_binding.h"

namespace warpsim::runner {

Status BindImage(const scene::Scene& scene, const scene::Binding& binding,
                 uint32_t index, uint32_t type_id, const spirv::Module& module,
                 std::map<std::string, std::vector<uint8_t>>* buffers,
                 simt::ImageDesc* desc) {
  return Unsupported(std::string("image and sampler resources (BIND ... AS ") +
                         scene::BindingKindName(binding.kind) + ")",
                     SourcePos{scene.file_path, binding.line});
}

}  // namespace warpsim::runner
