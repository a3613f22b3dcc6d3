// Per-fragment operations (pipeline/output_merge.cpp): compare and stencil
// ops, the Vulkan order of depth bounds / stencil / depth tests, depth and
// stencil texels, blending with every factor and op, write masks, UNORM,
// sRGB and integer attachments. Expected values are computed by hand.
#include "pipeline/output_merge.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "runner/image_binding.h"
#include "scene/format.h"

namespace {

using warpsim::ErrorKind;
using warpsim::pipeline::BlendFactor;
using warpsim::pipeline::BlendOp;
using warpsim::pipeline::BlendState;
using warpsim::pipeline::CompareOp;
using warpsim::pipeline::DepthState;
using warpsim::pipeline::DepthStencilResult;
using warpsim::pipeline::FragmentTestOutcome;
using warpsim::pipeline::StencilFaceState;
using warpsim::pipeline::StencilOp;
using warpsim::pipeline::StencilState;
using warpsim::simt::Texel;
using warpsim::simt::TexelFormat;
namespace pl = warpsim::pipeline;

// A texel format the way the runner builds it from a Vulkan format name.
TexelFormat Fmt(const std::string& name) {
  auto f = warpsim::scene::ParseVulkanFormat(name);
  REQUIRE(f.has_value());
  return warpsim::runner::TexelFormatOf(*f);
}

Texel Rgba(float r, float g, float b, float a) {
  Texel t;
  t.f[0] = r;
  t.f[1] = g;
  t.f[2] = b;
  t.f[3] = a;
  return t;
}

Texel Ints(uint64_t r, uint64_t g, uint64_t b, uint64_t a) {
  Texel t;
  t.i[0] = r;
  t.i[1] = g;
  t.i[2] = b;
  t.i[3] = a;
  return t;
}

std::string Show(const Texel& t) {
  return "(" + std::to_string(t.f[0]) + ", " + std::to_string(t.f[1]) + ", " +
         std::to_string(t.f[2]) + ", " + std::to_string(t.f[3]) + ")";
}

void CheckColor(const Texel& t, float r, float g, float b, float a) {
  INFO("got " << Show(t));
  CHECK(t.f[0] == Approx(r).margin(1e-6));
  CHECK(t.f[1] == Approx(g).margin(1e-6));
  CHECK(t.f[2] == Approx(b).margin(1e-6));
  CHECK(t.f[3] == Approx(a).margin(1e-6));
}

const float kNoConstants[4] = {0, 0, 0, 0};

}  // namespace

// ---------------------------------------------------------------------------
// Parsing

TEST_CASE("every AmberScript name parses and prints back",
          "[pipeline][merge]") {
  for (std::string name : {"never", "less", "equal", "less_or_equal", "greater",
                           "not_equal", "greater_or_equal", "always"}) {
    auto op = pl::ParseCompareOp(name);
    REQUIRE(op.ok());
    CHECK(pl::CompareOpName(*op) == name);
  }
  for (std::string name :
       {"keep", "zero", "replace", "increment_and_clamp", "decrement_and_clamp",
        "invert", "increment_and_wrap", "decrement_and_wrap"}) {
    auto op = pl::ParseStencilOp(name);
    REQUIRE(op.ok());
    CHECK(pl::StencilOpName(*op) == name);
  }
  int factors = 0;
  for (std::string name :
       {"zero", "one", "src_color", "one_minus_src_color", "dst_color",
        "one_minus_dst_color", "src_alpha", "one_minus_src_alpha", "dst_alpha",
        "one_minus_dst_alpha", "constant_color", "one_minus_constant_color",
        "constant_alpha", "one_minus_constant_alpha", "src_alpha_saturate",
        "src1_color", "one_minus_src1_color", "src1_alpha",
        "one_minus_src1_alpha"}) {
    auto f = pl::ParseBlendFactor(name);
    REQUIRE(f.ok());
    CHECK(pl::BlendFactorName(*f) == name);
    CHECK(static_cast<int>(*f) == factors++);  // VkBlendFactor order
  }
  for (std::string name :
       {"add", "subtract", "reverse_subtract", "min", "max"}) {
    auto op = pl::ParseBlendOp(name);
    REQUIRE(op.ok());
    CHECK(pl::BlendOpName(*op) == name);
  }
  CHECK(*pl::ParseCompareOp("less_or_equal") == CompareOp::kLessOrEqual);
  CHECK(*pl::ParseStencilOp("increment_and_clamp") ==
        StencilOp::kIncrementAndClamp);
  CHECK(*pl::ParseBlendFactor("one_minus_src_alpha") ==
        BlendFactor::kOneMinusSrcAlpha);
  CHECK(*pl::ParseBlendOp("reverse_subtract") == BlendOp::kReverseSubtract);
}

TEST_CASE("bad names are diagnosed by name", "[pipeline][merge]") {
  const auto check = [](const warpsim::Diagnostic& d, const std::string& want,
                        ErrorKind kind) {
    INFO(d.ToString());
    CHECK(d.kind == kind);
    CHECK(d.message.find(want) != std::string::npos);
  };
  check(pl::ParseCompareOp("lequal").error(), "unknown compare op 'lequal'",
        ErrorKind::kInvalidInput);
  check(pl::ParseCompareOp("LESS").error(), "'LESS'", ErrorKind::kInvalidInput);
  check(pl::ParseStencilOp("incr").error(), "unknown stencil op 'incr'",
        ErrorKind::kInvalidInput);
  check(pl::ParseStencilOp("").error(), "unknown stencil op ''",
        ErrorKind::kInvalidInput);
  check(pl::ParseBlendFactor("src2_color").error(),
        "unknown blend factor 'src2_color'", ErrorKind::kInvalidInput);
  check(pl::ParseBlendOp("mul").error(), "unknown blend op 'mul'",
        ErrorKind::kInvalidInput);
  check(pl::ParseBlendOp("multiply").error(), "advanced blend op 'multiply'",
        ErrorKind::kUnsupported);
  check(pl::ParseBlendOp("src_over").error(), "'src_over'",
        ErrorKind::kUnsupported);
  // The message lists what is accepted.
  check(pl::ParseBlendOp("mul").error(), "reverse_subtract, min or max",
        ErrorKind::kInvalidInput);
}

