# ns-2.35 reference for afsim's DiffServ edge and RIO-C core (scenarios/validation/diffserv-rio.toml):
# 20 TCP NewReno flows (no SACK), each metered at the edge by its own token bucket (in profile
# -> code point 10 = AF11, out of profile -> 12 = AF12), sharing a 10 Mb/s RIO-C bottleneck.
#
#   srca0..9 ─┐                                                            ┌─ dsta0..9
#             ├─100Mb,1ms─ edge ─100Mb,1ms,dsRED/edge─ core ═10Mb,20ms,dsRED/core═ egress ─100Mb,1ms─┤
#   srcb0..9 ─┘                                                            └─ dstb0..9
#
#   flows 0..9:   srca_i -> dsta_i, CIR cir_a     flows 10..19: srcb_i -> dstb_i, CIR cir_b
#
# Usage (every argument is optional, key=value):
#   ns diffserv.tcl seed=1 duration=200
#
#   seed       seed of ns-2's default RNG (RIO's coin flips); > 0                  default 1
#   duration   simulated seconds                                                    default 200
#   cir_a      committed rate of flows 0..9, bit/s (TokenBucket CIR)                default 200000
#   cir_b      committed rate of flows 10..19, bit/s                                default 600000
#   cbs        committed burst size of every bucket, bytes (TokenBucket CBS)        default 10000
#   limit      physical queue limit of the bottleneck, packets                      default 50
#   in         IN (precedence 0) curve "min max max_p"                             default "20 40 0.02"
#   out        OUT (precedence 1) curve "min max max_p"                            default "10 20 0.1"
#   mode       setMREDMode of the bottleneck: RIO-C, RIO-D or WRED                  default RIO-C
#   mps        meanPktSize of both dsRED queues, bytes                              default 1040
#   start_step flow i starts at i * start_step seconds                             default 0.05
#   trace      1: a queue trace of the bottleneck piped through awk splits the
#              bottleneck's drops into overflow (the physical queue was full) and
#              the rest, and measures departures and the mean queue; 0 for timing  default 1
#   avg_trace  a file name: the bottleneck's averages and lengths per precedence
#              every 10 ms (getAverageV / getCurrentV), for diagnosis              default none
#   lt         limited transmit singledup_ (1 = ns-2.35's default)                 default 1
#   window, iw TCP window_ and windowInit_, packets                                default 1000, 2
#   traffic    tcp: greedy TCP flows; cbr: open-loop UDP CBR flows of 1040-byte
#              packets instead (a deterministic check of the edge marker)           default tcp
#   cbr_a      rate of each cbr flow 0..9, bit/s                                    default 250000
#   cbr_b      rate of each cbr flow 10..19, bit/s                                  default 700000
#   cwnd_trace a file name: every sender's cwnd_, ssthresh_ and backoff_ changes
#              (ns-2 variable trace, for diagnosis)                               default none
#   ecn        1: ECN-capable TCP (Agent/TCP ecn_) and a marking bottleneck (Queue/dsRED
#              ecn_: dsredq.cc marks an ECT arrival where it would drop it, early or
#              beyond max_th; validation/ns2/diffserv_ecn.py)                     default 0
#   events     1: count every retransmission timeout (the senders' event trace, "TIMEOUT"
#              lines, through awk) and print "TIMEOUTS n0 n1 ..." after the report:
#              nrexmit_ leaves out the timeouts that end an ECN reduction      default 0
#
# Output: one JSON object on stdout (see `finish`), then, with trace=1, a line "TRACE {...}"
# that awk prints when its input closes. Nothing is written to disk (except avg_trace and
# cwnd_trace).
#
# Every setting that the afsim scenario has to match is set explicitly; ns-2.35 defaults that
# differ from the configuration are marked "ns-2.35 default:". See
# validation/ns2/diffserv-results.md.

set setup0 [clock microseconds]
source [file join [file dirname [info script]] common.tcl]

# ------------------------------------------------------------------ arguments
array set opt {
    seed 1 duration 200 cir_a 200000 cir_b 600000 cbs 10000 limit 50
    in "20 40 0.02" out "10 20 0.1" mode RIO-C mps 1040 start_step 0.05
    trace 1 avg_trace "" window 1000 iw 2 lt 1 cwnd_trace ""
    traffic tcp cbr_a 250000 cbr_b 700000 ecn 0 events 0
}
parse_options diffserv.tcl opt $argv
set NA 10
set NB 10
set N [expr {$NA + $NB}]
set T [expr {double($opt(duration))}]
if {$opt(seed) <= 0} { puts stderr "diffserv.tcl: seed must be > 0 (0 = seeded from the clock)"; exit 2 }

# Code points: in profile 10 (AF11), out of profile 12 (AF12).
set CP_IN 10
set CP_OUT 12

# ------------------------------------------------------------------ TCP
# As validation/ns2/dumbbell.tcl: Agent/TCP/Newreno with Agent/TCPSink (an ACK per segment),
# 1000-byte payloads + 40 B headers = 1040 B IP packets, a 10 ms tick, ECN as opt(ecn) (common.tcl).
tcp_defaults 1000 $opt(window) $opt(iw) $opt(lt) 0.01 $opt(ecn)

