/* The two CMSIS intrinsics Arm's ethosu_driver.c takes from <cmsis_compiler.h> (its default
 * semaphore), for builds without CMSIS: the instructions on Arm, nothing on the host (where
 * arenaplan's device layer replaces the semaphores). On the include path of the driver only. */
#ifndef ARENAPLAN_PORT_CMSIS_COMPILER_H
#define ARENAPLAN_PORT_CMSIS_COMPILER_H
#if defined(__arm__)
#define __WFE() __asm volatile("wfe" ::: "memory")
#define __SEV() __asm volatile("sev" ::: "memory")
#else
#define __WFE() ((void)0)
#define __SEV() ((void)0)
#endif
#endif
