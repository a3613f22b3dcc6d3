#include "regress/table.h"

#include <algorithm>
#include <cctype>

namespace warpsim::regress {

namespace {

bool Numeric(const std::string& cell) {
  size_t i = 0;
  if (i < cell.size() && (cell[i] == '-' || cell[i] == '+')) ++i;
  return i < cell.size() && std::isdigit(static_cast<unsigned char>(cell[i]));
}

// Display width of UTF-8 text: code points, not bytes.
size_t Width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xc0) != 0x80 ? 1 : 0;
  return n;
}

}  // namespace

TextTable::TextTable(std::vector<std::string> header)
    : header_(std::move(header)) {}

void TextTable::AddRow(std::vector<std::string> cells) {
  cells.resize(header_.size());
  rows_.push_back(std::move(cells));
}

std::string TextTable::Render() const {
  std::vector<size_t> width(header_.size(), 0);
  for (size_t c = 0; c < header_.size(); ++c) width[c] = Width(header_[c]);
  for (const auto& row : rows_) {
    for (size_t c = 0; c < row.size(); ++c) {
      width[c] = std::max(width[c], Width(row[c]));
    }
  }
  std::string out;
  auto line = [&](const std::vector<std::string>& cells, bool header) {
    std::string l;
    for (size_t c = 0; c < cells.size(); ++c) {
      const size_t pad = width[c] - Width(cells[c]);
      const bool right = !header && Numeric(cells[c]);
      if (c > 0) l += "  ";
      if (right) l += std::string(pad, ' ');
      l += cells[c];
      if (!right && c + 1 < cells.size()) l += std::string(pad, ' ');
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l + "\n";
  };
  line(header_, true);
  std::vector<std::string> rule;
  for (size_t w : width) rule.push_back(std::string(w, '-'));
  line(rule, true);
  for (const auto& row : rows_) line(row, false);
  return out;
}

}  // namespace warpsim::regress
