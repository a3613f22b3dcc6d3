// Single-precision sine and cosine for the executor's GLSL.std.450 Sin and
// Cos: the same results as rounding the double-precision libm function
// (float(std::sin(double(x)))), which is how the executor defines them, at
// about half the cost.
#ifndef WARPSIM_SIMT_TRIG_H_
#define WARPSIM_SIMT_TRIG_H_

namespace warpsim::simt {

// float(std::sin(double(x))), bit for bit, for every float x.
float SinFloat(float x);
// float(std::cos(double(x))), bit for bit, for every float x.
float CosFloat(float x);

}  // namespace warpsim::simt

#endif  // WARPSIM_SIMT_TRIG_H_