// ---------------------------------------------------------------------------
// Compare and stencil ops

TEST_CASE("depth compare ops: fragment OP stored", "[pipeline][merge]") {
  struct Row {
    CompareOp op;
    bool below, same, above;  // fragment 0.25 / 0.5 / 0.75 vs stored 0.5
  };
  const Row rows[] = {
      {CompareOp::kNever, false, false, false},
      {CompareOp::kLess, true, false, false},
      {CompareOp::kEqual, false, true, false},
      {CompareOp::kLessOrEqual, true, true, false},
      {CompareOp::kGreater, false, false, true},
      {CompareOp::kNotEqual, true, false, true},
      {CompareOp::kGreaterOrEqual, false, true, true},
      {CompareOp::kAlways, true, true, true},
  };
  for (const Row& r : rows) {
    INFO(pl::CompareOpName(r.op));
    CHECK(pl::CompareDepth(r.op, 0.25f, 0.5f) == r.below);
    CHECK(pl::CompareDepth(r.op, 0.5f, 0.5f) == r.same);
    CHECK(pl::CompareDepth(r.op, 0.75f, 0.5f) == r.above);
    // Stencil compares: reference OP stored.
    CHECK(pl::CompareStencil(r.op, 1, 2) == r.below);
    CHECK(pl::CompareStencil(r.op, 2, 2) == r.same);
    CHECK(pl::CompareStencil(r.op, 3, 2) == r.above);
  }
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK_FALSE(pl::CompareDepth(CompareOp::kLess, nan, 0.5f));
  CHECK_FALSE(pl::CompareDepth(CompareOp::kEqual, nan, nan));
  CHECK(pl::CompareDepth(CompareOp::kNotEqual, nan, 0.5f));
  CHECK(pl::CompareDepth(CompareOp::kAlways, nan, 0.5f));
}

TEST_CASE("stencil ops, including clamp and wrap at 0 and 255",
          "[pipeline][merge]") {
  struct Row {
    StencilOp op;
    uint8_t value, reference, expected;
  };
  const Row rows[] = {
      {StencilOp::kKeep, 7, 3, 7},
      {StencilOp::kZero, 7, 3, 0},
      {StencilOp::kReplace, 7, 3, 3},
      {StencilOp::kIncrementAndClamp, 7, 3, 8},
      {StencilOp::kIncrementAndClamp, 254, 3, 255},
      {StencilOp::kIncrementAndClamp, 255, 3, 255},
      {StencilOp::kDecrementAndClamp, 7, 3, 6},
      {StencilOp::kDecrementAndClamp, 1, 3, 0},
      {StencilOp::kDecrementAndClamp, 0, 3, 0},
      {StencilOp::kInvert, 0x0f, 3, 0xf0},
      {StencilOp::kInvert, 0, 3, 255},
      {StencilOp::kIncrementAndWrap, 7, 3, 8},
      {StencilOp::kIncrementAndWrap, 255, 3, 0},
      {StencilOp::kDecrementAndWrap, 7, 3, 6},
      {StencilOp::kDecrementAndWrap, 0, 3, 255},
  };
  for (const Row& r : rows) {
    INFO(pl::StencilOpName(r.op) << " on " << int{r.value});
    CHECK(int{pl::ApplyStencilOp(r.op, r.value, r.reference)} ==
          int{r.expected});
  }
}

TEST_CASE("stencil test masks both sides, write mask keeps other bits",
          "[pipeline][merge]") {
  StencilFaceState f;
  f.compare_op = CompareOp::kEqual;
  f.reference = 0x35;
  f.compare_mask = 0x0f;
  CHECK(pl::StencilTest(f, 0x05));  // 0x05 == 0x05 under the mask
  CHECK(pl::StencilTest(f, 0xf5));
  CHECK_FALSE(pl::StencilTest(f, 0x06));
  f.compare_op = CompareOp::kLess;  // (ref & m) < (stored & m)
  f.compare_mask = 0xf0;
  CHECK(pl::StencilTest(f, 0x40));        // 0x30 < 0x40
  CHECK_FALSE(pl::StencilTest(f, 0x3f));  // 0x30 < 0x30 fails
  f.compare_mask = 0;                     // everything compares as 0
  f.compare_op = CompareOp::kEqual;
  CHECK(pl::StencilTest(f, 0xff));

  f.write_mask = 0x0f;
  CHECK(int{pl::MaskedStencilWrite(f, 0xa5, 0x3c)} == 0xac);
  f.write_mask = 0;
  CHECK(int{pl::MaskedStencilWrite(f, 0xa5, 0x3c)} == 0xa5);
  f.write_mask = 0xff;
  CHECK(int{pl::MaskedStencilWrite(f, 0xa5, 0x3c)} == 0x3c);
}

// ---------------------------------------------------------------------------
// The whole depth/stencil sequence

