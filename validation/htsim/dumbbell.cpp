// A dumbbell over csg-htsim's TcpSrc/TcpSink, Queue and Pipe, written for afsim's comparison of
// whole-process time and memory (issue 28; docs/performance.md). It mirrors
// python/afsim/scenarios/scale/tcp-dumbbell.toml: `flows` sources, each behind its own
// 100 Mb/s, 1 ms access link (1000-packet drop-tail queue), share one 100 Mb/s, 20 ms
// bottleneck (500 packets) to `flows` sinks behind 100 Mb/s, 1 ms links; flow i starts at
// i × 1 s / flows; 1040-byte packets; 20 simulated seconds. Optional arguments change the
// bottleneck's rate, the simulated time and the start step, so that the same main also mirrors
// issue 25's dumbbells (bench/tcp-dumbbell-10.toml and -100.toml at 600 s: 10 flows behind a
// 10 Mb/s bottleneck started 0.1 s apart, 100 flows behind 100 Mb/s started 0.01 s apart;
// validation/htsim/dumbbells.sh). Differences, stated: htsim's
// Queue is drop-tail (afsim's bottleneck is RED, as ns-2's is), its TCP is htsim's NewReno-like
// TcpSrc with its retransmission-timer scanner (10 ms period), not ns-2's or afsim's.
//
// Usage: dumbbell FLOWS [BOTTLENECK_MBPS [SECONDS [START_STEP_S]]]  (defaults 100, 20, 1/FLOWS;
// prints the flow count, the bytes acknowledged to all sources, and the simulated seconds).
// Build and run with run.sh.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "eventlist.h"
#include "network.h"
#include "pipe.h"
#include "queue.h"
#include "tcp.h"

int main(int argc, char** argv) {
    if (argc < 2 || argc > 5) {
        std::fprintf(stderr, "usage: %s FLOWS [BOTTLENECK_MBPS [SECONDS [START_STEP_S]]]\n",
                     argv[0]);
        return 2;
    }
    const int flows = std::atoi(argv[1]);
    const int mbps = argc > 2 ? std::atoi(argv[2]) : 100;
    const double seconds = argc > 3 ? std::atof(argv[3]) : 20.0;
    const double step_s = argc > 4 ? std::atof(argv[4]) : 0.0;
    if (flows <= 0 || mbps <= 0 || !(seconds > 0) || !(step_s >= 0)) {
        std::fprintf(stderr,
                     "FLOWS and BOTTLENECK_MBPS must be positive integers, SECONDS positive, "
                     "START_STEP_S not negative\n");
        return 2;
    }
    EventList events;
    events.setEndtime(timeFromSec(seconds));
    Packet::set_packet_size(1040);

    const linkspeed_bps rate = speedFromMbps((uint64_t)100);
    const linkspeed_bps bottleneck_rate = speedFromMbps((uint64_t)mbps);
    // the shared parts: the bottleneck's queue both ways, and the delay lines (a pipe is a
    // pure delay, so all flows can share one of each length)
    Queue bottleneck(bottleneck_rate, memFromPkt(500), events, nullptr);
    Queue bottleneck_back(bottleneck_rate, memFromPkt(500), events, nullptr);
    Pipe access_up(timeFromMs(1), events), core(timeFromMs(20), events),
        access_down(timeFromMs(1), events);
    Pipe access_up_back(timeFromMs(1), events), core_back(timeFromMs(20), events),
        access_down_back(timeFromMs(1), events);
    TcpRtxTimerScanner scanner(timeFromMs(10), events);

    std::vector<TcpSink*> sinks;
    for (int i = 0; i < flows; i++) {
        TcpSrc* src = new TcpSrc(nullptr, nullptr, events);
        TcpSink* sink = new TcpSink();
        scanner.registerTcp(*src);
        // src -> r1 -> r2 -> dst, each access link with its own queue
        route_t* out = new route_t();
        out->push_back(new Queue(rate, memFromPkt(1000), events, nullptr));
        out->push_back(&access_up);
        out->push_back(&bottleneck);
        out->push_back(&core);
        out->push_back(new Queue(rate, memFromPkt(1000), events, nullptr));
        out->push_back(&access_down);
        out->push_back(sink);
        // the ACKs: dst -> r2 -> r1 -> src
        route_t* back = new route_t();
        back->push_back(new Queue(rate, memFromPkt(1000), events, nullptr));
        back->push_back(&access_down_back);
        back->push_back(&bottleneck_back);
        back->push_back(&core_back);
        back->push_back(new Queue(rate, memFromPkt(1000), events, nullptr));
        back->push_back(&access_up_back);
        back->push_back(src);
        // (the default in whole picoseconds, as before the step was an argument)
        const simtime_picosec start =
            argc > 4 ? timeFromSec(step_s * i) : timeFromSec(1.0) * i / flows;
        src->connect(*out, *back, *sink, start);
        sinks.push_back(sink);
    }
    while (events.doNextEvent()) {
    }
    uint64_t acked = 0;
    for (TcpSink* s : sinks) {
        acked += s->cumulative_ack();
    }
    std::printf("flows %d acked_bytes %llu end_s %.3f\n", flows, (unsigned long long)acked,
                timeAsSec(events.now()));
    return 0;
}
