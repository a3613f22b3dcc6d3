// GLSL.std.450 extended instructions (exec_glsl_std450.cpp), run through the
// whole stack: each test is a compute shader that reads its inputs from a
// buffer (so the compiler cannot fold the calls) and writes the results.
#include <catch2/catch.hpp>
#include <string>

#include "common/test_util.h"

using warpsim::runner::RunStatus;
using warpsim::testing::Describe;
using warpsim::testing::RunAmberText;

namespace {

// A one-invocation-per-input compute script: `in` (binding 0) holds
// `in_data` of `in_type`; `out` (binding 1) has `out_count` elements of
// `out_type`, zero-filled. `expects` are EXPECT lines on `out`.
std::string Script(const std::string& glsl, const std::string& in_type,
                   const std::string& in_data, const std::string& out_type,
                   int out_count, const std::string& expects, int groups = 1) {
  return "#!amber\nSHADER compute cs GLSL\n" + glsl +
         "\nEND\nBUFFER in DATA_TYPE " + in_type + " DATA\n" + in_data +
         "\nEND\nBUFFER out DATA_TYPE " + out_type + " SIZE " +
         std::to_string(out_count) +
         " FILL 0\n"
         "PIPELINE compute p\n  ATTACH cs\n"
         "  BIND BUFFER in AS storage DESCRIPTOR_SET 0 BINDING 0\n"
         "  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 1\nEND\n"
         "RUN p " +
         std::to_string(groups) + " 1 1\n" + expects + "\n";
}

void ExpectPass(const std::string& amber) {
  const auto report = RunAmberText(amber);
  INFO(Describe(report));
  CHECK(report.status == RunStatus::kPass);
}

}  // namespace

TEST_CASE("GLSL.std.450 rounding: Round RoundEven Trunc Floor Ceil Fract",
          "[simt][glsl450]") {
  ExpectPass(Script(R"(#version 450
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) buffer I { float i[]; };
layout(set = 0, binding = 1) buffer O { float o[]; };
void main() {
  uint k = gl_LocalInvocationID.x;
  float x = i[k];
  o[k] = round(x);
  o[8 + k] = roundEven(x);
  o[16 + k] = trunc(x);
  o[24 + k] = floor(x);
  o[32 + k] = ceil(x);
  o[40 + k] = fract(x);
})",
                    "float", "-2.5 -1.5 -0.5 0.5 1.5 2.5 -1.25 3.75", "float",
                    48,
                    R"(EXPECT out IDX 0 EQ -3 -2 -1 1 2 3 -1 4
EXPECT out IDX 32 EQ -2 -2 0 0 2 2 -1 4
EXPECT out IDX 64 EQ -2 -1 0 0 1 2 -1 3
EXPECT out IDX 96 EQ -3 -2 -1 0 1 2 -2 3
EXPECT out IDX 128 EQ -2 -1 0 1 2 3 -1 4
EXPECT out IDX 160 EQ 0.5 0.5 0.5 0.5 0.5 0.5 0.75 0.75)"));
}

TEST_CASE("GLSL.std.450 FAbs and FSign on zero, infinity and NaN",
          "[simt][glsl450]") {
  // Inputs as bits: -3.5, -0.0, +inf, -inf, NaN, 2.0.
  ExpectPass(Script(
      R"(#version 450
layout(local_size_x = 6) in;
layout(set = 0, binding = 0) buffer I { uint i[]; };
layout(set = 0, binding = 1) buffer O { uint o[]; };
void main() {
  uint k = gl_LocalInvocationID.x;
  float x = uintBitsToFloat(i[k]);
  o[k] = floatBitsToUint(abs(x));
  float s = sign(x);
  o[6 + k] = isnan(s) ? 1u : floatBitsToUint(s);
})",
      "uint32",
      "3227516928 2147483648 2139095040 4286578688 2143289344 "
      "1073741824",
      "uint32", 12,
      R"(EXPECT out IDX 0 EQ 1080033280 0 2139095040 2139095040 2143289344 1073741824
EXPECT out IDX 24 EQ 3212836864 2147483648 1065353216 3212836864 1 1065353216)"));
}