TEST_CASE("depth test and write follow Vulkan's rules", "[pipeline][merge]") {
  DepthState d;
  const StencilState no_stencil;
  float stored = 0.5f;
  // Test off: passes and never writes, even with write on.
  d.write = true;
  auto r = pl::TestDepthStencil(d, no_stencil, true, 0.9f, &stored, nullptr);
  CHECK(r.pass);
  CHECK_FALSE(r.depth_written);
  CHECK(stored == 0.5f);

  d.test = true;
  d.compare_op = CompareOp::kLess;
  r = pl::TestDepthStencil(d, no_stencil, true, 0.25f, &stored, nullptr);
  CHECK(r.outcome == FragmentTestOutcome::kPass);
  CHECK(r.depth_written);
  CHECK(stored == 0.25f);
  r = pl::TestDepthStencil(d, no_stencil, true, 0.25f, &stored, nullptr);
  CHECK(r.outcome == FragmentTestOutcome::kDepthFail);
  CHECK_FALSE(r.pass);
  CHECK_FALSE(r.depth_written);

  d.write = false;  // passes, keeps the stored value
  r = pl::TestDepthStencil(d, no_stencil, true, 0.125f, &stored, nullptr);
  CHECK(r.pass);
  CHECK_FALSE(r.depth_written);
  CHECK(stored == 0.25f);

  // No depth attachment: the depth test passes.
  d.compare_op = CompareOp::kNever;
  r = pl::TestDepthStencil(d, no_stencil, true, 0.125f, nullptr, nullptr);
  CHECK(r.pass);
}

TEST_CASE("stencil fail, depth fail and pass apply their own ops",
          "[pipeline][merge]") {
  DepthState d;
  d.test = true;
  d.write = true;
  d.compare_op = CompareOp::kLess;
  StencilState s;
  s.test = true;
  s.front.fail_op = StencilOp::kReplace;
  s.front.depth_fail_op = StencilOp::kIncrementAndClamp;
  s.front.pass_op = StencilOp::kInvert;
  s.front.compare_op = CompareOp::kGreaterOrEqual;  // ref >= stored
  s.front.reference = 0x20;
  s.back = s.front;
  s.back.pass_op = StencilOp::kZero;
  s.back.reference = 0x05;

  SECTION("stencil fails: fail_op, no depth test, no depth write") {
    float depth = 0.5f;
    uint8_t stencil = 0x30;
    auto r = pl::TestDepthStencil(d, s, true, 0.1f, &depth, &stencil);
    CHECK(r.outcome == FragmentTestOutcome::kStencilFail);
    CHECK(int{stencil} == 0x20);  // replace with the reference
    CHECK(r.stencil_written);
    CHECK(depth == 0.5f);
  }
  SECTION("depth fails: depth_fail_op") {
    float depth = 0.5f;
    uint8_t stencil = 0x10;
    auto r = pl::TestDepthStencil(d, s, true, 0.75f, &depth, &stencil);
    CHECK(r.outcome == FragmentTestOutcome::kDepthFail);
    CHECK(int{stencil} == 0x11);
    CHECK(depth == 0.5f);
  }
  SECTION("both pass: pass_op and the depth write") {
    float depth = 0.5f;
    uint8_t stencil = 0x10;
    auto r = pl::TestDepthStencil(d, s, true, 0.25f, &depth, &stencil);
    CHECK(r.outcome == FragmentTestOutcome::kPass);
    CHECK(int{stencil} == 0xef);
    CHECK(depth == 0.25f);
    CHECK(r.depth_written);
    CHECK(r.stencil_written);
  }
  SECTION("back faces use the back state") {
    float depth = 0.5f;
    uint8_t stencil = 0x05;  // 0x05 >= 0x05 passes for the back reference
    auto r = pl::TestDepthStencil(d, s, false, 0.25f, &depth, &stencil);
    CHECK(r.pass);
    CHECK(int{stencil} == 0);
  }
  SECTION("write mask limits every op") {
    s.front.write_mask = 0xf0;
    float depth = 0.5f;
    uint8_t stencil = 0x10;
    pl::TestDepthStencil(d, s, true, 0.25f, &depth, &stencil);  // invert
    CHECK(int{stencil} == 0xe0);
  }
  SECTION("a keep op leaves stencil_written false") {
    s.front.pass_op = StencilOp::kKeep;
    float depth = 0.5f;
    uint8_t stencil = 0x10;
    auto r = pl::TestDepthStencil(d, s, true, 0.25f, &depth, &stencil);
    CHECK(r.pass);
    CHECK_FALSE(r.stencil_written);
  }
  SECTION("stencil test off: no stencil updates") {
    s.test = false;
    float depth = 0.5f;
    uint8_t stencil = 0x30;
    auto r = pl::TestDepthStencil(d, s, true, 0.75f, &depth, &stencil);
    CHECK(r.outcome == FragmentTestOutcome::kDepthFail);
    CHECK(int{stencil} == 0x30);
  }
  SECTION("no stencil attachment: the stencil test passes") {
    float depth = 0.5f;
    s.front.compare_op = CompareOp::kNever;
    auto r = pl::TestDepthStencil(d, s, true, 0.25f, &depth, nullptr);
    CHECK(r.pass);
  }
}

