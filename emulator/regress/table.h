// A plain-text table for the terminal: columns sized to their widest
// cell, numbers right-aligned, text left-aligned.
#ifndef WARPSIM_REGRESS_TABLE_H_
#define WARPSIM_REGRESS_TABLE_H_

#include <string>
#include <vector>

namespace warpsim::regress {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header);
  void AddRow(std::vector<std::string> cells);
  // A cell that starts like a number ("-1.5", "12 -> 14 (+16.7 %)", "3.2x")
  // is right-aligned.
  std::string Render() const;
  size_t rows() const { return rows_.size(); }

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace warpsim::regress

#endif  // WARPSIM_REGRESS_TABLE_H_
