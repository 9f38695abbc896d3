// A stand-in for `msadvisor-cli profile` that misbehaves on demand, for tst_profile_process.
// Called as: fake_profiler profile MODEL --mode MODE [...] --progress json --json OUT
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

namespace {

void progress(const char* phase, double f) {
  std::fprintf(stderr, "{\"event\":\"progress\",\"phase\":\"%s\",\"fraction\":%g}\n", phase, f);
  std::fflush(stderr);
}

volatile sig_atomic_t g_term = 0;
extern "C" void onTerm(int) { g_term = 1; }

}  // namespace

int main(int argc, char** argv) {
  std::string mode, out;
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--mode")) mode = argv[i + 1];
    if (!std::strcmp(argv[i], "--json")) out = argv[i + 1];
  }
  if (mode == "ok") {
    progress("warm-up", 0.0);
    std::fprintf(stderr, "a human-readable line the parent must tolerate\n");
    progress("profiling", 0.5);
    progress("profiling", 1.0);
    std::ofstream(out) << R"({"device":"cpu","runtime":"fake","iterations":3,
      "latency_ms":{"median":2.5,"p10":2.4,"p90":2.7},
      "nodes":[{"name":"/conv1/Conv","op_type":"Conv","ir_nodes":["/conv1/Conv"],"median_ms":1.25,"p10_ms":1.2,"p90_ms":1.3,"kernel":"CPUExecutionProvider","input_shapes":["[1,3,224,224]"],"output_shapes":["[1,64,112,112]"]}],
      "unmatched":["ReorderInput_1"]})";
    return 0;
  }
  if (mode == "hang") {  // ignores SIGTERM: only SIGKILL ends it
    signal(SIGTERM, SIG_IGN);
    progress("profiling", 0.1);
    for (int i = 0; i < 600; ++i) sleep(1);
    return 0;
  }
  if (mode == "slow") {  // honours SIGTERM like the real CLI: exit code 5 = cancelled
    struct sigaction sa {};
    sa.sa_handler = onTerm;
    sigaction(SIGTERM, &sa, nullptr);
    progress("profiling", 0.2);
    for (int i = 0; i < 600 && !g_term; ++i) usleep(50 * 1000);
    return g_term ? 5 : 0;
  }
  if (mode == "garbage") {
    std::fprintf(stderr, "{\"event\":\"progress\",\"phase\":\"x\",\"fraction\":\"nan\"}\n{broken json\n\x01\x02\xff\xfe\n");
    std::ofstream(out) << "{\"device\": \"cpu\", \"nodes\": [ {\"name\": ";  // cut short
    return 0;
  }
  if (mode == "wrong-json") {
    std::ofstream(out) << "[1, 2, 3]";
    return 0;
  }
  if (mode == "no-result") return 0;
  if (mode == "error-record") {
    std::ofstream(out) << R"({"error":{"kind":"device","exit_code":3,"message":"onnxruntime: model.onnx: node 'Add_3': Non-zero status code returned while running Add node"}})";
    std::fprintf(stderr, "msadvisor-cli: something else\n");
    return 3;
  }
  if (mode == "stderr-error") {
    std::fprintf(stderr, "some log line\nmsadvisor-cli: resnet18.onnx: cannot open the file\nmore log\n");
    return 2;
  }
  if (mode == "crash") {
    progress("profiling", 0.3);
    signal(SIGSEGV, SIG_DFL);  // a real crash even under a sanitizer's handler
    raise(SIGSEGV);
  }
  std::fprintf(stderr, "fake_profiler: unknown mode '%s'\n", mode.c_str());
  return 1;
}