TEST_CASE("depth bounds test the stored depth before anything else",
          "[pipeline][merge]") {
  DepthState d;
  d.bounds_test = true;
  d.min_bounds = 0.25f;
  d.max_bounds = 0.75f;
  d.test = true;
  d.write = true;
  d.compare_op = CompareOp::kAlways;
  StencilState s;
  s.test = true;
  s.front.compare_op = CompareOp::kNever;
  s.front.fail_op = StencilOp::kReplace;
  s.front.reference = 9;
  struct Row {
    float stored;
    bool in_bounds;
  };
  const Row rows[] = {{0.0f, false}, {0.2499f, false}, {0.25f, true},
                      {0.5f, true},  {0.75f, true},    {0.7501f, false},
                      {1.0f, false}};
  for (const Row& row : rows) {
    INFO("stored depth " << row.stored);
    float depth = row.stored;
    uint8_t stencil = 1;
    auto r = pl::TestDepthStencil(d, s, true, 0.5f, &depth, &stencil);
    if (row.in_bounds) {
      // Goes on to the stencil test, which fails here and replaces.
      CHECK(r.outcome == FragmentTestOutcome::kStencilFail);
      CHECK(int{stencil} == 9);
    } else {
      CHECK(r.outcome == FragmentTestOutcome::kDepthBoundsFail);
      CHECK(int{stencil} == 1);  // no stencil op on a bounds failure
      CHECK(depth == row.stored);
    }
  }
  // The fragment's own depth plays no part: stored 0.5 passes whatever z.
  s.test = false;
  float depth = 0.5f;
  auto r = pl::TestDepthStencil(d, s, true, 0.9f, &depth, nullptr);
  CHECK(r.pass);
  CHECK(depth == 0.9f);
  // Without a depth attachment the bounds test has nothing to test.
  CHECK(pl::TestDepthStencil(d, s, true, 0.9f, nullptr, nullptr).pass);
}

// ---------------------------------------------------------------------------
// Depth/stencil texels

TEST_CASE("depth/stencil formats: where depth and stencil live",
          "[pipeline][merge]") {
  struct Row {
    const char* name;
    bool depth, stencil;
  };
  const Row rows[] = {
      {"D16_UNORM", true, false},        {"X8_D24_UNORM_PACK32", true, false},
      {"D32_SFLOAT", true, false},       {"D16_UNORM_S8_UINT", true, true},
      {"D24_UNORM_S8_UINT", true, true}, {"D32_SFLOAT_S8_UINT", true, true},
      {"S8_UINT", false, true},          {"R8G8B8A8_UNORM", false, false},
      {"R32_UINT", false, false},
  };
  for (const Row& r : rows) {
    INFO(r.name);
    const TexelFormat f = Fmt(r.name);
    CHECK(pl::HasDepth(f) == r.depth);
    CHECK(pl::HasStencil(f) == r.stencil);
  }
}

TEST_CASE("depth and stencil texels read and write only their own bits",
          "[pipeline][merge]") {
  SECTION("D16_UNORM rounds to nearest") {
    const TexelFormat f = Fmt("D16_UNORM");
    uint8_t t[2] = {};
    pl::WriteDepth(f, 0.5f, t);  // 32767.5 rounds up
    CHECK((t[0] | t[1] << 8) == 32768);
    CHECK(pl::ReadDepth(f, t) == Approx(32768.0 / 65535.0));
    pl::WriteDepth(f, 1.5f, t);  // clamped
    CHECK((t[0] | t[1] << 8) == 65535);
    pl::WriteDepth(f, -1.0f, t);
    CHECK((t[0] | t[1] << 8) == 0);
  }
  SECTION("D24_UNORM_S8_UINT: depth in bits 0..23, stencil in byte 3") {
    const TexelFormat f = Fmt("D24_UNORM_S8_UINT");
    uint8_t t[4] = {0, 0, 0, 0x5a};
    pl::WriteDepth(f, 1.0f, t);
    CHECK(t[0] == 0xff);
    CHECK(t[1] == 0xff);
    CHECK(t[2] == 0xff);
    CHECK(t[3] == 0x5a);
    CHECK(pl::ReadDepth(f, t) == 1.0f);
    CHECK(int{pl::ReadStencil(f, t)} == 0x5a);
    pl::WriteStencil(f, 0xc3, t);
    CHECK(t[3] == 0xc3);
    CHECK(pl::ReadDepth(f, t) == 1.0f);
    pl::WriteDepth(f, 0.0f, t);
    CHECK(t[0] == 0);
    CHECK(int{pl::ReadStencil(f, t)} == 0xc3);
  }
  SECTION("D32_SFLOAT_S8_UINT: float depth then the stencil byte") {
    const TexelFormat f = Fmt("D32_SFLOAT_S8_UINT");
    REQUIRE(f.bytes >= 5);
    std::vector<uint8_t> t(f.bytes, 0);
    pl::WriteStencil(f, 0x81, t.data());
    pl::WriteDepth(f, 0.375f, t.data());
    float z;
    std::memcpy(&z, t.data(), 4);
    CHECK(z == 0.375f);
    CHECK(t[4] == 0x81);
    CHECK(pl::ReadDepth(f, t.data()) == 0.375f);
    CHECK(int{pl::ReadStencil(f, t.data())} == 0x81);
  }
  SECTION("X8_D24_UNORM_PACK32: padding bits survive a depth write") {
    const TexelFormat f = Fmt("X8_D24_UNORM_PACK32");
    uint8_t t[4] = {0, 0, 0, 0x77};
    pl::WriteDepth(f, 1.0f, t);
    CHECK(t[2] == 0xff);
    CHECK(t[3] == 0x77);
    CHECK(int{pl::ReadStencil(f, t)} == 0);  // no stencil
    pl::WriteStencil(f, 5, t);               // no effect
    CHECK(t[3] == 0x77);
  }
  SECTION("S8_UINT") {
    const TexelFormat f = Fmt("S8_UINT");
    uint8_t t[1] = {0};
    pl::WriteStencil(f, 200, t);
    CHECK(t[0] == 200);
    CHECK(int{pl::ReadStencil(f, t)} == 200);
    CHECK(pl::ReadDepth(f, t) == 0.0f);
    pl::WriteDepth(f, 1.0f, t);  // no effect
    CHECK(t[0] == 200);
  }
}

