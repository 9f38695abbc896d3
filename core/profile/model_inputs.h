#pragma once
// Inputs for running a model: seeded random tensors whose integer values the graph can use
// (token ids below the vocabulary, masks, indices in bounds, a sample rate the model checks), or
// values loaded from a folder of ONNX TensorProto .pb / NumPy .npy files.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/data_value.h"
#include "model/graph.h"
#include "util/error.h"

namespace msa {

struct InputOptions {
  uint64_t seed = 1234;
  enum class FloatFill { Normal, Uniform };  // N(0,1) or U(-1,1)
  FloatFill floatFill = FloatFill::Normal;
  // Symbolic dims: by name ("batch") or by "input:axis" ("x:3"), as `--dim` gives them.
  std::map<std::string, int64_t, std::less<>> dims;
  // loadInputs: refuse files whose dtype or known dims differ from the input's declaration.
  // Off, the runtime is left to judge (the backend suite's control run does exactly that).
  bool checkShapes = true;
};

// How one input was made, for reports and tests.
struct InputPlan {
  std::string name;
  std::string dtype;
  std::vector<int64_t> shape;
  std::string rule;  // "N(0,1)", "ids in [0, 8192): Gather on 'tok.weight' axis 0", "mask {0,1}: …"
};

// The graph inputs that need values: declared inputs that are not initializers.
std::vector<const ValueInfo*> runtimeInputs(const Graph& g);

// The concrete shape of an input after binding symbolic dims; an error names the unbound ones.
Result<std::vector<int64_t>> concreteShape(const ValueInfo& input, const InputOptions& options);

// Random values for every runtime input, the same for the same seed and options.
Result<std::vector<Tensor>> makeRandomInputs(const Model& model, const InputOptions& options,
                                             std::vector<InputPlan>* plan = nullptr);

// Values from a folder: "<input name>.pb" / "<input name>.npy" (names with '/' or ':' may use
// '_' instead), or "input_<k>.pb" / "input_<k>.npy" for the k-th runtime input, as ONNX's
// test_data_set_N folders hold them. Every runtime input needs a file; dtypes and known dims
// must match. Sequence and optional inputs read SequenceProto / OptionalProto .pb files.
Result<std::vector<DataValue>> loadInputs(const Model& model, const std::filesystem::path& dir,
                                          const InputOptions& options = {});

// Several sets of inputs (calibration, accuracy): each .npz archive in `dir` is one (arrays named
// after the inputs, or input_K / arr_K by position), each subfolder is one (read as loadInputs
// reads a folder: ONNX's test_data_set_N layout), in name order, at most `maxSamples`; a folder
// with neither is itself the one set.
Result<std::vector<std::vector<DataValue>>> loadInputSamples(const Model& model, const std::filesystem::path& dir,
                                                            const InputOptions& options = {}, size_t maxSamples = 256);

// A runtime failure while running the model on `inputs`, in words a user can act on: when the
// runtime rejects a shape ("Invalid input shape: {65}", a Reshape or broadcast that does not
// fit), which inputs it ran on, the symbolic dims given for them, and that the model needs other
// sizes; any other error unchanged.
Error explainRunFailure(const Error& e, const Model& model, const std::vector<DataValue>& inputs,
                        const InputOptions& options);

// What the user gives for one input instead of a random value: a number that fills it (a
// scalar such as Silero's sample rate `sr` = 16000) or a .npy / .pb file.
struct GivenInput {
  std::optional<double> fill;
  std::filesystem::path file;
};

// Writes the folder loadInputs reads: the given inputs (files copied under the input's name,
// numbers filling the input's shape in its dtype) and seeded random values for the others, so a
// profiler child given `--inputs DIR` runs on them. An error names the input.
Status writeInputFolder(const Model& model, const std::map<std::string, GivenInput, std::less<>>& given,
                        const InputOptions& options, const std::filesystem::path& dir);

}  // namespace msa