TEST_CASE("GLSL.std.450 integer abs/sign/min/max/clamp and bit scans",
          "[simt][glsl450]") {
  ExpectPass(Script(R"(#version 450
layout(local_size_x = 6) in;
layout(set = 0, binding = 0) buffer I { int i[]; };
layout(set = 0, binding = 1) buffer O { int o[]; };
void main() {
  uint k = gl_LocalInvocationID.x;
  int x = i[k];
  uint u = uint(x);
  o[k] = abs(x);
  o[6 + k] = sign(x);
  o[12 + k] = min(x, 3);
  o[18 + k] = max(x, -3);
  o[24 + k] = clamp(x, -5, 4);
  o[30 + k] = int(min(u, 10u));
  o[36 + k] = int(max(u, 10u));
  o[42 + k] = int(clamp(u, 3u, 100u));
  o[48 + k] = findLSB(x);
  o[54 + k] = findMSB(x);
  o[60 + k] = findMSB(u);
})",
                    "int32", "-2147483648 -7 0 5 2147483647 -1", "int32", 66,
                    R"(EXPECT out IDX 0 EQ -2147483648 7 0 5 2147483647 1
EXPECT out IDX 24 EQ -1 -1 0 1 1 -1
EXPECT out IDX 48 EQ -2147483648 -7 0 3 3 -1
EXPECT out IDX 72 EQ -3 -3 0 5 2147483647 -1
EXPECT out IDX 96 EQ -5 -5 0 4 4 -1
EXPECT out IDX 120 EQ 10 10 0 5 10 10
EXPECT out IDX 144 EQ -2147483648 -7 10 10 2147483647 -1
EXPECT out IDX 168 EQ 100 100 3 5 100 100
EXPECT out IDX 192 EQ 31 0 -1 0 0 0
EXPECT out IDX 216 EQ 30 2 -1 2 30 -1
EXPECT out IDX 240 EQ 31 31 -1 2 30 31)"));
}

TEST_CASE("GLSL.std.450 integer ops on 16- and 64-bit integers",
          "[simt][glsl450]") {
  ExpectPass(Script(R"(#version 450
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer I { int64_t i[]; };
layout(set = 0, binding = 1) buffer O { int64_t o[]; };
void main() {
  int64_t a = i[0], b = i[1];
  o[0] = abs(a);
  o[1] = sign(a);
  o[2] = min(a, b);
  o[3] = max(a, b);
  o[4] = clamp(a, -1l, 1l);
  o[5] = int64_t(min(uint64_t(a), uint64_t(b)));
  int16_t s = int16_t(i[2]);
  uint16_t us = uint16_t(s);
  o[6] = int64_t(abs(s));
  o[7] = int64_t(max(s, int16_t(-5)));
  o[8] = int64_t(max(us, uint16_t(5)));
  o[9] = int64_t(clamp(s, int16_t(-100), int16_t(100)));
  o[10] = int64_t(sign(s));
})",
                    "int64", "-5000000000 7000000000 -300", "int64", 11,
                    "EXPECT out IDX 0 EQ 5000000000 -1 -5000000000 7000000000 "
                    "-1 7000000000 300 -5 65236 -100 -1"));
}

TEST_CASE("GLSL.std.450 trigonometry and angle conversion", "[simt][glsl450]") {
  ExpectPass(Script(R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer I { float i[]; };
layout(set = 0, binding = 1) buffer O { float o[]; };
void main() {
  float h = i[0], two = i[1], m1 = i[2];
  o[0] = sin(h); o[1] = cos(h); o[2] = tan(h);
  o[3] = asin(h); o[4] = acos(h); o[5] = atan(h);
  o[6] = sinh(h); o[7] = cosh(h); o[8] = tanh(h);
  o[9] = asinh(h); o[10] = acosh(two); o[11] = atanh(h);
  o[12] = atan(1.0 + h - h, m1);
  o[13] = radians(two * 90.0);
  o[14] = degrees(two - 1.0);
  vec2 v = sin(vec2(h, -h));
  o[15] = v.x; o[16] = v.y;
})",
                    "float", "0.5 2.0 -1.0", "float", 17,
                    "EXPECT out IDX 0 TOLERANCE 0.00001 EQ 0.479425539 "
                    "0.877582562 0.546302490 0.523598776 1.047197551 "
                    "0.463647609 0.521095305 1.127625965 0.462117157 "
                    "0.481211825 1.316957897 0.549306144 2.356194490 "
                    "3.14159265 57.2957795 0.479425539 -0.479425539"));
}

