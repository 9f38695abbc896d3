// Declaration-only subset of AscendCL (see acl_base.h): the umbrella header.
#pragma once
#include "acl_base.h"
#include "acl_mdl.h"
#include "acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

aclError aclInit(const char* configPath);
aclError aclFinalize();

#ifdef __cplusplus
}
#endif
