#include "memrep/status.h"

#include <new>

namespace memrep {

Status::Status(Code code, std::string_view msg) noexcept : code_(code) {
  if (msg.empty()) return;
  try {
    message_ = std::make_unique<std::string>(msg);
  } catch (...) {
    // Out of memory: keep the code, lose the message.
  }
}

std::unique_ptr<std::string> Status::Copy(const std::unique_ptr<std::string>& m) noexcept {
  if (m == nullptr) return nullptr;
  try {
    return std::make_unique<std::string>(*m);
  } catch (...) {
    return nullptr;
  }
}

const std::string& Status::message() const noexcept {
  static const std::string kEmpty;
  return message_ != nullptr ? *message_ : kEmpty;
}

const char* Status::CodeName(Code code) noexcept {
  switch (code) {
    case Code::kOk:
      return "OK";
    case Code::kInvalidArgument:
      return "Invalid argument";
    case Code::kNotFound:
      return "Not found";
    case Code::kAlreadyExists:
      return "Already exists";
    case Code::kFrozen:
      return "Frozen";
    case Code::kFull:
      return "Full";
    case Code::kOutOfMemory:
      return "Out of memory";
    case Code::kIOError:
      return "IO error";
    case Code::kCorruption:
      return "Corruption";
    case Code::kNotSupported:
      return "Not supported";
  }
  return "Unknown code";
}

std::string Status::ToString() const {
  std::string out = CodeName(code_);
  if (message_ != nullptr && !message_->empty()) out += ": " + *message_;
  return out;
}

}  // namespace memrep
