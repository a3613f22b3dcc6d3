// The variants `warpsim compare` and `warpsim-vkref compare` run: several
// files, or one file compiled once per value of a preprocessor define, and
// how the costs of two sides rank alike (Spearman's rho).
#ifndef WARPSIM_REGRESS_VARIANTS_H_
#define WARPSIM_REGRESS_VARIANTS_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/diagnostic.h"

namespace warpsim::regress {

struct VariantSpec {
  std::string name;   // the file as given, or NAME=V
  std::string label;  // for tables: the file's name when no other has it
  std::string file;
  // Every definition for its GLSL shaders ("NAME=V"): the fixed -D's and
  // the varying one's value.
  std::vector<std::string> defines;
  // The one-file form: the varying define and this variant's value.
  std::optional<std::pair<std::string, std::string>> varying;
};

// `files` and the -D arguments ("NAME", "NAME=V" or "NAME=V1,V2,...").
// With one file, exactly one -D has two or more values: one variant per
// value, every other -D defined for all. With several files, one variant
// per file, every -D (single-valued) defined for all. A bad combination is
// invalid input whose message says what to give instead.
Result<std::vector<VariantSpec>> MakeVariants(
    const std::vector<std::string>& files,
    const std::vector<std::string>& define_args);

// The variant `name` names: its name, label, or (one-file form) value.
std::optional<size_t> FindVariant(const std::vector<VariantSpec>& variants,
                                  const std::string& name);

// Spearman's rank correlation of two equally long series (ties take their
// mean rank); 0 when fewer than two values or a series is constant.
double SpearmanRho(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace warpsim::regress

#endif  // WARPSIM_REGRESS_VARIANTS_H_
