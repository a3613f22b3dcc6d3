// Diagnostics and the Result type that carries them across module boundaries.
//
// Three kinds of error are kept apart (DESIGN.md, "Errors"):
//   - invalid input: the input breaks a rule; the diagnostic names where
//     (file and line, or SPIR-V word offset and opcode) and which rule;
//   - unsupported: the input is valid but warpsim does not implement it; the
//     diagnostic names the feature;
//   - limit exceeded: the run was stopped by a configured limit (the warp
//     instruction limit: a shader that may not terminate); the diagnostic
//     carries how far the run got;
//   - internal: a bug in warpsim (only for failures that are not assertions).
// No exception crosses a module boundary: functions return Result<T>.
#ifndef WARPSIM_BASE_DIAGNOSTIC_H_
#define WARPSIM_BASE_DIAGNOSTIC_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace warpsim {

enum class ErrorKind { kInvalidInput, kUnsupported, kLimitExceeded, kInternal };

// Where a diagnostic points. Any field may be empty/unset.
struct SourcePos {
  std::string file;    // file path (or shader name for inline sources)
  int line = 0;        // 1-based line, 0 = unknown
  int64_t word = -1;   // SPIR-V word offset, -1 = unknown
  std::string opcode;  // SPIR-V opcode name at `word`, if known
};

struct Diagnostic {
  ErrorKind kind = ErrorKind::kInvalidInput;
  SourcePos pos;
  std::string message;
  // kLimitExceeded: the warp and lane instructions executed when the limit
  // stopped the run (of the dispatch, or of the draw's stage, that hit it).
  uint64_t warp_instructions = 0;
  uint64_t lane_instructions = 0;

  // "file:line: error: message" / "file: word 123 (OpFoo): error: message" /
  // "unsupported: message" / "limit exceeded: message".
  std::string ToString() const;
};

Diagnostic InvalidInput(std::string message, SourcePos pos = {});
Diagnostic Unsupported(std::string message, SourcePos pos = {});
Diagnostic InternalError(std::string message, SourcePos pos = {});
Diagnostic LimitExceeded(std::string message, uint64_t warp_instructions,
                         uint64_t lane_instructions, SourcePos pos = {});

// Either a value or a Diagnostic.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}         // NOLINT: implicit
  Result(Diagnostic diag) : v_(std::move(diag)) {}  // NOLINT: implicit
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Diagnostic& error() const { return std::get<1>(v_); }
  Diagnostic& error() { return std::get<1>(v_); }

 private:
  std::variant<T, Diagnostic> v_;
};

// Result for functions that produce nothing but may fail.
class [[nodiscard]] Status {
 public:
  // User-provided, not defaulted: `return {}` then only clears the
  // optional's flag instead of zeroing every byte of the Diagnostic it
  // has room for (value-initialization), which hot loops paid for.
  Status() noexcept {}  // NOLINT(modernize-use-equals-default)
  Status(Diagnostic diag) : diag_(std::move(diag)) {}  // NOLINT: implicit
  bool ok() const { return !diag_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Diagnostic& error() const { return *diag_; }
  Diagnostic& error() { return *diag_; }

 private:
  std::optional<Diagnostic> diag_;
};

}  // namespace warpsim

#endif  // WARPSIM_BASE_DIAGNOSTIC_H_
