#include "memrep/status.h"

namespace memrep {

std::string Status::ToString() const {
  const char* name = "OK";
  switch (code_) {
    case Code::kOk:
      return name;
    case Code::kInvalidArgument:
      name = "Invalid argument";
      break;
    case Code::kAlreadyExists:
      name = "Already exists";
      break;
    case Code::kNotFound:
      name = "Not found";
      break;
    case Code::kFrozen:
      name = "Frozen";
      break;
  }
  return message_.empty() ? std::string(name) : std::string(name) + ": " + message_;
}

}  // namespace memrep
