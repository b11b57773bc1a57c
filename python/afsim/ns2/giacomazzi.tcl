# ns-2.35 twin of afsim's python/afsim/scenarios/giacomazzi/token-bucket.toml: Giacomazzi et
# al.'s scenario 1 with a plain token bucket marker (the frame of the paper's network that ns-2
# can run; the paper's own rows use the enhanced token bucket and ATM cells, which ns-2 lacks).
#
#   src_i ─2Mb, access_delay─ m_i ─100Mb, 0 s, dsRED/edge─ border1 ═30.792Mb, backbone_delay, dsRED/core═ border2 ─2Mb, access_delay, dsRED/core─ dst_i
#
# m_i is border1's input port of line i: afsim meters a packet as it arrives at border1 from its
# E1 line, so the twin meters it in a marking queue (Queue/dsRED/edge, one policy: dsPolicy.cc
# holds at most 20 per queue) that forwards it to border1 in 46 µs (100 Mb/s), after the line.
# The values are the afsim scenario's, passed by afsim.reproduce (giacomazzi.py, `ns2_args`).
#
# Usage (key=value; every argument is optional):
#   ns giacomazzi.tcl seed=1 duration=300 n_af=10
#
#   seed            seed of ns-2's default RNG (RIO's coin flips); > 0                default 1
#   duration        simulated seconds                                                 default 300
#   n_af            N_AF, the sources                                                 default 10
#   cir             each bucket's rate, bit/s (Table 1's r)                           default 1000000
#   cbs             each bucket's depth, bytes (b1 = 10 tokens of 576 B)              default 5760
#   access_delay    the E1 lines' delay                                               default 1ms
#   backbone_delay  the E3 connection's delay                                         default 10ms
#   w_q             RIO's weight, both precedences                                    default 0.002
#   limit           afsim's RIO buffer, packets (dsRED's queue-limit is it)           default 240
#   window          window_, packets: 64 KiB of 536-byte payloads                     default 122
#   tick            tcpTick_, seconds (§V.A: 500 ms)                                  default 0.5
#   start_step      flow i starts at i * start_step seconds                           default 0.1
#
# Output (stdout): "NS2 {...}" (configuration and border1's dsRED counters per code point:
# 10 = AF11, in profile; 0 = best effort, the policer's downgrade), "SENT b0 b1 ..." (IP bytes
# each source sent), "DELIVERED b0 b1 ..." and "TOTAL ..." (IP bytes each destination received;
# common.tcl bytes_trace).

source [file join [file dirname [info script]] common.tcl]

array set opt {
    seed 1 duration 300 n_af 10 cir 1000000 cbs 5760 access_delay 1ms backbone_delay 10ms
    w_q 0.002 limit 240 window 122 tick 0.5 start_step 0.1
}
parse_options giacomazzi.tcl opt $argv
set N $opt(n_af)
set T [expr {double($opt(duration))}]
if {$opt(seed) <= 0} { puts stderr "giacomazzi.tcl: seed must be > 0"; exit 2 }
set CP_IN 10
set CP_BE 0
# the hosts' and the ACK paths' DropTail queues: afsim's 200 packets (drop-tail.cc holds limit_ - 1)
set DT 201

# §V.A: 576-byte IP packets (536 of payload), the 64 KiB window, the 500 ms tick; ns-2.35's Reno
# as afsim's ns2 preset (initial window 1, no limited transmit: the scenario's values).
tcp_defaults 536 $opt(window) 1 0 $opt(tick) 0

set ns [new Simulator]
global defaultRNG
$defaultRNG seed $opt(seed)

