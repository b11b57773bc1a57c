# ns-2.35 reference for the DiffServ part of the parity grid (validation/ns2/grid.py; afsim side
# scenarios/validation/af-rio.toml): N TCP flows in the regime of the Giacomazzi scenarios —
# 576-byte packets, a coarse 500 ms timer, 2 Mb/s access lines whose sender-side queues are
# 100-packet drop-tail, one token bucket per source at the edge (1 Mb/s, 10 packets; in profile
# -> code point 10 = AF11, out of profile -> 12 = AF12), and a RIO-C bottleneck of 30.792 Mb/s
# (the IP rate of an E3 ATM link, given here as a plain link rate).
#
#   src0..src{N/2-1} ─2 Mb/s, 1 ms, DropTail 100─ edgea ─100 Mb/s, 1 ms, dsRED/edge─┐
#   src{N/2}..src{N-1} ─2 Mb/s, 1 ms, DropTail 100─ edgeb ─100 Mb/s, 1 ms, dsRED/edge─┴ core
#        ═30.792 Mb/s, 10 ms, dsRED/core RIO-C═ egress ─2 Mb/s, 1 ms─ dst0..dst{N-1}
#
# Two edge routers because an ns-2 dsRED edge queue holds at most 20 policies (dsPolicy.h,
# MAX_POLICIES 20), one per source here; so N is even and at most 40.
#
# Usage (every argument is optional, key=value):
#   ns af.tcl flows=20 variant=reno seed=1 duration=200
#
#   flows      number of flows (and of source/sink nodes)                          default 20
#   variant    reno (Agent/TCP/Reno), newreno (Agent/TCP/Newreno), both with
#              Agent/TCPSink; sack (Agent/TCP/Sack1 with Agent/TCPSink/Sack1)       default reno
#   seed       seed of ns-2's default RNG (RIO's coin flips); > 0                   default 1
#   duration   simulated seconds                                                     default 200
#   lt         limited transmit singledup_ (1 = ns-2.35's default)                  default 1
#   start_step flow i starts at i * start_step seconds                              default 0.1
#   trace      1: a queue trace of the bottleneck piped through awk splits its drops
#              into overflow (the physical queue was full) and the rest             default 1
#
# Output: one JSON object on stdout (see `finish`), then "TRACE {...}" (trace=1) and
# "TIMEOUTS n0 n1 ..." (every retransmission timeout by flow, from the senders' event trace;
# nrexmit_ leaves out the timeouts that end an ECN reduction, none here), printed by awk when
# their pipes close. Every setting the afsim scenario has to match is set explicitly.

set setup0 [clock microseconds]
source [file join [file dirname [info script]] common.tcl]

array set opt {
    flows 20 variant reno seed 1 duration 200 lt 1 start_step 0.1 trace 1
}
parse_options af.tcl opt $argv
set N $opt(flows)
set T [expr {double($opt(duration))}]
if {$opt(seed) <= 0} { puts stderr "af.tcl: seed must be > 0 (0 = seeded from the clock)"; exit 2 }
if {$N % 2 != 0 || $N < 2 || $N > 40} { puts stderr "af.tcl: flows must be even, 2..40"; exit 2 }
set HALF [expr {$N / 2}]
set AGENTS [tcp_agents af.tcl $opt(variant)]

set CP_IN 10
set CP_OUT 12
set PKT 576                           ;# IP packet, bytes
set CIR 1000000                       ;# token bucket rate, bit/s
set CBS [expr {10 * $PKT}]            ;# 10 packets, bytes
set ACCESS_Q 100                      ;# ns-2 queue-limit of the sources' access lines
set BIG_Q 1000                        ;# every other drop-tail queue: never full

# ------------------------------------------------------------------ TCP
# 536-byte payloads + 40 B headers = 576 B; 64 KiB of them as window_ (122 packets); initial
# window 2; a 500 ms tick; no ECN (common.tcl).
tcp_defaults [expr {$PKT - 40}] 122 2 $opt(lt) 0.5 0

# ------------------------------------------------------------------ topology
set ns [new Simulator]
global defaultRNG
$defaultRNG seed $opt(seed)

set edge(0) [$ns node]
set edge(1) [$ns node]
set core [$ns node]
set egress [$ns node]
for {set i 0} {$i < $N} {incr i} {
    set src($i) [$ns node]
    set dst($i) [$ns node]
}
foreach e {0 1} {
    $ns simplex-link $edge($e) $core 100Mb 1ms dsRED/edge
    $ns simplex-link $core $edge($e) 100Mb 1ms DropTail
    $ns queue-limit $edge($e) $core $BIG_Q
    $ns queue-limit $core $edge($e) $BIG_Q
}
$ns simplex-link $core $egress 30.792Mb 10ms dsRED/core
$ns simplex-link $egress $core 30.792Mb 10ms DropTail
$ns queue-limit $core $egress 150
$ns queue-limit $egress $core $BIG_Q
for {set i 0} {$i < $N} {incr i} {
    set e $edge([expr {$i < $HALF ? 0 : 1}])
    $ns duplex-link $src($i) $e 2Mb 1ms DropTail
    $ns duplex-link $egress $dst($i) 2Mb 1ms DropTail
    $ns queue-limit $src($i) $e $ACCESS_Q
    foreach {a b} [list $e $src($i) $egress $dst($i) $dst($i) $egress] {
        $ns queue-limit $a $b $BIG_Q
    }
    # drops on the access line's queue (src -> edge)
    set amon($i) [new QueueMonitor]
    [$ns link $src($i) $e] attach-monitors [new SnoopQueue/In] [new SnoopQueue/Out] [new SnoopQueue/Drop] $amon($i)
}

