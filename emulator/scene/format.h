// Element formats: how one element of a buffer or image is laid out in bytes.
//
// Two sources produce an ElementFormat:
//   - a Vulkan format name (FORMAT R8G8B8A8_UNORM, or the same name after
//     DATA_TYPE), see ParseVulkanFormat();
//   - an AmberScript data type (DATA_TYPE vec3<float>, mat2x3<double>, a
//     STRUCT name, or any of them followed by "[]"), see LayoutDataType().
//
// Layout rules (what Amber does; docs/memory_layout.md in the Amber project):
//
//   Vulkan formats are packed tightly: the components follow each other in
//   name order with no padding (R32G32B32_SFLOAT is 12 bytes, B8G8R8_UNORM is
//   3 bytes). A *_PACKnn format is ONE nn-bit little-endian word per element;
//   its components are bit fields, the first named component in the most
//   significant bits (A2B10G10R10: A = bits 30..31, R = bits 0..9). Data for a
//   packed format is given as one integer per element (the whole word).
//
//   Data types follow GLSL std430 (default) or std140:
//     scalar          size = align = its byte width (float16 = 2).
//     vec2<T>         size = align = 2*|T|.
//     vec3<T>, vec4   size = 3*|T| or 4*|T|, align = 4*|T|; as a buffer
//                     element a vec3 occupies 4*|T| (the 4th slot is padding).
//     matCxR<T>       C columns, each a vecR<T>; column stride = vecR's aligned
//                     size (std430) or that rounded up to 16 (std140).
//     STRUCT          members at their OFFSET or at the next offset aligned to
//                     the member's alignment; struct align = max member align
//                     (std140: rounded up to 16); size rounded up to align;
//                     STRIDE overrides the size.
//     T[]             a buffer of array elements: the stride is T's size
//                     rounded up to T's alignment, and in std140 additionally
//                     rounded up to 16 (so float[] STD140 has stride 16 while
//                     plain float STD140 has stride 4).
//   Matrices are column-major: data values fill column 0 first.
#ifndef WARPSIM_SCENE_FORMAT_H_
#define WARPSIM_SCENE_FORMAT_H_

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "base/half.h"

namespace warpsim::scene {

// How the bits of one component are interpreted.
enum class NumericKind {
  kSInt,
  kUInt,
  kSFloat,
  kUFloat,  // unsigned small floats (B10G11R11)
  kUNorm,
  kSNorm,
  kSRgb,  // UNORM storage, sRGB transfer for R, G, B
  kUScaled,
  kSScaled,
};

// Which channel a component of an image format holds. Data-type components
// have kNone.
enum class Channel { kNone, kR, kG, kB, kA, kD, kS, kX };

enum class Layout { kStd430, kStd140 };

// One non-padding component of an element.
struct Component {
  Channel channel = Channel::kNone;
  NumericKind kind = NumericKind::kUInt;
  uint32_t bits = 32;        // 8, 16, 32, 64, or a packed field width
  uint32_t byte_offset = 0;  // from the start of the element (of the word
                             // for packed formats)
  uint32_t bit_offset = 0;   // within the packed word; 0 when not packed
  bool is_float() const {
    return kind == NumericKind::kSFloat || kind == NumericKind::kUFloat;
  }
  bool is_signed() const {
    return kind == NumericKind::kSInt || kind == NumericKind::kSNorm ||
           kind == NumericKind::kSScaled || (kind == NumericKind::kSFloat);
  }
  bool is_normalized() const {
    return kind == NumericKind::kUNorm || kind == NumericKind::kSNorm ||
           kind == NumericKind::kSRgb;
  }
};

// The layout of one element of a buffer or image: its components in data
// order and its stride. Plain data; the rest of the emulator reads and writes
// elements through ReadComponent()/WriteComponent().
struct ElementFormat {
  std::string name;               // as written: "vec3<float>", "R8G8_UNORM"
  bool is_vulkan_format = false;  // came from a Vulkan format name
  Layout layout = Layout::kStd430;
  std::vector<Component> components;  // in data (input) order
  uint32_t stride = 0;                // bytes per element, padding included
  uint32_t alignment = 1;
  uint32_t pack_bits = 0;  // nonzero for *_PACKnn: one word per element
  // Shape of a data type (1x1 for scalars, Rx1 for vectors, RxC matrices).
  uint32_t rows = 1;
  uint32_t columns = 1;

  // Values a DATA block supplies per element (1 for packed formats).
  uint32_t ValuesPerElement() const {
    return pack_bits ? 1 : static_cast<uint32_t>(components.size());
  }
  bool IsNormalized() const;
  bool HasChannel(Channel c) const;
};

// A scalar kind + width for DATA_TYPE names (int8..uint64, float16, float,
// double).
struct ScalarType {
  NumericKind kind = NumericKind::kSInt;
  uint32_t bits = 32;
};
std::optional<ScalarType> ParseScalarTypeName(const std::string& name);
std::string ScalarTypeName(const ScalarType& t);

// One member of an AmberScript STRUCT.
struct StructMember {
  std::string type_name;  // any data type name, including another struct
  std::string name;
  std::optional<uint32_t> offset;
  std::optional<uint32_t> array_stride;
  std::optional<uint32_t> matrix_stride;
  uint32_t array_size = 0;  // 0 = not an array
};

struct StructDef {
  std::string name;
  std::vector<StructMember> members;
  std::optional<uint32_t> stride;
  int line = 0;
};

using StructTable = std::map<std::string, StructDef>;

// Parses a Vulkan format name (R8G8B8A8_UNORM, D24_UNORM_S8_UINT,
// B10G11R11_UFLOAT_PACK32, ...). Returns nullopt for unknown names.
std::optional<ElementFormat> ParseVulkanFormat(const std::string& name);

// Lays out a data type name under `layout`. Errors name the problem (the
// caller adds the position).
Result<ElementFormat> LayoutDataType(const std::string& type_name,
                                     Layout layout, const StructTable& structs);

// Reads component `c` of the element starting at `element` as a double
// (integers exactly up to 2^53, float16/11/10 decoded; no normalisation).
double ReadComponent(std::span<const uint8_t> element, const Component& c);
// Reads an integer component as raw 64-bit pattern (sign-extended for signed
// kinds).
int64_t ReadComponentInt(std::span<const uint8_t> element, const Component& c);
// Writes `bits` (already encoded) into the component's bit range.
void WriteComponentBits(std::span<uint8_t> element, const Component& c,
                        uint64_t bits);

// Converts a component value read by ReadComponent() to the [0,1] / [-1,1]
// range for normalized kinds (sRGB decoded to linear for R, G, B); other
// kinds are returned unchanged.
double NormalizeComponent(double raw, const Component& c);

// IEEE half / unsigned 11- and 10-bit floats.
float SmallUFloatToFloat(uint32_t bits, uint32_t mantissa_bits);

}  // namespace warpsim::scene

#endif  // WARPSIM_SCENE_FORMAT_H_
