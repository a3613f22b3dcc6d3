#include "json.h"

#include <cmath>
#include <cstdio>

namespace cuda_ref {

Json& Json::operator[](const std::string& key) {
  if (kind_ == Kind::kNull) kind_ = Kind::kObject;
  for (auto& m : members_) {
    if (m.first == key) return m.second;
  }
  members_.emplace_back(key, Json());
  return members_.back().second;
}

void Json::push_back(Json v) {
  if (kind_ == Kind::kNull) kind_ = Kind::kArray;
  items_.push_back(std::move(v));
}

size_t Json::size() const {
  return kind_ == Kind::kArray ? items_.size() : members_.size();
}

namespace {
void Escape(const std::string& s, std::string* out) {
  out->push_back('"');
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        *out += "\\\"";
        break;
      case '\\':
        *out += "\\\\";
        break;
      case '\n':
        *out += "\\n";
        break;
      case '\t':
        *out += "\\t";
        break;
      case '\r':
        *out += "\\r";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          *out += buf;
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
  }
  out->push_back('"');
}
}  // namespace

void Json::DumpTo(std::string* out, int indent, int depth) const {
  const auto newline = [&](int d) {
    if (indent <= 0) return;
    out->push_back('\n');
    out->append(static_cast<size_t>(indent * d), ' ');
  };
  switch (kind_) {
    case Kind::kNull:
      *out += "null";
      break;
    case Kind::kBool:
      *out += i_ ? "true" : "false";
      break;
    case Kind::kInt:
      *out += std::to_string(i_);
      break;
    case Kind::kDouble: {
      if (!std::isfinite(d_)) {
        *out += "null";
        break;
      }
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.6g", d_);
      *out += buf;
      break;
    }
    case Kind::kString:
      Escape(s_, out);
      break;
    case Kind::kArray: {
      out->push_back('[');
      // Arrays of scalars stay on one line.
      bool flat = true;
      for (const auto& v : items_) {
        flat &= v.kind_ != Kind::kArray && v.kind_ != Kind::kObject;
      }
      for (size_t k = 0; k < items_.size(); ++k) {
        if (k) out->push_back(',');
        if (!flat) newline(depth + 1);
        items_[k].DumpTo(out, indent, depth + 1);
      }
      if (!flat && !items_.empty()) newline(depth);
      out->push_back(']');
      break;
    }
    case Kind::kObject: {
      out->push_back('{');
      for (size_t k = 0; k < members_.size(); ++k) {
        if (k) out->push_back(',');
        newline(depth + 1);
        Escape(members_[k].first, out);
        *out += indent > 0 ? ": " : ":";
        members_[k].second.DumpTo(out, indent, depth + 1);
      }
      if (!members_.empty()) newline(depth);
      out->push_back('}');
      break;
    }
  }
}

std::string Json::Dump(int indent) const {
  std::string out;
  DumpTo(&out, indent, 0);
  out.push_back('\n');
  return out;
}

}  // namespace cuda_ref
