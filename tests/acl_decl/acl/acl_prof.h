// Declaration-only subset of AscendCL (see acl_base.h): profiling and the per-op subscription.
#pragma once
#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ACL_PROF_ACL_API 0x0001ULL
#define ACL_PROF_TASK_TIME 0x0002ULL
#define ACL_PROF_AICORE_METRICS 0x0004ULL
#define ACL_PROF_AICPU 0x0008ULL
#define ACL_PROF_MAX_OP_NAME_LEN 257
#define ACL_PROF_MAX_OP_TYPE_LEN 65

typedef enum {
  ACL_AICORE_ARITHMETIC_UTILIZATION = 0,
  ACL_AICORE_PIPE_UTILIZATION = 1,
  ACL_AICORE_MEMORY_BANDWIDTH = 2,
  ACL_AICORE_L0B_AND_WIDTH = 3,
  ACL_AICORE_RESOURCE_CONFLICT_RATIO = 4,
  ACL_AICORE_MEMORY_UB = 5,
  ACL_AICORE_NONE = 0xFF,
} aclprofAicoreMetrics;

typedef struct aclprofSubscribeConfig aclprofSubscribeConfig;

aclprofSubscribeConfig* aclprofCreateSubscribeConfig(int8_t timeInfoSwitch, aclprofAicoreMetrics aicoreMetrics,
                                                     void* fd);
aclError aclprofDestroySubscribeConfig(const aclprofSubscribeConfig* profSubscribeConfig);
aclError aclprofModelSubscribe(uint32_t modelId, const aclprofSubscribeConfig* profSubscribeConfig);
aclError aclprofModelUnSubscribe(uint32_t modelId);
aclError aclprofGetOpDescSize(size_t* opDescSize);
aclError aclprofGetOpNum(const void* opInfo, size_t opInfoLen, uint32_t* opNumber);
aclError aclprofGetOpTypeLen(const void* opInfo, size_t opInfoLen, uint32_t index, size_t* opTypeLen);
aclError aclprofGetOpType(const void* opInfo, size_t opInfoLen, uint32_t index, char* opType, size_t opTypeLen);
aclError aclprofGetOpNameLen(const void* opInfo, size_t opInfoLen, uint32_t index, size_t* opNameLen);
aclError aclprofGetOpName(const void* opInfo, size_t opInfoLen, uint32_t index, char* opName, size_t opNameLen);
uint64_t aclprofGetOpStart(const void* opInfo, size_t opInfoLen, uint32_t index);
uint64_t aclprofGetOpEnd(const void* opInfo, size_t opInfoLen, uint32_t index);
uint64_t aclprofGetOpDuration(const void* opInfo, size_t opInfoLen, uint32_t index);
size_t aclprofGetModelId(const void* opInfo, size_t opInfoLen, uint32_t index);

#ifdef __cplusplus
}
#endif
