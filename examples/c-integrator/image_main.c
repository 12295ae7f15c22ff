/* The board image's main: the NPU up, then inferences on an image the application would fill
 * (a camera, a microphone). */
#include <stdint.h>

#include "arenaplan/runtime.h"

ap_status_t integrator_board_init(void);
ap_status_t integrator_infer(const uint8_t *image, uint32_t bytes, uint8_t *out, uint32_t room);

int main(void) {
    static uint8_t image[128], scores[128];
    if (integrator_board_init() != AP_OK) {
        return 1;
    }
    for (;;) {
        if (integrator_infer(image, sizeof image, scores, sizeof scores) != AP_OK) {
            return 1;
        }
    }
}
