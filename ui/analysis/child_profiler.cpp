#include "analysis/child_profiler.h"

#include <QFileInfo>
#include <QTemporaryDir>

#include "model/onnx_io.h"
#include "profile_process.h"

namespace msa::ui {

Result<ProfileData> profileInChild(const QString& model, const QStringList& arguments, const ChildProfileOptions& options,
                                   const QString& key, const Progress& progress) {
  ProfileProcess::Request r;
  r.program = options.program;
  r.model = model;
  r.timeoutMs = options.timeoutMs;
  r.arguments = arguments + options.extra;
  const Progress keyed(
      [&progress, &key](std::string_view phase, double f) {
        const QByteArray text = (key + QLatin1Char('|') + QString::fromUtf8(phase.data(), static_cast<qsizetype>(phase.size()))).toUtf8();
        progress.report(std::string_view(text.constData(), static_cast<size_t>(text.size())), f);
      },
      progress.cancelFlag());
  return ProfileProcess::run(r, keyed);
}

Result<QString> profiledModelFile(const ModelDocument& document, const Model& model, const QString& dir, const Progress& progress) {
  if (document.onDisk) return document.path;
  progress.report("write-model", 0);
  const QString path = dir + QLatin1Char('/') + QFileInfo(document.path).completeBaseName() + QStringLiteral(".edited.onnx");
  SaveOptions o;
  o.keepGeneratedNames = true;  // the profile names the nodes as the document does
  if (const Status s = saveModel(model, path.toStdString(), o); !s) return s.error();
  return path;
}

Measurer childCpuMeasurer(std::shared_ptr<const ModelDocument> document, ChildProfileOptions options) {
  return [document = std::move(document), options = std::move(options)](const Model& model, const MeasureOptions& m,
                                                                         const Progress& progress) -> Result<MeasuredProfiles> {
    QTemporaryDir dir;
    if (!dir.isValid()) return Error::device("cannot create a temporary folder for the edited model");
    auto file = profiledModelFile(*document, model, dir.path(), progress);
    if (!file) return file.error();
    QStringList common{QStringLiteral("--device"), QStringLiteral("cpu"), QStringLiteral("--iterations"),
                       QString::number(m.iterations), QStringLiteral("--warmup"), QString::number(m.warmup)};
    if (m.threads > 0) common << QStringLiteral("--threads") << QString::number(m.threads);
    if (!m.inputsDir.empty()) common << QStringLiteral("--inputs") << QString::fromStdString(m.inputsDir.string());
    MeasuredProfiles out;
    const std::atomic<bool>* cancel = progress.cancelFlag();
    auto half = [&](double lo) {
      return Progress([&progress, lo](std::string_view phase, double f) { progress.report(phase, lo + 0.5 * f); }, cancel);
    };
    auto disabled = profileInChild(*file, common + QStringList{QStringLiteral("--optimization"), QStringLiteral("disabled")}, options,
                                   QStringLiteral("profile-disabled"), half(0));
    if (!disabled) return disabled.error();
    out.disabled = std::move(*disabled);
    auto all = profileInChild(*file, common + QStringList{QStringLiteral("--optimization"), QStringLiteral("all")}, options,
                              QStringLiteral("profile-all"), half(0.5));
    if (!all) return all.error();
    out.runtime = std::move(*all);
    return out;
  };
}

}  // namespace msa::ui