TEST_CASE("fragment depth is clamped and quantized like the attachment",
          "[pipeline][merge]") {
  DepthState d;
  const TexelFormat d16 = Fmt("D16_UNORM");
  const TexelFormat d32 = Fmt("D32_SFLOAT");
  // 0.3 * 65535 = 19660.5 -> 19661.
  CHECK(pl::QuantizeFragmentDepth(d, d16, 0.3f, 0, 1) ==
        static_cast<float>(19661.0 / 65535.0));
  CHECK(pl::QuantizeFragmentDepth(d, d16, 0.3f, 0, 1) != 0.3f);
  CHECK(pl::QuantizeFragmentDepth(d, d32, 0.3f, 0, 1) == 0.3f);
  // UNORM attachments clamp to [0, 1].
  CHECK(pl::QuantizeFragmentDepth(d, d16, 1.5f, 0, 1) == 1.0f);
  CHECK(pl::QuantizeFragmentDepth(d, d16, -0.5f, 0, 1) == 0.0f);
  // Float depth is clamped to [0, 1] too, unless the range is unrestricted.
  CHECK(pl::QuantizeFragmentDepth(d, d32, 1.5f, 0, 1) == 1.0f);
  pl::DepthState unrestricted = d;
  unrestricted.range_unrestricted = true;
  CHECK(pl::QuantizeFragmentDepth(unrestricted, d32, 1.5f, 0, 1) == 1.5f);
  // Depth clamp: the viewport's range, whichever way round.
  d.clamp = true;
  CHECK(pl::QuantizeFragmentDepth(d, d32, 0.9f, 0.25f, 0.75f) == 0.75f);
  CHECK(pl::QuantizeFragmentDepth(d, d32, 0.1f, 0.75f, 0.25f) == 0.25f);
  CHECK(pl::QuantizeFragmentDepth(d, d32, 0.5f, 0.25f, 0.75f) == 0.5f);
  // A quantized value compares equal to what the attachment stores.
  uint8_t t[2] = {};
  const float z = pl::QuantizeFragmentDepth(DepthState{}, d16, 0.3f, 0, 1);
  pl::WriteDepth(d16, z, t);
  CHECK(pl::CompareDepth(CompareOp::kEqual, z, pl::ReadDepth(d16, t)));
}

// ---------------------------------------------------------------------------
// Blending

namespace {

// src, dst, constants and the second source used by the factor table
// (R32G32B32A32_SFLOAT: nothing is clamped).
const Texel kSrc = Rgba(0.8f, 0.6f, 0.4f, 0.5f);
const Texel kDst = Rgba(0.2f, 0.4f, 0.6f, 0.25f);
const Texel kSrc1 = Rgba(0.3f, 0.5f, 0.7f, 0.9f);
const float kConstants[4] = {0.1f, 0.2f, 0.3f, 0.4f};

struct FactorRow {
  BlendFactor factor;
  float r, g, b, a;  // the factor's value for each component, by hand
};

const FactorRow kFactorRows[] = {
    {BlendFactor::kZero, 0, 0, 0, 0},
    {BlendFactor::kOne, 1, 1, 1, 1},
    {BlendFactor::kSrcColor, 0.8f, 0.6f, 0.4f, 0.5f},
    {BlendFactor::kOneMinusSrcColor, 0.2f, 0.4f, 0.6f, 0.5f},
    {BlendFactor::kDstColor, 0.2f, 0.4f, 0.6f, 0.25f},
    {BlendFactor::kOneMinusDstColor, 0.8f, 0.6f, 0.4f, 0.75f},
    {BlendFactor::kSrcAlpha, 0.5f, 0.5f, 0.5f, 0.5f},
    {BlendFactor::kOneMinusSrcAlpha, 0.5f, 0.5f, 0.5f, 0.5f},
    {BlendFactor::kDstAlpha, 0.25f, 0.25f, 0.25f, 0.25f},
    {BlendFactor::kOneMinusDstAlpha, 0.75f, 0.75f, 0.75f, 0.75f},
    {BlendFactor::kConstantColor, 0.1f, 0.2f, 0.3f, 0.4f},
    {BlendFactor::kOneMinusConstantColor, 0.9f, 0.8f, 0.7f, 0.6f},
    {BlendFactor::kConstantAlpha, 0.4f, 0.4f, 0.4f, 0.4f},
    {BlendFactor::kOneMinusConstantAlpha, 0.6f, 0.6f, 0.6f, 0.6f},
    // min(As, 1 - Ad) = min(0.5, 0.75); alpha factor is 1.
    {BlendFactor::kSrcAlphaSaturate, 0.5f, 0.5f, 0.5f, 1.0f},
    {BlendFactor::kSrc1Color, 0.3f, 0.5f, 0.7f, 0.9f},
    {BlendFactor::kOneMinusSrc1Color, 0.7f, 0.5f, 0.3f, 0.1f},
    {BlendFactor::kSrc1Alpha, 0.9f, 0.9f, 0.9f, 0.9f},
    {BlendFactor::kOneMinusSrc1Alpha, 0.1f, 0.1f, 0.1f, 0.1f},
};

BlendState Blending(BlendFactor src, BlendFactor dst, BlendOp op) {
  BlendState b;
  b.enable = true;
  b.src_color_factor = b.src_alpha_factor = src;
  b.dst_color_factor = b.dst_alpha_factor = dst;
  b.color_op = b.alpha_op = op;
  return b;
}

}  // namespace

