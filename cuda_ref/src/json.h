// A small ordered JSON value and writer for the experiments' result files.
// Hand-written because the GPU machine that builds cuda_ref has no Debian
// packages (nlohmann-json is what the emulator itself uses); it only writes,
// never parses.
#ifndef WARPSIM_CUDA_REF_JSON_H_
#define WARPSIM_CUDA_REF_JSON_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace cuda_ref {

class Json {
 public:
  enum class Kind { kNull, kBool, kInt, kDouble, kString, kArray, kObject };

  Json() = default;
  Json(bool b) : kind_(Kind::kBool), i_(b) {}     // NOLINT
  Json(int v) : kind_(Kind::kInt), i_(v) {}       // NOLINT
  Json(unsigned v) : kind_(Kind::kInt), i_(v) {}  // NOLINT
  Json(long v) : kind_(Kind::kInt), i_(v) {}      // NOLINT
  Json(unsigned long v)
      : kind_(Kind::kInt), i_(static_cast<int64_t>(v)) {}  // NOLINT
  Json(long long v) : kind_(Kind::kInt), i_(v) {}          // NOLINT
  Json(unsigned long long v)                               // NOLINT
      : kind_(Kind::kInt), i_(static_cast<int64_t>(v)) {}
  Json(double v) : kind_(Kind::kDouble), d_(v) {}                  // NOLINT
  Json(const char* s) : kind_(Kind::kString), s_(s) {}             // NOLINT
  Json(std::string s) : kind_(Kind::kString), s_(std::move(s)) {}  // NOLINT

  static Json Array() {
    Json j;
    j.kind_ = Kind::kArray;
    return j;
  }
  static Json Object() {
    Json j;
    j.kind_ = Kind::kObject;
    return j;
  }

  // Object member (created, in insertion order, on first use).
  Json& operator[](const std::string& key);
  // Array element appended.
  void push_back(Json v);
  size_t size() const;

  std::string Dump(int indent = 1) const;

 private:
  void DumpTo(std::string* out, int indent, int depth) const;

  Kind kind_ = Kind::kNull;
  int64_t i_ = 0;
  double d_ = 0;
  std::string s_;
  std::vector<Json> items_;
  std::vector<std::pair<std::string, Json>> members_;
};

}  // namespace cuda_ref

#endif  // WARPSIM_CUDA_REF_JSON_H_
