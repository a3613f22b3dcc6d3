// VkScript → Scene.
//
// VkScript is Amber's older test format (docs/vk_script.md in the Amber
// project), used by many Vulkan CTS SPIR-V assembly tests. Amber turns it
// into the same model as AmberScript; so does this front end, producing the
// Scene the AmberScript parser would produce for the equivalent script:
//
//   [require]          features (device_features), extensions
//                      (device_extensions), `framebuffer FMT`,
//                      `depthstencil FMT`, `fbsize W H`, `fence_timeout MS`.
//   [<stage> shader]   GLSL; `spirv` = SPIR-V assembly, `spirv hex` = hex
//                      words; `[vertex shader passthrough]` = Amber's
//                      pass-through vertex shader. Shaders are named
//                      vk_shader_0, vk_shader_1, ... in file order.
//   [vertex data]      a header of `location/FORMAT` cells, then rows; one
//                      buffer per header cell (Vertices0, ...).
//   [indices]          integers <= 65535 into an R32_UINT buffer "indices".
//   [test]             the commands (see vkscript_commands.cpp).
//
// One pipeline "vk_pipeline" holds every shader: compute when all shaders
// are compute shaders, graphics otherwise, with a colour attachment
// "framebuffer" (default B8G8R8A8_UNORM, 250x250) and, with `depthstencil`,
// a depth attachment "depthstencil". A graphics pipeline without a fragment
// shader gets one without outputs (Vulkan allows no fragment stage; nothing
// is written to the colour attachment either way). Pipeline state commands
// (depthTestEnable, cullMode, entrypoint, ...) apply to later draws: each
// distinct state gets its own pipeline (vk_pipeline_1, ...), sharing every
// buffer.
//
// Buffers come from `ssbo` / `uniform ubo` commands (one per descriptor
// set:binding, "ssbo_S_B" / "ubo_S_B") and `uniform` (push constants,
// "push_constants"). A buffer's size is the largest any command asks for;
// writes before the first command fill its initial bytes, later writes are
// BufferWriteCommands.
//
// Errors: InvalidInput at file:line for malformed input; Unsupported naming
// the feature (e.g. "VkScript vertex data header in the gl_type/glsl_type
// form", "logicOpEnable") for valid input warpsim cannot run.
#ifndef WARPSIM_SCENE_VKSCRIPT_PARSER_H_
#define WARPSIM_SCENE_VKSCRIPT_PARSER_H_

#include <string>
#include <string_view>

#include "base/diagnostic.h"
#include "scene/scene.h"

namespace warpsim::scene {

Result<Scene> ParseVkScript(std::string_view text,
                            const std::string& file_path);

}  // namespace warpsim::scene

#endif  // WARPSIM_SCENE_VKSCRIPT_PARSER_H_
