/*
 * Delegate blobs linked as binaries: the generated NAME_program.c names each blob's file
 * (NAME_blobN.bin, written beside it) and the assembler copies its bytes into the object with
 * `.incbin`. A C array of the same bytes is text six times the blob's size for the
 * C compiler to parse (seconds and hundreds of megabytes for a blob of a few megabytes).
 *
 * The assembler finds the file on the include path: compile NAME_program.c with its folder on
 * it (-I), as its header needs anyway. Requires GCC or Clang on an ELF target (Cortex-M,
 * Linux); elsewhere generate C arrays (`arenaplan plan --blobs c`, or
 * `Build::blobs(Blobs::CArray)`).
 */
#ifndef ARENAPLAN_INCBIN_H
#define ARENAPLAN_INCBIN_H

#include <stdint.h>

#if !defined(__ELF__) || !defined(__GNUC__)
#error "arenaplan: blobs linked with .incbin need GCC or Clang for an ELF target; generate C arrays instead (arenaplan plan --blobs c, or Build::blobs(Blobs::CArray))"
#endif

/*
 * Defines `const uint8_t sym[]`, 16-byte aligned (as the NPU drivers read command streams and
 * weights), holding the bytes of `file`, in input section `section` (read-only data, loaded).
 * The symbol is global for the assembler but hidden from other modules: its C declaration is
 * the only name for it. `.size` lets tools (nm, the linker's map) report the blob's bytes.
 */
#define AP_INCBIN(sym, file, section)                                                          \
    extern const uint8_t sym[] __asm__(#sym) __attribute__((visibility("hidden")));           \
    __asm__(".pushsection " section ",\"a\"\n"                                                 \
            ".balign 16\n"                                                                     \
            ".globl " #sym "\n"                                                                \
            ".hidden " #sym "\n"                                                               \
            ".type " #sym ", %object\n" #sym ":\n"                                             \
            ".incbin \"" file "\"\n"                                                           \
            ".size " #sym ", . - " #sym "\n"                                                   \
            ".popsection\n")

#endif /* ARENAPLAN_INCBIN_H */