TEST_CASE("every blend factor, as source and as destination factor",
          "[pipeline][merge]") {
  const TexelFormat f = Fmt("R32G32B32A32_SFLOAT");
  for (const FactorRow& row : kFactorRows) {
    INFO(pl::BlendFactorName(row.factor));
    // src * factor + dst * 0
    CheckColor(
        pl::Blend(Blending(row.factor, BlendFactor::kZero, BlendOp::kAdd),
                  kConstants, kSrc, kDst, f, &kSrc1),
        0.8f * row.r, 0.6f * row.g, 0.4f * row.b, 0.5f * row.a);
    // src * 0 + dst * factor
    CheckColor(
        pl::Blend(Blending(BlendFactor::kZero, row.factor, BlendOp::kAdd),
                  kConstants, kSrc, kDst, f, &kSrc1),
        0.2f * row.r, 0.4f * row.g, 0.6f * row.b, 0.25f * row.a);
  }
  // Separate colour and alpha factors: premultiplied "over".
  BlendState over = Blending(BlendFactor::kOne, BlendFactor::kOneMinusSrcAlpha,
                             BlendOp::kAdd);
  over.src_alpha_factor = BlendFactor::kOne;
  over.dst_alpha_factor = BlendFactor::kZero;
  // rgb = s + d * 0.5, a = 0.5
  CheckColor(pl::Blend(over, kConstants, kSrc, kDst, f), 0.9f, 0.8f, 0.7f,
             0.5f);
  // src_alpha_saturate picks 1 - Ad when that is smaller: dst alpha 0.75.
  const Texel opaque_dst = Rgba(0.2f, 0.4f, 0.6f, 0.75f);
  CheckColor(pl::Blend(Blending(BlendFactor::kSrcAlphaSaturate,
                                BlendFactor::kZero, BlendOp::kAdd),
                       kConstants, kSrc, opaque_dst, f),
             0.2f, 0.15f, 0.1f, 0.5f);
  // No second source given: src1 factors read zero.
  CheckColor(pl::Blend(Blending(BlendFactor::kOneMinusSrc1Alpha,
                                BlendFactor::kZero, BlendOp::kAdd),
                       kConstants, kSrc, kDst, f),
             0.8f, 0.6f, 0.4f, 0.5f);
}

TEST_CASE("blend ops, min and max ignore the factors", "[pipeline][merge]") {
  const TexelFormat f = Fmt("R32G32B32A32_SFLOAT");
  struct Row {
    BlendOp op;
    float r, g, b, a;
  };
  // Factors one/one for add and the subtracts.
  const Row rows[] = {
      {BlendOp::kAdd, 1.0f, 1.0f, 1.0f, 0.75f},
      {BlendOp::kSubtract, 0.6f, 0.2f, -0.2f, 0.25f},
      {BlendOp::kReverseSubtract, -0.6f, -0.2f, 0.2f, -0.25f},
  };
  for (const Row& r : rows) {
    INFO(pl::BlendOpName(r.op));
    CheckColor(pl::Blend(Blending(BlendFactor::kOne, BlendFactor::kOne, r.op),
                         kConstants, kSrc, kDst, f),
               r.r, r.g, r.b, r.a);
  }
  // Factors zero would give 0 if they were used.
  CheckColor(
      pl::Blend(Blending(BlendFactor::kZero, BlendFactor::kZero, BlendOp::kMin),
                kConstants, kSrc, kDst, f),
      0.2f, 0.4f, 0.4f, 0.25f);
  CheckColor(
      pl::Blend(Blending(BlendFactor::kZero, BlendFactor::kZero, BlendOp::kMax),
                kConstants, kSrc, kDst, f),
      0.8f, 0.6f, 0.6f, 0.5f);
  // Different colour and alpha ops.
  BlendState b = Blending(BlendFactor::kOne, BlendFactor::kOne, BlendOp::kMax);
  b.alpha_op = BlendOp::kReverseSubtract;
  CheckColor(pl::Blend(b, kConstants, kSrc, kDst, f), 0.8f, 0.6f, 0.6f, -0.25f);
  // Blending disabled: the source, untouched.
  b.enable = false;
  CheckColor(pl::Blend(b, kConstants, Rgba(2, -1, 0.5f, 3), kDst, f), 2, -1,
             0.5f, 3);
}

TEST_CASE("UNORM and SNORM attachments clamp blend inputs",
          "[pipeline][merge]") {
  const TexelFormat unorm = Fmt("R8G8B8A8_UNORM");
  const TexelFormat snorm = Fmt("R8G8B8A8_SNORM");
  const TexelFormat sfloat = Fmt("R32G32B32A32_SFLOAT");
  const BlendState sub =
      Blending(BlendFactor::kOne, BlendFactor::kOne, BlendOp::kSubtract);
  const Texel src = Rgba(2.0f, -1.0f, 0.75f, 1.5f);
  const Texel dst = Rgba(0.5f, 0.25f, 0.25f, 0.5f);
  // UNORM: src clamped to (1, 0, 0.75, 1) before subtracting; result in
  // [0, 1].
  CheckColor(pl::Blend(sub, kNoConstants, src, dst, unorm), 0.5f, 0.0f, 0.5f,
             0.5f);
  // SNORM: clamped to [-1, 1]: (1, -1, 0.75, 1) - dst.
  CheckColor(pl::Blend(sub, kNoConstants, src, dst, snorm), 0.5f, -1.0f, 0.5f,
             0.5f);
  // Float: no clamping.
  CheckColor(pl::Blend(sub, kNoConstants, src, dst, sfloat), 1.5f, -1.25f, 0.5f,
             1.0f);
  // Constants are clamped for UNORM too.
  const float big[4] = {2.0f, 2.0f, 2.0f, 2.0f};
  CheckColor(pl::Blend(Blending(BlendFactor::kConstantColor, BlendFactor::kZero,
                                BlendOp::kAdd),
                       big, Rgba(0.5f, 0.5f, 0.5f, 0.5f), dst, unorm),
             0.5f, 0.5f, 0.5f, 0.5f);
  CheckColor(pl::Blend(Blending(BlendFactor::kConstantColor, BlendFactor::kZero,
                                BlendOp::kAdd),
                       big, Rgba(0.5f, 0.5f, 0.5f, 0.5f), dst, sfloat),
             1.0f, 1.0f, 1.0f, 1.0f);
  // An add that overflows saturates.
  CheckColor(
      pl::Blend(Blending(BlendFactor::kOne, BlendFactor::kOne, BlendOp::kAdd),
                kNoConstants, Rgba(0.75f, 0.75f, 0.75f, 0.75f), dst, unorm),
      1.0f, 1.0f, 1.0f, 1.0f);
}

