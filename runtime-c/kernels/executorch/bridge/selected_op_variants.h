/* ExecuTorch's selective_build.h includes a header of this name for the selection. A unit
 * arenaplan generates defines its selection itself, before (ap_et_selective.h): this one adds
 * nothing. */
#pragma once
