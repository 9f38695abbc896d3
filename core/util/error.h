#pragma once
// Errors as values: every fallible core function returns Result<T>. The kind maps onto the
// command-line exit codes of DESIGN.md, so the CLI and the UI never have to guess.
#include <string>
#include <utility>
#include <variant>

namespace msa {

enum class ErrorKind {
  Usage = 1,         // bad arguments or options
  Model = 2,         // model or input file unreadable, invalid or unsupported
  Device = 3,        // device, runtime or profiler failure
  Verification = 4,  // outputs differ beyond tolerance
  Cancelled = 5,     // the user stopped the work; not a failure
};

struct Error {
  ErrorKind kind = ErrorKind::Model;
  std::string message;  // one sentence, names the file and the node where it can
  std::string file;     // optional: the file the error is about
  std::string node;     // optional: the node the error is about

  std::string describe() const;  // "file: node 'x': message"
  static Error model(std::string msg, std::string file = {}, std::string node = {}) {
    return {ErrorKind::Model, std::move(msg), std::move(file), std::move(node)};
  }
  static Error usage(std::string msg) { return {ErrorKind::Usage, std::move(msg), {}, {}}; }
  static Error device(std::string msg) { return {ErrorKind::Device, std::move(msg), {}, {}}; }
  static Error cancelled() { return {ErrorKind::Cancelled, "cancelled", {}, {}}; }
};

// A minimal std::expected (C++23) stand-in.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : m_v(std::move(value)) {}
  Result(Error error) : m_v(std::move(error)) {}

  bool ok() const { return m_v.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(m_v); }
  const T& value() const& { return std::get<0>(m_v); }
  T&& value() && { return std::get<0>(std::move(m_v)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(m_v); }

 private:
  std::variant<T, Error> m_v;
};

struct Ok {};
using Status = Result<Ok>;

}  // namespace msa
