#include "regress/junit.h"

#include <cstdio>
#include <map>

namespace warpsim::regress {

namespace {

constexpr char kReplacement[] = "\xef\xbf\xbd";  // U+FFFD

// Length of the valid UTF-8 sequence at s[i] (0: not valid).
size_t Utf8Length(const std::string& s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  size_t n = 0;
  uint32_t cp = 0;
  if (c < 0x80) return 1;
  if ((c & 0xe0) == 0xc0) {
    n = 2;
    cp = c & 0x1f;
  } else if ((c & 0xf0) == 0xe0) {
    n = 3;
    cp = c & 0x0f;
  } else if ((c & 0xf8) == 0xf0) {
    n = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3f);
  }
  // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
  static constexpr uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) {
    return 0;
  }
  return n;
}

std::string Seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", s);
  return buf;
}

}  // namespace

std::string XmlEscape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    switch (c) {
      case '&':
        out += "&amp;";
        ++i;
        continue;
      case '<':
        out += "&lt;";
        ++i;
        continue;
      case '>':
        out += "&gt;";
        ++i;
        continue;
      case '"':
        out += "&quot;";
        ++i;
        continue;
      case '\'':
        out += "&apos;";
        ++i;
        continue;
      default:
        break;
    }
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
      out += kReplacement;
      ++i;
      continue;
    }
    const size_t n = Utf8Length(text, i);
    if (n == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    out.append(text, i, n);
    i += n;
  }
  return out;
}

std::string JUnitXml(const std::string& name,
                     const std::vector<JUnitCase>& cases) {
  struct Suite {
    std::vector<const JUnitCase*> cases;
    size_t failures = 0, errors = 0, skipped = 0;
    double seconds = 0;
  };
  std::map<std::string, Suite> suites;
  Suite all;
  for (const JUnitCase& c : cases) {
    for (Suite* s : {&suites[c.suite], &all}) {
      if (s != &all) s->cases.push_back(&c);
      s->seconds += c.seconds;
      s->failures += c.result == JUnitCase::Result::kFailure;
      s->errors += c.result == JUnitCase::Result::kError;
      s->skipped += c.result == JUnitCase::Result::kSkipped;
    }
  }
  auto counts = [](const Suite& s, size_t tests) {
    return " tests=\"" + std::to_string(tests) + "\" failures=\"" +
           std::to_string(s.failures) + "\" errors=\"" +
           std::to_string(s.errors) + "\" skipped=\"" +
           std::to_string(s.skipped) + "\" time=\"" + Seconds(s.seconds) + "\"";
  };
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<testsuites name=\"" + XmlEscape(name) + "\"" +
         counts(all, cases.size()) + ">\n";
  for (const auto& [suite_name, suite] : suites) {
    out += "  <testsuite name=\"" + XmlEscape(suite_name) + "\"" +
           counts(suite, suite.cases.size()) + ">\n";
    for (const JUnitCase* c : suite.cases) {
      out += "    <testcase classname=\"" + XmlEscape(suite_name) +
             "\" name=\"" + XmlEscape(c->name) + "\" time=\"" +
             Seconds(c->seconds) + "\"";
      const char* element = nullptr;
      switch (c->result) {
        case JUnitCase::Result::kPassed:
          break;
        case JUnitCase::Result::kFailure:
          element = "failure";
          break;
        case JUnitCase::Result::kError:
          element = "error";
          break;
        case JUnitCase::Result::kSkipped:
          element = "skipped";
          break;
      }
      if (element == nullptr) {
        out += "/>\n";
        continue;
      }
      out += ">\n      <" + std::string(element) + " message=\"" +
             XmlEscape(c->message) + "\">" + XmlEscape(c->detail) + "</" +
             element + ">\n    </testcase>\n";
    }
    out += "  </testsuite>\n";
  }
  out += "</testsuites>\n";
  return out;
}

}  // namespace warpsim::regress
