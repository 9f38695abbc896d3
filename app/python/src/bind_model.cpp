// Models: loaded from a path or from serialized bytes (torch.onnx.export's output, an
// onnx.ModelProto's SerializeToString()), described, serialized and saved.
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "bindings.h"
#include "errors.h"
#include "model/onnx_io.h"
#include "util/read_limits.h"
#include "util/run_files.h"

namespace msa::py {

void writeOutput(const std::filesystem::path& out, const std::string& text, const Model* model,
                 const std::vector<std::string>& reads) {
  ReadFiles files;
  if (model) addModelFiles(files, *model);
  for (const std::string& r : reads) files.add(r, "an input of the run");
  Status s = Ok{};
  {
    pybind11::gil_scoped_release nogil;
    s = writeOutputFile(files, out, text, "the report");
  }
  unwrap(std::move(s));
}
namespace {

namespace py = pybind11;

py::list valueInfos(const Model& m, const std::vector<ValueInfo>& values, bool skipInitializers) {
  py::list out;
  for (const ValueInfo& v : values) {
    if (skipInitializers && m.graph.findInitializer(v.name)) continue;
    py::list dims;
    if (v.type.shape)
      for (const Dim& d : v.type.shape->dims) {
        if (d.known()) dims.append(d.value);
        else dims.append(d.param.empty() ? py::object(py::none()) : py::object(py::str(d.param)));
      }
    py::dict d;
    d["name"] = v.name;
    d["dtype"] = std::string(dtypeName(v.type.elem));
    d["shape"] = v.type.shape ? py::object(dims) : py::object(py::none());
    out.append(d);
  }
  return out;
}

ModelHandle fromPath(const std::filesystem::path& path) {
  py::gil_scoped_release nogil;  // parsing a large model takes a while; no Python object is touched
  return {std::make_shared<const Model>(unwrap(loadModel(path)))};
}

ModelHandle fromBytes(const py::bytes& data, const std::string& label, const std::filesystem::path& baseDir) {
  const std::string_view view = data;  // the bytes object stays alive for the call
  py::gil_scoped_release nogil;
  return {std::make_shared<const Model>(unwrap(loadModelFromBytes(view, baseDir, label)))};
}

}  // namespace

void bindModel(py::module_& m) {
  m.def(
      "set_read_limits",
      [](std::optional<uint64_t> maxEvents, std::optional<uint64_t> maxNames) {
        ReadLimits l = readLimits();  // the environment's (MSA_MAX_EVENTS, MSA_MAX_NAMES) or the defaults
        if (maxEvents) l.maxEvents = *maxEvents;
        if (maxNames) l.maxNames = *maxNames;
        if (l.maxEvents < 1 || l.maxNames < 1) throw CoreError{Error::usage("read limits are at least 1")};
        setReadLimits(l);
        return py::make_tuple(l.maxEvents, l.maxNames);
      },
      py::arg("max_events") = py::none(), py::arg("max_names") = py::none(),
      "How much of one profile a reader holds (the CLI's --max-events / --max-names); returns the limits now in force.");
  py::class_<ModelHandle>(m, "Model", "An ONNX model loaded by the core (immutable).")
      .def_property_readonly("path", [](const ModelHandle& h) { return h.model->path.string(); })
      .def_property_readonly("node_count", [](const ModelHandle& h) { return h.model->graph.totalNodeCount(); })
      .def_property_readonly("node_names",
                             [](const ModelHandle& h) {
                               std::vector<std::string> names;
                               for (const Node& n : h.model->graph.nodes) names.push_back(n.name);
                               return names;
                             })
      .def_property_readonly("op_histogram",
                             [](const ModelHandle& h) {
                               std::map<std::string, int> ops;
                               h.model->graph.forEachGraph([&](const Graph& g, int) {
                                 for (const Node& n : g.nodes) ++ops[n.opType];
                               });
                               return ops;
                             })
      .def_property_readonly("inputs", [](const ModelHandle& h) { return valueInfos(*h.model, h.model->graph.inputs, true); })
      .def_property_readonly("outputs", [](const ModelHandle& h) { return valueInfos(*h.model, h.model->graph.outputs, false); })
      .def_property_readonly("opset", [](const ModelHandle& h) { return h.model->opset(""); })
      .def(
          "serialize",
          [](const ModelHandle& h) {
            std::string bytes;
            {
              py::gil_scoped_release nogil;
              bytes = unwrap(serializeModel(*h.model));
            }
            return py::bytes(bytes);
          },
          "The model as ONNX bytes (weights inline).")
      .def(
          "save",
          [](const ModelHandle& h, const std::filesystem::path& out) {
            py::gil_scoped_release nogil;
            unwrap(saveModel(*h.model, out));
          },
          py::arg("path"), "Writes the model atomically; never over the file it was loaded from.");
  m.def("load_model", &fromPath, py::arg("path"), "Loads an ONNX file (external data is memory-mapped).");
  m.def("load_model_bytes", &fromBytes, py::arg("data"), py::arg("label") = "<memory>",
        py::arg("base_dir") = std::filesystem::path(), "Loads a serialized ONNX model.");
}

}  // namespace msa::py