TEST_CASE("dual-source blending is detected", "[pipeline][merge]") {
  BlendState b = Blending(BlendFactor::kOne, BlendFactor::kZero, BlendOp::kAdd);
  CHECK_FALSE(pl::UsesDualSource(b));
  b.dst_alpha_factor = BlendFactor::kOneMinusSrc1Alpha;
  CHECK(pl::UsesDualSource(b));
  b.enable = false;
  CHECK_FALSE(pl::UsesDualSource(b));
}

// ---------------------------------------------------------------------------
// WriteColor: decode, blend, mask, encode

TEST_CASE("UNORM8 writes round to nearest", "[pipeline][merge]") {
  const TexelFormat f = Fmt("R8G8B8A8_UNORM");
  const BlendState off;
  uint8_t t[4] = {9, 9, 9, 9};
  // 0.5*255 = 127.5 -> 128; 0.2*255 = 51; 0.001*255 = 0.255 -> 0;
  // 0.003*255 = 0.765 -> 1.
  pl::WriteColor(f, off, kNoConstants, Rgba(0.5f, 0.2f, 0.001f, 0.003f), t);
  CHECK(t[0] == 128);
  CHECK(t[1] == 51);
  CHECK(t[2] == 0);
  CHECK(t[3] == 1);
  // Out of range and NaN.
  pl::WriteColor(
      f, off, kNoConstants,
      Rgba(-0.5f, 1.5f, std::numeric_limits<float>::quiet_NaN(), 1.0f), t);
  CHECK(t[0] == 0);
  CHECK(t[1] == 255);
  CHECK(t[2] == 0);
  CHECK(t[3] == 255);
  // Every byte survives decode -> blend(one, zero) -> encode.
  const BlendState copy =
      Blending(BlendFactor::kZero, BlendFactor::kOne, BlendOp::kAdd);
  for (int v = 0; v < 256; ++v) {
    uint8_t px[4] = {static_cast<uint8_t>(v), static_cast<uint8_t>(255 - v),
                     static_cast<uint8_t>(v), static_cast<uint8_t>(v)};
    pl::WriteColor(f, copy, kNoConstants, Rgba(0.5f, 0.5f, 0.5f, 0.5f), px);
    INFO("byte " << v);
    CHECK(int{px[0]} == v);
    CHECK(int{px[1]} == 255 - v);
  }
}

TEST_CASE("alpha blending into UNORM8 by hand", "[pipeline][merge]") {
  const TexelFormat f = Fmt("R8G8B8A8_UNORM");
  BlendState b = Blending(BlendFactor::kSrcAlpha,
                          BlendFactor::kOneMinusSrcAlpha, BlendOp::kAdd);
  b.src_alpha_factor = BlendFactor::kOne;
  uint8_t t[4] = {0, 0, 255, 255};  // opaque blue
  pl::WriteColor(f, b, kNoConstants, Rgba(1, 0, 0, 0.5f), t);
  // rgb = (1, 0, 0) * 0.5 + (0, 0, 1) * 0.5 -> 127.5 -> 128;
  // a = 0.5 + 1 * 0.5 = 1.
  CHECK(t[0] == 128);
  CHECK(t[1] == 0);
  CHECK(t[2] == 128);
  CHECK(t[3] == 255);
  // Additive blending of 0.25, four times from 0: each step reads back the
  // rounded destination (63.75 -> 64, 64/255 + 0.25 -> 127.75 -> 128,
  // 128/255 + 0.25 -> 191.75 -> 192, then saturation).
  const BlendState add =
      Blending(BlendFactor::kOne, BlendFactor::kOne, BlendOp::kAdd);
  uint8_t px[4] = {0, 0, 0, 0};
  const int expected[4] = {64, 128, 192, 255};
  for (int i = 0; i < 4; ++i) {
    pl::WriteColor(f, add, kNoConstants, Rgba(0.25f, 0, 0, 0), px);
    CHECK(int{px[0]} == expected[i]);
  }
}

TEST_CASE("sRGB attachments blend in linear space and round-trip exactly",
          "[pipeline][merge]") {
  const TexelFormat f = Fmt("R8G8B8A8_SRGB");
  const BlendState off;
  uint8_t t[4] = {};
  // Linear 0.5 -> sRGB 0.7354 -> 187.5... -> 188; alpha stays linear -> 128.
  pl::WriteColor(f, off, kNoConstants, Rgba(0.5f, 0.0f, 1.0f, 0.5f), t);
  CHECK(t[0] == 188);
  CHECK(t[1] == 0);
  CHECK(t[2] == 255);
  CHECK(t[3] == 128);
  // Every stored byte survives decode -> blend(zero, one) -> encode.
  const BlendState copy =
      Blending(BlendFactor::kZero, BlendFactor::kOne, BlendOp::kAdd);
  for (int v = 0; v < 256; ++v) {
    uint8_t px[4] = {static_cast<uint8_t>(v), static_cast<uint8_t>(v),
                     static_cast<uint8_t>(v), static_cast<uint8_t>(v)};
    pl::WriteColor(f, copy, kNoConstants, Rgba(0, 0, 0, 0), px);
    INFO("byte " << v);
    CHECK(int{px[0]} == v);
    CHECK(int{px[3]} == v);
  }
  // Half white over black in linear space is linear 0.5 = sRGB 188, not
  // the 128 that blending the encoded values would give.
  BlendState b = Blending(BlendFactor::kSrcAlpha,
                          BlendFactor::kOneMinusSrcAlpha, BlendOp::kAdd);
  uint8_t px[4] = {0, 0, 0, 255};
  pl::WriteColor(f, b, kNoConstants, Rgba(1, 1, 1, 0.5f), px);
  CHECK(px[0] == 188);
  CHECK(px[1] == 188);
  CHECK(px[2] == 188);
}

