// msa-make-large-model: writes a Llama-like decoder, a BERT-like encoder or a GPT-2-style decoder
// of a given size.
//
//   msa-make-large-model llama OUT.onnx --nodes 50000 --weights 1G     (50k nodes, ~1 GB sparse)
//   msa-make-large-model llama OUT.onnx --nodes 1000 --weights 8G --fp16
//   msa-make-large-model bert OUT.onnx --layers 12 --hidden 768 --random --inline
//   msa-make-large-model gpt OUT.onnx --layers 4 --hidden 256 --heads 4 --seq 128 --random --inline --static
//
// Options: --nodes N | --layers N, --weights SIZE (K/M/G suffixes) | --hidden N, --heads N,
// --kv-heads N, --ffn N, --vocab N; --inline (weights in the .onnx), --random (seeded weights;
// default zeros, a sparse data file), --fp16, --static (fixed [batch, sequence], no shape
// arithmetic), --batch N, --seq N, --value-info; gpt: --gelu pow|fast (default fast), its positions
// are the sequence. Prints a JSON summary on stdout.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "large_models.h"

using namespace msa;

namespace {

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(
      stderr,
      "msa-make-large-model: %s\n"
      "usage: msa-make-large-model llama|bert|gpt OUT.onnx [--nodes N | --layers N] [--weights SIZE | --hidden N]\n"
      "       [--heads N] [--kv-heads N] [--ffn N] [--vocab N] [--inline] [--random] [--fp16] [--static]\n"
      "       [--batch N] [--seq N] [--value-info] [--gelu pow|fast]\n",
      why.c_str());
  std::exit(1);
}

int64_t number(const std::string& v, const std::string& opt) {
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  double scale = 1;
  const std::string suffix = end ? std::string(end) : std::string();
  if (suffix == "K" || suffix == "k") scale = 1024.0;
  else if (suffix == "M" || suffix == "m") scale = 1024.0 * 1024;
  else if (suffix == "G" || suffix == "g") scale = 1024.0 * 1024 * 1024;
  else if (!suffix.empty()) usage(opt + ": not a number: " + v);
  if (!(x > 0)) usage(opt + " must be positive");
  return static_cast<int64_t>(x * scale);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) usage("a family (llama, bert or gpt) and an output file are needed");
  const std::string family = argv[1];
  const std::string out = argv[2];
  if (family != "llama" && family != "bert" && family != "gpt") usage("unknown family '" + family + "'");
  std::string gelu = "fast";
  tools::WriteOptions o;
  tools::SizeTarget target;
  int64_t layers = 0, hidden = 0, heads = 0, kvHeads = 0, ffn = 0, vocab = 0;
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&] {
      if (i + 1 >= argc) usage(a + " needs a value");
      return number(argv[++i], a);
    };
    if (a == "--nodes") target.nodes = value();
    else if (a == "--layers") layers = value();
    else if (a == "--weights") target.weightBytes = value();
    else if (a == "--hidden") hidden = value();
    else if (a == "--heads") heads = value();
    else if (a == "--kv-heads") kvHeads = value();
    else if (a == "--ffn") ffn = value();
    else if (a == "--vocab") vocab = value();
    else if (a == "--batch") o.batch = value();
    else if (a == "--seq") o.sequence = value();
    else if (a == "--inline") o.storage = tools::Storage::Inline;
    else if (a == "--random") o.fill = tools::Fill::Random;
    else if (a == "--fp16") o.float16 = true;
    else if (a == "--static") o.dynamicShapes = false;
    else if (a == "--value-info") o.writeValueInfo = true;
    else if (a == "--gelu" && i + 1 < argc) gelu = argv[++i];
    else usage("unknown option " + a);
  }
  Result<tools::Written> w = Error::usage("");
  if (family == "llama") {
    tools::LlamaSpec s = tools::llamaFor(target, o);
    if (layers) s.layers = static_cast<int>(layers);
    if (hidden) s = tools::withHidden(s, hidden);
    if (heads) s.heads = static_cast<int>(heads);
    if (kvHeads) s.kvHeads = static_cast<int>(kvHeads);
    if (ffn) s.ffn = static_cast<int>(ffn);
    if (vocab) s.vocab = static_cast<int>(vocab);
    w = tools::writeLlama(s, o, out);
    if (w)
      std::printf(
          "{\"family\": \"llama\", \"layers\": %d, \"hidden\": %d, \"heads\": %d, \"kv_heads\": %d, \"ffn\": %d, "
          "\"vocab\": %d, ",
          s.layers, s.hidden, s.heads, s.kvHeads, s.ffn, s.vocab);
  } else if (family == "gpt") {
    tools::GptSpec s;
    if (layers) s.layers = static_cast<int>(layers);
    if (hidden) s.hidden = static_cast<int>(hidden);
    if (heads) s.heads = static_cast<int>(heads);
    s.ffn = ffn ? static_cast<int>(ffn) : 4 * s.hidden;
    if (vocab) s.vocab = static_cast<int>(vocab);
    s.maxPositions = static_cast<int>(o.sequence);
    if (gelu != "pow" && gelu != "fast") usage("--gelu: pow or fast");
    s.gelu = gelu == "pow" ? tools::GptSpec::Gelu::Pow : tools::GptSpec::Gelu::Fast;
    w = tools::writeGpt(s, o, out);
    if (w)
      std::printf("{\"family\": \"gpt\", \"layers\": %d, \"hidden\": %d, \"heads\": %d, \"ffn\": %d, \"vocab\": %d, ",
                  s.layers, s.hidden, s.heads, s.ffn, s.vocab);
  } else {
    tools::BertSpec s = tools::bertFor(target, o);
    if (layers) s.layers = static_cast<int>(layers);
    if (hidden) s = tools::withHidden(s, hidden);
    if (heads) s.heads = static_cast<int>(heads);
    if (ffn) s.ffn = static_cast<int>(ffn);
    if (vocab) s.vocab = static_cast<int>(vocab);
    w = tools::writeBert(s, o, out);
    if (w)
      std::printf("{\"family\": \"bert\", \"layers\": %d, \"hidden\": %d, \"heads\": %d, \"ffn\": %d, \"vocab\": %d, ",
                  s.layers, s.hidden, s.heads, s.ffn, s.vocab);
  }
  if (!w) {
    std::fprintf(stderr, "msa-make-large-model: %s\n", w.error().describe().c_str());
    return w.error().kind == ErrorKind::Usage ? 1 : 2;
  }
  std::printf(
      "\"nodes\": %lld, \"nodes_per_layer\": %d, \"initializers\": %lld, \"weight_bytes\": %lld, \"model\": \"%s\", "
      "\"model_bytes\": %lld, \"data\": \"%s\", \"data_bytes\": %lld, \"data_allocated_bytes\": %lld}\n",
      static_cast<long long>(w->nodes), w->nodesPerLayer, static_cast<long long>(w->initializers),
      static_cast<long long>(w->weightBytes), w->model.c_str(), static_cast<long long>(w->modelFileBytes),
      w->data.c_str(), static_cast<long long>(w->dataFileBytes), static_cast<long long>(w->dataAllocatedBytes));
  return 0;
}