set b1 [$ns node]
set b2 [$ns node]
for {set i 0} {$i < $N} {incr i} {
    set src($i) [$ns node]
    set dst($i) [$ns node]
    set m($i) [$ns node]
}
$ns simplex-link $b1 $b2 30.792Mb $opt(backbone_delay) dsRED/core
$ns simplex-link $b2 $b1 30.792Mb $opt(backbone_delay) DropTail
$ns queue-limit $b1 $b2 $opt(limit)
$ns queue-limit $b2 $b1 $DT
for {set i 0} {$i < $N} {incr i} {
    $ns duplex-link $src($i) $m($i) 2Mb $opt(access_delay) DropTail
    $ns simplex-link $m($i) $b1 100Mb 0ms dsRED/edge
    $ns simplex-link $b1 $m($i) 100Mb 0ms DropTail
    $ns queue-limit $m($i) $b1 $opt(limit)
    $ns queue-limit $b1 $m($i) $DT
    $ns simplex-link $b2 $dst($i) 2Mb $opt(access_delay) dsRED/core
    $ns simplex-link $dst($i) $b2 2Mb $opt(access_delay) DropTail
    foreach {a b} [list $src($i) $m($i) $m($i) $src($i) $dst($i) $b2] { $ns queue-limit $a $b $DT }
    $ns queue-limit $b2 $dst($i) $opt(limit)
}

# Table 1's RIO (coupled), in profile = precedence 0, best effort = precedence 1.
proc rio {q} {
    global opt CP_IN CP_BE
    $q meanPktSize 576
    $q set numQueues_ 1
    $q setNumPrec 2
    $q setMREDMode RIO-C
    $q addPHBEntry $CP_IN 0 0
    $q addPHBEntry $CP_BE 0 1
    $q configQ 0 0 70 120 0.01 $opt(w_q)
    $q configQ 0 1 10 60 0.2 $opt(w_q)
}
set qC [[$ns link $b1 $b2] queue]
rio $qC
# The marker: a TokenBucket per input line (dsPolicy.cc: CIR bit/s, CBS bytes; a packet costs
# its bytes), the policer downgrading a packet short of tokens to best effort. The marking
# queue's own RIO never drops (its thresholds above its limit).
for {set i 0} {$i < $N} {incr i} {
    set qE [[$ns link $m($i) $b1] queue]
    rio $qE
    $qE configQ 0 0 [expr {$opt(limit) - 2}] [expr {$opt(limit) - 1}] 0.02
    $qE configQ 0 1 [expr {$opt(limit) - 2}] [expr {$opt(limit) - 1}] 0.02
    $qE addPolicyEntry [$src($i) id] [$dst($i) id] TokenBucket $CP_IN $opt(cir) $opt(cbs)
    $qE addPolicerEntry TokenBucket $CP_IN $CP_BE
    rio [[$ns link $b2 $dst($i)] queue]
}

# IP bytes each source sends and each destination receives.
set srcs {}; set ms {}; set dsts {}
for {set i 0} {$i < $N} {incr i} { lappend srcs $src($i); lappend ms $m($i); lappend dsts $dst($i) }
set chan [bytes_trace $ns $srcs $ms [lrepeat $N $b2] $dsts 0]
for {set i 0} {$i < $N} {incr i} {
    lassign [greedy_flow $ns $src($i) $dst($i) [tcp_agents giacomazzi.tcl reno] $i \
        [expr {$i * $opt(start_step)}] ""] tcp($i) sink($i)
}

proc finish {} {
    global ns opt N T qC CP_IN CP_BE chan wall0
    set wall [expr {([clock microseconds] - $wall0) / 1e6}]
    puts [format {NS2 {"script": "giacomazzi.tcl", "seed": %d, "duration_s": %s, "n_af": %d, "cir_bps": %s, "wall_s": %.6f, "border1": {"%d": %s, "%d": %s}}} \
        $opt(seed) $T $N $opt(cir) $wall $CP_IN [cpstats $qC $CP_IN] $CP_BE [cpstats $qC $CP_BE]]
    flush stdout
    $ns flush-trace
    close $chan
    exit 0
}
$ns at $T "finish"
$ns at 0.0 {set wall0 [clock microseconds]}
$ns run
