// Declaration-only subset of AscendCL (see acl_base.h): offline models.
#pragma once
#include "acl_base.h"
#include "acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct aclmdlDesc aclmdlDesc;
typedef struct aclmdlDataset aclmdlDataset;

aclError aclmdlLoadFromFile(const char* modelPath, uint32_t* modelId);
aclError aclmdlUnload(uint32_t modelId);
aclError aclmdlQuerySize(const char* fileName, size_t* workSize, size_t* weightSize);
aclmdlDesc* aclmdlCreateDesc();
aclError aclmdlDestroyDesc(aclmdlDesc* modelDesc);
aclError aclmdlGetDesc(aclmdlDesc* modelDesc, uint32_t modelId);
size_t aclmdlGetNumInputs(aclmdlDesc* modelDesc);
size_t aclmdlGetNumOutputs(aclmdlDesc* modelDesc);
size_t aclmdlGetInputSizeByIndex(aclmdlDesc* modelDesc, size_t index);
size_t aclmdlGetOutputSizeByIndex(aclmdlDesc* modelDesc, size_t index);
aclFormat aclmdlGetInputFormat(const aclmdlDesc* modelDesc, size_t index);
aclDataType aclmdlGetInputDataType(const aclmdlDesc* modelDesc, size_t index);
aclmdlDataset* aclmdlCreateDataset();
aclError aclmdlDestroyDataset(const aclmdlDataset* dataset);
aclError aclmdlAddDatasetBuffer(aclmdlDataset* dataset, aclDataBuffer* dataBuffer);
aclError aclmdlExecute(uint32_t modelId, const aclmdlDataset* input, aclmdlDataset* output);
aclError aclmdlExecuteAsync(uint32_t modelId, const aclmdlDataset* input, aclmdlDataset* output, aclrtStream stream);

#ifdef __cplusplus
}
#endif