TEST_CASE("GLSL.std.450 exponentials, logarithms and roots with edge cases",
          "[simt][glsl450]") {
  ExpectPass(Script(R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer I { float i[]; };
layout(set = 0, binding = 1) buffer O { uint o[]; };
void main() {
  float two = i[0], zero = i[1];
  o[0] = floatBitsToUint(pow(two, 10.0));
  o[1] = floatBitsToUint(exp2(-3.0 * two * 0.5));
  o[2] = floatBitsToUint(log2(1024.0 * two * 0.5));
  o[3] = floatBitsToUint(inversesqrt(two * 2.0));
  o[4] = floatBitsToUint(sqrt(two * 8.0));
  o[5] = isnan(sqrt(zero - 1.0)) ? 1u : 0u;
  o[6] = floatBitsToUint(inversesqrt(zero));
  o[7] = floatBitsToUint(log(zero));
  o[8] = floatBitsToUint(exp2(two * 100.0));
  o[9] = floatBitsToUint(sqrt(-zero));
  o[10] = floatBitsToUint(exp(zero));
  o[11] = floatBitsToUint(exp(-two * 100.0));
})",
                    "float", "2.0 0.0", "uint32", 12,
                    // 1024, 0.125, 10, 0.5, 4, NaN, +inf, -inf, +inf, -0,
                    // 1, 0
                    "EXPECT out IDX 0 EQ 1149239296 1040187392 1092616192 "
                    "1056964608 1082130432 1 2139095040 4286578688 "
                    "2139095040 2147483648 1065353216 0"));
  ExpectPass(Script(R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer I { float i[]; };
layout(set = 0, binding = 1) buffer O { float o[]; };
void main() {
  vec3 v = vec3(i[0], i[1], i[2]);
  vec3 e = exp(v);
  vec3 l = log(v);
  o[0] = e.x; o[1] = e.y; o[2] = e.z;
  o[3] = l.x; o[4] = l.y; o[5] = l.z;
  o[6] = pow(v.z, 0.5);
})",
                    "float", "1.0 0.5 2.0", "float", 7,
                    "EXPECT out IDX 0 TOLERANCE 0.00001 EQ 2.718281828 "
                    "1.648721271 7.389056099 0 -0.693147181 0.693147181 "
                    "1.414213562"));
}

TEST_CASE("GLSL.std.450 min/max/clamp/mix/step/smoothstep/fma on floats",
          "[simt][glsl450]") {
  ExpectPass(Script(R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer I { float i[]; };
layout(set = 0, binding = 1) buffer O { float o[]; };
void main() {
  float a = i[0], b = i[1], c = i[2], d = i[3];
  o[0] = min(a, b);
  o[1] = max(a, b);
  o[2] = clamp(c, 0.0, 1.0);
  o[3] = clamp(-c, 0.0, 1.0);
  o[4] = mix(2.0 * d, 6.0 * d, 0.25);
  o[5] = step(d, 0.5);
  o[6] = step(d, d);
  o[7] = smoothstep(0.0, 2.0 * d, 0.5);
  o[8] = smoothstep(0.0, 2.0 * d, c);
  o[9] = fma(a, 2.0, d);
  vec4 v = clamp(vec4(a, b, c, -c), vec4(-1.0), vec4(1.0));
  o[10] = v.x; o[11] = v.y; o[12] = v.z; o[13] = v.w;
  vec2 m = mix(vec2(a, b), vec2(c, d), vec2(0.5, 1.0));
  o[14] = m.x; o[15] = m.y;
})",
                    "float", "1.5 -2.0 5.0 1.0", "float", 16,
                    "EXPECT out IDX 0 TOLERANCE 0.000001 EQ -2 1.5 1 0 3 0 1 "
                    "0.15625 1 4 1 -1 1 -1 3.25 1"));
}

