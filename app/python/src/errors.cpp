#include "errors.h"

#include <string>

namespace msa::py {
namespace {

namespace py = pybind11;

struct Classes {
  py::object base, usage, model, device, verification, cancelled, timeout;
};

Classes& classes() {
  static Classes* c = new Classes();  // lives as long as the interpreter holds the module
  return *c;
}

py::object makeClass(py::module_& m, const char* name, py::handle bases, const char* doc) {
  py::object cls = py::reinterpret_steal<py::object>(
      PyErr_NewExceptionWithDoc((std::string("msadvisor._core.") + name).c_str(), doc, bases.ptr(), nullptr));
  if (!cls) throw py::error_already_set();
  m.attr(name) = cls;
  return cls;
}

const char* kindName(ErrorKind k) {
  switch (k) {
    case ErrorKind::Usage: return "usage";
    case ErrorKind::Model: return "model";
    case ErrorKind::Device: return "device";
    case ErrorKind::Verification: return "verification";
    case ErrorKind::Cancelled: return "cancelled";
  }
  return "model";
}

}  // namespace

void registerErrors(py::module_& m) {
  Classes& c = classes();
  c.base = makeClass(m, "Error", PyExc_RuntimeError, "An msadvisor core error (kind, file, node, message).");
  c.usage = makeClass(m, "UsageError", py::make_tuple(c.base, py::handle(PyExc_ValueError)),
                      "A bad argument or option (the CLI's exit code 1).");
  c.model = makeClass(m, "ModelError", c.base, "A model, profile or trace that cannot be read (exit code 2).");
  c.device = makeClass(m, "DeviceError", c.base, "A device, runtime or profiler failure (exit code 3).");
  c.verification = makeClass(m, "VerificationError", c.base, "Outputs differ beyond tolerance (exit code 4).");
  c.cancelled = makeClass(m, "Cancelled", c.base, "The work was cancelled.");
  c.timeout = makeClass(m, "TimeoutError", py::make_tuple(c.device, py::handle(PyExc_TimeoutError)),
                        "The work did not finish within its timeout (the CLI's exit code 3, error kind 'timeout').");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const CoreError& e) {
      Classes& k = classes();
      py::object cls = e.timeout                                  ? k.timeout
                       : e.error.kind == ErrorKind::Usage          ? k.usage
                       : e.error.kind == ErrorKind::Device       ? k.device
                       : e.error.kind == ErrorKind::Verification ? k.verification
                       : e.error.kind == ErrorKind::Cancelled    ? k.cancelled
                                                                 : k.model;
      py::object exc = cls(e.error.describe());
      exc.attr("kind") = e.timeout ? "timeout" : kindName(e.error.kind);
      exc.attr("file") = e.error.file;
      exc.attr("node") = e.error.node;
      exc.attr("exit_code") = static_cast<int>(e.error.kind);
      PyErr_SetObject(cls.ptr(), exc.ptr());
    }
  });
}

}  // namespace msa::py
