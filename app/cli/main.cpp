// msadvisor-cli: the engine for scripts and CI. Verbs are listed here; each lives in cmd_<verb>.cpp.
#include <cstdio>
#include <csignal>
#include <cstring>

#include "cli.h"
#include "allocator_options.h"

namespace msa::cli {
extern const Verb kInfoVerb;
extern const Verb kEstimateVerb;
extern const Verb kProfileVerb;
extern const Verb kCalibrateVerb;
extern const Verb kAnalyzeVerb;
extern const Verb kFusionsVerb;
extern const Verb kFormatsVerb;
extern const Verb kKernelsVerb;
extern const Verb kOptimizeVerb;
extern const Verb kCompareVerb;
extern const Verb kTrainingVerb;
extern const Verb kWhatIfVerb;
}  // namespace msa::cli

namespace {

using namespace msa::cli;

const Verb* const kVerbs[] = {
    &kInfoVerb,
    &kEstimateVerb,
    &kProfileVerb,
    &kCalibrateVerb,
    &kAnalyzeVerb,
    &kFusionsVerb,
    &kFormatsVerb,
    &kKernelsVerb,
    &kOptimizeVerb,
    &kCompareVerb,
    &kTrainingVerb,
    &kWhatIfVerb,
};

void printUsage(FILE* out) {
  std::fprintf(out, "usage: msadvisor-cli VERB [options]\n\nverbs:\n");
  for (const Verb* v : kVerbs)
    std::fprintf(out, "  %-12.*s %.*s\n", static_cast<int>(v->name.size()), v->name.data(),
                 static_cast<int>(v->summary.size()), v->summary.data());
  std::fprintf(out,
               "\n'msadvisor-cli VERB --help' shows a verb's options.\n"
               "Exit codes: 0 ok, 1 usage, 2 model or input file error, 3 device or runtime error,\n"
               "4 verification failed, 5 cancelled.\n");
}

void printVerbHelp(const Verb& v) {
  std::printf("usage: msadvisor-cli %.*s\n%.*s\n\noptions:\n", static_cast<int>(v.synopsis.size()), v.synopsis.data(),
              static_cast<int>(v.summary.size()), v.summary.data());
  for (const auto& o : v.options) {
    std::string flag = "--" + std::string(o.name) + (o.takesValue ? " VALUE" : "");
    if (o.shortName) flag = std::string("-") + o.shortName + ", " + flag;
    std::printf("  %-24s %.*s\n", flag.c_str(), static_cast<int>(o.help.size()), o.help.data());
  }
}

}  // namespace

int main(int argc, char** argv) {
  msa::app::fitAllocatorToLimits(argv);
  // A file-size limit (ulimit -f) makes a write fail with EFBIG, reported and cleaned up, instead
  // of killing the process halfway through a file.
  std::signal(SIGXFSZ, SIG_IGN);
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    printUsage(argc < 2 ? stderr : stdout);
    return argc < 2 ? kUsage : kOk;
  }
  if (!std::strcmp(argv[1], "--version")) {
    std::printf("msadvisor-cli %s\n", MSA_VERSION);
    return kOk;
  }
  for (const Verb* v : kVerbs) {
    if (v->name != argv[1]) continue;
    for (int i = 2; i < argc; ++i)
      if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
        printVerbHelp(*v);
        return kOk;
      }
    auto args = parseArgs(*v, std::span<char*>(argv + 2, static_cast<size_t>(argc - 2)));
    if (!args) return fail(args.error());
    if (auto s = checkRunFiles(*v, *args); !s) return fail(s.error());
    if (auto s = applyReadLimits(*args); !s) return fail(s.error());
    if (isSupervised(*v) && !isWorker()) return superviseVerb(*args, argc, argv);
    if (isWorker()) becomeWorker();
    return v->run(*args);
  }
  std::fprintf(stderr, "msadvisor-cli: unknown verb '%s'\n\n", argv[1]);
  printUsage(stderr);
  return kUsage;
}
