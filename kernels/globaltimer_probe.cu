// Reads %globaltimer back to back, to measure how often it ticks (notebook 02):
// the timelines' resolution. One thread writes every value it reads.
extern "C" __global__ void globaltimer_probe(unsigned long long* out, int reads)
{
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    for (int i = 0; i < reads; ++i) {
        unsigned long long ns;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns) :: "memory");
        out[i] = ns;
    }
}
