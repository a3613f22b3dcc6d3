// Internal to the VkScript front end: the state shared by the section
// parsers (vkscript_parser.cpp) and the [test] command parser
// (vkscript_commands.cpp) while they build one Scene.
#ifndef WARPSIM_SCENE_VKSCRIPT_BUILDER_H_
#define WARPSIM_SCENE_VKSCRIPT_BUILDER_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/diagnostic.h"
#include "scene/format.h"
#include "scene/scene.h"
#include "scene/vkscript_lexer.h"

namespace warpsim::scene::vkscript {

inline constexpr char kPipelineName[] = "vk_pipeline";
inline constexpr char kColorBufferName[] = "framebuffer";
inline constexpr char kDepthBufferName[] = "depthstencil";
inline constexpr char kPushConstantName[] = "push_constants";

// A buffer that ssbo / uniform commands address by binding.
struct Resource {
  std::string buffer;
  BindingKind kind =
      BindingKind::kStorage;  // kStorage, kUniform, kPushConstant
  uint32_t set = 0, binding = 0;
  std::optional<ElementFormat> format;  // the first explicit type
  std::string type_name;                // that type as written
  uint64_t size_elements = 0;           // `ssbo N size`
  uint64_t max_bytes = 0;               // largest write end
  int line = 0;
  // Writes made before the first command: they become the initial bytes.
  std::vector<std::pair<uint64_t, std::vector<uint8_t>>> initial_writes;
};

// Everything a draw or dispatch takes from the pipeline-state commands.
struct PipelineState {
  DepthState depth;
  StencilState stencil;
  BlendState blend;
  std::string cull_mode = "none";
  std::string front_face = "counter_clockwise";
  std::string polygon_mode = "fill";
  std::map<ShaderStage, std::string> entry_points;
  bool operator==(const PipelineState& o) const;
};

class Builder {
 public:
  explicit Builder(std::string file);

  Result<Scene> Build(std::string_view text);

 private:
  Diagnostic Error(int line, const std::string& msg) const;
  Diagnostic Unsup(int line, const std::string& msg) const;

  // Sections (vkscript_parser.cpp).
  Status AddShader(const Section& sec);
  Status ParseRequire(const Section& sec);
  Status ParseVertexData(const Section& sec);
  Status ParseIndices(const Section& sec);
  Status Finish();

  // [test] commands (vkscript_commands.cpp).
  Status ParseTest(const Section& sec);
  Status ParseCommand(const WordLine& wl);
  Status ParseDrawRect(const WordLine& wl);
  Status ParseDrawArrays(const WordLine& wl);
  Status ParseCompute(const WordLine& wl);
  Status ParseClear(const WordLine& wl);
  Status ParseSsbo(const WordLine& wl);
  Status ParseUniform(const WordLine& wl);
  Status ParseProbe(const WordLine& wl, size_t first, bool relative);
  Status ParseProbeSsbo(const WordLine& wl, size_t first);
  Status ParseTolerance(const WordLine& wl);
  Status ParseEntryPoint(const WordLine& wl, size_t name_at, ShaderStage st);
  Status ParsePipelineState(const WordLine& wl, bool* handled);

  // Helpers for commands.
  Result<std::pair<uint32_t, uint32_t>> ParseBinding(const WordLine& wl,
                                                     size_t at) const;
  Result<ElementFormat> TypeFormat(const std::string& type, Layout layout,
                                   int line) const;
  Resource* FindResource(BindingKind kind, uint32_t set, uint32_t binding);
  Resource* GetResource(BindingKind kind, uint32_t set, uint32_t binding,
                        int line);
  Status SetResourceType(Resource* r, const std::string& type,
                         const ElementFormat& f, int line) const;
  Status WriteValues(Resource* r, const ElementFormat& f, uint64_t offset,
                     const std::vector<Number>& values, int line);
  Result<std::vector<Number>> ParseValues(const WordLine& wl, size_t first,
                                          const ElementFormat& f,
                                          const std::string& what) const;
  // The pipeline for the current state (created on first use).
  Result<std::string> CurrentPipeline(int line);
  void AddCommand(int line, decltype(Command::data) data);

  std::string file_;
  Scene scene_;
  bool graphics_ = false;
  bool has_compute_shader_ = false;
  std::vector<ShaderAttachment> attachments_;
  ElementFormat color_format_;
  std::optional<ElementFormat> depth_format_;
  int depth_line_ = 0;
  uint32_t fb_width_ = kDefaultFramebufferSize;
  uint32_t fb_height_ = kDefaultFramebufferSize;
  std::vector<VertexData> vertex_data_;
  bool has_indices_ = false;
  std::vector<Resource> resources_;

  // [test] state.
  PipelineState state_;
  std::vector<std::pair<std::string, PipelineState>> variants_;
  std::vector<Tolerance> tolerances_;
  float clear_color_[4] = {0, 0, 0, 0};
  float clear_depth_ = 1.0f;
  uint32_t clear_stencil_ = 0;
  bool clear_color_set_ = false, clear_depth_set_ = false,
       clear_stencil_set_ = false;
};

}  // namespace warpsim::scene::vkscript

#endif  // WARPSIM_SCENE_VKSCRIPT_BUILDER_H_