TEST_CASE("integer attachments ignore blending", "[pipeline][merge]") {
  const BlendState add =
      Blending(BlendFactor::kOne, BlendFactor::kOne, BlendOp::kAdd);
  SECTION("R8G8B8A8_UINT") {
    const TexelFormat f = Fmt("R8G8B8A8_UINT");
    uint8_t t[4] = {10, 20, 30, 40};
    pl::WriteColor(f, add, kNoConstants, Ints(1, 2, 3, 4), t);
    CHECK(t[0] == 1);
    CHECK(t[1] == 2);
    CHECK(t[2] == 3);
    CHECK(t[3] == 4);
    const Texel r =
        pl::Blend(add, kNoConstants, Ints(1, 2, 3, 4), Ints(10, 20, 30, 40), f);
    CHECK(r.i[0] == 1);
    CHECK(r.i[3] == 4);
  }
  SECTION("R32_SINT keeps negative values") {
    const TexelFormat f = Fmt("R32_SINT");
    int32_t stored = 1000;
    pl::WriteColor(f, add, kNoConstants,
                   Ints(static_cast<uint64_t>(int64_t{-7}), 0, 0, 0),
                   reinterpret_cast<uint8_t*>(&stored));
    CHECK(stored == -7);
  }
}

TEST_CASE("colour write masks keep the other channels' bits",
          "[pipeline][merge]") {
  BlendState b;
  SECTION("R8G8B8A8_UNORM, R and B") {
    const TexelFormat f = Fmt("R8G8B8A8_UNORM");
    b.color_write_mask = pl::kColorMaskR | pl::kColorMaskB;
    uint8_t t[4] = {10, 20, 30, 40};
    pl::WriteColor(f, b, kNoConstants, Rgba(1, 1, 1, 1), t);
    CHECK(t[0] == 255);
    CHECK(t[1] == 20);
    CHECK(t[2] == 255);
    CHECK(t[3] == 40);
  }
  SECTION("mask 0 writes nothing") {
    const TexelFormat f = Fmt("R8G8B8A8_UNORM");
    b.color_write_mask = 0;
    uint8_t t[4] = {10, 20, 30, 40};
    pl::WriteColor(f, b, kNoConstants, Rgba(1, 1, 1, 1), t);
    CHECK(t[0] == 10);
    CHECK(t[3] == 40);
  }
  SECTION("B8G8R8A8_UNORM: the mask is by channel, not byte position") {
    const TexelFormat f = Fmt("B8G8R8A8_UNORM");
    b.color_write_mask = pl::kColorMaskR;
    uint8_t t[4] = {10, 20, 30, 40};  // B, G, R, A
    pl::WriteColor(f, b, kNoConstants, Rgba(1, 1, 1, 1), t);
    CHECK(t[0] == 10);
    CHECK(t[1] == 20);
    CHECK(t[2] == 255);
    CHECK(t[3] == 40);
  }
  SECTION("R5G6B5_UNORM_PACK16: only the G bit field changes") {
    const TexelFormat f = Fmt("R5G6B5_UNORM_PACK16");
    b.color_write_mask = pl::kColorMaskG;
    // R = 0x15 (bits 11..15), G = 0, B = 0x0a (bits 0..4).
    uint16_t word = static_cast<uint16_t>(0x15 << 11 | 0x0a);
    pl::WriteColor(f, b, kNoConstants, Rgba(0, 1, 1, 1),
                   reinterpret_cast<uint8_t*>(&word));
    CHECK(word == (0x15 << 11 | 0x3f << 5 | 0x0a));
  }
  SECTION("with blending, masked channels keep their stored value") {
    const TexelFormat f = Fmt("R8G8B8A8_UNORM");
    b = Blending(BlendFactor::kOne, BlendFactor::kOne, BlendOp::kAdd);
    b.color_write_mask = pl::kColorMaskA;
    uint8_t t[4] = {10, 20, 30, 40};
    pl::WriteColor(f, b, kNoConstants, Rgba(1, 1, 1, 0.25f), t);
    CHECK(t[0] == 10);
    CHECK(t[1] == 20);
    CHECK(t[2] == 30);
    CHECK(t[3] == 104);  // 40/255 + 0.25 -> 103.75 -> 104
  }
  SECTION("integer formats honour the mask") {
    const TexelFormat f = Fmt("R16G16_UINT");
    b.color_write_mask = pl::kColorMaskG;
    uint16_t t[2] = {111, 222};
    pl::WriteColor(f, b, kNoConstants, Ints(5, 6, 0, 0),
                   reinterpret_cast<uint8_t*>(t));
    CHECK(t[0] == 111);
    CHECK(t[1] == 6);
  }
}

TEST_CASE("formats without alpha blend with destination alpha 1",
          "[pipeline][merge]") {
  const TexelFormat f = Fmt("R8G8B8_UNORM");
  const BlendState b = Blending(BlendFactor::kOneMinusDstAlpha,
                                BlendFactor::kDstAlpha, BlendOp::kAdd);
  uint8_t t[3] = {51, 102, 153};
  // src * (1 - 1) + dst * 1 = dst.
  pl::WriteColor(f, b, kNoConstants, Rgba(1, 1, 1, 1), t);
  CHECK(t[0] == 51);
  CHECK(t[1] == 102);
  CHECK(t[2] == 153);
}
