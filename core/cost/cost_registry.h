#pragma once
// Cost formulas keyed by (domain, op type). Each op family registers its ops from its own file;
// adding an op is adding one line to its family, never a case in a central switch.
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cost/cost_context.h"

namespace msa::cost {

using CostFn = OpCost (*)(const CostContext&);

class CostRegistry {
 public:
  static const CostRegistry& instance();

  void add(std::string_view opType, CostFn fn, std::string_view domain = {});
  CostFn find(std::string_view domain, std::string_view opType) const;
  std::vector<std::string> opTypes() const;  // "Conv", "com.microsoft:Gelu"…

 private:
  std::map<std::pair<std::string, std::string>, CostFn, std::less<>> m_fns;
};

// One registration function per family (cost_<family>.cpp).
void registerConvCosts(CostRegistry& r);
void registerMatMulCosts(CostRegistry& r);
void registerElementwiseCosts(CostRegistry& r);
void registerNormCosts(CostRegistry& r);
void registerPoolReduceCosts(CostRegistry& r);
void registerDataCosts(CostRegistry& r);
void registerRnnCosts(CostRegistry& r);

}  // namespace msa::cost
