#include "spirv/binary.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace warpsim::spirv {
namespace {

constexpr uint32_t kVersion16 = 0x00010600;

// Header for a module with the given bound, then `body`.
std::vector<uint32_t> Module(std::vector<uint32_t> body, uint32_t bound = 10) {
  std::vector<uint32_t> words = {kSpirvMagic, kVersion16, 0, bound, 0};
  words.insert(words.end(), body.begin(), body.end());
  return words;
}

constexpr uint32_t Word0(uint32_t count, Op op) {
  return count << 16 | static_cast<uint32_t>(op);
}

// "Shader\0" style literal packing for tests.
std::vector<uint32_t> Str(const std::string& s) {
  std::vector<uint32_t> out((s.size() + 4) / 4, 0);
  for (size_t i = 0; i < s.size(); ++i) {
    out[i / 4] |= uint32_t{static_cast<uint8_t>(s[i])} << (8 * (i % 4));
  }
  return out;
}

TEST_CASE("malformed binaries are rejected with position", "[spirv][binary]") {
  struct Case {
    const char* name;
    std::vector<uint32_t> words;
    const char* message;
    int64_t word;
    const char* opcode;
  };
  const std::vector<Case> cases = {
      {"empty", {}, "fewer than the 5-word header", 0, ""},
      {"short header",
       {kSpirvMagic, kVersion16},
       "fewer than the 5-word",
       0,
       ""},
      {"bad magic",
       {0xdeadbeef, kVersion16, 0, 1, 0},
       "bad magic number 0xdeadbeef, expected 0x07230203",
       0,
       ""},
      {"byte-swapped",
       {0x03022307, 0x00060100, 0, 0x01000000, 0},
       "byte-swapped",
       0,
       ""},
      {"version 2.0",
       {kSpirvMagic, 0x00020000, 0, 1, 0},
       "unsupported SPIR-V version word 0x00020000",
       1,
       ""},
      {"version 1.7",
       {kSpirvMagic, 0x00010700, 0, 1, 0},
       "unsupported SPIR-V version",
       1,
       ""},
      {"zero bound",
       {kSpirvMagic, kVersion16, 0, 0, 0},
       "id bound is 0",
       3,
       ""},
      {"zero word count", Module({Word0(0, Op::kCapability)}),
       "instruction word count is 0", 5, "OpCapability"},
      {"truncated",
       Module({Word0(2, Op::kCapability), 1, Word0(4, Op::kName), 1}),
       "truncated instruction: word count 4 but only 2 words remain", 7,
       "OpName"},
      {"unknown opcode", Module({Word0(1, static_cast<Op>(0xfff0))}),
       "unknown opcode 65520", 5, "opcode 65520"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    Result<SplitModule> r = SplitInstructions(c.words, "t.spv");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind == ErrorKind::kInvalidInput);
    CHECK_THAT(r.error().message, Catch::Contains(c.message));
    CHECK(r.error().pos.file == "t.spv");
    CHECK(r.error().pos.word == c.word);
    CHECK(r.error().pos.opcode == c.opcode);
  }
}

TEST_CASE("instructions are split with offsets", "[spirv][binary]") {
  std::vector<uint32_t> cap = {Word0(2, Op::kCapability), 1};
  std::vector<uint32_t> words = Module(cap);
  std::vector<uint32_t> name = {Word0(4, Op::kName), 3};
  for (uint32_t w : Str("main")) name.push_back(w);
  REQUIRE(name.size() == 4);
  words.insert(words.end(), name.begin(), name.end());
  Result<SplitModule> r = SplitInstructions(words, "t.spv");
  REQUIRE(r.ok());
  CHECK(r->header.bound == 10);
  CHECK(r->header.major() == 1);
  CHECK(r->header.minor() == 6);
  REQUIRE(r->instructions.size() == 2);
  CHECK(r->instructions[0].opcode == static_cast<uint32_t>(Op::kCapability));
  CHECK(r->instructions[0].word_offset == 5);
  CHECK(r->instructions[1].word_offset == 7);
  CHECK(r->instructions[1].word_count() == 4);
  CHECK(LiteralStringAt(r->instructions[1], 2) == "main");
}

TEST_CASE("byte order is normalized", "[spirv][binary]") {
  std::vector<uint32_t> swapped = {0x03022307, 0x00060100, 0, 0x01000000, 0};
  CHECK(NormalizeByteOrder(&swapped));
  CHECK(swapped[0] == kSpirvMagic);
  CHECK(swapped[1] == kVersion16);
  CHECK(swapped[3] == 1);
  CHECK_FALSE(NormalizeByteOrder(&swapped));
  CHECK(SplitInstructions(swapped, "").ok());

  // Big-endian bytes load as the same words.
  const std::vector<uint8_t> be = {0x07, 0x23, 0x02, 0x03, 0, 1, 6, 0, 0, 0,
                                   0,    0,    0,    0,    0, 1, 0, 0, 0, 0};
  Result<std::vector<uint32_t>> w = WordsFromBytes(be, "be.spv");
  REQUIRE(w.ok());
  CHECK((*w)[0] == kSpirvMagic);
  CHECK((*w)[3] == 1);
  Result<std::vector<uint32_t>> odd =
      WordsFromBytes(std::vector<uint8_t>{1, 2, 3}, "odd.spv");
  REQUIRE_FALSE(odd.ok());
  CHECK_THAT(odd.error().message, Catch::Contains("not a multiple of 4"));
}

TEST_CASE("operands follow the grammar", "[spirv][binary]") {
  struct Case {
    const char* name;
    std::vector<uint32_t> inst;
    std::vector<OperandKind> kinds;
  };
  const std::vector<Case> cases = {
      {"Decorate Offset 16",
       {Word0(4, Op::kDecorate), 5, 35, 16},
       {OperandKind::kIdRef, OperandKind::kDecoration,
        OperandKind::kLiteralInteger}},
      {"Decorate Block",
       {Word0(3, Op::kDecorate), 5, 2},
       {OperandKind::kIdRef, OperandKind::kDecoration}},
      {"Store Aligned 4",
       {Word0(5, Op::kStore), 1, 2, 2, 4},
       {OperandKind::kIdRef, OperandKind::kIdRef, OperandKind::kMemoryAccess,
        OperandKind::kLiteralInteger}},
      {"ExecutionMode LocalSize 8 8 1",
       {Word0(6, Op::kExecutionMode), 4, 17, 8, 8, 1},
       {OperandKind::kIdRef, OperandKind::kExecutionMode,
        OperandKind::kLiteralInteger, OperandKind::kLiteralInteger,
        OperandKind::kLiteralInteger}},
      {"Switch with two cases",
       {Word0(7, Op::kSwitch), 1, 2, 10, 3, 20, 4},
       {OperandKind::kIdRef, OperandKind::kIdRef, OperandKind::kLiteralInteger,
        OperandKind::kIdRef, OperandKind::kLiteralInteger,
        OperandKind::kIdRef}},
      {"Constant double",
       {Word0(5, Op::kConstant), 1, 2, 0, 0x3ff00000},
       {OperandKind::kIdResultType, OperandKind::kIdResult,
        OperandKind::kLiteralContextDependentNumber}},
      {"ImageSampleExplicitLod Lod|ConstOffset",
       {Word0(8, Op::kImageSampleExplicitLod), 1, 2, 3, 4, 2 | 8, 5, 6},
       {OperandKind::kIdResultType, OperandKind::kIdResult, OperandKind::kIdRef,
        OperandKind::kIdRef, OperandKind::kImageOperands, OperandKind::kIdRef,
        OperandKind::kIdRef}},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    Instruction inst{c.inst[0] & 0xffff, 5, c.inst};
    Result<std::vector<Operand>> ops = DecodeOperands(inst, "t.spv");
    REQUIRE(ops.ok());
    REQUIRE(ops->size() == c.kinds.size());
    for (size_t i = 0; i < c.kinds.size(); ++i) {
      CHECK(OperandKindName((*ops)[i].kind) == OperandKindName(c.kinds[i]));
    }
  }
  // The double constant takes both remaining words.
  std::vector<uint32_t> dbl = {Word0(5, Op::kConstant), 1, 2, 0, 0x3ff00000};
  Result<std::vector<Operand>> ops =
      DecodeOperands(Instruction{43, 0, dbl}, "t.spv");
  REQUIRE(ops.ok());
  CHECK(ops->back().word_count == 2);
}

TEST_CASE("malformed operands are rejected", "[spirv][binary]") {
  struct Case {
    const char* name;
    std::vector<uint32_t> inst;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"Decorate Offset without literal",
       {Word0(3, Op::kDecorate), 5, 35},
       "missing operand LiteralInteger"},
      {"FAdd missing operand",
       {Word0(4, Op::kFAdd), 1, 2, 3},
       "missing operand IdRef"},
      {"Capability with extra word",
       {Word0(3, Op::kCapability), 1, 7},
       "words left over"},
      {"unterminated OpName",
       {Word0(3, Op::kName), 1, 0x41414141},
       "not nul-terminated"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    Instruction inst{c.inst[0] & 0xffff, 9, c.inst};
    Result<std::vector<Operand>> ops = DecodeOperands(inst, "t.spv");
    REQUIRE_FALSE(ops.ok());
    CHECK_THAT(ops.error().message, Catch::Contains(c.message));
    CHECK(ops.error().pos.word == 9);
    CHECK(ops.error().pos.opcode == std::string(OpcodeName(inst.opcode)));
  }
}

TEST_CASE("literal strings", "[spirv][binary]") {
  uint32_t count = 0;
  std::vector<uint32_t> words = Str("abcd");  // needs a second word for nul
  REQUIRE(words.size() == 2);
  Result<std::string> s = DecodeLiteralString(words, &count);
  REQUIRE(s.ok());
  CHECK(*s == "abcd");
  CHECK(count == 2);
  words = Str("");
  s = DecodeLiteralString(words, &count);
  REQUIRE(s.ok());
  CHECK(s->empty());
  CHECK(count == 1);
}

TEST_CASE("SPIRV-HEX text", "[spirv][binary]") {
  Result<std::vector<uint32_t>> w = ParseSpirvHex(
      "03 02 23 07 00 06 01 00  # magic, version\n"
      "0x00 0x00 0x00 0x00\n"
      "0a 00 00 00 00 00 00 00\n",
      "scene.amber", 20);
  REQUIRE(w.ok());
  REQUIRE(w->size() == 5);
  CHECK((*w)[0] == kSpirvMagic);
  CHECK((*w)[1] == kVersion16);
  CHECK((*w)[3] == 10);

  struct Case {
    const char* text;
    const char* message;
    int line;
  };
  const std::vector<Case> cases = {
      {"03 02 23\n07 zz", "'zz' is not a hex byte", 21},
      {"03 02 23 07 123", "'123' is not a hex byte", 20},
      {"03 02 23 07 00\n", "5 bytes is not a whole number of 32-bit words", 21},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    Result<std::vector<uint32_t>> r = ParseSpirvHex(c.text, "scene.amber", 20);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::Contains(c.message));
    CHECK(r.error().pos.file == "scene.amber");
    CHECK(r.error().pos.line == c.line);
  }
}

TEST_CASE("reading .spv files", "[spirv][binary]") {
  const std::string path = "warpsim_binary_test.spv";
  {
    std::ofstream out(path, std::ios::binary);
    const uint8_t bytes[] = {0x03, 0x02, 0x23, 0x07, 0, 6, 1, 0, 0, 0,
                             0,    0,    1,    0,    0, 0, 0, 0, 0, 0};
    out.write(reinterpret_cast<const char*>(bytes), sizeof(bytes));
  }
  Result<std::vector<uint32_t>> w = ReadSpvFile(path);
  std::remove(path.c_str());
  REQUIRE(w.ok());
  CHECK(w->size() == 5);
  CHECK(SplitInstructions(*w, path).ok());

  Result<std::vector<uint32_t>> missing = ReadSpvFile("/nonexistent/x.spv");
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(missing.error().ToString(),
             Catch::Contains("/nonexistent/x.spv: error: cannot open"));
}

}  // namespace
}  // namespace warpsim::spirv
