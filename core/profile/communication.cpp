#include "profile/communication.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "profile/json_file.h"
#include "profile/npu_folder.h"

namespace fs = std::filesystem;

namespace msa {
namespace {

using nlohmann::json;

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool isFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// The ASCEND_PROFILER_OUTPUT of a rank folder, whichever path inside it was given.
fs::path outputFolder(fs::path p) {
  std::error_code ec;
  if (!fs::is_directory(p, ec)) p = p.parent_path();
  for (fs::path d = p; !d.empty(); d = d.parent_path()) {
    if (d.filename() == "ASCEND_PROFILER_OUTPUT") return d;
    if (fs::is_directory(d / "ASCEND_PROFILER_OUTPUT", ec)) return d / "ASCEND_PROFILER_OUTPUT";
    if (d == d.parent_path() || training::isFrameworkRunName(d.filename().string())) break;
  }
  // A folder holding one rank's folder.
  fs::path only;
  for (const auto& e : fs::directory_iterator(p, ec)) {
    if (!e.is_directory(ec) || !fs::is_directory(e.path() / "ASCEND_PROFILER_OUTPUT", ec)) continue;
    if (!only.empty()) return {};
    only = e.path() / "ASCEND_PROFILER_OUTPUT";
  }
  return only;
}

int intAt(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_number_integer() ? it->get<int>() : 0;
}

// The group's role from its name (Megatron's and MindSpeed's spellings).
std::optional<CommRole> roleOfGroupName(const std::string& raw, const ParallelLayout& l) {
  const std::string n = lower(raw);
  if (n == "default_group" || n == "world" || n == "global") return CommRole::World;
  if (n == "pp" || n == "pipeline") return CommRole::Pipeline;
  if (n == "embd" || n == "pos_embd" || n == "embedding" || n == "position_embedding") return CommRole::StageCrossing;
  // Model parallelism is tensor × pipeline: across stages when there are stages and no tensor split.
  if (n == "mp" || n == "model") return l.pp > 1 && l.tp <= 1 ? CommRole::StageCrossing : CommRole::TensorParallel;
  if (n.starts_with("dp") || n == "data" || n == "intra_dp" || n == "inter_dp") return CommRole::DataParallel;
  if (n.starts_with("tp") || n == "tensor") return CommRole::TensorParallel;
  if (n == "cp" || n == "context") return CommRole::ContextParallel;
  if (n.starts_with("ep") || n.starts_with("exp") || n == "expert") return CommRole::ExpertParallel;
  return std::nullopt;
}

std::vector<std::string> opTypes() {
  return {"reducescatter", "allreduce", "allgather", "alltoall", "broadcast", "batchsendrecv", "sendrecv", "send",
          "receive", "recv", "reduce", "gather", "scatter"};
}

CommRole inferRole(const CommOp& op, const ParallelLayout& l, bool& byGroups) {
  byGroups = false;
  if (op.type == "broadcast") return CommRole::Broadcast;
  if (op.p2p || op.type == "sendrecv" || op.type == "send" || op.type == "recv")
    return l.pp <= 1 && l.cp > 1 ? CommRole::ContextParallel : CommRole::Pipeline;
  // The communicator: the named groups this rank holds the same place in, of the size it shows.
  if (!l.groups.empty() && op.localRank >= 0) {
    std::set<CommRole> roles;
    for (const auto& g : l.groups) {
      if (g.groupRank != op.localRank || g.ranks.size() < 2) continue;
      if (op.groupSize > 0 && static_cast<int>(g.ranks.size()) < op.groupSize) continue;
      if (auto r = roleOfGroupName(g.name, l)) roles.insert(*r);
    }
    // A communicator the size of the world is the world's.
    if (op.groupSize > 0 && l.world > 0 && op.groupSize == l.world) roles = {CommRole::World};
    if (roles.size() == 1) {
      byGroups = true;
      return *roles.begin();
    }
    // Pipeline and stage-crossing groups are one concern: waiting on another stage.
    if (!roles.empty() && std::all_of(roles.begin(), roles.end(), [](CommRole r) {
          return r == CommRole::Pipeline || r == CommRole::StageCrossing;
        })) {
      byGroups = true;
      return CommRole::StageCrossing;
    }
  }
  if (op.type == "alltoall") return CommRole::ExpertParallel;
  if (op.type == "allreduce" || op.type == "reducescatter" || op.type == "allgather" || op.type == "reduce")
    return CommRole::DataParallel;
  return CommRole::Unknown;
}

}  // namespace

std::string_view commRoleName(CommRole r) {
  switch (r) {
    case CommRole::Pipeline: return "pipeline";
    case CommRole::StageCrossing: return "stage_crossing";
    case CommRole::DataParallel: return "data_parallel";
    case CommRole::TensorParallel: return "tensor_parallel";
    case CommRole::ContextParallel: return "context_parallel";
    case CommRole::ExpertParallel: return "expert_parallel";
    case CommRole::World: return "world";
    case CommRole::Broadcast: return "broadcast";
    case CommRole::Unknown: break;
  }
  return "unknown";
}

std::string commTypeOf(std::string_view name) {
  std::string n = lower(std::string(name));
  std::erase_if(n, [](char c) { return c == '_' || c == ' ' || c == '-'; });
  for (const std::string& t : opTypes())
    if (n.find(t) != std::string::npos) {
      if (t == "batchsendrecv") return "sendrecv";
      if (t == "receive") return "recv";
      return t;
    }
  return "other";
}

int ParallelLayout::stage() const {
  // Megatron orders ranks tensor-fastest, pipeline-slowest: a stage is a contiguous block.
  if (pp <= 0 || world <= 0 || rank < 0 || world % pp != 0) return -1;
  return rank / (world / pp);
}

int ParallelLayout::replica() const {
  for (const auto& g : groups)
    if (lower(g.name) == "dp") return g.groupRank;
  return -1;
}

Result<ParallelLayout> readParallelLayout(const fs::path& file) {
  ParallelLayout l;
  if (!isFile(file)) return l;
  auto j = readJsonFile(file);
  if (!j) return j.error();
  if (!j->is_object()) return Error::model("profiler_metadata.json is not a JSON object", file.string());
  if (auto it = j->find("distributed_args"); it != j->end() && it->is_object()) {
    l.tp = intAt(*it, "tensor_model_parallel_size");
    l.pp = intAt(*it, "pipeline_model_parallel_size");
    l.dp = intAt(*it, "data_parallel_size");
    l.cp = intAt(*it, "context_parallel_size");
    l.ep = intAt(*it, "expert_model_parallel_size");
    l.world = intAt(*it, "world_size");
    if (auto r = it->find("rank"); r != it->end() && r->is_number_integer()) l.rank = r->get<int>();
  }
  if (auto it = j->find("parallel_group_info"); it != j->end() && it->is_object())
    for (const auto& [key, g] : it->items()) {
      if (!g.is_object()) continue;
      ParallelLayout::Group group;
      group.name = stringAt(g, "group_name", key);
      if (auto r = g.find("group_rank"); r != g.end() && r->is_number_integer()) group.groupRank = r->get<int>();
      if (auto r = g.find("global_ranks"); r != g.end() && r->is_array())
        for (const auto& x : *r)
          if (x.is_number_integer()) group.ranks.push_back(x.get<int>());
      l.groups.push_back(std::move(group));
    }
  return l;
}

Result<std::optional<CommRecord>> readCommunication(const fs::path& rankFolder) {
  const fs::path out = outputFolder(rankFolder);
  if (out.empty() || !isFile(out / "communication.json")) return std::optional<CommRecord>();
  CommRecord rec;
  auto layout = readParallelLayout(out.parent_path() / "profiler_metadata.json");
  if (!layout) return layout.error();
  rec.layout = std::move(*layout);

  auto comm = readJsonFile(out / "communication.json");
  if (!comm) return comm.error();
  rec.files.push_back((out / "communication.json").string());
  if (!comm->is_object()) return Error::model("communication.json is not a JSON object", (out / "communication.json").string());
  std::map<std::string, size_t> byName;
  rec.steps = 0;
  for (const auto& [step, kinds] : comm->items()) {
    if (!kinds.is_object()) continue;
    ++rec.steps;
    for (const auto& [kind, ops] : kinds.items()) {
      if (!ops.is_object()) continue;
      for (const auto& [key, info] : ops.items()) {
        if (!info.is_object() || key.starts_with("Total")) continue;
        const auto t = info.find("Communication Time Info");
        if (t == info.end() || !t->is_object()) continue;
        CommOp op;
        const auto at = key.find('@');
        op.name = key.substr(0, at);
        op.group = at == std::string::npos ? std::string() : key.substr(at + 1);
        op.type = commTypeOf(op.name);
        op.p2p = kind == "p2p";
        op.startUs = numberAt(*t, "Start Timestamp(us)", 0.0);
        op.elapsedMs = std::max(0.0, numberAt(*t, "Elapse Time(ms)", 0.0));
        op.transitMs = std::max(0.0, numberAt(*t, "Transit Time(ms)", 0.0));
        byName[step + "|" + op.name] = rec.ops.size();
        rec.ops.push_back(std::move(op));
      }
    }
  }
  rec.steps = std::max(1, rec.steps);

  // communication_matrix.json: per link of each operator, what it moved and how long it took.
  // The same operator is listed under several summaries (top1, middle, bottom…): once per link.
  if (isFile(out / "communication_matrix.json")) {
    auto m = readJsonFile(out / "communication_matrix.json");
    if (!m) return m.error();
    rec.files.push_back((out / "communication_matrix.json").string());
    std::set<std::string> seen;
    if (m->is_object())
      for (const auto& [step, kinds] : m->items()) {
        if (!kinds.is_object()) continue;
        for (const auto& [kind, ops] : kinds.items()) {
          if (!ops.is_object()) continue;
          for (const auto& [summary, links] : ops.items()) {
            if (!links.is_object()) continue;
            for (const auto& [link, info] : links.items()) {
              if (!info.is_object()) continue;
              const std::string opName = stringAt(info, "Op Name");
              auto it = byName.find(step + "|" + opName);
              if (it == byName.end() || !seen.insert(step + "|" + opName + "|" + link).second) continue;
              CommOp& op = rec.ops[it->second];
              const auto dash = link.find('-');
              if (dash == std::string::npos) continue;
              int src = -1, dst = -1;
              try {
                src = std::stoi(link.substr(0, dash));
                dst = std::stoi(link.substr(dash + 1));
              } catch (const std::exception&) {
                continue;
              }
              op.groupSize = std::max({op.groupSize, src + 1, dst + 1});
              const std::string transport = stringAt(info, "Transport Type");
              if (src == dst && transport == "LOCAL") {
                op.localRank = src;  // the self link names this rank's place
                continue;
              }
              const double ms = numberAt(info, "Transit Time(ms)", 0.0), mb = numberAt(info, "Transit Size(MB)", 0.0);
              if (ms > op.transitMs) op.transitMs = ms;
              if (mb > op.megabytes) {
                op.megabytes = mb;
                op.transport = transport;
              }
            }
          }
        }
      }
  }
  for (CommOp& op : rec.ops) {
    op.transitMs = std::min(op.transitMs, op.elapsedMs);
    op.waitMs = std::max(0.0, op.elapsedMs - op.transitMs);
    bool byGroups = false;
    op.role = inferRole(op, rec.layout, byGroups);
  }
  std::sort(rec.ops.begin(), rec.ops.end(), [](const CommOp& a, const CommOp& b) { return a.startUs < b.startUs; });
  return std::optional<CommRecord>(std::move(rec));
}

}  // namespace msa