# ------------------------------------------------------------------ topology
set ns [new Simulator]
global defaultRNG
$defaultRNG seed $opt(seed)

# Node ids (used by addPolicyEntry): created in this order.
set edge [$ns node]
set core [$ns node]
set egress [$ns node]
for {set i 0} {$i < $N} {incr i} {
    set src($i) [$ns node]
    set dst($i) [$ns node]
}

# Edge -> core: the marking queue, Queue/dsRED/edge, at 100 Mb/s (never congested).
$ns simplex-link $edge $core 100Mb 1ms dsRED/edge
$ns simplex-link $core $edge 100Mb 1ms DropTail
$ns queue-limit $edge $core 1000
$ns queue-limit $core $edge 1000
# Core -> egress: the bottleneck, Queue/dsRED/core. The way back carries only ACKs.
$ns simplex-link $core $egress 10Mb 20ms dsRED/core
$ns simplex-link $egress $core 10Mb 20ms DropTail
$ns queue-limit $core $egress $opt(limit)
$ns queue-limit $egress $core 1000
for {set i 0} {$i < $N} {incr i} {
    $ns duplex-link $src($i) $edge 100Mb 1ms DropTail
    $ns duplex-link $egress $dst($i) 100Mb 1ms DropTail
    foreach {a b} [list $src($i) $edge $edge $src($i) $egress $dst($i) $dst($i) $egress] {
        $ns queue-limit $a $b 1000
    }
}

# ------------------------------------------------------------------ DiffServ
set qE [[$ns link $edge $core] queue]
set qC [[$ns link $core $egress] queue]

# Edge: one token bucket per (source, destination) pair; the policy's initial code point 10 is
# written on every packet, and the policer downgrades a packet that finds too few bytes in the
# bucket to 12. CIR in bit/s, CBS in bytes; a packet costs its size in bytes (hdr_cmn size, 1040).
dsred_in_out $qE $opt(mps) RIO-C
for {set i 0} {$i < $N} {incr i} {
    set cir [expr {$i < $NA ? $opt(cir_a) : $opt(cir_b)}]
    $qE addPolicyEntry [$src($i) id] [$dst($i) id] TokenBucket $CP_IN $cir $opt(cbs)
}
$qE addPolicerEntry TokenBucket $CP_IN $CP_OUT
# The edge's own RIO never drops: thresholds far above anything a 100 Mb/s queue holds here.
$qE configQ 0 0 900 950 0.02
$qE configQ 0 1 900 950 0.02

# Core: one physical queue, two precedences (virtual queues), RIO-C; AF11 -> precedence 0 (IN),
# AF12 -> precedence 1 (OUT). configQ queue prec min_th max_th max_p [w_q, default 0.002].
dsred_in_out $qC $opt(mps) $opt(mode)
$qC set ecn_ $opt(ecn)                ;# ns-2.35 default: 0
eval $qC configQ 0 0 $opt(in)
eval $qC configQ 0 1 $opt(out)

# ------------------------------------------------------------------ bottleneck trace
# A queue trace of core->egress through awk splits the drops into overflow and RIO's, and
# measures departures and the mean queue (common.tcl, queue_trace).
set trchan ""
if {$opt(trace)} {
    set trchan [queue_trace $ns $core $egress $opt(limit) $T $N]
}

