// Helpers shared by the fuzz targets: views of libFuzzer's input, and the
// one rule every target checks (a failure is a diagnostic, never a crash).
#ifndef WARPSIM_FUZZ_FUZZ_INPUT_H_
#define WARPSIM_FUZZ_FUZZ_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string_view>

#include "base/diagnostic.h"

namespace warpsim::fuzz {

inline std::string_view AsText(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

inline std::span<const uint8_t> AsBytes(const uint8_t* data, size_t size) {
  return {data, size};
}

// A rejected input must say why: an invalid-input or unsupported diagnostic
// with a message. An internal error or an empty message is a bug, and
// aborting makes libFuzzer keep the input as a crash.
inline void CheckDiagnostic(const Diagnostic& d) {
  if (d.kind == ErrorKind::kInternal || d.message.empty()) {
    std::fprintf(stderr, "fuzz: bad diagnostic: %s\n", d.ToString().c_str());
    std::abort();
  }
}

template <typename T>
void CheckResult(const Result<T>& r) {
  if (!r.ok()) CheckDiagnostic(r.error());
}

}  // namespace warpsim::fuzz

#endif  // WARPSIM_FUZZ_FUZZ_INPUT_H_
