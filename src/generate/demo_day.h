// The bundled demo: a day of mixed work on a 32-node, 256-GPU cluster, as Kubernetes objects
// for `quotient simulate` (`quotient generate demo`, scripts/demo.sh, docs/simulate-command.md).
//
// Two departments and five projects with quotas and over-quota weights:
//   research (160 GPUs, weight 2): llm 96 (weight 2), vision 40, speech 24
//   product  (96 GPUs, weight 1):  recsys 64, evals 32
// and the day's work, which makes the scheduler's behaviours visible:
//   - 01:00 recsys starts a 200-pod hyperparameter sweep (one GPU each, 10-11 h): it borrows
//     the idle GPUs of the other projects;
//   - 09:00 llm's 96-GPU pre-training gang arrives: it reclaims its quota from the sweep;
//   - distributed training gangs (2-8 pods of 8 GPUs, or 4 pods of 4) through the day;
//   - evaluation fan-outs every 90 minutes (32 one-GPU pods of 10-40 minutes, evals), and every
//     3 hours (12 pods, vision);
//   - interactive notebook sessions in working hours, 08:00-20:00: fractional GPUs (0.25, 0.5),
//     1-4 hours, non-preemptible (class build).
// Arrival times and durations of the random parts come from `seed`; the same seed gives the
// same objects.
#pragma once

#include <cstdint>

#include "generate/cluster_generator.h"

namespace quotient::generate {

void ForEachDemoDayObject(uint64_t seed, const ObjectVisitor& visit);

}  // namespace quotient::generate
