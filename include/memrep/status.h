// Status: memrep reports errors as values. A Status is either OK or carries a
// code and a message that says what was wrong and what to do about it.
//
// No function of memrep's public API throws: each failure it can report is a
// Status. Creating or copying a Status never throws either; if memory for the
// message cannot be had, the Status keeps its code and loses the message.
// An OK Status holds no memory, so returning one costs a couple of stores.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "memrep/export.h"

namespace memrep {

class MEMREP_EXPORT [[nodiscard]] Status {
 public:
  enum class Code : uint8_t {
    kOk = 0,
    kInvalidArgument,  // the caller passed something memrep cannot accept
    kNotFound,         // no visible entry for the key
    kAlreadyExists,    // an entry with the same user key and sequence is stored
    kFrozen,           // the memtable is read-only; write to a new one
    kFull,             // the memtable cannot take more entries: switch to a new one
    kOutOfMemory,      // memory could not be had; the operation changed nothing
    kIOError,          // a file-backed rep could not read or write its file
    kCorruption,       // stored data is not what was written
    kNotSupported,     // this rep or build cannot do what was asked
  };

  Status() noexcept = default;
  Status(const Status& other) noexcept : code_(other.code_), message_(Copy(other.message_)) {}
  Status& operator=(const Status& other) noexcept {
    if (this != &other) {
      code_ = other.code_;
      message_ = Copy(other.message_);
    }
    return *this;
  }
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;

  static Status OK() noexcept { return Status(); }
  static Status InvalidArgument(std::string_view msg) noexcept {
    return {Code::kInvalidArgument, msg};
  }
  static Status NotFound(std::string_view msg = {}) noexcept { return {Code::kNotFound, msg}; }
  static Status AlreadyExists(std::string_view msg) noexcept { return {Code::kAlreadyExists, msg}; }
  static Status Frozen(std::string_view msg) noexcept { return {Code::kFrozen, msg}; }
  static Status Full(std::string_view msg) noexcept { return {Code::kFull, msg}; }
  static Status OutOfMemory(std::string_view msg) noexcept { return {Code::kOutOfMemory, msg}; }
  static Status IOError(std::string_view msg) noexcept { return {Code::kIOError, msg}; }
  static Status Corruption(std::string_view msg) noexcept { return {Code::kCorruption, msg}; }
  static Status NotSupported(std::string_view msg) noexcept { return {Code::kNotSupported, msg}; }
  // A status of `code` with `msg`; for code that translates another library's codes.
  static Status FromCode(Code code, std::string_view msg) noexcept { return {code, msg}; }

  bool ok() const noexcept { return code_ == Code::kOk; }
  bool IsInvalidArgument() const noexcept { return code_ == Code::kInvalidArgument; }
  bool IsNotFound() const noexcept { return code_ == Code::kNotFound; }
  bool IsAlreadyExists() const noexcept { return code_ == Code::kAlreadyExists; }
  bool IsFrozen() const noexcept { return code_ == Code::kFrozen; }
  bool IsFull() const noexcept { return code_ == Code::kFull; }
  bool IsOutOfMemory() const noexcept { return code_ == Code::kOutOfMemory; }
  bool IsIOError() const noexcept { return code_ == Code::kIOError; }
  bool IsCorruption() const noexcept { return code_ == Code::kCorruption; }
  bool IsNotSupported() const noexcept { return code_ == Code::kNotSupported; }
  Code code() const noexcept { return code_; }
  // The message; empty for OK (and for a status whose message could not be stored).
  const std::string& message() const noexcept;

  // "OK", or "<code name>: <message>".
  std::string ToString() const;
  // The code's name, as ToString writes it ("Invalid argument", ...).
  static const char* CodeName(Code code) noexcept;

 private:
  Status(Code code, std::string_view msg) noexcept;
  static std::unique_ptr<std::string> Copy(const std::unique_ptr<std::string>& m) noexcept;

  Code code_ = Code::kOk;
  std::unique_ptr<std::string> message_;  // null when empty
};

}  // namespace memrep
