#include "regress/variants.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <sstream>

namespace warpsim::regress {

namespace {

bool ValidMacroName(const std::string& n) {
  if (n.empty() || std::isdigit(static_cast<unsigned char>(n[0]))) {
    return false;
  }
  return std::all_of(n.begin(), n.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

struct Define {
  std::string name;
  std::vector<std::string> values;
};

Result<Define> ParseDefine(const std::string& arg) {
  Define d;
  const size_t eq = arg.find('=');
  d.name = arg.substr(0, eq);
  if (!ValidMacroName(d.name)) {
    return InvalidInput("-D " + arg + ": NAME must be a GLSL identifier");
  }
  if (eq == std::string::npos) {
    d.values = {"1"};  // as a compiler's -DNAME
    return d;
  }
  std::istringstream in(arg.substr(eq + 1));
  for (std::string v; std::getline(in, v, ',');) d.values.push_back(v);
  if (!arg.empty() && arg.back() == ',') d.values.push_back("");
  if (d.values.empty()) d.values.push_back("");
  for (const std::string& v : d.values) {
    if (v.empty() || v.find_first_of("\n\r") != std::string::npos) {
      return InvalidInput("-D " + d.name + ": an empty or multi-line value");
    }
  }
  return d;
}

std::vector<double> Ranks(const std::vector<double>& v) {
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> rank(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    const double mean =
        (static_cast<double>(i) + static_cast<double>(j)) / 2 + 1;
    for (size_t k = i; k <= j; ++k) rank[order[k]] = mean;
    i = j + 1;
  }
  return rank;
}

}  // namespace

Result<std::vector<VariantSpec>> MakeVariants(
    const std::vector<std::string>& files,
    const std::vector<std::string>& define_args) {
  std::vector<Define> defines;
  std::optional<size_t> varying;
  for (const std::string& arg : define_args) {
    auto d = ParseDefine(arg);
    if (!d.ok()) return d.error();
    for (const Define& other : defines) {
      if (other.name == d->name) {
        return InvalidInput("-D " + d->name + " is given twice");
      }
    }
    if (d->values.size() > 1) {
      if (varying) {
        return InvalidInput("only one -D may list several values (-D " +
                            defines[*varying].name + " and -D " + d->name +
                            "); give the others one value");
      }
      varying = defines.size();
    }
    defines.push_back(std::move(*d));
  }
  std::vector<std::string> fixed;
  for (size_t i = 0; i < defines.size(); ++i) {
    if (varying && i == *varying) continue;
    fixed.push_back(defines[i].name + "=" + defines[i].values[0]);
  }
  std::vector<VariantSpec> out;
  if (files.size() == 1) {
    if (!varying) {
      return InvalidInput(
          "one file needs a -D NAME=V1,V2,... whose values are the variants");
    }
    const Define& d = defines[*varying];
    for (const std::string& v : d.values) {
      VariantSpec s;
      s.name = s.label = d.name + "=" + v;
      s.file = files[0];
      s.defines = fixed;
      s.defines.push_back(s.name);
      s.varying = std::pair{d.name, v};
      out.push_back(std::move(s));
    }
    return out;
  }
  if (files.size() < 2) {
    return InvalidInput(
        "give two or more files, or one file and -D NAME=V1,V2,...");
  }
  if (varying) {
    return InvalidInput("-D " + defines[*varying].name +
                        " lists several values: that is the one-file form "
                        "(give one file)");
  }
  for (const std::string& f : files) {
    VariantSpec s;
    s.name = s.label = f;
    s.file = f;
    s.defines = fixed;
    out.push_back(std::move(s));
  }
  for (VariantSpec& s : out) {
    const std::string leaf = std::filesystem::path(s.file).filename().string();
    const auto same = std::count_if(out.begin(), out.end(), [&](const auto& o) {
      return std::filesystem::path(o.file).filename().string() == leaf;
    });
    if (same == 1) s.label = leaf;
  }
  return out;
}

std::optional<size_t> FindVariant(const std::vector<VariantSpec>& variants,
                                  const std::string& name) {
  for (size_t i = 0; i < variants.size(); ++i) {
    const VariantSpec& v = variants[i];
    if (v.name == name || v.label == name ||
        (v.varying && v.varying->second == name)) {
      return i;
    }
  }
  return std::nullopt;
}

double SpearmanRho(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.size() < 2) return 0;
  const std::vector<double> ra = Ranks(a), rb = Ranks(b);
  const double n = static_cast<double>(a.size());
  const double mean = (n + 1) / 2;
  double cov = 0, va = 0, vb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    cov += (ra[i] - mean) * (rb[i] - mean);
    va += (ra[i] - mean) * (ra[i] - mean);
    vb += (rb[i] - mean) * (rb[i] - mean);
  }
  if (va == 0 || vb == 0) return 0;
  return cov / std::sqrt(va * vb);
}

}  // namespace warpsim::regress
