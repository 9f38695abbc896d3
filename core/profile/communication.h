#pragma once
// The communication of one rank of a job, as torch_npu records it beside the kernels
// (ASCEND_PROFILER_OUTPUT/communication.json and communication_matrix.json, the job's layout in
// profiler_metadata.json): each operator with its time split into data transit and waiting, the
// bytes it moved on which link, and what it is for — pipeline point-to-point, a stage-crossing
// collective (tied embeddings), data-parallel gradients and parameters, tensor/context/expert
// parallelism, the whole world (a norm or overflow check), a broadcast. An Ascend engineer acts on
// these differently: a stage waiting for its neighbour is balanced, not re-bucketed.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "util/error.h"

namespace msa {

// The job's parallel layout (Megatron-style, profiler_metadata.json's distributed_args and
// parallel_group_info): sizes, this rank, and the named groups this rank belongs to.
struct ParallelLayout {
  int tp = 0, pp = 0, dp = 0, cp = 0, ep = 0;  // 0: not said
  int rank = -1, world = 0;
  struct Group {
    std::string name;        // "dp", "pp", "tp", "embd", "default_group", …
    int groupRank = -1;      // this rank's index in it
    std::vector<int> ranks;  // global ranks
  };
  std::vector<Group> groups;
  bool known() const { return world > 0 || !groups.empty(); }
  // This rank's pipeline stage (0-based) and the number of stages; -1 when the layout does not say.
  int stage() const;
  int stages() const { return pp; }
  // Its data-parallel replica (0-based), -1 when unknown.
  int replica() const;
};

// profiler_metadata.json of a torch_npu rank folder; an empty layout when it has none.
Result<ParallelLayout> readParallelLayout(const std::filesystem::path& metadataJson);

// What a communication operator is for (the advice follows from it).
enum class CommRole {
  Pipeline,        // point-to-point between neighbouring stages
  StageCrossing,   // a collective across pipeline stages: tied embeddings (embd), model-parallel groups
  DataParallel,    // gradient reduction, parameter gathering of a distributed optimizer
  TensorParallel,  // within a layer (tp, sequence parallelism)
  ContextParallel,
  ExpertParallel,
  World,           // every rank: a global norm, an overflow check, a barrier
  Broadcast,       // initialisation, buffers
  Unknown,
};
std::string_view commRoleName(CommRole r);  // "pipeline", "stage_crossing", "data_parallel", …

struct CommOp {
  std::string name;   // the operator as the kernels name it: "hcom_allReduce__170_1_1"
  std::string type;   // "allreduce", "reducescatter", "allgather", "broadcast", "sendrecv", "send", "recv",
                      // "alltoall", "reduce", "other"
  std::string group;  // the communicator as the files name it ("3985310491373102170"), "" unknown
  bool p2p = false;   // filed under "p2p" by communication.json
  double startUs = 0;
  double elapsedMs = 0;  // the whole operator
  double transitMs = 0;  // moving data on its slowest link (the matrix's, else communication.json's)
  double waitMs = 0;     // everything else: waiting for the peers to arrive (elapsed − transit)
  double megabytes = 0;  // on its largest link to another device
  std::string transport;  // that link's: HCCS, RDMA, PCIE, SIO, …
  int localRank = -1;     // this rank's index in the communicator
  int groupSize = 0;      // devices the matrix shows in it (at least)
  CommRole role = CommRole::Unknown;
};

struct CommRecord {
  std::vector<CommOp> ops;  // one profiled step's, in start order
  int steps = 1;            // steps communication.json holds (the ops are their union)
  ParallelLayout layout;
  std::vector<std::string> files;
};

// The communication record of a torch_npu rank folder (its ASCEND_PROFILER_OUTPUT, or any path
// inside it); nullopt when the folder has no communication.json. Malformed files are errors that
// name the file.
Result<std::optional<CommRecord>> readCommunication(const std::filesystem::path& rankFolder);

// The operator type of a communication kernel's name ("hcom_allReduce__170_1_1" → "allreduce").
std::string commTypeOf(std::string_view name);

}  // namespace msa
