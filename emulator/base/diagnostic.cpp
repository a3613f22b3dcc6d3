#include "base/diagnostic.h"

namespace warpsim {

std::string Diagnostic::ToString() const {
  std::string out;
  if (!pos.file.empty()) {
    out += pos.file;
    if (pos.line > 0) out += ":" + std::to_string(pos.line);
    out += ": ";
  }
  if (pos.word >= 0) {
    out += "word " + std::to_string(pos.word);
    if (!pos.opcode.empty()) out += " (" + pos.opcode + ")";
    out += ": ";
  }
  switch (kind) {
    case ErrorKind::kInvalidInput:
      out += "error: ";
      break;
    case ErrorKind::kUnsupported:
      out += "unsupported: ";
      break;
    case ErrorKind::kLimitExceeded:
      out += "limit exceeded: ";
      break;
    case ErrorKind::kInternal:
      out += "internal error: ";
      break;
  }
  out += message;
  return out;
}

Diagnostic InvalidInput(std::string message, SourcePos pos) {
  return Diagnostic{ErrorKind::kInvalidInput, std::move(pos),
                    std::move(message)};
}
Diagnostic Unsupported(std::string message, SourcePos pos) {
  return Diagnostic{ErrorKind::kUnsupported, std::move(pos),
                    std::move(message)};
}
Diagnostic InternalError(std::string message, SourcePos pos) {
  return Diagnostic{ErrorKind::kInternal, std::move(pos), std::move(message)};
}
Diagnostic LimitExceeded(std::string message, uint64_t warp_instructions,
                         uint64_t lane_instructions, SourcePos pos) {
  return Diagnostic{ErrorKind::kLimitExceeded, std::move(pos),
                    std::move(message), warp_instructions, lane_instructions};
}

}  // namespace warpsim