TEST_CASE("GLSL.std.450 Fma is fused", "[simt][glsl450]") {
  // a = 1 + 2^-12: a * a = 1 + 2^-11 + 2^-24, whose last term a separate
  // multiply rounds away.
  ExpectPass(Script(R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer I { float i[]; };
layout(set = 0, binding = 1) buffer O { uint o[]; };
void main() {
  o[0] = floatBitsToUint(fma(i[0], i[0], i[1]));
})",
                    "float", "1.000244140625 -1.00048828125", "uint32", 1,
                    "EXPECT out IDX 0 EQ 864026624"));
}

TEST_CASE("GLSL.std.450 NaN operands of FMin/FMax/FClamp give the other one",
          "[simt][glsl450]") {
  ExpectPass(Script(R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer I { uint i[]; };
layout(set = 0, binding = 1) buffer O { float o[]; };
void main() {
  float n = uintBitsToFloat(i[0]);
  o[0] = min(n, 1.0);
  o[1] = min(1.0, n);
  o[2] = max(n, -1.0);
  o[3] = max(-1.0, n);
})",
                    "uint32", "2143289344", "float", 4,
                    "EXPECT out IDX 0 EQ 1 1 -1 -1"));
}

TEST_CASE("GLSL.std.450 modf, frexp and ldexp", "[simt][glsl450]") {
  ExpectPass(Script(R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer I { float i[]; };
layout(set = 0, binding = 1) buffer O { uint o[]; };
void main() {
  float whole;
  o[0] = floatBitsToUint(modf(i[0], whole));
  o[1] = floatBitsToUint(whole);
  int e;
  o[2] = floatBitsToUint(frexp(i[1], e));
  o[3] = uint(e);
  o[4] = floatBitsToUint(frexp(i[2], e));
  o[5] = uint(e);
  o[6] = floatBitsToUint(frexp(i[3], e));
  o[7] = uint(e);
  float one = i[4];
  o[8] = floatBitsToUint(ldexp(0.75 * one, 4));
  o[9] = floatBitsToUint(ldexp(one, 200));
  o[10] = floatBitsToUint(ldexp(one, -149));
  o[11] = floatBitsToUint(ldexp(3.0 * one, -150));
  o[12] = floatBitsToUint(ldexp(-one, 2147483647));
  o[13] = floatBitsToUint(ldexp(one, -2147483647 - 1));
  vec2 wv;
  vec2 fv = modf(vec2(i[0], -i[0]), wv);
  o[14] = floatBitsToUint(fv.y);
  o[15] = floatBitsToUint(wv.y);
})",
                    "float", "-3.75 12.0 -0.1 0.0 1.0", "uint32", 16,
                    // -0.75, -3, 0.75, 4, -0.8, -3, 0, 0, 12, inf,
                    // 2^-149, 2^-148 (tie to even), -inf, 0, 0.75, 3
                    "EXPECT out IDX 0 EQ 3208642560 3225419776 1061158912 4 "
                    "3209481421 4294967293 0 0 1094713344 2139095040 1 2 "
                    "4286578688 0 1061158912 1077936128"));
}

