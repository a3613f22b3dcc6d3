// regress/junit.cpp: the document's shape and escaping.
#include "regress/junit.h"

#include <catch2/catch.hpp>

namespace {

using warpsim::regress::JUnitCase;

TEST_CASE("JUnit XML: a suite per folder with its counts", "[regress]") {
  std::vector<JUnitCase> cases;
  cases.push_back({"a", "one.amber", 0.5, JUnitCase::Result::kPassed, "", ""});
  cases.push_back({"a", "two.amber", 1.0, JUnitCase::Result::kFailure,
                   "fail: line 3", "detail"});
  cases.push_back({"b", "three.amber", 0.25, JUnitCase::Result::kSkipped,
                   "unsupported: geometry shaders", ""});
  cases.push_back({"b", "four.amber", 0, JUnitCase::Result::kError,
                   "crashed (signal 11)", ""});
  const std::string xml = warpsim::regress::JUnitXml("warpsim test", cases);
  CHECK_THAT(xml,
             Catch::StartsWith("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"));
  CHECK_THAT(xml,
             Catch::Contains("<testsuites name=\"warpsim test\" tests=\"4\" "
                             "failures=\"1\" errors=\"1\" skipped=\"1\" "
                             "time=\"1.750\">"));
  CHECK_THAT(xml, Catch::Contains("<testsuite name=\"a\" tests=\"2\" "
                                  "failures=\"1\" errors=\"0\" skipped=\"0\""));
  CHECK_THAT(xml,
             Catch::Contains("<testcase classname=\"a\" name=\"one.amber\" "
                             "time=\"0.500\"/>"));
  CHECK_THAT(xml, Catch::Contains("<failure message=\"fail: line 3\">detail"
                                  "</failure>"));
  CHECK_THAT(xml, Catch::Contains("<skipped message=\"unsupported: geometry "
                                  "shaders\">"));
  CHECK_THAT(xml, Catch::Contains("<error message=\"crashed (signal 11)\">"));
  CHECK_THAT(xml, Catch::EndsWith("</testsuites>\n"));
}

TEST_CASE("XML escaping: markup, control characters, bytes not UTF-8",
          "[regress]") {
  using warpsim::regress::XmlEscape;
  CHECK(XmlEscape("a<b & \"c\" 'd'>") ==
        "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;");
  CHECK(XmlEscape("tab\tnew\nline") == "tab\tnew\nline");
  CHECK(XmlEscape(std::string("bell\x07", 5)) == "bell\xef\xbf\xbd");
  CHECK(XmlEscape("\xff\xfe") == "\xef\xbf\xbd\xef\xbf\xbd");
  CHECK(XmlEscape("\xc0\xaf") == "\xef\xbf\xbd\xef\xbf\xbd");  // overlong
  CHECK(XmlEscape("\xed\xa0\x80") ==
        "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");  // a surrogate
  CHECK(XmlEscape("caf\xc3\xa9 \xe5\x8f\x98") == "caf\xc3\xa9 \xe5\x8f\x98");
  CHECK(XmlEscape("cut \xe5\x8f") == "cut \xef\xbf\xbd\xef\xbf\xbd");
}

}  // namespace