# ------------------------------------------------------------------ flows
if {$opt(traffic) == "cbr"} {
    # Open loop: Agent/UDP packets of packetSize_ 1040 bytes (UDP adds no header in ns-2, so
    # 1040 is the IP size, as afsim's packet_size), one every 1040 x 8 / rate seconds, the
    # first at the flow's start (random_ 0: no jitter); Agent/LossMonitor counts arrivals.
    for {set i 0} {$i < $N} {incr i} {
        set udp($i) [new Agent/UDP]
        $udp($i) set packetSize_ 1040
        $udp($i) set fid_ $i
        set sink($i) [new Agent/LossMonitor]
        $ns attach-agent $src($i) $udp($i)
        $ns attach-agent $dst($i) $sink($i)
        $ns connect $udp($i) $sink($i)
        set cbr($i) [new Application/Traffic/CBR]
        $cbr($i) set packetSize_ 1040
        $cbr($i) set rate_ [expr {$i < $NA ? $opt(cbr_a) : $opt(cbr_b)}]
        $cbr($i) set random_ 0
        $cbr($i) attach-agent $udp($i)
        $ns at [expr {$i * $opt(start_step)}] "$cbr($i) start"
    }
}
# Every retransmission timeout, by flow (common.tcl, timeout_trace).
lassign {"" ""} evchan evtrace
if {$opt(events) && $opt(traffic) == "tcp"} {
    lassign [timeout_trace $N] evchan evtrace
}
for {set i 0} {$i < $N && $opt(traffic) == "tcp"} {incr i} {
    set tcp($i) [new Agent/TCP/Newreno]
    $tcp($i) set fid_ $i
    set sink($i) [new Agent/TCPSink]
    $ns attach-agent $src($i) $tcp($i)
    $ns attach-agent $dst($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    $ns at [expr {$i * $opt(start_step)}] "$ftp($i) start"
    if {$evtrace != ""} { $tcp($i) eventtrace $evtrace }
}

if {$opt(cwnd_trace) != "" && $opt(traffic) == "tcp"} {
    set cwndchan [open $opt(cwnd_trace) w]
    for {set i 0} {$i < $N} {incr i} {
        $tcp($i) attach $cwndchan
        $tcp($i) trace cwnd_
        $tcp($i) trace ssthresh_
        $tcp($i) trace backoff_
    }
}

# The largest averages seen, sampled every 10 ms (getAverageV queue prec): tells whether a
# precedence's ldrops can include drops forced by its average (above its max_th) or are all
# overflow. With avg_trace, every sample is also written to that file.
set maxavg(0) 0.0
set maxavg(1) 0.0
set avgchan ""
if {$opt(avg_trace) != ""} { set avgchan [open $opt(avg_trace) w] }
proc sample_avg {} {
    global ns qC avgchan maxavg
    set a0 [$qC getAverageV 0 0]
    set a1 [$qC getAverageV 0 1]
    if {$a0 > $maxavg(0)} { set maxavg(0) $a0 }
    if {$a1 > $maxavg(1)} { set maxavg(1) $a1 }
    if {$avgchan != ""} {
        puts $avgchan [format "%.3f %s %s %s %s" [$ns now] $a0 $a1 [$qC getCurrentV 0 0] [$qC getCurrentV 0 1]]
    }
    $ns at [expr {[$ns now] + 0.01}] sample_avg
}
$ns at 0.0 sample_avg

# ------------------------------------------------------------------ report
proc cpstats {q cp} {
    # dsREDQueue getStat: per code point, counted when the packet arrives at the queue.
    # pkts: arrivals; edrops: PKT_EDROPPED (random early drops); drops ("ldrops" in
    # printStats): PKT_DROPPED = the physical queue full, or the average above max_th.
    set p [expr {int([$q getStat pkts $cp])}]
    set e [expr {int([$q getStat edrops $cp])}]
    set l [expr {int([$q getStat drops $cp])}]
    return [format {{"pkts": %d, "tx": %d, "edrops": %d, "ldrops": %d}} $p [expr {$p - $e - $l}] $e $l]
}

proc finish {} {
    global ns opt N NA T tcp sink qE qC trchan evchan wall0 setup0 CP_IN CP_OUT maxavg avgchan
    set wall [expr {([clock microseconds] - $wall0) / 1e6}]
    set setup [expr {($wall0 - $setup0) / 1e6}]
    set flows {}
    for {set i 0} {$i < $N} {incr i} {
        if {$opt(traffic) == "cbr"} {
            lappend flows [format {{"packets_received": %d}} [$sink($i) set npkts_]]
            continue
        }
        # TCPSink bytes_: in-order bytes counted at 1040 per segment; goodput counts payload.
        # (packet 0 has no header bytes: TcpAgent::output adds headersize() only above seqno 0)
        set segs [expr {(int([$sink($i) set bytes_]) + 40) / 1040}]
        lappend flows [format {{"cir": %d, "goodput_bytes": %d, "data_pkts_sent": %d, "rexmit_pkts": %d, "timeouts": %d, "ecn_responses": %d}} \
            [expr {$i < $NA ? $opt(cir_a) : $opt(cir_b)}] [expr {$segs * 1000}] \
            [$tcp($i) set ndatapack_] [$tcp($i) set nrexmitpack_] [$tcp($i) set nrexmit_] \
            [$tcp($i) set necnresponses_]]
    }
    if {$avgchan != ""} { close $avgchan }
    puts [format {{"simulator": "ns-2", "traffic": "%s", "seed": %d, "duration_s": %s, "wall_s": %.6f, "setup_s": %.6f, "mode": "%s",
 "max_avg_sampled": [%.4f, %.4f],
 "edge": {"%d": %s, "%d": %s},
 "core": {"%d": %s, "%d": %s},
 "flows": [%s]}} \
        $opt(traffic) $opt(seed) $T $wall $setup $opt(mode) $maxavg(0) $maxavg(1) \
        $CP_IN [cpstats $qE $CP_IN] $CP_OUT [cpstats $qE $CP_OUT] \
        $CP_IN [cpstats $qC $CP_IN] $CP_OUT [cpstats $qC $CP_OUT] \
        [join $flows ",\n  "]]
    flush stdout
    if {$trchan != ""} {
        # awk prints its summary when its input closes
        $ns flush-trace
        close $trchan
    }
    if {$evchan != ""} {
        # awk prints the timeouts when its input closes
        close $evchan
    }
    exit 0
}
# wall_s: the event loop from simulated time 0 to the end; setup_s: building the network and
# `$ns run`'s route computation, before time 0.
$ns at $T "finish"
$ns at 0.0 {set wall0 [clock microseconds]}
$ns run
