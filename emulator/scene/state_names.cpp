#include "scene/state_names.h"

namespace warpsim::scene {

const std::set<std::string>& CompareOps() {
  static const std::set<std::string> kOps = {"never",
                                             "less",
                                             "equal",
                                             "less_or_equal",
                                             "greater",
                                             "not_equal",
                                             "greater_or_equal",
                                             "always"};
  return kOps;
}

const std::set<std::string>& StencilOps() {
  static const std::set<std::string> kOps = {"keep",
                                             "zero",
                                             "replace",
                                             "increment_and_clamp",
                                             "decrement_and_clamp",
                                             "invert",
                                             "increment_and_wrap",
                                             "decrement_and_wrap"};
  return kOps;
}

const std::set<std::string>& BlendFactors() {
  static const std::set<std::string> kFactors = {"zero",
                                                 "one",
                                                 "src_color",
                                                 "one_minus_src_color",
                                                 "dst_color",
                                                 "one_minus_dst_color",
                                                 "src_alpha",
                                                 "one_minus_src_alpha",
                                                 "dst_alpha",
                                                 "one_minus_dst_alpha",
                                                 "constant_color",
                                                 "one_minus_constant_color",
                                                 "constant_alpha",
                                                 "one_minus_constant_alpha",
                                                 "src_alpha_saturate",
                                                 "src1_color",
                                                 "one_minus_src1_color",
                                                 "src1_alpha",
                                                 "one_minus_src1_alpha"};
  return kFactors;
}

const std::set<std::string>& BlendOps() {
  static const std::set<std::string> kOps = {"add", "subtract",
                                             "reverse_subtract", "min", "max"};
  return kOps;
}

}  // namespace warpsim::scene
