// JUnit XML, the report format CI systems (Jenkins, GitLab, GitHub
// actions' test reporters) read: one <testsuite> per folder, one
// <testcase> per scene.
#ifndef WARPSIM_REGRESS_JUNIT_H_
#define WARPSIM_REGRESS_JUNIT_H_

#include <string>
#include <vector>

namespace warpsim::regress {

struct JUnitCase {
  enum class Result { kPassed, kFailure, kError, kSkipped };
  std::string suite;  // the folder
  std::string name;   // the file
  double seconds = 0;
  Result result = Result::kPassed;
  std::string message;  // one line
  std::string detail;   // the element's text
};

// The whole document. Text is escaped for XML 1.0: markup characters as
// entities, control characters XML cannot hold and bytes that are not
// UTF-8 as U+FFFD.
std::string JUnitXml(const std::string& name,
                     const std::vector<JUnitCase>& cases);

// `text` made safe for XML character data and attribute values.
std::string XmlEscape(const std::string& text);

}  // namespace warpsim::regress

#endif  // WARPSIM_REGRESS_JUNIT_H_