TEST_CASE("GLSL.std.450 packing and unpacking", "[simt][glsl450]") {
  ExpectPass(Script(R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer I { float i[]; };
layout(set = 0, binding = 1) buffer O { uint o[]; };
void main() {
  float one = i[0];
  o[0] = packSnorm4x8(vec4(one, -one, 0.25 * one, -2.0 * one));
  o[1] = packUnorm4x8(vec4(0.0, one, 0.2 * one, 2.0 * one));
  o[2] = packSnorm2x16(vec2(-0.25 * one, one));
  o[3] = packUnorm2x16(vec2(0.25 * one, one));
  o[4] = packHalf2x16(vec2(one, -2.0 * one));
  // Ties round to even: 1 + 2^-11 -> 1.0, 1 + 3 * 2^-11 -> 1 + 2^-9.
  o[5] = packHalf2x16(vec2(1.00048828125 * one, 1.00146484375 * one));
  uint bits = floatBitsToUint(i[1]);
  uvec2 w = unpackDouble2x32(packDouble2x32(uvec2(bits, 7u)) * 1.0lf);
  o[16] = w.x; o[17] = w.y;
  o[18] = unpackDouble2x32(double(one) * 2.0lf).y;
})",
                    // bits of i[1]: 0xc0003c00 = halves (1.0, -2.0).
                    "float", "1.0 -2.003662109375", "uint32", 19,
                    // 0x8120817f 0xff33ff00 0x7fffe000 0xffff4000 0xc0003c00
                    // 0x3c023c00; the double round trip.
                    "EXPECT out IDX 0 EQ 2166391167 4281597696 2147475456 "
                    "4294918144 3221240832 1006779392\n"
                    "EXPECT out IDX 64 EQ 3221240832 7 1073741824"));
  ExpectPass(Script(R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer I { uint i[]; };
layout(set = 0, binding = 1) buffer O { float o[]; };
void main() {
  vec4 s4 = unpackSnorm4x8(i[0]);
  vec4 u4 = unpackUnorm4x8(i[1]);
  vec2 s2 = unpackSnorm2x16(i[2]);
  vec2 u2 = unpackUnorm2x16(i[3]);
  vec2 h2 = unpackHalf2x16(i[4]);
  o[0] = s4.x; o[1] = s4.y; o[2] = s4.z; o[3] = s4.w;
  o[4] = u4.x; o[5] = u4.y; o[6] = u4.z; o[7] = u4.w;
  o[8] = s2.x; o[9] = s2.y; o[10] = u2.x; o[11] = u2.y;
  o[12] = h2.x; o[13] = h2.y;
})",
                    // 0x8020817f 0xff33ff00 0x7fffe000 0xffff4000 0xc0003c00
                    "uint32",
                    "2149613951 4281597696 2147475456 4294918144 3221240832",
                    "float", 14,
                    "EXPECT out IDX 0 TOLERANCE 0.000001 EQ 1 -1 0.251968504 "
                    "-1 0 1 0.2 1 -0.250007629 1 0.250003815 1 1 -2"));
}

TEST_CASE("GLSL.std.450 geometric functions", "[simt][glsl450]") {
  ExpectPass(Script(R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer I { float i[]; };
layout(set = 0, binding = 1) buffer O { float o[]; };
void main() {
  float one = i[0];
  o[0] = length(vec3(3.0, 4.0, 12.0) * one);
  o[1] = length(-2.0 * one);
  o[2] = distance(vec2(1.0, 1.0) * one, vec2(4.0, 5.0) * one);
  vec3 c = cross(vec3(1.0, 2.0, 3.0) * one, vec3(4.0, 5.0, 6.0) * one);
  o[3] = c.x; o[4] = c.y; o[5] = c.z;
  vec3 n = normalize(vec3(3.0, 0.0, 4.0) * one);
  o[6] = n.x; o[7] = n.y; o[8] = n.z;
  o[9] = normalize(-5.0 * one);
  vec3 N = vec3(0.0, 0.0, one);
  o[10] = faceforward(N, -N, N).z;
  o[11] = faceforward(N, N, N).z;
  vec3 r = reflect(vec3(one, -one, 0.0), vec3(0.0, one, 0.0));
  o[12] = r.x; o[13] = r.y; o[14] = r.z;
  vec2 I = normalize(vec2(one, -one));
  vec2 t = refract(I, vec2(0.0, one), 0.5 * one);
  o[15] = t.x; o[16] = t.y;
  vec2 tir = refract(I, vec2(0.0, one), 2.0 * one);
  o[17] = tir.x; o[18] = tir.y;
  o[19] = distance(3.0 * one, -one);
})",
                    "float", "1.0", "float", 20,
                    "EXPECT out IDX 0 TOLERANCE 0.000001 EQ 13 2 5 -3 6 -3 "
                    "0.6 0 0.8 -1 1 -1 1 1 0 0.353553391 -0.935414347 0 0 "
                    "4"));
}

