// Single-precision sine and cosine for the executor's GLSL.std.450 Sin and
// Cos: the same results as rounding the double-precision libm function
// (float(std::sin(double(x)))), which is how the executor defines them, at
// about half the cost.
#ifndef WARPSIM_SIMT_TRIG_H_
#define WARPSIM_SIMT_TRIG_H_

#include <cstdint>

namespace warpsim::simt {

// float(std::sin(double(x))), bit for bit, for every float x.
float SinFloat(float x);
// float(std::cos(double(x))), bit for bit, for every float x.
float CosFloat(float x);

// SinFloat and CosFloat of the lanes in `lanes` (bit i: x[i]) of n <= 32
// values, several lanes at a time; out[i] is written for those lanes only
// (`out` may be `x`). The same bits as the one-value functions.
void SinFloats(const float* x, float* out, uint32_t n, uint32_t lanes);
void CosFloats(const float* x, float* out, uint32_t n, uint32_t lanes);

// The instruction sets SinFloats/CosFloats have code for; they use the
// widest the CPU runs. Tests run each (TrigIsaSupported) through the
// overloads below, since each must give the same bits.
enum class TrigIsa { kBaseline, kAvx2, kAvx512 };
bool TrigIsaSupported(TrigIsa isa);
void SinFloats(TrigIsa isa, const float* x, float* out, uint32_t n,
               uint32_t lanes);
void CosFloats(TrigIsa isa, const float* x, float* out, uint32_t n,
               uint32_t lanes);

}  // namespace warpsim::simt

#endif  // WARPSIM_SIMT_TRIG_H_
