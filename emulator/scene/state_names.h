// The names of pipeline-state values (compare ops, stencil ops, blend
// factors and ops), lower case without the Vulkan prefix, as both
// AmberScript and VkScript spell them.
#ifndef WARPSIM_SCENE_STATE_NAMES_H_
#define WARPSIM_SCENE_STATE_NAMES_H_

#include <set>
#include <string>

namespace warpsim::scene {

const std::set<std::string>& CompareOps();
const std::set<std::string>& StencilOps();
const std::set<std::string>& BlendFactors();
const std::set<std::string>& BlendOps();

}  // namespace warpsim::scene

#endif  // WARPSIM_SCENE_STATE_NAMES_H_
