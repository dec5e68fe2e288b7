// Status: memrep reports errors as values. A Status is either OK or carries a
// code and a message that says what was wrong and what to do about it.
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace memrep {

class Status {
 public:
  enum class Code {
    kOk = 0,
    kInvalidArgument,  // the caller passed something memrep cannot accept
    kAlreadyExists,    // an entry with the same user key and sequence is stored
    kNotFound,         // no visible entry for the key
    kFrozen,           // the memtable is read-only; write to a new one
  };

  Status() = default;
  static Status OK() { return Status(); }
  static Status InvalidArgument(std::string msg) { return {Code::kInvalidArgument, std::move(msg)}; }
  static Status AlreadyExists(std::string msg) { return {Code::kAlreadyExists, std::move(msg)}; }
  static Status NotFound(std::string msg = "") { return {Code::kNotFound, std::move(msg)}; }
  static Status Frozen(std::string msg) { return {Code::kFrozen, std::move(msg)}; }

  bool ok() const { return code_ == Code::kOk; }
  bool IsInvalidArgument() const { return code_ == Code::kInvalidArgument; }
  bool IsAlreadyExists() const { return code_ == Code::kAlreadyExists; }
  bool IsNotFound() const { return code_ == Code::kNotFound; }
  bool IsFrozen() const { return code_ == Code::kFrozen; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

  // "OK", or "<code name>: <message>".
  std::string ToString() const;

 private:
  Status(Code code, std::string msg) : code_(code), message_(std::move(msg)) {}

  Code code_ = Code::kOk;
  std::string message_;
};

}  // namespace memrep