TEST_CASE("GLSL.std.450 Determinant and MatrixInverse", "[simt][glsl450]") {
  ExpectPass(Script(R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer I { float i[]; };
layout(set = 0, binding = 1) buffer O { float o[]; };
void main() {
  mat2 a = mat2(i[0], i[1], i[2], i[3]);
  mat3 b = mat3(i[4], i[5], i[6], i[7], i[8], i[9], i[10], i[11], i[12]);
  mat4 c = mat4(i[13], i[14], i[15], i[16], i[17], i[18], i[19], i[20],
                i[21], i[22], i[23], i[24], i[25], i[26], i[27], i[28]);
  o[0] = determinant(a);
  o[1] = determinant(b);
  o[2] = determinant(c);
  mat2 ai = inverse(a);
  mat3 bi = inverse(b);
  mat4 ci = inverse(c);
  for (int k = 0; k < 4; ++k) o[3 + k] = ai[k / 2][k % 2];
  for (int k = 0; k < 9; ++k) o[7 + k] = bi[k / 3][k % 3];
  for (int k = 0; k < 16; ++k) o[16 + k] = ci[k / 4][k % 4];
})",
                    "float",
                    "1 2 3 4  2 0 1 1 3 0 0 1 4  1 5 2 3 2 6 6 1 3 7 4 1 4 8 "
                    "8 2",
                    "float", 32,
                    "EXPECT out IDX 0 TOLERANCE 0.00001 EQ -2 25 72 -2 1 1.5 "
                    "-0.5 0.48 0.04 -0.12 -0.16 0.32 0.04 0.04 -0.08 0.24 "
                    "-0.166666667 -0.833333333 0.166666667 0.583333333 "
                    "0.0555555556 0.277777778 0.277777778 -0.361111111 "
                    "-0.0555555556 0.222222222 -0.277777778 0.111111111 "
                    "0.333333333 -0.333333333 -0.333333333 0.333333333"));
}

TEST_CASE("GLSL.std.450 on 16-bit floats", "[simt][glsl450]") {
  ExpectPass(Script(R"(#version 450
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer I { float i[]; };
layout(set = 0, binding = 1) buffer O { float o[]; };
void main() {
  float16_t two = float16_t(i[0]);
  float16_t x = float16_t(i[1]);
  o[0] = float(sqrt(two));
  o[1] = float(floor(x));
  o[2] = float(fract(x));
  o[3] = float(fma(x, two, two));
  o[4] = float(length(f16vec2(3.0hf, 4.0hf) * two));
  o[5] = float(determinant(f16mat2(two, x, 1.0hf, two)));
  int e;
  o[6] = float(frexp(x, e));
  o[7] = float(e);
  o[8] = float(ldexp(two, -25));
  o[9] = isinf(ldexp(two, 15)) ? 1.0 : 0.0;
  o[10] = float(min(x, two));
  o[11] = float(clamp(x, -two, two));
  o[12] = float(sin(two));
  o[13] = float(pow(two, float16_t(3.0)));
  f16vec3 n = normalize(f16vec3(x, 0.0hf, x));
  o[14] = float(n.x);
  o[15] = float(mix(two, x, float16_t(0.5)));
  o[16] = float(roundEven(x));
})",
                    "float", "2.0 -2.5", "float", 17,
                    "EXPECT out IDX 0 TOLERANCE 0.0005 EQ 1.4140625 -3 0.5 -3 "
                    "10 6.5 -0.625 2 5.9604645e-8 1 -2.5 -2 0.909297427 8 "
                    "-0.70703125 -0.25 -2"));
}

