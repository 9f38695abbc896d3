#pragma once
// Core errors as Python exceptions: msadvisor.Error (a RuntimeError) and one subclass per
// ErrorKind — UsageError (also a ValueError), ModelError, DeviceError, VerificationError — and
// TimeoutError (a DeviceError and Python's TimeoutError: a call ran past its timeout). Each
// carries `kind`, `file` and `node` besides the message (Error::describe()). A cancelled core
// call becomes KeyboardInterrupt only when a signal caused it (job.h); otherwise Cancelled.
#include <utility>

#include <pybind11/pybind11.h>

#include "util/error.h"

namespace msa::py {

// Thrown into pybind11, translated by the registered translator.
struct CoreError {
  Error error;
  bool timeout = false;  // raised as msadvisor.TimeoutError (a DeviceError and a TimeoutError)
};

void registerErrors(pybind11::module_& m);

template <typename T>
T unwrap(Result<T>&& r) {
  if (!r) throw CoreError{r.error()};
  return std::move(r).value();
}

}  // namespace msa::py
