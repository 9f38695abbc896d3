#pragma once
// Profiling out of process, for runAnalysis's Measurer hook: `msadvisor-cli profile` child
// processes run from the analysis worker thread by ProfileProcess::run (core's runChild: no
// event loop of its own), so a runtime that crashes or hangs takes the child down, never the
// window. Cancelling the worker's Progress stops the child (SIGTERM, SIGKILL after the grace). An edited document is written to a temporary file first: the
// profiler always measures the model on screen, never the original file on disk.
#include <QString>
#include <QStringList>
#include <memory>

#include "advisor/run_analysis.h"
#include "graph/model_document.h"

namespace msa::ui {

struct ChildProfileOptions {
  QString program;     // msadvisor-cli
  int timeoutMs = 30 * 60 * 1000;
  QStringList extra;   // --dim …, --threads …
};

// One `profile MODEL ARGUMENTS` run; progress reports "<key>|<the child's phase>" with `key` naming
// the stage (profile-disabled, profile-all, profile-acl) for the caller to put in words.
Result<ProfileData> profileInChild(const QString& model, const QStringList& arguments, const ChildProfileOptions& options,
                                   const QString& key, const Progress& progress);

// The model file the profiler reads for `document`: its path when it is the file on disk, else
// `model` written into `dir` ("write-model" progress). Errors name the file.
Result<QString> profiledModelFile(const ModelDocument& document, const Model& model, const QString& dir, const Progress& progress);

// The CPU measurer: ONNX Runtime optimizations disabled (one entry per IR node), then all (the
// runtime's fusions and reorders), each a child process.
Measurer childCpuMeasurer(std::shared_ptr<const ModelDocument> document, ChildProfileOptions options);

}  // namespace msa::ui