TEST_CASE("GLSL.std.450 on 64-bit floats", "[simt][glsl450]") {
  ExpectPass(Script(R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer I { double i[]; };
layout(set = 0, binding = 1) buffer O { double o[]; };
void main() {
  double two = i[0], x = i[1];
  o[0] = sqrt(two);
  o[1] = inversesqrt(two * 2.0lf);
  o[2] = floor(x);
  o[3] = fract(x);
  o[4] = fma(x, two, 1.0lf);
  o[5] = min(x, two);
  o[6] = clamp(x, -1.0lf, 1.0lf);
  o[7] = determinant(dmat3(two, 0, 1, 1, 3, 0, 0, 1, 4));
  dmat2 inv = inverse(dmat2(1.0lf, two, 3.0lf, 4.0lf));
  o[8] = inv[0][0]; o[9] = inv[1][0];
  double w;
  o[10] = modf(x, w);
  o[11] = w;
  int e;
  o[12] = frexp(x * 1.0e100lf, e);
  o[13] = double(e);
  o[14] = ldexp(x, 1000) * 1.0e-300lf;
  o[15] = length(dvec3(3.0lf, 4.0lf, 12.0lf) * two);
  o[16] = sign(x);
  o[17] = abs(x);
  o[18] = mix(two, x, 0.5lf);
  o[19] = round(x);
})",
                    "double", "2.0 -2.5", "double", 20,
                    "EXPECT out IDX 0 TOLERANCE 0.000000000001 EQ "
                    "1.4142135623730951 0.5 -3 0.5 -4 -2.5 -1 25 -2 1.5 -0.5 "
                    "-2 -0.7143671195514218 334 -26.787715179656683 26 -1 "
                    "2.5 -0.25 -3"));
}

TEST_CASE("GLSL.std.450 in divergent lanes of a full warp", "[simt][glsl450]") {
  // Lanes take different GLSL.std.450 paths; each must keep its own result.
  ExpectPass(Script(R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer I { float i[]; };
layout(set = 0, binding = 1) buffer O { float o[]; };
void main() {
  uint k = gl_LocalInvocationID.x;
  float x = float(k) * i[0];
  float r;
  if (k % 3u == 0u) {
    r = sqrt(x);
  } else if (k % 3u == 1u) {
    r = floor(x * 0.5);
  } else {
    r = max(x, 40.0);
  }
  o[k] = r;
})",
                    "float", "1.0", "float", 64,
                    "EXPECT out IDX 0 TOLERANCE 0.00001 EQ 0 0 40 1.7320508 2 "
                    "40 2.4494897 3 40 3 5 40 3.4641016 6 40 3.8729833 8 40 "
                    "4.2426407 9 40 4.5825757 11 40 4.8989795 12 40 "
                    "5.1961524 14 40 5.4772256 15 40\n"
                    "EXPECT out IDX 244 TOLERANCE 0.00001 EQ 30 62 "
                    "7.9372539"));
}

