// msa-hostile-cases DIR [SEED]   writes the hostile-input catalogue (tests/support/hostile_cases.h)
// msa-hostile-cases --markdown   prints its table, as docs/robustness.md holds it
// msa-hostile-cases --json       the same as JSON (the Python test reads it)
#include <cstdio>
#include <cstdlib>
#include <string>

#include "hostile_cases.h"

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--markdown") {
    std::fputs(msa::test::hostileCasesMarkdown().c_str(), stdout);
    return 0;
  }
  if (argc == 2 && std::string(argv[1]) == "--json") {
    std::puts(msa::test::hostileCasesJson().c_str());
    return 0;
  }
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: msa-hostile-cases DIR [SEED] | --markdown | --json\n");
    return 1;
  }
  msa::test::writeHostileCases(argv[1], argc == 3 ? std::strtoull(argv[2], nullptr, 10) : 14);
  std::printf("%zu cases written under %s\n", msa::test::hostileCases().size(), argv[1]);
  return 0;
}
