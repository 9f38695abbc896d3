#pragma once
// Runs msadvisor-cli from a test and keeps what it printed: the one way the CLI suites call it.
#include <QElapsedTimer>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "test_paths.h"

namespace msa::test {

struct CliRun {
  int exitCode = -1;  // -1: crashed or still running at the timeout (then killed)
  QByteArray out, err;
  qint64 ms = 0;
};

// `program`: another program to start (prlimit, setpriv) that runs the CLI with its arguments.
inline CliRun cli(const QStringList& args, int timeoutMs = 600000,
                  const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment(), const QString& program = {}) {
  QProcess p;
  p.setProcessEnvironment(env);
  QElapsedTimer t;
  t.start();
  p.start(program.isEmpty() ? QString::fromStdString(cliPath().string()) : program, args);
  CliRun r;
  if (!p.waitForFinished(timeoutMs)) {
    p.kill();
    p.waitForFinished(5000);
  } else if (p.exitStatus() == QProcess::NormalExit) {
    r.exitCode = p.exitCode();
  }
  r.out = p.readAllStandardOutput();
  r.err = p.readAllStandardError();
  r.ms = t.elapsed();
  return r;
}

inline nlohmann::json readJson(const std::filesystem::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

inline QString model(const char* name) { return QString::fromStdString(corpusModel(name).string()); }
inline QString path(const std::filesystem::path& p) { return QString::fromStdString(p.string()); }

}  // namespace msa::test