TEST_CASE("GLSL.std.450 NMin/NMax/NClamp, ModfStruct, Frexp through a pointer",
          "[simt][glsl450]") {
  // SPIR-V assembly: GLSL never emits the N* variants or ModfStruct, and
  // Frexp with a pointer needs a Function variable. Inputs (bits): NaN,
  // 1.0, -3.75, 12.0, 8.
  ExpectPass(R"(#!amber
SHADER compute cs SPIRV-ASM
               OpCapability Shader
       %glsl = OpExtInstImport "GLSL.std.450"
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
               OpDecorate %ra_uint ArrayStride 4
               OpDecorate %ra_float ArrayStride 4
               OpDecorate %in_t BufferBlock
               OpMemberDecorate %in_t 0 Offset 0
               OpDecorate %out_t BufferBlock
               OpMemberDecorate %out_t 0 Offset 0
               OpDecorate %in DescriptorSet 0
               OpDecorate %in Binding 0
               OpDecorate %out DescriptorSet 0
               OpDecorate %out Binding 1
       %void = OpTypeVoid
     %voidfn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
        %int = OpTypeInt 32 1
      %float = OpTypeFloat 32
      %uint2 = OpTypeVector %uint 2
       %int2 = OpTypeVector %int 2
    %ra_uint = OpTypeRuntimeArray %uint
   %ra_float = OpTypeRuntimeArray %float
       %in_t = OpTypeStruct %ra_uint
      %out_t = OpTypeStruct %ra_float
     %in_ptr = OpTypePointer Uniform %in_t
    %out_ptr = OpTypePointer Uniform %out_t
   %uint_ptr = OpTypePointer Uniform %uint
  %float_ptr = OpTypePointer Uniform %float
 %int_fn_ptr = OpTypePointer Function %int
 %modf_res_t = OpTypeStruct %float %float
         %in = OpVariable %in_ptr Uniform
        %out = OpVariable %out_ptr Uniform
         %c0 = OpConstant %int 0
         %c1 = OpConstant %int 1
         %c2 = OpConstant %int 2
         %c3 = OpConstant %int 3
         %c4 = OpConstant %int 4
         %c5 = OpConstant %int 5
         %c6 = OpConstant %int 6
         %c7 = OpConstant %int 7
         %c8 = OpConstant %int 8
         %c9 = OpConstant %int 9
        %c10 = OpConstant %int 10
        %u0 = OpConstant %uint 0
        %f0 = OpConstant %float 0
       %main = OpFunction %void None %voidfn
      %entry = OpLabel
       %evar = OpVariable %int_fn_ptr Function
        %p0 = OpAccessChain %uint_ptr %in %c0 %c0
        %p1 = OpAccessChain %uint_ptr %in %c0 %c1
        %p2 = OpAccessChain %uint_ptr %in %c0 %c2
        %p3 = OpAccessChain %uint_ptr %in %c0 %c3
        %p4 = OpAccessChain %uint_ptr %in %c0 %c4
        %b0 = OpLoad %uint %p0
        %b1 = OpLoad %uint %p1
        %b2 = OpLoad %uint %p2
        %b3 = OpLoad %uint %p3
        %u8 = OpLoad %uint %p4
       %nan = OpBitcast %float %b0
       %one = OpBitcast %float %b1
         %x = OpBitcast %float %b2
    %twelve = OpBitcast %float %b3
    %negone = OpFNegate %float %one
        %r0 = OpExtInst %float %glsl NMin %nan %one
        %r1 = OpExtInst %float %glsl NMin %one %nan
        %r2 = OpExtInst %float %glsl NMax %nan %negone
        %r3 = OpExtInst %float %glsl NClamp %nan %f0 %one
        %r4 = OpExtInst %float %glsl NClamp %x %f0 %one
        %ms = OpExtInst %modf_res_t %glsl ModfStruct %x
        %r5 = OpCompositeExtract %float %ms 0
        %r6 = OpCompositeExtract %float %ms 1
        %r7 = OpExtInst %float %glsl Frexp %twelve %evar
         %e = OpLoad %int %evar
        %r8 = OpConvertSToF %float %e
        %v = OpCompositeConstruct %uint2 %u8 %u0
       %lsb = OpExtInst %int2 %glsl FindILsb %v
      %lsb0 = OpCompositeExtract %int %lsb 0
      %lsb1 = OpCompositeExtract %int %lsb 1
        %r9 = OpConvertSToF %float %lsb0
       %r10 = OpConvertSToF %float %lsb1
        %o0 = OpAccessChain %float_ptr %out %c0 %c0
        %o1 = OpAccessChain %float_ptr %out %c0 %c1
        %o2 = OpAccessChain %float_ptr %out %c0 %c2
        %o3 = OpAccessChain %float_ptr %out %c0 %c3
        %o4 = OpAccessChain %float_ptr %out %c0 %c4
        %o5 = OpAccessChain %float_ptr %out %c0 %c5
        %o6 = OpAccessChain %float_ptr %out %c0 %c6
        %o7 = OpAccessChain %float_ptr %out %c0 %c7
        %o8 = OpAccessChain %float_ptr %out %c0 %c8
        %o9 = OpAccessChain %float_ptr %out %c0 %c9
       %o10 = OpAccessChain %float_ptr %out %c0 %c10
               OpStore %o0 %r0
               OpStore %o1 %r1
               OpStore %o2 %r2
               OpStore %o3 %r3
               OpStore %o4 %r4
               OpStore %o5 %r5
               OpStore %o6 %r6
               OpStore %o7 %r7
               OpStore %o8 %r8
               OpStore %o9 %r9
               OpStore %o10 %r10
               OpReturn
               OpFunctionEnd
END
BUFFER in DATA_TYPE uint32 DATA
2143289344 1065353216 3228565504 1094713344 8
END
BUFFER out DATA_TYPE float SIZE 11 FILL 0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER in AS storage DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 1
END
RUN p 1 1 1
EXPECT out IDX 0 EQ 1 1 -1 0 0 -0.75 -3 0.75 4 3 -1
)");
}