# ------------------------------------------------------------------ DiffServ
foreach e {0 1} {
    set qE($e) [[$ns link $edge($e) $core] queue]
    dsred_in_out $qE($e) $PKT RIO-C
    $qE($e) addPolicerEntry TokenBucket $CP_IN $CP_OUT
    $qE($e) configQ 0 0 900 950 0.02     ;# the edge's own RIO never drops
    $qE($e) configQ 0 1 900 950 0.02
}
# One token bucket per source (per (source, destination) pair), at its edge: CIR in bit/s,
# CBS in bytes, starting full; a packet costs its size (576).
for {set i 0} {$i < $N} {incr i} {
    $qE([expr {$i < $HALF ? 0 : 1}]) addPolicyEntry [$src($i) id] [$dst($i) id] TokenBucket $CP_IN $CIR $CBS
}
set qC [[$ns link $core $egress] queue]

dsred_in_out $qC $PKT RIO-C
$qC configQ 0 0 70 120 0.01          ;# IN: min_th, max_th, max_p (w_q 0.002 by default)
$qC configQ 0 1 10 60 0.2            ;# OUT

# ------------------------------------------------------------------ bottleneck trace
# As diffserv.tcl: a drop that finds `limit` packets queued is an overflow, the rest are RIO's
# (common.tcl, queue_trace).
set trchan ""
if {$opt(trace)} {
    set trchan [queue_trace $ns $core $egress 150 $T $N]
}

# Every retransmission timeout, by flow (common.tcl).
lassign [timeout_trace $N] evchan evtrace

# ------------------------------------------------------------------ flows
for {set i 0} {$i < $N} {incr i} {
    lassign [greedy_flow $ns $src($i) $dst($i) $AGENTS $i [expr {$i * $opt(start_step)}] $evtrace] tcp($i) sink($i)
}

# ------------------------------------------------------------------ report
proc cpstats {q cp} {
    set p 0; set e 0; set l 0
    foreach x $q {
        incr p [expr {int([$x getStat pkts $cp])}]
        incr e [expr {int([$x getStat edrops $cp])}]
        incr l [expr {int([$x getStat drops $cp])}]
    }
    return [format {{"pkts": %d, "edrops": %d, "ldrops": %d}} $p $e $l]
}

proc finish {} {
    global ns opt N T tcp sink amon qE qC trchan evchan wall0 setup0 CP_IN CP_OUT PKT
    set wall [expr {([clock microseconds] - $wall0) / 1e6}]
    set setup [expr {($wall0 - $setup0) / 1e6}]
    set flows {}
    for {set i 0} {$i < $N} {incr i} {
        # TCPSink bytes_: in-order bytes counted at 576 per segment; goodput counts payload.
        # (packet 0 has no header bytes: TcpAgent::output adds headersize() only above seqno 0)
        set segs [expr {(int([$sink($i) set bytes_]) + 40) / $PKT}]
        lappend flows [format {{"goodput_bytes": %d, "data_pkts_sent": %d, "rexmit_pkts": %d, "timeouts": %d, "access_drops": %d}} \
            [expr {$segs * ($PKT - 40)}] [$tcp($i) set ndatapack_] [$tcp($i) set nrexmitpack_] \
            [$tcp($i) set nrexmit_] [$amon($i) set pdrops_]]
    }
    puts [format {{"simulator": "ns-2", "variant": "%s", "flows_n": %d, "seed": %d, "duration_s": %s, "wall_s": %.6f, "setup_s": %.6f,
 "edge": {"%d": %s, "%d": %s},
 "core": {"%d": %s, "%d": %s},
 "flows": [%s]}} \
        $opt(variant) $N $opt(seed) $T $wall $setup \
        $CP_IN [cpstats [list $qE(0) $qE(1)] $CP_IN] $CP_OUT [cpstats [list $qE(0) $qE(1)] $CP_OUT] \
        $CP_IN [cpstats $qC $CP_IN] $CP_OUT [cpstats $qC $CP_OUT] \
        [join $flows ",\n  "]]
    flush stdout
    if {$trchan != ""} {
        $ns flush-trace
        close $trchan
    }
    close $evchan
    exit 0
}
$ns at $T "finish"
$ns at 0.0 {set wall0 [clock microseconds]}
$ns run
