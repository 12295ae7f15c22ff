/* Start-up for the Cortex-M55 image of corstone-300.ld: the vector table (the NPU's interrupt,
 * IRQ 56, goes to firmware.c's NPU_IRQHandler), and a reset handler that copies .data from
 * ITCM, zeroes .bss, turns the FPU on (the code is built for the hard-float ABI) and calls main.
 * arenaplan's arenas are NOLOAD: nothing here touches them. */
#include <stdint.h>

extern uint32_t __data_start__, __data_end__, __data_load__, __bss_start__, __bss_end__, __stack_top__;
int main(void);
void NPU_IRQHandler(void);

void Reset_Handler(void);
static void Default_Handler(void) {
    for (;;) {
    }
}

void Reset_Handler(void) {
    uint32_t *from = &__data_load__, *to = &__data_start__;
    while (to < &__data_end__) {
        *to++ = *from++;
    }
    for (uint32_t *b = &__bss_start__; b < &__bss_end__; b++) {
        *b = 0;
    }
    /* CPACR: full access to CP10 and CP11 (the FPU and Helium), before any FP instruction. */
    *(volatile uint32_t *)0xE000ED88u |= 0xFu << 20;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    (void)main();
    for (;;) {
    }
}

/* 16 system exceptions, then the external interrupts up to the NPU's (IRQ 56). */
__attribute__((section(".vectors"), used)) static void (*const vectors[16 + 57])(void) = {
    [0] = (void (*)(void))(uintptr_t)&__stack_top__,
    [1] = Reset_Handler,
    [2 ... 15] = Default_Handler,
    [16 ... 16 + 55] = Default_Handler,
    [16 + 56] = NPU_IRQHandler,
};
