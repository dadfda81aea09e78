// Ctrl-C handling: the first SIGINT/SIGTERM asks the running job to stop at the next step
// boundary (so its report and checkpoint are still written); a second one ends the process.
#pragma once

namespace runner {

void install_interrupt_handler();
bool interrupt_requested();
void request_interrupt();  // for tests

}  // namespace runner
