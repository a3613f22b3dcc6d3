// Scene: everything an AmberScript file says to run, as plain data.
//
// The parsers (amber_parser.h for AmberScript, vkscript_parser.h for the
// older VkScript format; scene_file.h picks one) fill a Scene; the runner turns
// it into work. Nothing here knows about warps. Names refer to other objects of
// the same Scene (shaders, buffers, samplers, pipelines) and are resolved by
// the parser, so every name in a parsed Scene exists.
#ifndef WARPSIM_SCENE_SCENE_H_
#define WARPSIM_SCENE_SCENE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "scene/format.h"

namespace warpsim::scene {

// Largest buffer or image the parser will create (1 GiB). Larger requests
// are InvalidInput ("buffer of N bytes exceeds the limit of ...").
inline constexpr uint64_t kMaxBufferBytes = uint64_t{1} << 30;
// FRAMEBUFFER_SIZE default (Amber's).
inline constexpr uint32_t kDefaultFramebufferSize = 250;

enum class ShaderStage {
  kVertex,
  kFragment,
  kCompute,
  kGeometry,
  kTessControl,
  kTessEvaluation,
  kMulti,
};
const char* ShaderStageName(ShaderStage s);

enum class ShaderFormat {
  kGlsl,
  kHlsl,
  kSpirvAsm,
  kSpirvHex,
  kSpirvBin,
  kOpenClC,
};
const char* ShaderFormatName(ShaderFormat f);

// A number as written in the script: integer (kept exactly) or float.
struct Number {
  bool is_float = false;
  int64_t i = 0;   // two's complement bits of integers (hex may fill 64 bits)
  double f = 0.0;  // value of floats; for integers, the value as a double
  static Number Int(int64_t v) { return Number{false, v, double(v)}; }
  static Number Float(double v) { return Number{true, 0, v}; }
};

struct Shader {
  std::string name;
  ShaderStage stage = ShaderStage::kCompute;
  ShaderFormat format = ShaderFormat::kGlsl;
  bool passthrough = false;  // SHADER vertex x PASSTHROUGH (format SPIRV-ASM,
                             // source empty: the runner supplies it)
  std::string source;        // text formats
  std::vector<uint8_t> binary;  // SPIRV-BIN
  std::string target_env;       // TARGET_ENV value, empty when absent
  std::string file_path;        // FILE (resolved) or VIRTUAL_FILE path
  int line = 0;                 // line of the SHADER command
  int source_line = 0;          // line of the first source line (inline)
};

// A VIRTUAL_FILE block: text the shader compiler can #include.
struct VirtualFile {
  std::string path;
  std::string content;
  int line = 0;
};

enum class ImageDim { kNone, k1D, k2D, k3D };

// A BUFFER or IMAGE. Images are buffers with dim != kNone.
struct Buffer {
  std::string name;
  int line = 0;
  ElementFormat format;
  // True for FORMAT buffers (Vulkan format names); these are sized later
  // by the pipeline's FRAMEBUFFER_SIZE when no size was given
  // (size_from_framebuffer).
  bool from_format_keyword = false;
  bool size_from_framebuffer = false;
  uint64_t element_count = 0;
  uint32_t width = 0;  // 0 = not image-like
  uint32_t height = 0;
  uint32_t depth = 0;
  uint32_t mip_levels = 1;
  uint32_t samples = 1;
  ImageDim dim = ImageDim::kNone;
  std::string file_path;       // FILE source (resolved), empty otherwise
  std::vector<uint8_t> bytes;  // initial contents: element_count * stride
};

struct Sampler {
  std::string name;
  int line = 0;
  std::string mag_filter = "nearest";
  std::string min_filter = "nearest";
  std::string mipmap_mode = "nearest";
  std::string address_mode_u = "repeat";
  std::string address_mode_v = "repeat";
  std::string address_mode_w = "repeat";
  std::string border_color = "float_transparent_black";
  float min_lod = 0.0f;
  float max_lod = 1.0f;
  bool normalized_coords = true;
  bool compare_enable = false;
  std::string compare_op = "never";
};

struct SpecializationConstant {
  uint32_t id = 0;
  std::string type;   // uint32, int32 or float
  uint32_t bits = 0;  // the 32-bit value
};

struct SubgroupSettings {
  bool fully_populated = false;
  bool varying_size = false;
  uint32_t required_size = 0;  // 0 = none
};

struct ShaderAttachment {
  std::string shader;
  ShaderStage stage = ShaderStage::kCompute;
  std::string entry_point = "main";
  std::vector<SpecializationConstant> specializations;
  std::vector<std::string> optimizations;    // SHADER_OPTIMIZATION
  std::vector<std::string> compile_options;  // COMPILE_OPTIONS
  std::optional<SubgroupSettings> subgroup;  // SUBGROUP block
  int line = 0;
};

enum class BindingKind {
  kStorage,
  kUniform,
  kStorageDynamic,
  kUniformDynamic,
  kStorageTexelBuffer,
  kUniformTexelBuffer,
  kSampled,  // sampled_image
  kStorageImage,
  kCombinedImageSampler,
  kColor,
  kDepthStencil,
  kResolve,
  kPushConstant,
  kSampler,    // BIND SAMPLER / SAMPLER_ARRAY
  kKernelArg,  // OpenCL: BIND BUFFER x KERNEL ARG_NAME / ARG_NUMBER
};
const char* BindingKindName(BindingKind k);

// One BIND line. `buffers` has one entry except for BUFFER_ARRAY.
struct Binding {
  BindingKind kind = BindingKind::kStorage;
  std::vector<std::string> buffers;
  std::vector<std::string> samplers;  // SAMPLER / combined image sampler
  uint32_t descriptor_set = 0;
  uint32_t binding = 0;
  bool has_descriptor = false;  // DESCRIPTOR_SET/BINDING given
  uint32_t location = 0;        // color attachments
  uint32_t base_mip_level = 0;
  std::vector<uint64_t> dynamic_offsets;     // OFFSET (dynamic buffers)
  std::vector<uint64_t> descriptor_offsets;  // DESCRIPTOR_OFFSET
  std::vector<uint64_t> descriptor_ranges;   // DESCRIPTOR_RANGE
  std::string kernel_arg_name;
  std::optional<uint32_t> kernel_arg_number;
  std::optional<BindingKind> kernel_arg_kind;  // "AS kind" before KERNEL
  int line = 0;
};

struct VertexData {
  std::string buffer;
  uint32_t location = 0;
  bool per_instance = false;            // RATE instance
  std::optional<ElementFormat> format;  // FORMAT override
  uint32_t offset = 0;
  std::optional<uint32_t> stride;
  int line = 0;
};

// Defaults follow Amber's PipelineData: compare ops "always", stencil masks
// all ones.
struct DepthState {
  bool test = false;
  bool write = false;
  bool clamp = false;
  std::string compare_op = "always";
  bool bounds_test = false;
  float bounds_min = 0.0f, bounds_max = 1.0f;
  bool bias = false;
  float bias_constant = 0.0f, bias_clamp = 0.0f, bias_slope = 0.0f;
};

struct StencilFace {
  std::string fail_op = "keep";
  std::string pass_op = "keep";
  std::string depth_fail_op = "keep";
  std::string compare_op = "always";
  uint32_t compare_mask = 0xffffffffu;
  uint32_t write_mask = 0xffffffffu;
  uint32_t reference = 0;
};

struct StencilState {
  bool test = false;
  StencilFace front;
  StencilFace back;
};

struct BlendState {
  bool enabled = false;
  std::string src_color_factor = "one";
  std::string dst_color_factor = "zero";
  std::string color_op = "add";
  std::string src_alpha_factor = "one";
  std::string dst_alpha_factor = "zero";
  std::string alpha_op = "add";
};

struct Viewport {
  float x = 0, y = 0, width = 0, height = 0;
  float min_depth = 0.0f, max_depth = 1.0f;
};

// SET KERNEL ARG_NAME x AS type value (OpenCL plain-old-data arguments).
struct KernelArgValue {
  std::string arg_name;
  std::optional<uint32_t> arg_number;
  std::string type;
  Number value;
  int line = 0;
};

enum class PipelineType { kCompute, kGraphics };

struct Pipeline {
  std::string name;
  PipelineType type = PipelineType::kCompute;
  std::string derived_from;  // DERIVE_PIPELINE parent, empty otherwise
  int line = 0;
  std::vector<ShaderAttachment> shaders;
  std::vector<Binding> bindings;
  std::vector<VertexData> vertex_data;
  std::string index_data;  // INDEX_DATA buffer, empty when none
  std::vector<KernelArgValue> kernel_args;
  uint32_t framebuffer_width = kDefaultFramebufferSize;
  uint32_t framebuffer_height = kDefaultFramebufferSize;
  std::optional<Viewport> viewport;
  DepthState depth;
  StencilState stencil;
  BlendState blend;
  std::string cull_mode = "none";
  std::string front_face = "counter_clockwise";
  std::string polygon_mode = "fill";
  uint32_t patch_control_points = 0;  // 0 = not set
};

// ---- Commands -------------------------------------------------------------

struct RunCompute {
  uint32_t x = 1, y = 1, z = 1;
};
struct RunDrawRect {
  float x = 0, y = 0, width = 0, height = 0;
  // False (AmberScript, VkScript `draw rect ortho`): x, y, width, height are
  // framebuffer pixels. True (VkScript `draw rect` without `ortho`): they
  // are normalized device coordinates, used as vertex positions as given.
  bool ndc = false;
};
struct RunDrawGrid {
  float x = 0, y = 0, width = 0, height = 0;
  uint32_t columns = 0, rows = 0;  // CELLS columns rows
};
struct RunDrawArray {
  std::string topology;  // lower case: triangle_list, patch_list, ...
  bool indexed = false;
  uint32_t start_index = 0;
  std::optional<uint32_t> count;  // default: rest of the vertex/index buffer
  uint32_t start_instance = 0;
  uint32_t instance_count = 1;
  // Added to each index of an indexed draw (VkScript `draw arrays indexed`
  // gives its first vertex here, as Amber's vertexOffset).
  int32_t vertex_offset = 0;
};

struct RunCommand {
  std::string pipeline;
  bool timed_execution = false;
  std::variant<RunCompute, RunDrawRect, RunDrawGrid, RunDrawArray> draw;
};

struct ClearColorCommand {
  std::string pipeline;
  float r = 0, g = 0, b = 0, a = 0;  // 0..1 (script gives 0..255)
};
struct ClearDepthCommand {
  std::string pipeline;
  float value = 0;
};
struct ClearStencilCommand {
  std::string pipeline;
  uint32_t value = 0;
};
struct ClearCommand {
  std::string pipeline;
};
struct CopyCommand {
  std::string from, to;
};
// Writes `bytes` into `buffer` at byte `offset` when the command runs
// (VkScript `ssbo N subdata`, `uniform` after the first command). The
// parser sizes the buffer so that the write fits.
struct BufferWriteCommand {
  std::string buffer;
  uint64_t offset = 0;
  std::vector<uint8_t> bytes;
};

enum class Comparator {
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kEqRgb,
  kEqRgba,
  kEqBuffer,
  kRmseBuffer,
  kEqHistogramEmdBuffer,
};
const char* ComparatorName(Comparator c);

struct Tolerance {
  double value = 0;
  bool percent = false;
};

// Every EXPECT form. Which fields matter depends on `comparator`:
//   EQ..GE          x = byte offset (IDX), values, tolerances (EQ only)
//   EQ_RGB(A)       x, y, width, height (pixels), values = r g b [a] 0..255,
//                   tolerances
//   *_BUFFER        other_buffer, buffer_tolerance (RMSE / EMD)
struct ExpectCommand {
  std::string buffer;
  Comparator comparator = Comparator::kEq;
  uint64_t x = 0;
  uint64_t y = 0;
  bool has_y = false;
  uint32_t width = 1, height = 1;
  std::vector<Tolerance> tolerances;
  std::vector<Number> values;
  std::string other_buffer;
  double buffer_tolerance = 0;
};

struct Command;
struct RepeatCommand {
  uint32_t count = 1;
  std::vector<Command> commands;
};

struct Command {
  int line = 0;
  std::variant<RunCommand, ClearColorCommand, ClearDepthCommand,
               ClearStencilCommand, ClearCommand, CopyCommand, ExpectCommand,
               RepeatCommand, BufferWriteCommand>
      data;
};

struct Scene {
  std::string file_path;
  std::vector<std::string> device_features;
  std::vector<std::string> device_extensions;
  std::vector<std::string> instance_extensions;
  std::vector<std::string> device_properties;
  std::map<std::string, uint64_t> engine_data;  // SET ENGINE_DATA name value
  std::vector<Shader> shaders;
  std::vector<VirtualFile> virtual_files;
  StructTable structs;
  std::vector<Buffer> buffers;  // BUFFER and IMAGE, in declaration order
  std::vector<Sampler> samplers;
  std::vector<Pipeline> pipelines;
  std::vector<Command> commands;

  const Shader* FindShader(const std::string& name) const;
  const Buffer* FindBuffer(const std::string& name) const;
  Buffer* FindBuffer(const std::string& name);
  const Sampler* FindSampler(const std::string& name) const;
  const Pipeline* FindPipeline(const std::string& name) const;
};

}  // namespace warpsim::scene

#endif  // WARPSIM_SCENE_SCENE_H_
