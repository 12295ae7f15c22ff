# A CMake toolchain file for Cortex-M55 firmware with Arm's GNU toolchain (arm-none-eabi-gcc):
#   cmake -S ... -B ... -DCMAKE_TOOLCHAIN_FILE=<arenaplan>/runtime-c/cmake/arm-none-eabi-cortex-m55.cmake
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR cortex-m55)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
# Without start-up code a test program cannot link: CMake's checks build a static library.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_C_FLAGS_INIT "-mcpu=cortex-m55 -mthumb -mfloat-abi=hard -ffunction-sections -fdata-sections")
